#!/bin/sh
# `cxlbed sweep`: a 4-point matrix (media latency x link latency of a small
# direct expander, tests/data/sweep-4.sweep) as a Slurm job array on a real
# single-node cluster (Debian's slurm-wlm and munge; slurmctld, slurmd and
# munged are started here, on private ports and files, and stopped after),
# submitted, run, and collected into one CSV with a row of modeled figures
# per point; a 2-point sweep run here with --jobs 2; bad sweep files stop
# before anything runs.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 16

# --- bad input: nothing expanded, nothing run --------------------------
bad=$outroot/bad.sweep
sed "s|^scenario = .*|scenario = $top/tests/data/sweep-small.scn|; s/^values = 150 300/values = 150 fast/" \
	"$top/tests/data/sweep-4.sweep" >"$bad"
"$cxlbed" sweep --out "$outroot/never" "$bad" >/dev/null 2>"$outroot/bad.err"
rc=$?
check "a value the topology refuses: exit 2, SWEEPFILE:LINE names the point, nothing left (rc $rc)" \
	sh -c "[ $rc = 2 ] && grep -q '^$bad:[0-9]*: point p2 (media=fast, link=5): ' '$outroot/bad.err' &&
		[ ! -e '$outroot/never' ]"
sed -i 's/^values = 150 fast/values = 150/; s/^key = device mem0 link-latency-ns/key = device mem9 link-latency-ns/' "$bad"
"$cxlbed" sweep --out "$outroot/never" "$bad" >/dev/null 2>"$outroot/bad2.err"
rc=$?
check "a key of a section the topology lacks: exit 2 naming [device mem9] (rc $rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'no \[device mem9\] section' '$outroot/bad2.err'"

# --- two points here, two at a time ------------------------------------
loc=$outroot/local
"$cxlbed" sweep --jobs 2 --out "$loc" "$top/tests/data/sweep-2.sweep" >"$outroot/local.out" 2>"$outroot/local.err"
rc=$?
ok $rc "local sweep of 2 points with --jobs 2 exits 0"
[ $rc -eq 0 ] || tail -n 20 "$outroot/local.err" | diag
check "local sweep.csv: a header and 2 rows (point,media,verdict,clock,...), both pass, modeled" \
	sh -c "[ \$(wc -l <'$loc/sweep.csv') = 3 ] &&
		[ \$(awk -F, 'NR > 1 && \$3 == \"pass\" && \$4 == \"modeled\"' '$loc/sweep.csv' | wc -l) = 2 ]"
check "no QEMU left behind (local sweep)" no_qemu_left "$loc"

# --- a single-node Slurm cluster ---------------------------------------
[ "$(id -u)" = 0 ] || { for i in $(seq 11); do skip "not root: cannot start slurmctld/slurmd"; done; finish; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	for i in $(seq 11); do skip "no slurm-wlm/munge (ci/deps installs them)"; done
	finish
fi
sl=$outroot/slurm
mkdir -p "$sl/munge" "$sl/state" "$sl/spool"
chmod 700 "$sl/munge"
dd if=/dev/urandom of="$sl/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$sl/munge/munge.key"
node=$(hostname -s)	# addresses given: a host name need not resolve (a fresh chroot's does not)
export SLURM_CONF=$sl/slurm.conf
cat >"$SLURM_CONF" <<EOC
ClusterName=cxlbedtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sl/munge/munge.socket
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=cxlbed Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOC
job=
stop_cluster() {
	[ -n "$job" ] && scancel "$job" 2>/dev/null
	for p in "$sl/slurmd.pid" "$sl/slurmctld.pid" "$sl/munge/munged.pid"; do
		pid=$(cat "$p" 2>/dev/null) && kill "$pid" 2>/dev/null
	done
	cleanup
}
trap stop_cluster EXIT
munged --force -S "$sl/munge/munge.socket" --key-file="$sl/munge/munge.key" \
	--log-file="$sl/munge/munged.log" --pid-file="$sl/munge/munged.pid" \
	--seed-file="$sl/munge/munged.seed" &&
	slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1)); [ $i -gt 150 ] && break; sleep 0.2
done
check "munged, slurmctld and slurmd up: the node is idle" sh -c "sinfo -h -o %t | grep -q idle"

out=$outroot/sweep
"$cxlbed" sweep --slurm --submit --out "$out" "$top/tests/data/sweep-4.sweep" >"$outroot/submit.out" 2>&1
rc=$?
job=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' "$outroot/submit.out")
check "cxlbed sweep --slurm --submit: exit 0, a job id ($job) (rc $rc)" sh -c "[ $rc = 0 ] && [ -n '$job' ]"
check "sweep.sbatch is an array of 4 tasks, one per point" \
	grep -q '^#SBATCH --array=0-3$' "$out/sweep.sbatch"
i=0
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
	i=$((i + 1)); [ $i -gt 900 ] && break; sleep 1
done
check "the job array finished within 15 minutes" sh -c "[ -z \"\$(squeue -h -j $job 2>/dev/null)\" ]"
check "each task logged its run (slurm-0..3.log)" \
	sh -c "for a in 0 1 2 3; do grep -q 'verdict: pass' '$out/points/slurm-'\$a.log || exit 1; done"

"$cxlbed" sweep --collect "$out" >"$outroot/collect.out" 2>&1
rc=$?
ok $rc "cxlbed sweep --collect exits 0 (every point passed)"
[ $rc -eq 0 ] || tail -n 10 "$outroot/collect.out" | diag
diag <"$out/sweep.csv"
check "sweep.csv has a header and 4 rows, each pass with modeled figures" \
	sh -c "[ \$(wc -l <'$out/sweep.csv') = 5 ] &&
		[ \$(awk -F, 'NR > 1 && \$4 == \"pass\" && \$5 == \"modeled\" && \$7 > 0' '$out/sweep.csv' | wc -l) = 4 ]"
# CXL latency follows the parameters: media 150 < 300, link 5 < 25.
check "CXL latency rises with the link latency and the media latency (p0 < p1 < p2 < p3)" \
	sh -c "awk -F, 'NR > 1 { if (\$7 !~ /^[0-9.]+\$/ || (NR > 2 && \$7 <= last)) bad = 1; last = \$7; n++ }
		END { exit bad || n != 4 }' '$out/sweep.csv'"
check "the media latency is what moved most: p2 - p0 about 150 ns" \
	sh -c "awk -F, 'NR == 2 { a = \$7 } NR == 4 { b = \$7 } END { exit !(b - a > 140 && b - a < 160) }' '$out/sweep.csv'"
check "report.html and sweep.svg written" test -s "$out/report.html" -a -s "$out/sweep.svg"
check "no QEMU left behind (Slurm sweep)" no_qemu_left "$out"
finish

#!/bin/sh
# `cxlbed sweep`: a 4-point matrix (media latency x link latency of a small
# direct expander, tests/data/sweep-4.sweep) as a Slurm job array on a real
# single-node cluster (Debian's slurm-wlm and munge; slurmctld, slurmd and
# munged are started here, on private ports and files, and stopped after),
# submitted, run, and collected into one CSV with a row of modeled figures
# per point; a 2-point sweep run here with --jobs 2; bad sweep files stop
# before anything runs, the --dry-run ones without guests.
. "$(dirname "$0")/lib.sh"
[ -x "$cxlbed" ] || skip_all "./cxlbed not built (run make)"
plan 23

# --- refused before anything is written (no guests: --dry-run) ----------
# $1 what, $2 folder that must not appear, $3 the message's start (grep -E)
refused() {
	if [ "$rc" = 2 ] && grep -qE "^$3" "$outroot/err" && [ ! -e "$2" ]; then r=0; else r=1; fi
	ok $r "$1: exit 2 with its message, nothing written (rc $rc)"
	[ $r = 0 ] || head -c 600 "$outroot/err" | diag
}
big=$outroot/big.sweep
awk -v topo="$top/tests/data/small-llc.topo" 'BEGIN {
	printf "[sweep]\ntopology = %s\n", topo
	for (a = 0; a < 2; a++) {
		printf "[vary a%d]\nkey = device mem0 k%d\nvalues =", a, a
		for (v = 0; v < 65537; v++) printf " %d", v
		printf "\n"
	}
}' >"$big"
start=$(date +%s)
"$cxlbed" sweep --dry-run --out "$outroot/big" "$big" >/dev/null 2>"$outroot/err"
rc=$?
secs=$(($(date +%s) - start))
refused "65537 x 65537 values in ${secs} s" "$outroot/big" \
	"$big:5: \[vary a0\]: the matrix has 65537 x 65537 = 4295098369 points, more than 4096"
bad=$top/tests/data/bad
"$cxlbed" sweep --dry-run --out "$outroot/h9" "$bad/sweep-event-host.sweep" >/dev/null 2>"$outroot/err"
rc=$?
refused "a point binding host h9, as run refuses it" "$outroot/h9" \
	"$bad/sweep-event-host.sweep:9: point p1 \(host=h9\): .*host = h9: no such host"
"$cxlbed" sweep --dry-run --out "$outroot/lf" "$bad/sweep-link-fault-untimed.sweep" >/dev/null 2>"$outroot/err"
rc=$?
refused "a point with a link fault and timing = off" "$outroot/lf" \
	"$bad/sweep-link-fault-untimed.sweep:9: point p1 \(timing=off\): .*needs the timing model"
mkdir "$outroot/root"
CXLBED_ROOT=$outroot/root "$cxlbed" sweep --dry-run "$bad/sweep-name-path.sweep" >/dev/null 2>"$outroot/err"
rc=$?
refused "name = ../../.. (default folder under results/)" "$outroot/root/results" \
	"$bad/sweep-name-path.sweep:5: name: '../../..' is not a name"
"$cxlbed" sweep --slurm --out "$outroot/a b" "$top/tests/data/sweep-4.sweep" >/dev/null 2>"$outroot/err"
rc=$?
refused "--slurm into a folder with a blank" "$outroot/a b" "cxlbed sweep: --out $outroot/a b: with --slurm"
"$cxlbed" sweep --slurm --out "$outroot/sb" "$top/tests/data/sweep-4.sweep" >/dev/null 2>"$outroot/err"
rc=$?
check "--slurm without --submit: exit 0, an array of 4 (rc $rc)" \
	sh -c "[ $rc = 0 ] && grep -q '^#SBATCH --array=0-3$' '$outroot/sb/sweep.sbatch'"
check "sweep.sbatch: --mem=1537M (docs/sweeps.md), logs slurm-%A_%a.log, job cxlbed-sweep-4" \
	sh -c "grep -q '^#SBATCH --mem=1537M$' '$outroot/sb/sweep.sbatch' &&
		grep -q '^#SBATCH --output=$outroot/sb/points/slurm-%A_%a.log$' '$outroot/sb/sweep.sbatch' &&
		grep -q '^#SBATCH --job-name=cxlbed-sweep-4$' '$outroot/sb/sweep.sbatch'"

# --- with guests from here -----------------------------------------------
guests=
[ -f "$top/build/guest/vmlinuz" ] && [ -f "$top/build/guest/initramfs.cpio.gz" ] ||
	guests="guest image not built (run make)"
[ -n "$guests" ] || [ -f "$top/build/timing/libcxlbed-timing.so" ] ||
	guests="timing plugin not built (run make)"
if [ -n "$guests" ]; then
	for i in $(seq 16); do skip "$guests"; done
	finish
fi

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
# the node's memory, MiB: the array asks for --mem (Slurm's default is 1 MiB)
mem_mib=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mib State=UNKNOWN
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
check "each task logged its run (slurm-${job}_0..3.log)" \
	sh -c "for a in 0 1 2 3; do grep -q 'verdict: pass' '$out/points/slurm-${job}_'\$a.log || exit 1; done"

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

#!/bin/sh
# Runs do not clash and killed runs leave nothing behind (docs/run-state.md):
# two `run --timing` started in the same second get their own folders and
# shm segments and both pass; a SIGKILLed cxlbed's folder says it was
# killed and at which stage, and the next `cxlbed clean` or `cxlbed run`
# removes its sockets, pid files and segment; a live run is never touched
# by a concurrent `clean`; --out refusals exit 2 with nothing created.
. "$(dirname "$0")/lib.sh"
need_image
command -v jq >/dev/null || skip_all "jq not installed"
plan 44
topo=$top/topologies/direct.topo

# wait_stage DIR STAGE PID: until DIR/state.json says STAGE (PID must live).
wait_stage() {
	i=0
	while [ "$(jq -r .stage "$1/state.json" 2>/dev/null)" != "$2" ]; do
		i=$((i + 1))
		[ $i -gt 1200 ] && { echo "stage $2 never came" | diag; return 1; }
		kill -0 "$3" 2>/dev/null || { echo "cxlbed ended before stage $2" | diag; return 1; }
		sleep 0.1
	done
}
# wait_file FILE: until it exists (QEMU makes its sockets shortly after start).
wait_file() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}
st() { jq -r "$2" "$1/state.json"; }
shm_file() { echo "/dev/shm$(st "$1" .shm)"; }
# No socket or QEMU pid file left in DIR.
no_sockets() { ! ls "$1"/*.sock "$1"/*.pid >/dev/null 2>&1; }
# Until QEMU of DIR is gone (the kernel kills it when cxlbed dies).
wait_no_qemu() {
	i=0
	while pgrep -f "qemu-system.*$1" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

# 1. Two timing runs started in the same second, default results folders.
while [ "$(date +%N | cut -c1)" != 0 ]; do :; done	# just after a second begins
"$cxlbed" run --boot-only --timing "$topo" >"$outroot/c1.log" 2>&1 &
p1=$!
"$cxlbed" run --boot-only --timing "$topo" >"$outroot/c2.log" 2>&1 &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
d1=$(sed -n 's/^verdict: .*(\(.*\))$/\1/p' "$outroot/c1.log")
d2=$(sed -n 's/^verdict: .*(\(.*\))$/\1/p' "$outroot/c2.log")
check "two concurrent timing runs both pass (got $rc1, $rc2)" eval '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]'
check "they started in the same second ($(basename "$d1"), $(basename "$d2"))" \
	[ "$(basename "$d1" | cut -d- -f1-2)" = "$(basename "$d2" | cut -d- -f1-2)" ]
check "each has its own folder" eval '[ -n "$d1" ] && [ -n "$d2" ] && [ "$d1" != "$d2" ]'
check "each has its own shm segment ($(st "$d1" .shm), $(st "$d2" .shm))" \
	[ "$(st "$d1" .shm)" != "$(st "$d2" .shm)" ]
check "each plugin was given its own segment" eval \
	'grep -q "shm name=$(st "$d1" .shm)\$" "$d1/timing-h0.cfg" &&
	 grep -q "shm name=$(st "$d2" .shm)\$" "$d2/timing-h0.cfg"'
check "both state files say ended, pass" eval \
	'[ "$(st "$d1" .state) $(st "$d1" .outcome)" = "ended pass" ] &&
	 [ "$(st "$d2" .state) $(st "$d2" .outcome)" = "ended pass" ]'
check "no segment, socket or pid file of either remains" eval \
	'[ ! -e "$(shm_file "$d1")" ] && [ ! -e "$(shm_file "$d2")" ] && no_sockets "$d1" && no_sockets "$d2"'
case "$d1$d2" in "$top/results/"*) rm -rf "$d1" "$d2" ;; esac

# 2. cxlbed SIGKILLed while QEMU boots; `cxlbed clean` cleans after it.
out=$outroot/kill-boot
"$cxlbed" run --boot-only --timing --out "$out" "$topo" >"$out.log" 2>&1 &
pid=$!
wait_stage "$out" booting $pid && wait_file "$out/qmp-h0.sock"
check "while booting: state says running, stage booting" \
	[ "$(st "$out" '.state + " " + .stage')" = "running booting" ]
check "the run's segment exists while it runs" [ -e "$(shm_file "$out")" ]
kill -9 $pid
wait $pid 2>/dev/null
wait_no_qemu "$out"
check "cxlbed SIGKILLed: its QEMU died with it" no_qemu_left "$out"
check "a killed run leaves its socket behind until someone cleans" [ -e "$out/qmp-h0.sock" ]
"$cxlbed" clean >"$outroot/clean1.log" 2>&1
rc=$?
check "cxlbed clean exits 0 (got $rc)" [ $rc -eq 0 ]
check "clean names the run it swept" grep -q "swept run $(st "$out" .run_id): .*died at stage booting" "$outroot/clean1.log"
check "state says killed at stage booting" [ "$(st "$out" '.state + " " + .stage')" = "killed booting" ]
check "no socket or pid file remains" no_sockets "$out"
check "the shm segment is gone" [ ! -e "$(shm_file "$out")" ]
check "no QEMU had to be killed by clean (PR_SET_PDEATHSIG took it)" \
	[ "$(st "$out" '.killed.qemu_killed | length')" = 0 ]
check "no QEMU remains" no_qemu_left "$out"

# 3. SIGKILLed while a workload runs; the next `cxlbed run` cleans after it.
out=$outroot/kill-work
"$cxlbed" run --timing --out "$out" "$topo" >"$out.log" 2>&1 &
pid=$!
wait_stage "$out" workloads $pid
check "while a workload runs: stage workloads ($(st "$out" .detail))" \
	[ "$(st "$out" '.state + " " + .stage')" = "running workloads" ]
kill -9 $pid
wait $pid 2>/dev/null
wait_no_qemu "$out"
id=$(st "$out" .run_id)
"$cxlbed" run --boot-only --out "$outroot/next" "$topo" >"$outroot/next.log" 2>&1
rc=$?
check "the next run passes (got $rc)" [ $rc -eq 0 ]
check "the next run says it swept the killed one" grep -q "swept run $id: .*died at stage workloads" "$outroot/next.log"
check "state says killed at stage workloads" [ "$(st "$out" '.state + " " + .stage')" = "killed workloads" ]
check "no socket or pid file remains" no_sockets "$out"
check "the shm segment is gone" [ ! -e "$(shm_file "$out")" ]
check "no QEMU remains" no_qemu_left "$out"

# 4. `cxlbed clean` beside a live run touches none of its files.
out=$outroot/live
"$cxlbed" run --boot-only --timing --out "$out" "$topo" >"$out.log" 2>&1 &
pid=$!
wait_stage "$out" booting $pid && wait_file "$out/qmp-h0.sock" && wait_file "$out/qemu-h0.pid"
"$cxlbed" clean >"$outroot/clean2.log" 2>&1
check "clean says the live run was left alone" grep -q "live run $(st "$out" .run_id) .*left alone" "$outroot/clean2.log"
check "its sockets and pid file are still there" eval \
	'[ -S "$out/qmp-h0.sock" ] && [ -S "$out/agent-h0.sock" ] && [ -f "$out/qemu-h0.pid" ]'
check "its segment is still there" [ -e "$(shm_file "$out")" ]
check "its state still says running" [ "$(st "$out" .state)" = running ]
wait $pid
rc=$?
check "the live run goes on and passes (got $rc)" [ $rc -eq 0 ]
check "and cleans after itself" eval 'no_sockets "$out" && [ ! -e "$(shm_file "$out")" ]'

# 5. --out refusals: exit 2, one line on stderr, nothing created.
#    A register of their own shows no record was left either.
export CXLBED_STATE_DIR=$outroot/state-refusals
full=$outroot/full
mkdir "$full" && echo keep >"$full/notes.txt"
: >"$outroot/a-file"
refused() {  # refused DESCRIPTION PATH-THAT-MUST-NOT-APPEAR VERB ARGS...
	what=$1 absent=$2; shift 2
	"$cxlbed" "$@" >"$outroot/ref.out" 2>"$outroot/ref.err"
	rc=$?
	check "$what: exit 2 (got $rc)" [ $rc -eq 2 ]
	check "$what: one line on stderr, no banner, nothing created" eval \
		'[ "$(wc -l <"$outroot/ref.err")" -eq 1 ] && [ ! -e "$absent" ] &&
		 [ -z "$(ls "$CXLBED_STATE_DIR/runs" 2>/dev/null)" ]'
	diag <"$outroot/ref.err"
}
refused "run --out non-empty folder" "$full/state.json" run --out "$full" "$topo"
check "the non-empty folder is unchanged" [ "$(ls "$full")" = notes.txt ]
refused "run --out path with ','" "$outroot/a,b" run --out "$outroot/a,b" "$topo"
refused "run --out unwritable (/proc)" /proc/cxlbed-it-$$ run --out /proc/cxlbed-it-$$ "$topo"
refused "run --out under a file" "$outroot/a-file/out" run --out "$outroot/a-file/out" "$topo"
refused "table --out non-empty folder" "$full/direct" table --out "$full" "$topo"
refused "boot --out non-empty folder" "$full/state.json" boot --out "$full" "$topo"
finish

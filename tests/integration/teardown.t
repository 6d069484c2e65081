#!/bin/sh
# A run never leaves QEMU behind: not when QEMU is killed mid-run, not on
# Ctrl-C, not when cxlbed itself is SIGKILLed, not when its output's
# reader goes away (`cxlbed run | head -n 1`); bad input starts nothing.
. "$(dirname "$0")/lib.sh"
need_image
plan 16
topo=$top/topologies/direct.topo

# Start a run in the background and wait until its guest agent is up.
start_run() {
	out=$1
	"$cxlbed" run --out "$out" "$topo" >"$out.log" 2>&1 &
	runpid=$!
	i=0
	while ! grep -q ' agent ' "$out.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && { echo "agent never came up" | diag; return 1; }
		kill -0 $runpid 2>/dev/null || return 1
		sleep 0.2
	done
}

# 1. QEMU killed mid-run: failed verdict, clean teardown.
out=$outroot/killed
start_run "$out"
kill -9 "$(cat "$out/qemu-h0.pid")"
wait $runpid
rc=$?
check "QEMU killed mid-run: cxlbed exits 1 (got $rc)" [ $rc -eq 1 ]
check "verdict is fail" [ "$(sj "$out" .verdict)" = fail ]
check "a failed check says QEMU was killed by signal 9" \
	[ "$(sj "$out" '[.checks[] | select(.pass | not) | .detail | test("signal 9")] | any')" = true ]
check "no QEMU left behind" no_qemu_left "$out"

# 2. Ctrl-C (SIGINT to cxlbed): exit 130, summary says interrupted.
out=$outroot/sigint
start_run "$out"
kill -INT $runpid
wait $runpid
rc=$?
check "SIGINT: cxlbed exits 130 (got $rc)" [ $rc -eq 130 ]
check "summary.json written, interrupted, verdict fail" \
	[ "$(sj "$out" '.interrupted != null and .verdict == "fail"')" = true ]
check "SIGINT: QEMU's end reads \"stopped by cxlbed on SIGINT\" (got $(sj "$out" '.hosts[0].qemu_exit'))" \
	[ "$(sj "$out" '.hosts[0].qemu_exit')" = "stopped by cxlbed on SIGINT" ]
check "SIGINT: no check blames signal 9 (cxlbed killed QEMU, not someone else)" \
	[ "$(sj "$out" '[.checks[] | .detail | test("signal 9")] | any')" = false ]
check "SIGINT: report.md says so too" grep -q "stopped by cxlbed on SIGINT" "$out/report.md"
check "no QEMU left behind after SIGINT" no_qemu_left "$out"

# 3. cxlbed SIGKILLed: the kernel takes QEMU with it (PR_SET_PDEATHSIG).
out=$outroot/sigkill
start_run "$out"
qpid=$(cat "$out/qemu-h0.pid")
kill -9 $runpid
wait $runpid 2>/dev/null
i=0
while [ -d /proc/$qpid ] && ! grep -q '^State:.*Z' /proc/$qpid/status 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
check "cxlbed SIGKILLed: its QEMU is gone too" no_qemu_left "$out"
# The timing model's shared segment (/dev/shm/cxlbed-RUN_ID) is the run's
# to remove when it ends; a SIGKILLed run cannot, so remove it here.
rid=$(tr -d '\r' <"$out.log" | sed -n 's/^ *[0-9.]*s  *run  *\([^: ]*\):.*/\1/p' | head -n 1)
[ -n "$rid" ] && rm -f "/dev/shm/cxlbed-$rid"

# 4. Bad input: exit 2, FILE:LINE on stderr, nothing started or written.
out=$outroot/bad
bad=$top/tests/data/bad/unknown-id.topo
"$cxlbed" run --out "$out" "$bad" 2>"$outroot/bad.err" >/dev/null
rc=$?
check "bad topology: exit 2 (got $rc)" [ $rc -eq 2 ]
check "bad topology: message names FILE:LINE" grep -q "^$bad:[0-9]*: " "$outroot/bad.err"
check "bad topology: no run folder created" [ ! -e "$out" ]
# 5. The reader of cxlbed's output goes away: the run still ends by itself.
out=$outroot/piped
"$cxlbed" run --boot-only --out "$out" "$topo" 2>&1 | head -n 1 >/dev/null
check "output piped into head -n 1: the run ended by itself (state $(jq -r .state "$out/state.json" 2>/dev/null))" \
	sh -c "[ \"\$(jq -r '.state + \" \" + .stage' '$out/state.json')\" = 'ended results' ] && [ -s '$out/summary.json' ]"
nothing_left() { ! ls "$1"/qmp-*.sock "$1"/agent-*.sock "$1"/qemu-*.pid 2>/dev/null | grep -q . && no_qemu_left "$1"; }
check "output piped into head -n 1: no QEMU, socket or pid file left" nothing_left "$out"
finish

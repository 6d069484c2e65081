#!/bin/sh
# Ctrl-C (or SIGTERM) at any stage of a pool topology's boot ends the run
# within 2 s of host time: every QEMU stopped, summary.json written
# (interrupted), exit 128+N. Before, the fabric manager's start waited
# 60 s on the socket a stopped host left behind, and a bind in flight
# polled the dead host's QMP for 5 s more.
. "$(dirname "$0")/lib.sh"
need_image
plan 11

# interrupt_when DIR PATTERN SIGNAL INPUT [LOG]: `cxlbed run --boot-only`
# of INPUT, sent SIGNAL as soon as PATTERN is in LOG (DIR/LOG; its output
# without); then $rc is its exit status and $ms the host milliseconds
# from the signal to its exit.
interrupt_when() {
	iw_out=$1 iw_pat=$2 iw_sig=$3 iw_in=$4
	iw_log=${5:+$iw_out/$5}
	iw_log=${iw_log:-$iw_out.log}
	rc=-1 ms=-1
	"$cxlbed" run --boot-only --out "$iw_out" "$iw_in" >"$iw_out.log" 2>&1 &
	iw_pid=$!
	i=0
	while ! grep -q "$iw_pat" "$iw_log" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 6000 ] || ! kill -0 $iw_pid 2>/dev/null; then
			echo "'$iw_pat' never came in $iw_log" | diag
			kill -KILL $iw_pid 2>/dev/null
			wait $iw_pid
			return 1
		fi
		sleep 0.05
	done
	iw_t0=$(date +%s%N)
	kill -"$iw_sig" $iw_pid
	wait $iw_pid
	rc=$?
	ms=$((($(date +%s%N) - iw_t0) / 1000000))
}

# The summary says interrupted by SIG and that cxlbed stopped each QEMU.
says_interrupted() {  # DIR SIG
	jq -e --arg s "SIG$2" '.interrupted == $s and .verdict == "fail" and
		(.hosts | length > 0) and
		all(.hosts[]; .qemu_exit == "stopped by cxlbed on \($s)" or .qemu_exit == null)' \
		"$1/summary.json" >/dev/null
}

# After interrupt_when: three checks, the run in $out ended within 2 s with
# exit 128+N, said so, and left no QEMU.
ended_by() {  # SIG STATUS WHEN
	check "SIG$1 $3: exit $2 within 2 s (exit $rc after $ms ms)" \
		[ $rc -eq "$2" -a $ms -ge 0 -a $ms -lt 2000 ]
	check "SIG$1 $3: summary.json says interrupted by SIG$1, every QEMU stopped by cxlbed" \
		says_interrupted "$out" "$1"
	check "SIG$1 $3: no QEMU left behind" no_qemu_left "$out"
}

# 1. While the fabric manager starts: its first start event's bind has
# asked h0's guest to attach the LD (fm-h0.log: the FM's agent traffic)
# when SIGINT comes.
out=$outroot/fm-start
interrupt_when "$out" '"attach-ld"' INT "$top/tests/data/pool-fm.scn" fm-h0.log
ended_by INT 130 "while the fabric manager starts"

# 2. While the second host boots, the first one's agent up: the fabric
# manager must not start at all, nor wait on the stopped hosts' sockets.
out=$outroot/boot
interrupt_when "$out" " h0 *agent *up" INT "$top/topologies/pool-lending.topo"
ended_by INT 130 "while a pool topology boots"
no_fm_channel() { ! jq -e '[.checks[] | select(.name | startswith("fm:"))] | length > 0' \
	"$1/summary.json" >/dev/null; }
check "no fabric-manager channel was opened to a stopped host (no fm: check)" no_fm_channel "$out"

# 3. SIGTERM as the first host's QMP answers, the other's socket perhaps
# not there yet.
out=$outroot/qmp
interrupt_when "$out" " qmp *connected" TERM "$top/topologies/pool-lending.topo"
ended_by TERM 143 "at the first QMP connection"
check "no socket or pid file left in the run folders" \
	sh -c "! ls '$outroot'/*/*.sock '$outroot'/*/qemu-*.pid 2>/dev/null | grep -q ."
finish

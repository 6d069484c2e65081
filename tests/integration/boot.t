#!/bin/sh
# `cxlbed boot`: the guest console on stdin/stdout with regions online.
# We type into it through a FIFO once cxlbed says the console is ready,
# read the region's size back from the guest's sysfs, and power off.
. "$(dirname "$0")/lib.sh"
need_image
plan 5

out=$outroot/boot
fifo=$outroot/console.in
mkfifo "$fifo"
"$cxlbed" boot --out "$out" "$top/topologies/direct.topo" <"$fifo" >"$outroot/console.out" 2>"$outroot/boot.err" &
pid=$!
exec 3>"$fifo"	# hold the FIFO open: QEMU must not see EOF on its console
i=0
while ! grep -q ' console ' "$outroot/boot.err" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $pid 2>/dev/null; then break; fi
	sleep 0.2
done
check "regions online before the console is handed over" grep -q ' region .*online' "$outroot/boot.err"
sleep 1
printf '\necho SIZE=$(cat /sys/bus/cxl/devices/region0/size)\n' >&3
i=0
while ! grep -q 'SIZE=0x' "$outroot/console.out" && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
check "the console shell answers with the region's size" grep -q 'SIZE=0x10000000' "$outroot/console.out"
printf 'poweroff -f\n' >&3
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null; then kill -INT $pid; fi
wait $pid
rc=$?
exec 3>&-
check "poweroff in the guest ends cxlbed boot with status 0 (got $rc)" [ $rc -eq 0 ]
check "summary.json: 1 memdev, verdict pass (poweroff is a normal end)" [ "$(sj "$out" '.hosts[0].memdevs == 1 and .verdict == "pass"')" = true ]
check "no QEMU left behind" no_qemu_left "$out"
[ "$failed" -eq 0 ] || { tail -n 20 "$outroot/boot.err"; tail -n 20 "$outroot/console.out"; } | diag
finish

#!/bin/sh
# `cxlbed boot`: the guest console on stdin/stdout with regions online.
# We type into it through a FIFO once cxlbed says the console is ready,
# read the region's size back from the guest's sysfs, and power off.
. "$(dirname "$0")/lib.sh"
need_image
plan 5

out=$outroot/boot
console_boot --out "$out" "$top/topologies/direct.topo"
check "regions online before the console is handed over" grep -q ' region .*online' "$outroot/boot.err"
console_type ''
console_type 'echo SIZE=$(cat /sys/bus/cxl/devices/region0/size)'
console_wait 'SIZE=0x'
check "the console shell answers with the region's size" grep -q 'SIZE=0x10000000' "$outroot/console.out"
console_end
check "poweroff in the guest ends cxlbed boot with status 0 (got $console_rc)" [ $console_rc -eq 0 ]
check "summary.json: 1 memdev, verdict pass (poweroff is a normal end)" [ "$(sj "$out" '.hosts[0].memdevs == 1 and .verdict == "pass"')" = true ]
check "no QEMU left behind" no_qemu_left "$out"
[ "$failed" -eq 0 ] || { tail -n 20 "$outroot/boot.err"; tail -n 20 "$outroot/console.out"; } | diag
finish

#!/bin/sh
# Benchmark: the fabric manager's bind and unbind of a 256 MiB LD on a
# running guest, host wall time, five of each (tests/bench/fm-bind.scn).
# bind = QMP object-add + device_add + the guest's attach-ld (memdev
# enumerated, 1-way region, memory online movable); unbind = the guest's
# release-ld (offline, region destroyed, slot powered off) + the FM's
# check that QEMU removed the device. Goal: under 2 s each. Then an unbind
# that migrates 32 MiB off the LD (pool-shift.scn).
. "$(dirname "$0")/lib.sh"

echo "fabric manager bind/unbind of 256 MiB, fm-bind.scn, host wall time (TCG, $(nproc) cores)"
bench_run "$top/tests/bench/fm-bind.scn"
for a in bind unbind; do
	jq -r --arg a "$a" '[.pool.events[] | select(.action == $a and .result == "ok") | .wall_s] |
		sort | "  \($a): \(length) runs, " + (map(. * 100 | round / 100 | tostring) | join(" ")) +
		" s; median \(.[(length - 1) / 2 | floor] * 100 | round / 100) s (goal < 2 s)"' \
		"$tmp/run/summary.json"
done

# An unbind that moves data: workloads/scenarios/pool-shift.scn, where h0
# has written 32 MiB of checksummed data on the LD the FM releases (the
# guest's kernel migrates it off before the slot powers down). Goal:
# under 2 s of host time (issue 32; 12-17 s before CXL memory was mapped
# like RAM).
rm -rf "$tmp/run"
bench_run "$top/workloads/scenarios/pool-shift.scn"
jq -r '.pool.events[] | select(.action == "unbind" and .result == "ok" and .migrated_bytes > 0) |
	"  unbind with data: \(.ld) from \(.host), \(.migrated_bytes / 1048576) MiB migrated, " +
	"\(.wall_s * 100 | round / 100) s (goal < 2 s)"' "$tmp/run/summary.json"

#!/bin/sh
# The timing model's queueing and write bandwidth on a booted guest
# (tests/data/queue-write.scn, docs/timing-model.md "Queueing" and
# "Writes"). On an FPGA-class expander (290 ns idle, 16 GB/s) a chaser's
# latency rises with the streamers' load beside it: at 70% of the
# bandwidth at least 1.2x idle, at 90% at least 1.5x (the curve's points
# interpolated), never falling as the load grows. On an expander that
# reads at 4 GB/s and writes at 1, a store stream runs at the write
# bandwidth within 10%, a read stream well above it.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 9

out=$outroot/queue-write
"$cxlbed" run --out "$out" "$top/tests/data/queue-write.scn" >"$out.out" 2>"$out.err"
rc=$?
ok $rc "cxlbed run queue-write.scn exits 0"
[ $rc -eq 0 ] || tail -n 30 "$out.err" | diag
check "verdict pass" [ "$(sj "$out" .verdict)" = pass ]

# The curve: [load fraction of 16 GB/s, latency over the idle point], by load.
curve=$(sj "$out" '[.workloads[] | select(.program=="cxlbed-loaded") | .output.modeled |
	{x: ((.load_gbps // 0) / 16), y: .loaded_ns_per_access}] | sort_by(.x) |
	(.[0].y) as $idle | map({x, r: (.y / $idle)})')
echo "$curve" | jq -r '.[] | "load \(.x * 100 | floor)% of 16 GB/s: \(.r)x idle"' | diag
# latency ratio at load fraction X, linear between the points around it
at() { echo "$curve" | jq -r --argjson x "$1" '[range(1; length) as $i | .[$i - 1:$i + 1] |
	select(.[0].x <= $x and .[1].x >= $x) |
	.[0].r + (.[1].r - .[0].r) * ($x - .[0].x) / (.[1].x - .[0].x)][0] // 0'; }
idle=$(sj "$out" '[.workloads[] | select(.name=="loaded0") | .output.modeled.loaded_ns_per_access][0] // 0')
r70=$(at 0.7)
r90=$(at 0.9)
check "idle: the chaser alone within 1% of the configured 290 ns ($idle)" \
	awk -v a="$idle" 'BEGIN { exit !(a >= 287.1 && a <= 292.9) }'
check "four points, 0 to 3 streamers" [ "$(echo "$curve" | jq length)" = 4 ]
check "latency never falls as the load grows" \
	[ "$(echo "$curve" | jq '[range(1; length) as $i | .[$i].r >= .[$i - 1].r - 0.002] | all')" = true ]
check "at 70% of the bandwidth: >= 1.2x idle (${r70}x)" awk -v a="$r70" 'BEGIN { exit !(a >= 1.2) }'
check "at 90% of the bandwidth: >= 1.5x idle (${r90}x)" awk -v a="$r90" 'BEGIN { exit !(a >= 1.5) }'

rd=$(sj "$out" '[.workloads[] | select(.name=="write") | .output.modeled.read_gbps][0] // 0')
wr=$(sj "$out" '[.workloads[] | select(.name=="write") | .output.modeled.write_gbps][0] // 0')
check "write-bound: a store stream within 10% of the 1 GB/s write bandwidth ($wr), reads at $rd" \
	awk -v w="$wr" -v r="$rd" 'BEGIN { exit !(w >= 0.9 && w <= 1.1 && r > 2 * w) }'
check "no QEMU left behind" no_qemu_left "$out"
finish

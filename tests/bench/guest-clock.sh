#!/bin/sh
# Benchmark: what the guest clock costs in host wall time. The same timing
# run (the measurement table's kinds, small: tests/data/host-load-2cpu.scn,
# 2 vCPUs; or the scenario/topology given) with the guest in modeled time
# (the default) and on host time as before (--guest-clock=host),
# alternating, BENCH_RUNS times each. Prints, per run: host wall time of
# the whole run, boot to ready, and the host wall time of the workloads;
# then the medians and their ratio. All figures are host wall time.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${BENCH_RUNS:-2}
scn=${1:-$top/tests/data/host-load-2cpu.scn}
tmp=$(mktemp -d /tmp/cxlbed-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "guest clock cost, $(basename "$scn"), $runs runs each, host wall time (TCG, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
i=1
while [ $i -le $runs ]; do
	for mode in modeled host; do
		t0=$(date +%s.%N)
		"$top/cxlbed" run --timing --guest-clock=$mode --out "$tmp/$mode-$i" "$scn" \
			>/dev/null 2>&1 || { echo "$mode run $i failed"; exit 1; }
		t1=$(date +%s.%N)
		jq -r --arg m $mode --arg w "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
			'"\($m) \($w) \(.boot_ready_s) \([.workloads[].host_wall_s] | add)"' \
			"$tmp/$mode-$i/summary.json" >>"$tmp/all"
		tail -n 1 "$tmp/all" | awk -v i=$i '{ printf "  run %d, guest clock %-7s: run %6.1f s, boot to ready %5.1f s, workloads %6.1f s\n", i, $1, $2, $3, $4 }'
	done
	i=$((i + 1))
done
for mode in modeled host; do
	awk -v m=$mode '$1 == m' "$tmp/all" | sort -k2 -n | awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)] }' >"$tmp/run-$mode"
	awk -v m=$mode '$1 == m' "$tmp/all" | sort -k4 -n | awk '{ w[NR] = $4 } END { print w[int((NR + 1) / 2)] }' >"$tmp/wl-$mode"
done
awk -v rm="$(cat "$tmp/run-modeled")" -v rh="$(cat "$tmp/run-host")" \
    -v wm="$(cat "$tmp/wl-modeled")" -v wh="$(cat "$tmp/wl-host")" 'BEGIN {
	printf "median run: modeled %.1f s, host %.1f s (%.2fx)\n", rm, rh, rm / rh
	printf "median workloads: modeled %.1f s, host %.1f s (%.2fx)\n", wm, wh, wm / wh }'

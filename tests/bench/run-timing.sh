#!/bin/sh
# Benchmark: what the timing model costs a whole run. `cxlbed run` (the
# default scenario: boot, region online, chase and stream on both nodes)
# with the timing model, the default, beside `cxlbed run --no-timing`,
# alternating so that host load drifts alike on both. Host wall time of
# the whole command, and the CXL node's latency each way reports (modeled
# virtual time vs the guest's clock under TCG). Prints each run, the
# medians and their ratio.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${BENCH_RUNS:-2}
tmp=$(mktemp -d /tmp/cxlbed-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "cxlbed run (default scenario), $runs runs each way, host wall time (TCG, $(nproc) cores)"
i=1
while [ $i -le $runs ]; do
	for mode in timing no-timing; do
		flag=; [ $mode = no-timing ] && flag=--no-timing
		t0=$(now)
		"$top/cxlbed" run $flag --out "$tmp/$mode-$i" >/dev/null 2>&1 || {
			echo "run $i ($mode) failed; see: $top/cxlbed run $flag"; exit 1; }
		t1=$(now)
		wall=$(echo "$t1 $t0" | awk '{printf "%.1f", $1 - $2}')
		lat=$(jq -r '[.hosts[0].nodes[] | select(.kind=="cxl")][0] | "\(.latency_ns) ns (\(.clock))"' \
			"$tmp/$mode-$i/summary.json")
		printf '  run %d %-10s %6s s wall   CXL latency %s\n' "$i" "$mode" "$wall" "$lat"
		echo "$wall" >>"$tmp/$mode.all"
	done
	i=$((i + 1))
done
m1=$(median "$tmp/timing.all")
m0=$(median "$tmp/no-timing.all")
echo "median wall: $m1 s with the timing model (default), $m0 s with --no-timing" \
	"($(echo "$m1 $m0" | awk '{printf "%+.0f%%", ($1 / $2 - 1) * 100}'))"

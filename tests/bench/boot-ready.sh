#!/bin/sh
# Benchmark: boot-to-ready on the default topology, host wall time.
# "Ready" = from `cxlbed run` starting QEMU to the guest agent reporting
# every region online (summary.json boot_ready_s). Goal: <= 8 s on a
# 2-core machine. Prints each run and the median.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${BENCH_RUNS:-3}
topo=${1:-$top/topologies/default.topo}
tmp=$(mktemp -d /tmp/cxlbed-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "boot-to-ready, $(basename "$topo"), $runs runs, host wall time (TCG, $(nproc) cores, timing model loaded: the default)"
i=1
while [ $i -le $runs ]; do
	"$top/cxlbed" run --boot-only --out "$tmp/$i" "$topo" >/dev/null 2>&1 || {
		echo "run $i failed; see: $top/cxlbed run --boot-only $topo"; exit 1; }
	v=$(jq -r .boot_ready_s "$tmp/$i/summary.json")
	agent=$(grep -m1 -o 'uptime_s":[0-9.]*' "$tmp/$i/qmp-h0.log" | cut -d: -f2 | awk '{printf "%.2f", $1}')
	echo "  run $i: boot_ready_s $v (guest uptime at agent hello: ${agent:-?} s)"
	echo "$v" >>"$tmp/all"
	i=$((i + 1))
done
median=$(sort -n "$tmp/all" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "boot_ready_s median: $median s (goal <= 8 s)"

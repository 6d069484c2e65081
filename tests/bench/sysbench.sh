#!/bin/sh
# Benchmark: a user's own program on CXL memory against local DRAM, host
# wall time (issue 32: within 2x). sysbench memory, 64 MiB blocks, 2 GiB
# written, once under numactl --membind on each node of the default
# topology (tests/bench/sysbench.scn), timing model on. Prints each node's
# host seconds (the workload's host_wall_s), its modeled seconds and
# sysbench's own MiB/s (by the guest clock, which is modeled), and the
# CXL/local host-time ratio.
. "$(dirname "$0")/lib.sh"

echo "sysbench memory (64 MiB blocks, 2 GiB) per node of default.topo: host wall time (TCG, $(nproc) cores) and modeled time"
bench_run "$top/tests/bench/sysbench.scn"
jq -r '.workloads[] | "  node \(.node): \(.host_wall_s * 10 | round / 10) s host, " +
	"\(.output.modeled.seconds // "?" | tostring | .[0:6]) s modeled, " +
	"sysbench \(.output.figures.per_s // "?") \(.output.figures.unit // "")/s"' \
	"$tmp/run/summary.json"
jq -r '[.workloads[] | .host_wall_s] |
	"CXL/local host time: \(.[1] / .[0] * 100 | round / 100)x (goal: within 2x)"' \
	"$tmp/run/summary.json"

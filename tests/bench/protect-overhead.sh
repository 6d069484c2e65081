#!/bin/sh
# Benchmark: what protecting pool data costs when nothing fails. Runs
# tests/bench/protect-overhead.scn once (one boot, six pool nodes) and
# prints, for read-mostly and write-heavy KV offload, each scheme's
# throughput in operations per modeled second (the guest clock is
# modeled; all epochs), its slowdown against unprotected (goal: at most
# 5% read-mostly, 15% write-heavy) and its memory overhead. One sample.
. "$(dirname "$0")/lib.sh"

echo "protection's steady-state cost, KV offload over 6 pool nodes, one run, modeled time"
bench_run "$top/tests/bench/protect-overhead.scn"
jq -r '[.workloads[] | .output as $o | select($o.epochs) |
	{name: .name, scheme: $o.scheme, overhead: $o.overhead, ok: ($o.corrupt == 0 and $o.final_lost == 0),
	 mix: (.name | split("-")[1]),
	 rate: (([$o.epochs[].ops] | add) / ([$o.epochs[] | .t1_s - .t0_s] | add))}] |
	group_by(.mix)[] | (map(select(.scheme == "none"))[0].rate) as $base |
	"  \(if .[0].mix == "rm" then "read-mostly (5% appends)" else "write-heavy (50% appends)" end):",
	(.[] | "    \(.scheme | . + " " * (8 - length)) \(.rate | round) ops/s" +
	 (if $base and .scheme != "none" then ", slowdown \((1 - .rate / $base) * 1000 | round / 10)%" else "" end) +
	 ", memory \(.overhead)x" + (if .ok then "" else ", DATA CHECK FAILED" end))' \
	"$tmp/run/summary.json"

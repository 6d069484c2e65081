#!/bin/sh
# Benchmark: what protecting pool data costs when nothing fails. Runs
# tests/bench/protect-overhead.scn PROTECT_RUNS times (default 3; one boot
# each, six pool nodes) and prints, for read-mostly and write-heavy KV
# offload, each scheme's throughput in operations per modeled second (the
# guest clock is modeled; all epochs), its slowdown against unprotected
# in each run (goal: at most 5% read-mostly, 15% write-heavy) and its
# memory overhead. The runs are printed side by side because the schemes
# that use a helper thread move between runs (docs/faults.md).
. "$(dirname "$0")/lib.sh"
runs=${PROTECT_RUNS:-3}

echo "protection's steady-state cost, KV offload over 6 pool nodes, modeled time"
echo "read-mostly: 5% appends, write-heavy: 50%; per scheme each run's ops/s (slowdown)"
r=1
while [ "$r" -le "$runs" ]; do
	bench_run "$top/tests/bench/protect-overhead.scn"
	cp "$tmp/run/summary.json" "$tmp/summary-$r.json"
	rm -rf "$tmp/run"
	r=$((r + 1))
done
jq -rs '[.[] | [.workloads[] | .output as $o | select($o.epochs) |
	{name: .name, scheme: ($o.scheme + (if $o.layout == "split" then "/split" else "" end)),
	 overhead: $o.overhead, ok: ($o.corrupt == 0 and $o.final_lost == 0),
	 mix: (.name | split("-")[1]),
	 rate: (([$o.epochs[].ops] | add) / ([$o.epochs[] | .t1_s - .t0_s] | add))}] |
	 group_by(.mix) | map((map(select(.scheme == "none"))[0].rate) as $base |
	 map(. + {slow: (if $base then (1 - .rate / $base) * 100 else null end)}))] |
	transpose | .[] | transpose | .[] |
	"  \(.[0].mix | if . == "rm" then "read-mostly" else "write-heavy" end)" +
	"  \(.[0].scheme | . + " " * (12 - length))" +
	(map("\(.rate | round) ops/s" + (if .scheme != "none" then
	  " (\(.slow * 10 | round / 10)%)" else "" end) + (if .ok then "" else " DATA CHECK FAILED" end)) |
	 join(", ")) + ", memory \(.[0].overhead)x"' "$tmp"/summary-*.json

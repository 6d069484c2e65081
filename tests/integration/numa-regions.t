#!/bin/sh
# Two RAM regions in one window (tests/data/two-ram-regions.topo: 165 and
# 315 ns paths): the guest gets a NUMA node per region, `cxlbed table`
# gives each its own row with its own path's figures (modeled idle
# latency within 5% of that path's configuration), and the kernel's
# memory tiers put DRAM on top, then the faster node, then the slower.
# Only the CXL nodes' rows are measured (--nodes cxl).
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 8

out=$outroot/table
"$cxlbed" table --nodes cxl --out "$out" "$top/tests/data/two-ram-regions.topo" \
	>"$outroot/stdout" 2>"$outroot/stderr"
rc=$?
ok $rc "cxlbed table two-ram-regions exits 0"
[ $rc -eq 0 ] || tail -n 30 "$outroot/stdout" | diag

tj() { jq -r "$1" "$out/table.json"; }
sum=$out/two-ram-regions/summary.json
check "two CXL rows on two different nodes ($(tj '[.rows[] | select(.kind=="cxl") | .node] | join(",")'))" \
	[ "$(tj '[.rows[] | select(.kind=="cxl") | .node] | unique | length')" = 2 ]
check "each row names its own region and path" \
	[ "$(tj '[.rows[] | select(.kind=="cxl") | "\(.region)=\(.path)"] | sort | join(" ")')" = \
	  "r0=hb0/rp0/fast r1=hb0/rp1/slow" ]
check "each row's configured figures are its own path's (165/315 ns, 20/10 GB/s)" \
	[ "$(tj '[.rows[] | select(.kind=="cxl") | "\(.region):\(.configured_latency_ns):\(.path_read_gbps)"] | sort | join(" ")')" = \
	  "r0:165:20 r1:315:10" ]
far=$(latency_far "$out")
check "each row's idle latency within 5% of its own path's configuration${far:+ ($far)}" [ -z "$far" ]
fails=$(jq -r '[.checks[] | select(.pass | not) | .name] | join(" ")' "$sum" 2>/dev/null)
check "numa and tiers checks pass: a proximity domain and node per region ${fails:+(failed: $fails)}" \
	[ -f "$sum" -a -z "$fails" -a \
	  "$(jq '[.checks[] | select(.name | test("^(numa|tiers):"))] | length' "$sum")" = 3 ]
# memory_tierN/nodelist as the guest read it: DRAM, then r0's node, then r1's.
order=$(jq -r '.hosts[0] as $h | def tier($n): [$h.enumeration.tiers[] |
	select(any(.nodes[]; . == $n)) | .tier][0];
	[($h.nodes[] | select(.kind=="local") | tier(.node)),
	 ($h.nodes[] | select(.region=="r0") | tier(.node)),
	 ($h.nodes[] | select(.region=="r1") | tier(.node))] | join(" ")' "$sum" 2>/dev/null)
check "memory tiers: DRAM < r0 (165 ns) < r1 (315 ns) ($order)" \
	sh -c "set -- $order; [ \$# -eq 3 ] && [ \$1 -lt \$2 ] && [ \$2 -lt \$3 ]"
check "no QEMU left behind" no_qemu_left "$out/two-ram-regions"
finish

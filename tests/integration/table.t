#!/bin/sh
# `cxlbed table`: boots two topologies with the timing model, runs idle
# latency, bandwidth and loaded latency on every node, and writes
# table.md, table.json, loaded-latency.svg and one results folder per
# topology. Figures are modeled; CXL is slower than local on every host.
# Bad input stops everything before anything boots or is created.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 23

out=$outroot/table
"$cxlbed" table --out "$out" "$top/topologies/direct.topo" "$top/topologies/default.topo" \
	>"$outroot/stdout" 2>"$outroot/stderr"
rc=$?
ok $rc "cxlbed table direct.topo default.topo exits 0"
[ $rc -eq 0 ] || tail -n 30 "$outroot/stderr" | diag

tj() { jq -r "$1" "$out/table.json"; }
check "table.json schema is cxlbed.table/1" [ "$(tj .schema)" = cxlbed.table/1 ]
for t in direct default; do
	check "$t: a local row and a CXL row" \
		[ "$(tj "[.rows[] | select(.topology==\"$t\") | .kind] | unique | join(\",\")")" = cxl,local ]
done
check "every row's clock is modeled" \
	[ "$(tj '[.rows[] | select(.clock != "modeled")] | length')" = 0 ]
check "every row has latency, read and write figures" \
	[ "$(tj '[.rows[] | select(.latency_ns == null or .read_gbps == null or .write_gbps == null)] | length')" = 0 ]
# Per (topology, host): the fastest CXL path is still slower than local.
slow=$(tj '[.rows | group_by(.topology + "/" + .host)[] |
	select(([.[] | select(.kind=="cxl") | .latency_ns] | min) <=
	       ([.[] | select(.kind=="local") | .latency_ns] | min)) | .[0].host] | length')
check "CXL latency > local latency on every host" [ "$slow" = 0 ]
# Idle latency within 5% of what the configuration implies (lib.sh).
far=$(latency_far "$out")
check "every path's idle latency within 5% of its configuration${far:+ ($far)}" [ -z "$far" ]
check "CXL rows' latency ratio > 1, local rows' = 1" \
	[ "$(tj '[.rows[] | select((.kind=="cxl" and .latency_ratio <= 1) or (.kind=="local" and .latency_ratio != 1))] | length')" = 0 ]
check "the default topology's CXL row names the switch path" \
	[ "$(tj '.rows[] | select(.topology=="default" and .kind=="cxl") | .path')" = "hb0/rp0/sw0/{mem0,mem1,mem2,mem3}" ]
check "one curve per row; the 2-vCPU host's curves have a loaded point" \
	[ "$(tj '(.curves | length) == (.rows | length) and
		([.curves[] | select(.topology=="default") | .points | length] | min) >= 2')" = true ]

svg=$out/loaded-latency.svg
check "loaded-latency.svg has one polyline per curve" \
	[ "$(grep -c '<polyline' "$svg" 2>/dev/null)" = "$(tj '.curves | length')" ]
if command -v xmllint >/dev/null; then
	check "loaded-latency.svg is well-formed XML" xmllint --noout "$svg"
else
	check "loaded-latency.svg ends its svg element" grep -q '</svg>' "$svg"
fi
check "table.md says the figures are modeled" grep -q 'modeled virtual time' "$out/table.md"
check "each topology's run folder: summary.json with timing_model true, report.md" \
	sh -c "for t in direct default; do
		[ \"\$(jq -r '.timing_model and .verdict==\"pass\"' $out/\$t/summary.json)\" = true ] &&
		test -s $out/\$t/report.md -a -s $out/\$t/console-h0.log || exit 1; done"
check "the printed table has the rows and the verdict" \
	sh -c "grep -q '^default .* cxl ' '$outroot/stdout' && grep -q 'verdict: pass' '$outroot/stdout'"
# The gate CI runs: this fresh table against the committed reference.
"$cxlbed" compare "$top/results/reference/table" "$out" >"$outroot/cmp.out" 2>&1
rc=$?
check "cxlbed compare reference/table with this table: exit 0 (got $rc)" [ $rc -eq 0 ]
grep -E '^(verdict|regressed)' "$outroot/cmp.out" | diag
# A reference that the model has moved away from is caught at 1%, either way.
# The loaded points at load (@1: a chaser on one vCPU beside a stream on
# the other) move between runs: default.topo's DRAM point read 93.22 ns
# in 8 of 11 runs and 93.82-94.14 in the others (2026-12-02, with the
# threads' regions starting together or 8-18 us apart alike), as a tick
# fell in the region or not; the table's regions now start half a tick
# past a tick boundary (--start tick), and they keep 2%, every other
# figure 1%.
agree_both_ways "1% latency_ns@1=2% load_gbps@1=2%" "$top/results/reference/table" "$out" cmp1
check "the committed reference table matches this one within 1% both ways, the loaded points 2% (exit $rc1, $rc2)" \
	[ $rc1 -eq 0 -a $rc2 -eq 0 ]
out_of_bounds cmp1
check "report.html written" test -s "$out/report.html"
# The run's node row and the table's row say the same figure: one thread's read.
check "the default run's node rows read one thread's stream, as the table's rows do" \
	[ "$(jq -r --slurpfile t "$out/table.json" '[.hosts[0].nodes[] | .node as $n | .threads == 1 and
		(.read_gbps - ([$t[0].rows[] | select(.topology == "default" and .node == $n)][0].read_gbps * 1000 | round / 1000) | fabs) < 0.002] | all' \
		"$out/default/summary.json")" = true ]
if [ -n "$(chromium_bin)" ]; then
	v=$(browser_check "$out/report.html")
	echo "report.html in Chromium: $v" | diag
	check "report.html loads in Chromium, a panel per kind of path (local, CXL), legends inside, no label over another" \
		sh -c "case '$v' in 'OK | fetched=0 plots=2 '*'trees=2') exit 0;; *) exit 1;; esac"
else
	skip "no chromium to render report.html (ci/deps installs it)"
fi
none_left() { no_qemu_left "$out/direct" && no_qemu_left "$out/default"; }
check "no QEMU left behind" none_left

# Bad input in the second file: exit 2 naming FILE:LINE; nothing booted or created.
bad=$outroot/bad.topo
printf '[topology]\nname = bad\n\n[host h0]\ncpus = two\n' >"$bad"
"$cxlbed" table --out "$outroot/never" "$top/topologies/direct.topo" "$bad" \
	>"$outroot/bad.out" 2>"$outroot/bad.err"
rc=$?
check "bad topology: exit 2, FILE:LINE, no output folder (rc $rc)" \
	sh -c "[ $rc = 2 ] && grep -q '^$bad:5: ' '$outroot/bad.err' && [ ! -e '$outroot/never' ]"
finish

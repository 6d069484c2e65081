#!/bin/sh
# `cxlbed compare` as a CI gate: a fresh table of a topology whose device
# media is 10% slower than the reference's (tests/data/direct-slow.topo,
# same name "direct") against the committed reference table exits 1 and
# names that row; JUnit and JSON forms; a looser threshold lets it pass;
# bad input exits 2. (table.t compares a fresh table of the shipped
# topologies with the reference: exit 0.)
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 10

ref=$top/results/reference/table
slow=$outroot/slow
"$cxlbed" table --out "$slow" "$top/tests/data/direct-slow.topo" >"$outroot/table.out" 2>"$outroot/table.err"
rc=$?
ok $rc "cxlbed table direct-slow.topo exits 0"
[ $rc -eq 0 ] || tail -n 20 "$outroot/table.err" | diag

"$cxlbed" compare "$ref" "$slow" --junit "$outroot/junit.xml" --json "$outroot/cmp.json" \
	>"$outroot/cmp.out" 2>"$outroot/cmp.err"
rc=$?
grep -E 'regressed|verdict' "$outroot/cmp.out" | diag
check "reference vs 10% slower media: exit 1 (got $rc)" [ $rc -eq 1 ]
check "it names the row: direct h0 node 1 chase latency_ns" \
	grep -q '^regressed: direct h0 node 1 chase latency_ns +[0-9.]*% (limit +5%)' "$outroot/cmp.out"
check "the local row is within its threshold" \
	sh -c "grep -E '^direct +h0 +node 0 +chase +latency_ns' '$outroot/cmp.out' | grep -q within"
check "rows only the reference has are listed, not judged" \
	grep -q '^only in the baseline: default h0 node 1 chase' "$outroot/cmp.out"
if command -v xmllint >/dev/null; then
	check "JUnit XML is well-formed and has the failure" \
		sh -c "xmllint --noout '$outroot/junit.xml' &&
			[ \"\$(xmllint --xpath 'count(//testcase[@classname=\"direct.h0.node 1.chase\"][@name=\"latency_ns\"]/failure)' '$outroot/junit.xml')\" = 1 ]"
else
	check "JUnit XML has the failure" grep -q 'name="latency_ns"><failure' "$outroot/junit.xml"
fi
check "JSON: verdict regression, the figure's status REGRESSED" \
	[ "$(jq -r '.verdict + " " + ([.figures[] | select(.topology=="direct" and .where=="node 1" and .figure=="latency_ns") | .status][0])' "$outroot/cmp.json")" = "regression REGRESSED" ]

"$cxlbed" compare --threshold 15% "$ref" "$slow" >/dev/null 2>&1
rc=$?
check "--threshold 15% (every figure): exit 0 (got $rc)" [ $rc -eq 0 ]

"$cxlbed" compare "$ref" "$ref/direct" >/dev/null 2>"$outroot/bad1.err"
rc=$?
check "a table against a run: exit 2 with the reason (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'compare a run with a run' '$outroot/bad1.err'"
"$cxlbed" compare --threshold latency=fast "$ref" "$slow" >/dev/null 2>"$outroot/bad2.err"
rc=$?
check "a bad --threshold: exit 2 (got $rc)" [ $rc -eq 2 ]
finish

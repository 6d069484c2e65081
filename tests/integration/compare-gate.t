#!/bin/sh
# `cxlbed compare` as a CI gate, on candidates made from the committed
# baseline (results/baseline/default) without QEMU: each way of issue 34
# that a worse candidate passed (a failing check the baseline lacks, a
# check dropped, given twice, a workload row given twice, a node table
# figure raised) fails the gate and is named; a new passing check is
# named and passes; another schema, the same folder twice and a figure
# that is not a number are bad input (exit 2). No reader crashes on
# 100,000 nested '[' (compare, report, sweep --collect), and no JSON
# written holds a non-finite number (1e400 was written as inf.0).
. "$(dirname "$0")/lib.sh"
[ -x "$cxlbed" ] || skip_all "./cxlbed not built (run make)"
command -v jq >/dev/null || skip_all "jq not installed"
plan 26

base=$top/results/baseline/default
# the baseline's checks (regenerated with the model: not a fixed count)
nchecks=$(jq '.checks | length' "$base/summary.json")
dropped=$(jq -r '.checks[4].name' "$base/summary.json")
# cand NAME [JQ-ARGS] FILTER: a candidate run folder from the baseline's summary.json
cand() {
	c=$outroot/$1; shift
	mkdir -p "$c"
	jq "$@" "$base/summary.json" >"$c/summary.json"
}
# gate NAME [ARGS]: compare the baseline with candidate NAME; $rc, $outroot/NAME.out/.err
gate() {
	g=$1; shift
	"$cxlbed" compare "$@" "$base" "$outroot/$g" >"$outroot/$g.out" 2>"$outroot/$g.err"
	rc=$?
	[ $rc -lt 128 ] || echo "$g: killed by signal $((rc - 128))" | diag
}
failing_check='.checks += [{"name": $n, "pass": false, "detail": "QEMU ended before teardown"}]'

for n in qemu:h0 interrupted; do
	cand "new-$n" --arg n "$n" "$failing_check"
	gate "new-$n"
	check "a failing check the baseline lacks ($n): exit 1, named (got $rc)" \
		sh -c "[ $rc = 1 ] && grep -qF 'regressed: check $n: new in the candidate, FAILS' '$outroot/new-$n.out'"
done

cand new-pass '.checks += [{"name": "extra:h0", "pass": true, "detail": "a new check"}]'
gate new-pass
check "a new check that passes: exit 0 (got $rc)" [ $rc -eq 0 ]
check "and it is counted and named, not ignored" \
	sh -c "grep -qF 'checks: $nchecks in both, 1 new, 0 lost; 0 fail in the candidate' '$outroot/new-pass.out' &&
		grep -qF 'check extra:h0: new in the candidate, passes' '$outroot/new-pass.out'"

cand drop-one 'del(.checks[4])'
gate drop-one
check "a check dropped: exit 1, LOST (got $rc)" \
	sh -c "[ $rc = 1 ] && grep -qF 'regressed: check $dropped: in the baseline, LOST' '$outroot/drop-one.out'"
cand drop-all '.checks = []'
gate drop-all
check "every check dropped: exit 1, $nchecks regressed (got $rc)" \
	sh -c "[ $rc = 1 ] && [ \$(grep -c '^regressed: check .*LOST' '$outroot/drop-all.out') = $nchecks ]"

cand check-twice '.checks = [{"name": "boot:h0", "pass": false, "detail": "x"}] + .checks'
gate check-twice
check "a check given twice, the failing copy first: exit 1, named (got $rc)" \
	sh -c "[ $rc = 1 ] && grep -qF \"regressed: check 'boot:h0' given 2 times in the candidate\" '$outroot/check-twice.out'"

cand row-twice '.workloads = [.workloads[1] | .output.modeled.ns_per_access = 999] + .workloads'
gate row-twice
check "a workload row given twice, the bad copy first: exit 1, named (got $rc)" \
	sh -c "[ $rc = 1 ] && grep -qF \"regressed: row 'default h0 node 1 chase' given 2 times in the candidate\" '$outroot/row-twice.out'"

cand nodes-slow '.hosts[0].nodes[1].latency_ns *= 1.1'
gate nodes-slow
check "node table latency +10%: exit 1, nodes[] latency_ns regressed (got $rc)" \
	sh -c "[ $rc = 1 ] && grep -qE '^regressed: default h0 node 1 nodes\[\] latency_ns \+10\.0% \(limit \+5%\)' '$outroot/nodes-slow.out'"

gate new-qemu:h0 --format json
check "--format json of a regression is JSON with the check's status" \
	[ "$(jq -r '.verdict + " " + (.checks[] | select(.name == "qemu:h0") | .status + " " + (.baseline_pass | tostring))' "$outroot/new-qemu:h0.out")" = "regression NEW FAILURE null" ]
gate check-twice --junit "$outroot/dup.xml"
check "JUnit names the duplicate as a failure" \
	grep -qF '<testcase classname="duplicates" name="check boot:h0 (candidate)"><failure' "$outroot/dup.xml"

cand schema-999 '.schema = "cxlbed.result/999"'
gate schema-999
check "schema cxlbed.result/999: exit 2 naming it (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qF \"summary.json: schema 'cxlbed.result/999': this cxlbed reads cxlbed.result/1\" '$outroot/schema-999.err'"

"$cxlbed" compare "$base" "$base/" >"$outroot/same.out" 2>"$outroot/same.err"
rc=$?
check "the same folder twice: exit 2 (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qF 'are the same file' '$outroot/same.err'"

cand node-string '.hosts[0].nodes[1].latency_ns = "221"'
gate node-string
check "a node figure given as a string: exit 2 naming the file and member (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qF 'node-string/summary.json: hosts[0].nodes[1].latency_ns: want a number or null, found a string' '$outroot/node-string.err'"
cand output-string '.workloads[1].output.modeled.ns_per_access = "221"'
gate output-string
check "a workload figure given as a string: exit 2 naming the member (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qF 'workloads[1].output.modeled.ns_per_access: a figure, want a number or null, found a string' '$outroot/output-string.err'"

# 1e400: jq cannot write it, so a marker is replaced
cand huge '.hosts[0].nodes[1].latency_ns = 123456.789'
sed -i 's/123456\.789/1e400/' "$outroot/huge/summary.json"
gate huge --format json
check "a figure of 1e400: exit 2 naming its line, nothing on stdout (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qE 'huge/summary.json:[0-9]+: column [0-9]+: the number 1e400 is beyond' '$outroot/huge.err' && ! [ -s '$outroot/huge.out' ]"

cand far '.hosts[0].nodes[1].latency_ns = 1e20'
gate far --format json
check "a figure of 1e20: exit 1, and --format json is JSON (json-glib wrote 1e+20.0) (got $rc)" \
	sh -c "[ $rc = 1 ] && jq -e '.figures[] | select(.workload == \"nodes[]\" and .where == \"node 1\" and .figure == \"latency_ns\") | .candidate == 1e20' '$outroot/far.out' >/dev/null"

deep=$outroot/deep
mkdir -p "$deep"
{ printf '{"schema": "cxlbed.result/1", "hosts": '; head -c 100000 /dev/zero | tr '\0' '['; } >"$deep/summary.json"
gate deep
check "compare on 100,000 nested '[': exit 2, no crash (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qF 'nested deeper than 64' '$outroot/deep.err'"
"$cxlbed" report "$deep" >/dev/null 2>"$outroot/report-deep.err"
rc=$?
check "report on it: exit 2, no crash (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -qF 'nested deeper than 64' '$outroot/report-deep.err'"
cp "$deep/summary.json" "$outroot/deep-table.json"
sed -i '1s/cxlbed.result/cxlbed.table/' "$outroot/deep-table.json"
"$cxlbed" report "$outroot/deep-table.json" >/dev/null 2>"$outroot/report-deep-table.err"
rc=$?
check "report on such a table.json: exit 2 (got $rc)" [ $rc -eq 2 ]

# sweep --collect: a point whose summary nests 100,000 deep, one with 1e400,
# one good, one with figures of 1e20 and 1e308
sw=$outroot/sweep
"$cxlbed" sweep --dry-run --out "$sw" "$top/tests/data/sweep-4.sweep" >"$outroot/sweep.out" 2>&1 ||
	tail -n 5 "$outroot/sweep.out" | diag
for p in p0 p1 p2 p3; do mkdir -p "$sw/points/$p/run"; done
cp "$deep/summary.json" "$sw/points/p0/run/summary.json"
cp "$outroot/huge/summary.json" "$sw/points/p1/run/summary.json"
cp "$base/summary.json" "$sw/points/p2/run/summary.json"
cp "$top/tests/fuzz/results/exponent-figures.json" "$sw/points/p3/run/summary.json"
"$cxlbed" sweep --collect "$sw" >"$outroot/collect.out" 2>"$outroot/collect.err"
rc=$?
check "sweep --collect with those points: exit 1 (points failed), no crash (got $rc)" [ $rc -eq 1 ]
check "it names the nested point's file and why" \
	grep -qE "point p0: .*p0/run/summary.json:1: column [0-9]+: nested deeper than 64" "$outroot/collect.err"
check "and the 1e400 point's" grep -qF 'the number 1e400 is beyond' "$outroot/collect.err"
check "sweep-results.json is JSON (no inf.0, no 1e+20.0)" \
	sh -c "jq -e '(.points | length) == 4 and .points[3].summary.hosts[0].nodes[0].latency_ns > 9.9e19' '$sw/sweep-results.json' >/dev/null && ! grep -q 'inf' '$sw/sweep-results.json'"
check "the good point's figures are in it" \
	[ "$(jq -r '.points[2].summary.hosts[0].nodes[1].latency_ns' "$sw/sweep-results.json")" = "$(jq -r '.hosts[0].nodes[1].latency_ns' "$base/summary.json")" ]
mkdir -p "$outroot/deep-sweep"
{ printf '{"schema": "cxlbed.sweep/1", "axes": '; head -c 100000 /dev/zero | tr '\0' '['; } \
	>"$outroot/deep-sweep/sweep.json"
"$cxlbed" sweep --collect "$outroot/deep-sweep" >/dev/null 2>"$outroot/deep-sweep.err"
rc=$?
check "sweep --collect of a sweep.json nested 100,000 deep: exit 2, no crash (got $rc)" [ $rc -eq 2 ]
finish

#!/bin/sh
# Unmodified Debian programs on the fabric: sysbench memory under
# numactl --membind on the local and on the CXL node, with the timing
# model (tests/data/userprog-sysbench.scn). The agent marks the whole run
# as one ROI; the runner reads sysbench's own MiB/sec and compares it with
# the MiB it transferred over the modeled ROI time, and reports CXL/local.
. "$(dirname "$0")/lib.sh"
need_image
command -v apt-cache >/dev/null || skip_all "no APT on this host (packages need Debian 12)"
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built"
plan 7

out=$outroot/run
"$cxlbed" run --out "$out" "$top/tests/data/userprog-sysbench.scn" >"$outroot/run.out" 2>"$outroot/run.err"
rc=$?
w() {  # jq over the sysbench workload on node N
	jq -r ".workloads[] | select(.name == \"sysbench\" and .node == $1) | $2" "$out/summary.json"
}
check "sysbench ran under numactl on node 0 (local) and node 1 (CXL)" \
	[ "$(sj "$out" '[.checks[] | select(.name | test("^workload:sysbench:h0:node[01]$")) | .pass] == [true, true]')" = true ]
check "its own figures were read: 256 MiB on both nodes" \
	[ "$(w 0 '.output.figures.count')/$(w 1 '.output.figures.count')/$(w 1 '.output.figures.parser')" = "256/256/sysbench-memory" ]
check "its output is kept in workload-h0-sysbench-node1.log" \
	grep -q 'MiB transferred' "$out/workload-h0-sysbench-node1.log"
check "modeled: the command's ROI time and MiB over it, on both nodes" \
	[ "$(w 0 '.output.modeled.per_s > 0 and .output.modeled.seconds > 0')/$(w 1 '.output.modeled.per_s > 0')" = "true/true" ]
check "CXL/local reported; the modeled CXL node is the slower one" \
	[ "$(w 1 '.output.vs_local.node == 0 and .output.vs_local.modeled_per_s > 0 and .output.vs_local.modeled_per_s < 1')" = true ]
{
	for n in 0 1; do
		echo "node $n: $(w $n '.output.figures.per_s') MiB/s by sysbench's clock," \
			"$(w $n '.output.modeled.per_s') MiB/s over the modeled $(w $n '.output.modeled.seconds') s," \
			"own/modeled $(w $n '.output.clock_agreement')"
	done
	echo "CXL/local: $(w 1 '.output.vs_local.per_s') by sysbench's clock, $(w 1 '.output.vs_local.modeled_per_s') modeled"
} | diag
# The guest's clock must run in modeled time for sysbench's own MiB/sec to
# agree; until the modeled guest clock is in, this is expected to fail.
agree=$(sj "$out" '[.checks[] | select(.name | test("^clock:sysbench:h0:node[01]$")) | .pass] == [true, true]')
if [ "$agree" = true ]; then ok 0 "sysbench's own MiB/sec agrees within 5% with MiB over modeled time, both nodes"
else echo "not ok $((tn + 1)) - sysbench's own MiB/sec agrees within 5% with MiB over modeled time, both nodes # TODO guest clock in modeled time (branch h-clock)"; tn=$((tn + 1)); fi
check "no QEMU left behind" no_qemu_left "$out"
[ "$failed" -eq 0 ] || { echo "cxlbed run exit $rc"; tail -n 25 "$outroot/run.err"; } | diag
finish

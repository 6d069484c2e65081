#!/bin/sh
# Unmodified Debian programs on the fabric: sysbench memory under
# numactl --membind on the local and on the CXL node, with the timing
# model (tests/data/userprog-sysbench.scn). The agent marks the whole run
# as one ROI; the runner reads sysbench's own MiB/sec and compares it with
# the MiB it transferred over the modeled ROI time, and reports CXL/local.
# Then redis-server with its data on either node under redis-benchmark
# (tests/data/userprog-redis.scn, about 7 minutes: code running on CXL
# memory is slow under TCG).
. "$(dirname "$0")/lib.sh"
need_image
command -v apt-cache >/dev/null || skip_all "no APT on this host (packages need Debian 12)"
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built"
plan 13

# jq over workload NAME's run on node N of the run in $out: w NAME N QUERY
w() { jq -r ".workloads[] | select(.name == \"$1\" and .node == $2) | $3" "$out/summary.json"; }
# Both nodes' checks PREFIX:h0:node0 and :node1 passed?
both() { [ "$(sj "$out" "[.checks[] | select(.name | test(\"^$1:h0:node[01]\$\")) | .pass] == [true, true]")" = true ]; }
# The figures of workload NAME (UNIT) on both nodes, and CXL/local, as diagnostics.
figures() {
	for n in 0 1; do
		echo "$1 node $n: $(w "$1" $n .output.figures.per_s) $2/s by its own clock," \
			"$(w "$1" $n .output.modeled.per_s) $2/s over the modeled" \
			"$(w "$1" $n .output.modeled.seconds) s, own/modeled $(w "$1" $n .output.clock_agreement)"
	done
	echo "$1 CXL/local: $(w "$1" 1 .output.vs_local.per_s) by its own clock," \
		"$(w "$1" 1 .output.vs_local.modeled_per_s) modeled"
}
# The program's own rate agrees with the modeled one on both nodes: the
# guest's clock is modeled time (docs/timing-model.md, "Guest time"). The
# ROI is the whole command, process start included, which the program's
# own clock leaves out: the run is long enough for that to stay near 1%.
agrees() { check "$2" both "clock:$1"; }

out=$outroot/run
"$cxlbed" run --out "$out" "$top/tests/data/userprog-sysbench.scn" >"$outroot/run.out" 2>"$outroot/run.err"
rc=$?
check "sysbench ran under numactl on node 0 (local) and node 1 (CXL)" both workload:sysbench
check "its own figures were read: 1024 MiB on both nodes" \
	[ "$(w sysbench 0 .output.figures.count)/$(w sysbench 1 .output.figures.count)/$(w sysbench 1 .output.figures.parser)" = "1024/1024/sysbench-memory" ]
check "its output is kept in workload-h0-sysbench-node1.log" \
	grep -q 'MiB transferred' "$out/workload-h0-sysbench-node1.log"
check "modeled: the command's ROI time and MiB over it, on both nodes" \
	[ "$(w sysbench 0 '.output.modeled.per_s > 0 and .output.modeled.seconds > 0')/$(w sysbench 1 '.output.modeled.per_s > 0')" = "true/true" ]
check "CXL/local reported; the modeled CXL node is the slower one" \
	[ "$(w sysbench 1 '.output.vs_local.node == 0 and .output.vs_local.modeled_per_s > 0 and .output.vs_local.modeled_per_s < 1')" = true ]
figures sysbench MiB | diag
agrees sysbench "sysbench's own MiB/sec agrees within 5% with MiB over modeled time, both nodes"
check "report.md's Programs: sysbench on both nodes, its own MiB/s, over the modeled time, CXL/local; report.html links each log" \
	sh -c "grep -Eq '^\| h0 \| sysbench \| node 1 \| 0 \| 1024 MiB at [0-9.]+ MiB/s \(sysbench-memory\) \| [0-9.]+ MiB/s over [0-9.]+ s \| [0-9.]+ \| [0-9.]+, [0-9.]+ \| \[workload-h0-sysbench-node1.log\]' '$out/report.md' &&
		grep -q '<a href=\"workload-h0-sysbench-node0.log\">' '$out/report.html'"
check "its labels agree: no 'no timing model' beside the loaded model" labels_agree "$out"
check "no QEMU left behind" no_qemu_left "$out"
[ "$failed" -eq 0 ] || { echo "cxlbed run exit $rc"; tail -n 25 "$outroot/run.err"; } | diag

out=$outroot/redis
"$cxlbed" run --out "$out" "$top/tests/data/userprog-redis.scn" >"$outroot/redis.out" 2>"$outroot/redis.err"
check "redis-benchmark ran against redis-server on node 0 and on node 1" both workload:redis
check "its requests counted and modeled on both nodes; CXL/local reported" \
	[ "$(w redis 0 '.output.figures.count == 192000 and .output.modeled.per_s > 0')/$(w redis 1 '.output.vs_local.modeled_per_s > 0')" = "true/true" ]
figures redis requests | diag
agrees redis "redis-benchmark's requests per second agree within 5% with requests over modeled time"
check "no QEMU left behind (redis)" no_qemu_left "$out"
finish

#!/bin/sh
# Unmodified Debian programs on the fabric: sysbench memory under
# numactl --membind on the local and on the CXL node, with the timing
# model (tests/data/userprog-sysbench.scn). The agent marks the whole run
# as one ROI; the runner reads sysbench's own MiB/sec and compares it with
# the MiB it transferred over the modeled ROI time, and reports CXL/local.
# While it runs, state.json names it and a heartbeat (every 10 s here)
# gives its host and modeled time; two workloads whose working sets fit in
# the modeled LLC are warned about. The run names the cxlbed that made it.
# Then redis-server with its data on either node under redis-benchmark
# (tests/data/userprog-redis.scn, about 7 minutes: code running on CXL
# memory is slow under TCG).
. "$(dirname "$0")/lib.sh"
need_image
command -v apt-cache >/dev/null || skip_all "no APT on this host (packages need Debian 12)"
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built"
plan 22

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
CXLBED_HEARTBEAT_S=1 "$cxlbed" run --out "$out" "$top/tests/data/userprog-sysbench.scn" \
	>"$outroot/run.out" 2>"$outroot/run.err" &
pid=$!
# the stage and its detail, as often as a person would look
while kill -0 $pid 2>/dev/null; do
	jq -r '"\(.stage) \(.detail)"' "$out/state.json" 2>/dev/null
	sleep 0.5
done | uniq >"$outroot/stages"
wait $pid
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

check "state.json said workloads, sysbench on h0 node 1, while it ran" \
	grep -qx 'workloads sysbench on h0 node 1' "$outroot/stages"
paste -sd ';' "$outroot/stages" | diag
# (every 1 s of host time: on cxlbed's QEMU the node 1 run takes some 10 s)
# "  96.0s  h0       sysbench   node 1: still running after 10.0 s of host
# time, 0.123 s of modeled time": run time, host s, modeled s of each line
grep -a 'sysbench   node 1: still running after' "$outroot/run.err" |
	sed 's/^[^0-9]*\([0-9.]*\)s .* after \([0-9.]*\) s of host time, \([0-9.]*\) s of modeled time$/\1 \2 \3/' \
	>"$outroot/beats"
# two or more, every one of them read whole
beats_read() { [ "$(wc -l <"$1")" -ge 2 ] && ! grep -qv '^[0-9.]* [0-9.]* [0-9.]*$' "$1"; }
check "heartbeats while sysbench ran on node 1, each with host and modeled time" \
	beats_read "$outroot/beats"
check "... at most 3 s apart, host and modeled time growing" \
	awk 'NR > 1 && ($1 - t > 3 || $2 <= h || $3 <= m) { bad = 1 } { t = $1; h = $2; m = $3 }
	     END { exit bad || !NR }' "$outroot/beats"
head -n 3 "$outroot/beats" | diag

# jq over the one run of workload NAME: ws NAME QUERY
ws() { jq -r ".workloads[] | select(.name == \"$1\") | $2" "$out/summary.json"; }
check "sysbench's 4 MiB block outgrows the 1 MiB LLC: no warning, working set from its command line" \
	[ "$(w sysbench 1 '[.output.working_set.bytes, .output.working_set.from, .output.working_set.fits_llc, (.warnings | length)] | @tsv')" = "$(printf '4194304\tcommand line\tfalse\t0')" ]
check "a 64 KiB block fits: warned, from the command line" \
	[ "$(ws small-block '[.output.working_set.bytes, .output.working_set.from, (.warnings[0] | test("fits in the modeled last-level cache"))] | @tsv')" = "$(printf '65536\tcommand line\ttrue')" ]
check "cat /proc/version fits by the lines it read from memory: warned" \
	[ "$(ws tiny '[.output.working_set.from, .output.working_set.fits_llc, (.warnings | length)] | @tsv')" = "$(printf 'memory reads\ttrue\t1')" ]
ws tiny '.output.working_set.how' | diag
check "report.md and the progress log carry both warnings, and only those" \
	[ "$(grep -c '^- \*\*warning\*\*: workload' "$out/report.md")/$(grep -ac 'WARNING' "$outroot/run.err")" = 2/2 ]
no_criticals() { ! grep -aq -- '-CRITICAL \*\*' "$1"; }
check "no GLib assertion in the progress log" no_criticals "$outroot/run.err"
check "summary.json names the cxlbed that ran it, as cxlbed --version does" \
	[ "$("$cxlbed" --version)" = "cxlbed $(sj "$out" .cxlbed_version) (commit $(sj "$out" .cxlbed_commit))" ]
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

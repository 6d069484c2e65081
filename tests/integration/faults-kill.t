#!/bin/sh
# Pool-node kills on a booted guest (docs/faults.md): cxlbed-protect keeps
# its blocks replicated twice (one node killed under KV offload, and under
# a layer sweep) or Reed-Solomon 4+2 (two killed) across pool nodes and
# loses nothing, every block's checksum
# verified at the end; without protection the killed node's blocks are
# reported lost and no wrong value is returned as good. Two hosts that
# borrow from the same pool nodes both fail over when one dies. Detection and
# resumed service are measured in modeled time and must be within 100 ms.
# A bad fault section is refused with FILE:LINE before anything starts.
. "$(dirname "$0")/lib.sh"
need_image
plan 42

# 0. bad input: exit 2, FILE:LINE, no QEMU started
printf '[scenario]\ntopology = %s/topologies/faults-rep.topo\n[fault f]\nkind = melt\n' \
	"$top" >"$outroot/bad.scn"
"$cxlbed" run --out "$outroot/bad" "$outroot/bad.scn" >/dev/null 2>"$outroot/bad.err"
ok $([ $? -eq 2 ]; echo $?) "bad fault kind: exit 2"
check "bad fault kind: FILE:LINE names the kind" \
	grep -q "bad.scn:4: .*kind" "$outroot/bad.err"
check "bad fault kind: nothing started" test ! -e "$outroot/bad/qemu-h0.cmdline"

# wl OUT JQ: the protect workload's output
wl() { jq -r ".workloads[0].output | $2" "$1/summary.json"; }

# What a kill run did, for the failure log, when any check of its section
# failed (lib.sh's count of failures has grown since BEFORE): the run's last
# lines, the fault record, each workload's epochs (state, ops, guest times,
# slowest op, preemptions) and the hosts' consoles.
kill_diag() {  # kill_diag DIR BEFORE
	[ "$failed" -gt "$2" ] || return 0
	{
		tail -n 25 "$1.log"
		jq -c '.faults[]? | del(.workloads) | {name, fired, injected, detected,
			detection_ns, resumed_ns, bytes_at_risk, bytes_lost, workload}' \
			"$1/summary.json" 2>/dev/null | cut -c1-1500
		jq -r '.workloads[]? | .host as $h | .output as $o |
			"\($h): final_ok \($o.final_ok) final_lost \($o.final_lost) reads_lost \($o.reads_lost) corrupt \($o.corrupt)",
			($o.epochs // [] | to_entries[] | "  epoch \(.key) \(.value.state) ops \(.value.ops) guest \(.value.t0_s)-\(.value.t1_s) s, slowest op \(.value.max_op_s) s, preempted \(.value.preempted)")' \
			"$1/summary.json" 2>/dev/null | head -60
		host_diag "$1"
	} | { last_failed=1; diag; }
}

# 1. replication 2, one node of three killed in the steady state
out=$outroot/rep2 before=$failed
"$cxlbed" run --out "$out" "$top/workloads/scenarios/faults-kill-rep2.scn" >"$outroot/rep2.log" 2>&1
ok $? "rep2: the run passes (every check, the fault checks included)"
check "rep2: the kill fired and every injection step succeeded" \
	test "$(sj "$out" '.faults[0] | .fired and .injected.ok')" = true
check "rep2: the runtime detected it within 100 ms modeled" \
	test "$(sj "$out" '.faults[0] | .detected and (.detection_ns // 1e99) < 1e8')" = true
check "rep2: service resumed within 100 ms modeled of the kill" \
	test "$(sj "$out" '(.faults[0].resumed_ns // 1e99) < 1e8')" = true
check "rep2: its labels agree: the guest clock modeled, not 'no timing model'; the unmeasured node has no clock" \
	labels_agree "$out"
check "rep2: bytes at risk reported, 0 lost" \
	test "$(sj "$out" '.faults[0] | .bytes_at_risk > 0 and .bytes_lost == 0')" = true
check "rep2: every block verified at the end, none lost, no corrupt value" \
	test "$(wl "$out" '.final_ok > 0 and .final_lost == 0 and .corrupt == 0')" = true
check "rep2: re-protected onto surviving nodes at 1 GiB/s or more (modeled)" \
	test "$(sj "$out" '.faults[0].recovery | .bytes > 0 and .gibps >= 1')" = true
check "rep2: degraded throughput at least 80% of normal" \
	test "$(sj "$out" '.faults[0].workload.degraded_vs_normal >= 0.8')" = true
check "rep2: the seed is in summary.json" test "$(sj "$out" .fault_seed)" = 1
check "rep2: report.md has the faults table and the timeline" \
	sh -c "grep -q '^| kill-p1 | kill-pool-node | p1 ' '$out/report.md' &&
	       grep -q 'faults-timeline.svg' '$out/report.md' && test -s '$out/faults-timeline.svg'"
sj "$out" '.faults[0] | "detection \(.detection_ns/1e6) ms, resumed \(.resumed_ns/1e6) ms, repair \(.recovery.gibps) GiB/s, degraded/normal \(.workload.degraded_vs_normal) (modeled)"' | diag
kill_diag "$out" "$before"
check "rep2: no QEMU left behind" no_qemu_left "$out"

# 1b. replication 2 under a layer sweep, one node killed mid-sweep
out=$outroot/sweep before=$failed
"$cxlbed" run --out "$out" "$top/tests/data/faults-kill-sweep.scn" >"$outroot/sweep.log" 2>&1
ok $? "sweep: the run passes"
check "sweep: the kill fired and was detected within 100 ms modeled" \
	test "$(sj "$out" '.faults[0] | .fired and .injected.ok and .detected and (.detection_ns // 1e99) < 1e8')" = true
check "sweep: service resumed within 100 ms modeled of the kill" \
	test "$(sj "$out" '(.faults[0].resumed_ns // 1e99) < 1e8')" = true
check "sweep: 0 bytes lost, every block verified, no corrupt value" \
	test "$(wl "$out" '.pattern == "sweep" and .final_ok > 0 and .final_lost == 0 and .corrupt == 0 and .reads_lost == 0')" = true
sj "$out" '.faults[0] | "sweep: detection \(.detection_ns/1e6) ms, resumed \(.resumed_ns/1e6) ms, repair \(.recovery.gibps) GiB/s (modeled)"' | diag
kill_diag "$out" "$before"
check "sweep: no QEMU left behind" no_qemu_left "$out"

# 2. Reed-Solomon 4+2 over six nodes, two killed in the same run
out=$outroot/rs before=$failed
"$cxlbed" run --out "$out" "$top/tests/data/faults-rs42.scn" >"$outroot/rs.log" 2>&1
ok $? "rs4+2: the run passes"
check "rs4+2: both kills fired" \
	test "$(sj "$out" '[.faults[] | select(.fired and .injected.ok)] | length')" = 2
check "rs4+2: both detected" \
	test "$(sj "$out" '[.faults[] | select(.detected)] | length')" = 2
check "rs4+2: two nodes killed, 0 bytes lost, every block verified" \
	test "$(wl "$out" '.final_ok > 0 and .final_lost == 0 and .corrupt == 0 and .reads_lost == 0')" = true
check "rs4+2: memory overhead 1.5x reported" test "$(wl "$out" .overhead)" = 1.5
kill_diag "$out" "$before"
check "rs4+2: no QEMU left behind" no_qemu_left "$out"

# 2b. two hosts borrow from the same pool nodes: one kill reaches both
out=$outroot/2host before=$failed
"$cxlbed" run --out "$out" "$top/workloads/scenarios/faults-kill-2host.scn" >"$outroot/2host.log" 2>&1
ok $? "2host: the run passes"
check "2host: both hosts detected the kill" \
	test "$(sj "$out" '[.faults[0].detections[].host] | unique | length')" = 2
check "2host: service resumed within 100 ms modeled on both" \
	test "$(sj "$out" '.faults[0] | (.resumed_ns // 1e99) < 1e8 and ([.detections[] | select(.stall_ns >= 0) | .host] | unique | length) == 2')" = true
check "2host: each host re-protected onto the surviving node" \
	test "$(sj "$out" '[.faults[0].detections[] | select(.repaired_bytes > 0) | .host] | unique | length')" = 2
check "2host: 0 bytes lost on either host, every block verified, no corrupt value" \
	test "$(jq -r '[.workloads[].output | select(.final_ok > 0 and .final_lost == 0 and .corrupt == 0)] | length' "$out/summary.json")" = 2
# A host whose degraded spell was shorter than an epoch has no degraded
# epoch and so no ratio (CI: h0 detected the loss in 0.09 ms, served
# again at 0.15 ms, and all its epochs were normal or protected); the
# fault's is the worst of those there are, and at least one host has one.
check "2host: each host's throughput around the fault is reported, the worst as the fault's" \
	test "$(sj "$out" '.faults[0] | [.workloads[].degraded_vs_normal | numbers] as $r |
		(.workloads | length) == 2 and ($r | length) >= 1 and
		.workload.degraded_vs_normal == ($r | min)')" = true
sj "$out" '.faults[0].detections[] | "2host: \(.host): detection \(.detection_ns/1e6) ms, served again \((.detection_ns + .stall_ns)/1e6) ms, repair \(.repair_gibps) GiB/s (modeled)"' | diag
check "2host: p3 stays free (two surviving nodes are all rep2 needs; no LD of p3 bound)" \
	test "$(sj "$out" '[.pool.lds[] | select(.pool == "p3") | .state] | length > 0 and all(. == "free")')" = true
check "2host: report.md has a row for each host's view of the fault" \
	sh -c "grep -q '^| kill-p1 | h0 | kv |' '$out/report.md' && grep -q '^| kill-p1 | h1 | kv |' '$out/report.md'"
kill_diag "$out" "$before"
check "2host: no QEMU left behind" no_qemu_left "$out"

# 3. no protection: the loss is reported, never returned as good
out=$outroot/none before=$failed
"$cxlbed" run --out "$out" "$top/tests/data/faults-none.scn" >"$outroot/none.log" 2>&1
ok $? "none: the run passes (a reported loss is the expected outcome)"
check "none: the killed node's blocks are reported lost (reads refused or blocks lost)" \
	test "$(wl "$out" '.final_lost > 0 or .reads_lost > 0')" = true
check "none: no value returned as good but wrong" test "$(wl "$out" .corrupt)" = 0
check "none: the fault record says bytes were lost" \
	test "$(sj "$out" '.faults[0].bytes_lost > 0')" = true
# The check's words and the fault table's figure are the same loss
check "none: the loss check names the MiB the fault table shows, not '0 blocks lost' beside it" \
	test "$(sj "$out" '(.faults[0].bytes_lost / 1048576) as $m | [.checks[] |
		select(.name | startswith("faults:lost:")) | .detail |
		(capture("(?<m>[0-9.]+) MiB lost when") | .m | tonumber) as $d |
		($d - $m) * ($d - $m) < 0.0025] == [true]')" = true
check "none: report.md's fault table shows that loss as lost at the failure" \
	grep -q '| lost at the failure MiB |' "$out/report.md"
kill_diag "$out" "$before"
check "none: no QEMU left behind" no_qemu_left "$out"
finish

#!/bin/sh
# `cxlbed table` on the paths table.t does not cover: a shared pool seen
# from each host (devdax regions, one row per host), two switch levels
# (cxlbed's QEMU carries data there, so the chase stores its chain and
# reads within 1% of the configured path), and a topology whose streamers
# can saturate the device
# (four deep-queue vCPUs on an FPGA-class expander): all-vCPU read within
# 10% of the configured path bandwidth, and a loaded-latency curve that
# rises as the load nears it. Every path's idle latency within 5% of what
# its configuration implies. The local DRAM rows are left out (--nodes
# cxl): table.t has them, and here they were a third of the host time.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 14

out=$outroot/table
"$cxlbed" table --nodes cxl --out "$out" "$top/topologies/shared-pool.topo" \
	"$top/topologies/cascade.topo" "$top/topologies/fpga-loaded.topo" \
	>"$outroot/stdout" 2>"$outroot/stderr"
rc=$?
ok $rc "cxlbed table shared-pool cascade fpga-loaded exits 0"
[ $rc -eq 0 ] || tail -n 30 "$outroot/stdout" | diag

tj() { jq -r "$1" "$out/table.json"; }
check "--nodes cxl: no local row, and a row for every CXL node and devdax region (kinds: $(tj '[.rows[].kind] | unique | join(",")'))" \
	[ "$(tj '[.rows[] | select(.kind=="local")] | length')/$(tj '[.rows[].kind] | unique | join(",")')" = "0/cxl,dax" ]
check "shared pool: one devdax row per host, named as the shared pool" \
	[ "$(tj '[.rows[] | select(.topology=="shared-pool" and .kind=="dax" and
		(.via | contains("pool p0 shared by h0 h1"))) | .host] | join(",")')" = h0,h1 ]
check "shared pool: both hosts see the same idle latency (within 1%)" \
	[ "$(tj '[.rows[] | select(.topology=="shared-pool" and .kind=="dax") | .latency_ns] |
		(max - min) < 0.01 * min')" = true ]
check "two switch levels: a devdax row through 2 switches, x2 interleave" \
	[ "$(tj '[.rows[] | select(.topology=="cascade" and .kind=="dax") | .via] | .[0]')" = "2 switches, x2 interleave" ]
check "two switch levels: its chase stored its chain there (the memory holds data)" \
	[ "$(jq -r '[.workloads[] | select(.program=="cxlbed-chase" and .region=="r0") |
		.output.chain] | join(",")' "$out/cascade/summary.json")" = stored ]
cascade='.rows[] | select(.topology=="cascade" and .kind=="dax")'
check "two switch levels: idle latency within 1% of the configured path ($(tj "$cascade | \"\\(.latency_ns) ns vs \\(.configured_latency_ns)\"" ))" \
	[ "$(tj "$cascade | .latency_ns >= 0.99 * .configured_latency_ns and
		.latency_ns <= 1.01 * .configured_latency_ns")" = true ]
# Idle latency within 5% of what the configuration implies (lib.sh).
far=$(latency_far "$out")
check "every path's idle latency within 5% of its configuration${far:+ ($far)}" [ -z "$far" ]
check "every row has its all-vCPU read and its configured path bandwidth" \
	[ "$(tj '[.rows[] | select(.sustained_read_gbps == null or .path_read_gbps == null)] | length')" = 0 ]
fpga='.rows[] | select(.topology=="fpga-loaded" and .kind=="cxl")'
check "FPGA expander: 4 vCPUs read within 10% of the path's 16 GB/s ($(tj "$fpga | .sustained_read_gbps") GB/s)" \
	[ "$(tj "$fpga | (.path_read_gbps == 16 and .sustained_read_gbps >= 14.4 and
		.sustained_read_gbps <= 17.6 and .bound == \"path\")")" = true ]
curve='.curves[] | select(.topology=="fpga-loaded" and .node==1) | .points'
check "FPGA expander: a curve point for 0, 1, 2 and 3 streamers" \
	[ "$(tj "[$curve | .[].load_threads] | sort | join(\",\")")" = 0,1,2,3 ]
check "FPGA expander: latency never falls as the load grows" \
	[ "$(tj "$curve | sort_by(.load_threads) | [range(1; length) as \$i |
		.[\$i].latency_ns >= .[\$i - 1].latency_ns - 0.5] | all")" = true ]
check "FPGA expander: near the device's bandwidth the chaser waits (> 1.2x idle)" \
	[ "$(tj "$curve | sort_by(.load_threads) | .[-1].latency_ns > 1.2 * .[0].latency_ns")" = true ]
none_left() {
	for t in shared-pool cascade fpga-loaded; do no_qemu_left "$out/$t" || return 1; done
}
check "no QEMU left behind" none_left
finish

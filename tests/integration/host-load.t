#!/bin/sh
# Modeled figures do not depend on host load: the same short timing run,
# once on a quiet host and once with both host cores kept busy by spinning
# processes, gives every modeled figure within 2%; on a
# 1-vCPU guest and on a 4-vCPU one (more vCPUs than host cores, with a
# chaser beside three streamers). A 2-vCPU guest running the measurement
# table's kinds (every vCPU reading at once included) three times, once
# with the host busy, gives every modeled figure within 1%: the guest
# lives in modeled time (docs/timing-model.md, "Guest time").
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 17

# After a failed comparison: each run's regions as the timing model saw
# them (what took the modeled time: the region's own instructions, the
# kernel's, clock interrupts, stalls), so that a CI log explains it.
rois() {
	for run in 1 2; do
		jq -r --arg r "$run" '.rois[] | "\($r) roi \(.id) vcpu \(.vcpu): \(.modeled_ns) ns, \(.insns) insns (kernel \(.kernel_insns)), \(.clock_irqs) clock irqs, stall \(.stall_ns) ns, \(.accesses) accesses, llc misses \(.llc_misses), reads local/cxl \(.mem_reads_local)/\(.mem_reads_cxl)"' \
			"$outroot/$1-$run"/timing-h*.json 2>/dev/null | diag
		jq -r --arg r "$run" '.workloads[] | "\($r) \(.name)\(.node // ""): on_node \(.output.on_node // "-"), rois \([.output.rois[]?.id] | join(","))\(if .error then ", error: \(.error)" else "" end)"' \
			"$outroot/$1-$run/summary.json" 2>/dev/null | cut -c1-400 | diag
		# did a host-time safety valve decide anything?
		for rep in "$outroot/$1-$run"/timing-h*.json; do
			valves "$rep" "$run valves"
		done | diag
	done
}

# SCENARIO NAME: the same run quiet and with both host cores spinning
# (runs_agree: NAME-1 quiet, NAME-2 busy), every modeled figure within 2%,
# and every figure modeled; after a failure, each run's regions.
quiet_and_busy() {
	runs_agree "$top/tests/data/$1" "$2" 2 0.02
	[ -z "$last_failed" ] || rois "$2"
	check "$2: every figure is modeled" all_modeled "$outroot/$2-1" "$outroot/$2-2"
}

# kprof= (the kernel blocks each region's vCPU ran) rides along on the
# 1-vCPU pair: it is what found the module loads that once landed in a
# chase's region here (guest/agent/settle.c).
export CXLBED_TIMING_ARGS="kprof=$outroot/1cpu.kprof"
quiet_and_busy host-load.scn 1cpu
unset CXLBED_TIMING_ARGS
kp=$(jq -r '.kernel_insns' "$outroot/1cpu.kprof" 2>/dev/null | paste -sd' ')
ki=$(jq -r '.rois[].kernel_insns' "$outroot"/1cpu-1/timing-h0.json \
	"$outroot"/1cpu-2/timing-h0.json 2>/dev/null | paste -sd' ')
kprof_agrees() {
	[ -n "$kp" ] && [ "$kp" = "$ki" ] &&
		[ "$(jq -s '[.[].blocks[][1]] | min // 1' "$outroot/1cpu.kprof")" -gt 0 ]
}
check "1cpu: kprof's blocks add up to each region's kernel instructions ($kp vs $ki)" kprof_agrees
# The 4-vCPU run's loaded phase is a chaser beside three streamers on two
# host cores. Until 2026-11-27 it moved 2.9% (latency) and 3.5%
# (bandwidth) busy vs quiet, and a single stream once 3.6% (14.42 GB/s
# quiet, 13.90 busy): a stream held to its miss slots fell into one of two
# issue patterns depending on what came before it (docs/timing-model.md,
# "Misses in flight"). With prefetches issued as slots free, every figure
# within 0.6% busy vs quiet.
quiet_and_busy host-load-4cpu.scn 4cpu
check "4cpu (more vCPUs than host cores): the loaded run's streamers drew bandwidth" \
	[ "$(jq '[.workloads[] | select(.name | startswith("loaded")) |
		.output.modeled | select((.read_gbps // .load_gbps // 0) > 1)] | length' \
		"$outroot/4cpu-1/summary.json")" -ge 1 ]
# Every figure of the 2-vCPU table's kinds within 1% over three runs, one
# with both host cores busy: a chaser beside a streamer (which moved up to
# 4%), two vCPUs streaming at once (1.5%) and the single-thread figures
# (1.6% once; 6.28-6.60 GB/s for one read stream after a free snoop made
# the two issue patterns above show) all came within 0.7% once prefetches
# issued as slots free and stores kept the vCPUs' caches coherent. The
# chase runs 200000 accesses (18 ms): the guest kernel's periodic work
# inside a region (20k-80k instructions per 5 ms) moved a 60000-access
# chase by up to 0.9%.
three_runs "$top/tests/data/host-load-2cpu.scn" 2cpu
finish

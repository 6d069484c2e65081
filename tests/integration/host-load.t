#!/bin/sh
# Modeled figures do not depend on host load: the same short timing run,
# once on a quiet host and once with both host cores kept busy by spinning
# processes, gives latency and bandwidth within 2% on every node; on a
# 1-vCPU guest and on a 4-vCPU one (more vCPUs than host cores, with a
# chaser beside three streamers). A 2-vCPU guest running the measurement
# table's kinds (every vCPU reading at once included) three times, once
# with the host busy, gives every modeled figure within 1%: the guest
# lives in modeled time (docs/timing-model.md, "Guest time").
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 17

# One line per workload run: NAME+NODE, clock, latency, bandwidth (modeled).
figures() {
	jq -r '.workloads[] | .output as $o | ($o.modeled // {}) as $m |
		"\(.name)\(.node) \(if $o.modeled then "modeled" else "guest" end) \($m.ns_per_access // $m.loaded_ns_per_access) \($m.read_gbps // $m.load_gbps)"' \
		"$1/summary.json"
}
apart() {  # column $2 of $1.q and $1.b that differ by more than $3 (0.02)
	paste -d' ' "$1.q" "$1.b" | awk -v c="$2" -v n=4 -v h="${3:-0.02}" '{
		q = $c; b = $(c + n)
		if (q == "null" && b == "null")
			next	# no such figure in either run (a chase has no GB/s)
		if (q == "null" || b == "null" || q <= 0 || (b - q) / q > h || (q - b) / q > h)
			print $1 ": " q " vs " b }'
}

# After a failed comparison: each run's regions as the timing model saw
# them (what took the modeled time: the region's own instructions, the
# kernel's, clock interrupts, stalls), so that a CI log explains it.
rois() {
	for run in quiet busy; do
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

# SCENARIO NAME [REGEX REASON [HARD]]: the same run quiet and with both
# host cores spinning. Figures whose names match REGEX are a known gap:
# their check is one TAP TODO giving REASON, the others are checked as
# usual, against HARD (a fraction) where given, with the 2% goal a TODO
# beside it.
quiet_and_busy() {
	scn=$top/tests/data/$1 name=$2 qb_todo=${3:-} qb_why=${4:-} qb_hard=${5:-0.02}
	"$cxlbed" run --out "$outroot/$name-quiet" "$scn" >"$outroot/$name-quiet.log" 2>&1
	rc=$?
	run_passes "$outroot/$name-quiet" "$outroot/$name-quiet.log" "$name, quiet host: run passes"
	busy_start "$outroot/$name-busy.log"
	"$cxlbed" run --out "$outroot/$name-busy" "$scn" >"$outroot/$name-busy.log" 2>&1
	rc=$?
	busy_stop
	run_passes "$outroot/$name-busy" "$outroot/$name-busy.log" "$name, both host cores busy: run passes"
	figures "$outroot/$name-quiet" >"$outroot/$name.q"
	figures "$outroot/$name-busy" >"$outroot/$name.b"
	sed 's/^/quiet: /' "$outroot/$name.q" | diag
	sed 's/^/busy:  /' "$outroot/$name.b" | diag
	check "$name: every figure is modeled" \
		[ -z "$(cat "$outroot/$name.q" "$outroot/$name.b" | awk '$2 != "modeled"')" ]
	lat=$(apart "$outroot/$name" 3 "$qb_hard" | grep -v -e "${qb_todo:-^\$}")
	bw=$(apart "$outroot/$name" 4 "$qb_hard" | grep -v -e "${qb_todo:-^\$}")
	pct=$(awk -v h="$qb_hard" 'BEGIN { print h * 100 }')
	check "$name: latency within $pct% busy vs quiet${qb_todo:+ (those matching $qb_todo apart)}${lat:+ ($(one_line "$lat"))}" [ -z "$lat" ]
	[ -z "$last_failed" ] || rois "$name"
	check "$name: bandwidth within $pct% busy vs quiet${qb_todo:+ (those matching $qb_todo apart)}${bw:+ ($(one_line "$bw"))}" [ -z "$bw" ]
	[ -z "$last_failed" ] || [ -n "$lat" ] || rois "$name"	# once a pair
	if [ "$qb_hard" != 0.02 ]; then
		goal=$( { apart "$outroot/$name" 3; apart "$outroot/$name" 4; } | grep -v -e "${qb_todo:-^\$}")
		if [ -n "$goal" ]; then
			tn=$((tn + 1)); echo "not ok $tn - $name: every figure within 2% busy vs quiet${qb_todo:+ (those matching $qb_todo apart)} ($(one_line "$goal")) # TODO $qb_why"
		else
			ok 0 "$name: every figure within 2% busy vs quiet${qb_todo:+ (those matching $qb_todo apart)}"
		fi
	fi
	[ -n "$qb_todo" ] || return 0
	far=$( { apart "$outroot/$name" 3; apart "$outroot/$name" 4; } | grep -e "$qb_todo")
	if [ -n "$far" ]; then
		tn=$((tn + 1)); echo "not ok $tn - $name: $qb_todo figures within 2% busy vs quiet ($(one_line "$far")) # TODO $qb_why"
	else
		ok 0 "$name: $qb_todo figures within 2% busy vs quiet"
	fi
}

# kprof= (the kernel blocks each region's vCPU ran) rides along on the
# 1-vCPU pair: it is what found the module loads that once landed in a
# chase's region here (guest/agent/settle.c).
export CXLBED_TIMING_ARGS="kprof=$outroot/1cpu.kprof"
quiet_and_busy host-load.scn 1cpu
unset CXLBED_TIMING_ARGS
kp=$(jq -r '.kernel_insns' "$outroot/1cpu.kprof" 2>/dev/null | paste -sd' ')
ki=$(jq -r '.rois[].kernel_insns' "$outroot"/1cpu-quiet/timing-h0.json \
	"$outroot"/1cpu-busy/timing-h0.json 2>/dev/null | paste -sd' ')
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
	[ "$(awk '$1 ~ /^loaded/ && $4 > 1 { n++ } END { print n + 0 }' "$outroot/4cpu.q")" -ge 1 ]
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

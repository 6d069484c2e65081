#!/bin/sh
# The timing model follows the fabric manager (docs/pooling.md): an LD
# bound while the plugin already models every access is timed as its path
# says, because the FM rewrote the host's config and bumped its generation
# in the shared segment and the plugin reloaded it at a check-in.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 6
out=$outroot/t
"$cxlbed" run --out "$out" "$top/tests/data/fm-timing.scn" >"$outroot/run.log" 2>&1
rc=$?
check "the run passes (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tail -20 "$outroot/run.log" | diag
want=$("$cxlbed" plan "$top/tests/data/fm-timing.topo" | sed -n 's/^#   LD port rp0: .* idle read \([0-9.]*\) ns.*/\1/p')
got=$(sj "$out" '.workloads[] | select(.name == "chase") | .output.modeled.ns_per_access')
check "the LD's modeled latency $got ns is within 5% of its path's $want ns" \
	awk -v g="$got" -v w="$want" 'BEGIN { exit !(w > 0 && g >= 0.95 * w && g <= 1.05 * w) }'
# if not: what else ran in the chase's region (instructions, kernel ones
# among them, clock interrupts, reads by node, the stall)
[ -z "$last_failed" ] ||
	jq -c '.rois[-1] | {insns, kernel_insns, clock_irqs, mem_reads_local, mem_reads_cxl, stall_ns, modeled_ns}' \
		"$out/timing-h0.json" | diag
check "the model was armed before the bind (arm ran first, modeled)" \
	[ "$(sj "$out" '.workloads[0] | .name == "arm" and .output.modeled.ns_per_access > 0')" = true ]
check "the host's config now holds the LD's target and region" \
	sh -c "grep -q '^target name=p0.ld0 path=hb0/rp0/p0.ld0 ' '$out/timing-h0.cfg' && grep -q '^region name=p0.ld0 base=0x' '$out/timing-h0.cfg'"
check "the plugin's report counts misses to the LD" \
	[ "$(jq '[.targets[] | select(.name == "p0.ld0" and .read_misses > 0)] | length' "$out/timing-h0.json")" = 1 ]
check "no QEMU left behind" no_qemu_left "$out"
finish

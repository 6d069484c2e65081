#!/bin/sh
# Memory errors and a degraded link on a booted guest (docs/faults.md),
# under cxlbed-protect with replication 2 over three pool nodes: poison
# (cxl-inject-poison, the bytes destroyed, the poison list read), a
# correctable error, general-media / DRAM failure events and a
# memory-module event through QEMU's cxl-inject-* commands, a link
# degraded in the timing model. The guest's runtime must see each through
# the kernel's trace events, ride out the poison and the media failures
# with no byte lost and no wrong value returned, and move reads off the
# degraded link.
. "$(dirname "$0")/lib.sh"
need_image
plan 13

out=$outroot/ras
"$cxlbed" run --out "$out" "$top/tests/data/faults-ras.scn" >"$outroot/ras.log" 2>&1
ok $? "the run passes (every check, the fault checks included)"
grep -E 'FAIL' "$outroot/ras.log" | diag
wl() { jq -r ".workloads[0].output | $1" "$out/summary.json"; }
# events KIND: how many trace events of that kind the runtime took
events() { wl "[.kernel_events[] | select(.kind == \"$1\")] | length"; }

check "all six faults fired, every injection step succeeded" \
	test "$(sj "$out" '[.faults[] | select(.fired and .injected.ok)] | length')" = 6
check "triggers: a byte count (cor-p1, written:6M) and a drawn modeled time (gm-p0, 300-360 ms)" \
	test "$(sj "$out" '[.faults[] | select((.name == "cor-p1" and .planned.when == "written") or
		(.name == "gm-p0" and .planned.when == "modeled" and .fired))] | length')" = 2
check "poison: the runtime detected it" \
	test "$(sj "$out" '.faults[] | select(.name == "poison-p0") | .detected')" = true
check "poison: the kernel's cxl_poison trace event reached the runtime" \
	test "$(events poison)" -ge 1
# noticed KIND CHECK: a trace event of KIND reached the runtime and the
# run's own detection check CHECK passed
noticed() {
	[ "$(events "$1")" -ge 1 ] &&
	[ "$(sj "$out" "[.checks[] | select(.name == \"$2\" and .pass)] | length")" = 1 ]
}
check "general-media failure event: traced, and the runtime noticed it" \
	noticed general-media fault:gm-p0:detected:h0
check "DRAM failure event: traced, and the runtime noticed it" \
	noticed dram fault:dram-p2:detected:h0
check "memory-module event: traced" test "$(events memory-module)" -ge 1
check "correctable errors (cor-error, the degraded link's signal): traced" \
	test "$(events cor-error)" -ge 2
check "the degraded link's LD costs more to the runtime's placement" \
	test "$(wl '[.cost_changes[] | select(.ld == "p2.ld0")] | length')" -ge 1
check "every block verified at the end: none lost, no corrupt value" \
	test "$(wl '.final_ok > 0 and .final_lost == 0 and .corrupt == 0')" = true
check "the seed is in summary.json" test "$(sj "$out" .fault_seed)" = 11
check "no QEMU left behind" no_qemu_left "$out"
finish

#!/bin/sh
# The fault classes that take an LD out of a running guest (docs/faults.md):
# capacity revoked without the host's consent (a surprise removal), a pool
# node killed with its LDs surprise-removed (remove = on) and an
# uncorrectable error (AER; the guest kernel disconnects the device), each
# under cxlbed-protect with replication 2 over three pool nodes. The
# runtime must notice, serve from the other copies and re-protect onto the
# fourth node, losing nothing and returning no wrong value.
# QEMU 10.0.2's TCG can abort as the LD leaves its memory map
# (iotlb_to_section, docs/faults.md "Pitfalls"): then the run must fail and
# say so, never pass, and the checks that need the guest to live on are
# skipped, naming that abort.
. "$(dirname "$0")/lib.sh"
need_image
plan 18

QEMU_ABORT="iotlb_to_section: Assertion"
# removal NAME FAULT: one run of tests/data/faults-NAME.scn
removal() {
	name=$1 fault=$2 out=$outroot/$1
	"$cxlbed" run --out "$out" "$top/tests/data/faults-$name.scn" >"$outroot/$name.log" 2>&1
	rc=$?
	check "$name: the fault fired and every injection step succeeded" \
		test "$(sj "$out" ".faults[] | select(.name == \"$fault\") | .fired and .injected.ok")" = true
	if grep -qs "$QEMU_ABORT" "$out"/qemu-h0.log; then
		check "$name: QEMU aborted (its TCG defect) and the run says so: a failed run, qemu:h0 failed" \
			test "$rc" -eq 1 -a "$(sj "$out" '[.checks[] | select(.name == "qemu:h0" and (.pass | not))] | length')" = 1
		why="QEMU's TCG aborted as the LD left its memory map ($QEMU_ABORT in qemu-h0.log)"
		skip "$name: the run passes: $why"
		skip "$name: 0 bytes lost: $why"
	else
		ok $rc "$name: the run passes (every check, the fault checks included)"
		grep -E 'FAILED' "$outroot/$name.log" | diag
		check "$name: QEMU lived on to teardown" \
			test "$(sj "$out" '[.checks[] | select(.name == "qemu:h0")] | length')" = 0
		check "$name: detected; 0 bytes lost, every block verified, no corrupt value" \
			test "$(sj "$out" ".faults[] | select(.name == \"$fault\") | .detected")" = true -a \
			     "$(jq -r '.workloads[0].output | .final_ok > 0 and .final_lost == 0 and .corrupt == 0' "$out/summary.json")" = true
		sj "$out" ".faults[] | select(.name == \"$fault\") | \"$name: detection \\((.detection_ns // -1e6)/1e6) ms, resumed \\((.resumed_ns // -1e6)/1e6) ms, repair \\(.recovery.gibps // \"-\") GiB/s (modeled)\"" | diag
	fi
	check "$name: no value returned as good but wrong, whatever QEMU did" \
		test "$(jq -r '[.workloads[].output.corrupt // 0] | add // 0' "$out/summary.json")" = 0
	check "$name: no QEMU left behind" no_qemu_left "$out"
}

removal revoke revoke-p1
removal kill-remove kill-p1
removal uncor uncor-p1
finish

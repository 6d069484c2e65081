#!/bin/sh
# The checks on what the guest kernel was told fail when cxlbed's tables
# are wrong: CXLBED_TEST_TABLE_SKEW puts a wrong figure into the CDAT, the
# generic port's HMAT entry or the region's HMAT entry, and the run's
# coordinates, numa and tiers checks say so (direct.topo, boot only).
. "$(dirname "$0")/lib.sh"
need_image
plan 9

run_skewed() {  # NAME SKEW
	CXLBED_TEST_TABLE_SKEW=$2 "$cxlbed" run --boot-only --out "$outroot/$1" \
		"$top/topologies/direct.topo" >"$outroot/$1.out" 2>&1
}
verdict() {  # DIR CHECK -> true | false | missing
	jq -r --arg c "$2" '[.checks[] | select(.name == $c) | .pass] |
		if length == 0 then "missing" else .[0] | tostring end' "$1/summary.json" 2>/dev/null
}
detail() { jq -r --arg c "$2" '.checks[] | select(.name == $c) | .detail' "$1/summary.json" 2>/dev/null; }
fails_with() {  # DIR CHECK PATTERN: the check failed and its detail matches
	[ "$(verdict "$1" "$2")" = false ] && detail "$1" "$2" | grep -q "$3"
}
passes() { for c in "$@"; do [ "$(verdict "$dir" "$c")" = true ] || return 1; done; }

# 7 ns too much in the device's CDAT; 300 ns too much in the region's HMAT.
run_skewed cdat-node "cdat=7,node=300"
rc=$?
check "wrong CDAT and HMAT: the run fails (exit 1, got $rc)" [ $rc -eq 1 ]
dir=$outroot/cdat-node
check "coordinates:h0:r0 fails: 17167 seen, 17160 expected" \
	fails_with $dir coordinates:h0:r0 "read latency 17167 ns, expected 17160"
check "numa:h0:r0 fails: the guest's HMAT says 465 ns for a 165 ns path" \
	fails_with $dir numa:h0:r0 "465/475 ns.*its path is 165/175 ns"
check "tiers:h0 fails: the node is not where its path's figures put it" \
	fails_with $dir tiers:h0 "where its figures put it in memory_tier15"
check "the region still came up (enumeration passes)" passes enumeration:h0:region:r0

# 5 ns too much in the host bridge's generic port entry.
run_skewed port "port=5"
dir=$outroot/port
check "wrong generic port latency: coordinates:h0:r0 fails (17165 vs 17160)" \
	fails_with $dir coordinates:h0:r0 "read latency 17165 ns, expected 17160"
check "wrong generic port latency: the region's own domain and tier still pass" \
	passes numa:h0:r0 tiers:h0

CXLBED_TEST_TABLE_SKEW=hmat=3 "$cxlbed" run --boot-only --out "$outroot/bad" \
	"$top/topologies/direct.topo" >"$outroot/bad.out" 2>&1
rc=$?
bad_input() { [ $rc -eq 2 ] && grep -q CXLBED_TEST_TABLE_SKEW "$outroot/bad.out"; }
check "a malformed skew is bad input: exit 2, the variable named (exit $rc)" bad_input
none_left() { for r in cdat-node port bad; do no_qemu_left "$outroot/$r" || return 1; done; }
check "no QEMU left behind" none_left
finish

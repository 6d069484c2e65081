#!/bin/sh
# An embedding gather on a booted guest (tests/data/pool-embed.scn,
# docs/pooling.md): Zipf 0.99 over 16384 rows, a quarter of the table
# local. libcxlpool's object cache, learning the hot rows from the
# lookups as they come, gets within 5 points of the hit ratio of an oracle
# that keeps the rows most looked up in this very stream local, far above
# first-touch's, and the gather runs faster for it (modeled time). Every
# bag sum verified. No QEMU left behind.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 7
out=$outroot/embed
run_scn "$out" "$top/tests/data/pool-embed.scn"
pol() { sj "$out" ".workloads[0].output.policies[] | select(.policy == \"$1\") | $2"; }
sj "$out" '.workloads[0].output.policies[] | "\(.policy): \(.guest_ms) ms, hit \(.hit_ratio) (oracle \(.oracle_hit_ratio)), runtime \(.runtime // {} | tostring)"' | diag

check "both policies verified every bag sum" \
	[ "$(sj "$out" '[.workloads[0].output.policies[] | select(.ok and .same_result)] | length')" = 2 ]
check "libcxlpool's hit ratio $(pol libcxlpool .hit_ratio) is within 5 points of the oracle's $(pol libcxlpool .oracle_hit_ratio)" \
	within 'a >= b - 0.05' "$(pol libcxlpool .hit_ratio)" "$(pol libcxlpool .oracle_hit_ratio)"
check "and well above first-touch's $(pol first-touch .hit_ratio)" \
	within 'a >= b + 0.3' "$(pol libcxlpool .hit_ratio)" "$(pol first-touch .hit_ratio)"
check "the gather is faster for it ($(pol libcxlpool .guest_ms) against $(pol first-touch .guest_ms) modeled ms)" \
	within 'a < b * 0.95' "$(pol libcxlpool .guest_ms)" "$(pol first-touch .guest_ms)"
check "no QEMU left behind" no_qemu_left "$out"
finish

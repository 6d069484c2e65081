#!/bin/sh
# The guest workloads run on the build host too (x86-64 binaries; the ROI
# markers are 8-byte no-ops without the timing plugin): --chain picks the
# chase's chain and the JSON line names it, a bad --chain is refused.
. "$(dirname "$0")/lib.sh"
bin=$top/build/guest/bin
[ "$(uname -m)" = x86_64 ] || skip_all "workloads are x86-64 binaries, host is $(uname -m)"
[ -x "$bin/cxlbed-chase" ] && [ -x "$bin/cxlbed-loaded" ] && [ -x "$bin/cxlbed-stream" ] ||
	skip_all "workloads not built (run make)"
command -v jq >/dev/null || skip_all "jq not installed"
plan 18

# wl NAME ARGS...: run cxlbed-NAME; stdout in $out, stderr in $err, exit in $rc
out=$outroot/stdout
err=$outroot/stderr
wl() {
	p=$1; shift
	"$bin/cxlbed-$p" "$@" >"$out" 2>"$err"
	rc=$?
	[ $rc -eq 0 ] || { echo "cxlbed-$p $*: exit $rc" | diag; cat "$out" "$err" | diag; }
}
j() { jq -r "$1" "$out" 2>/dev/null; }

wl chase --bytes 4M --chain computed
ok $rc "cxlbed-chase --bytes 4M --chain computed exits 0"
check "it prints one JSON object" [ "$(jq -s 'length' "$out" 2>/dev/null)" = 1 ]
check "its chain is computed" [ "$(j .chain)" = computed ]
check "it made accesses" [ "$(j '.accesses > 0')" = true ]

# chain_is WANT DESCRIPTION: the last run exited 0 and printed chain WANT
chain_is() { [ $rc -eq 0 ] && [ "$(j .chain)" = "$1" ]; ok $? "$2"; }
wl chase --bytes 4M --chain stored
chain_is stored "--chain stored: chain stored"
wl chase --bytes 4M
chain_is stored "no --chain, no --dax: chain stored"
wl chase --bytes 4M --chain auto
chain_is stored "--chain auto on host memory (keeps data): chain stored"

"$bin/cxlbed-chase" --bytes 4M --chain bogus >"$out" 2>"$err"
rc=$?
check "--chain bogus exits nonzero" [ $rc -ne 0 ]
check "and says what --chain wants" grep -q -- "--chain wants stored|computed|auto" "$err"
check "its JSON line is an error naming --chain" \
	[ "$(j '.error | contains("--chain")')" = true ]

wl loaded --load-threads 0 --bytes 4M --chain computed
ok $rc "cxlbed-loaded --load-threads 0 --bytes 4M --chain computed exits 0"
check "its chain is computed, with accesses" \
	[ "$(j '.chain == "computed" and .accesses > 0')" = true ]

"$bin/cxlbed-chase" --help >"$out" 2>&1
check "--help documents --chain" grep -q -- "--chain stored|computed|auto" "$out"
"$bin/cxlbed-stream" --chain computed >"$out" 2>&1
check "cxlbed-stream has no chain: --chain refused" [ $? -ne 0 ]

# cxlbed-pool's kernel knobs: a bad one is refused while the options are
# read, before anything in the system is changed
[ -x "$bin/cxlbed-pool" ] || { for i in 1 2 3 4; do skip "cxlbed-pool not built"; done; finish; }
"$bin/cxlbed-pool" --knob scan_size=8 gups >"$out" 2>"$err"
check "cxlbed-pool --knob with an unknown knob exits 2" [ $? -eq 2 ]
check "and names the knob" grep -q "knob.*not scan_size=8" "$err"
"$bin/cxlbed-pool" --knob scan_delay_ms=-1 gups >"$out" 2>"$err"
check "a negative value is refused" [ $? -eq 2 ]
"$bin/cxlbed-pool" --knob scan_delay_ms=8 --knob damon_quota_mb=4 nosuch >"$out" 2>"$err"
check "good knobs pass, and the next error is the workload's" grep -q "unknown workload 'nosuch'" "$err"
finish

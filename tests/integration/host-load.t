#!/bin/sh
# Modeled figures do not depend on host load: the same short timing run,
# once on a quiet host and once with both host cores kept busy by spinning
# processes, gives latency and bandwidth within 2% on every node.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 5
scn=$top/tests/data/host-load.scn

"$cxlbed" run --out "$outroot/quiet" "$scn" >"$outroot/quiet.log" 2>&1
ok $? "quiet host: run passes"

spin() { while :; do :; done; }
spin & s1=$!
spin & s2=$!
"$cxlbed" run --out "$outroot/busy" "$scn" >"$outroot/busy.log" 2>&1
rc=$?
kill $s1 $s2
wait $s1 $s2 2>/dev/null
ok $rc "both host cores busy: run passes"

figures() { jq -r '.hosts[0].nodes[] | "\(.node) \(.clock) \(.latency_ns) \(.read_gbps)"' "$1/summary.json"; }
figures "$outroot/quiet" >"$outroot/q"
figures "$outroot/busy" >"$outroot/b"
sed 's/^/quiet: /' "$outroot/q" | diag
sed 's/^/busy:  /' "$outroot/b" | diag
check "every figure is modeled" [ -z "$(cat "$outroot/q" "$outroot/b" | awk '$2 != "modeled"')" ]
apart() {  # column of q and b that differ by more than 2%
	paste -d' ' "$outroot/q" "$outroot/b" | awk -v c="$1" -v n=4 '{
		q = $c; b = $(c + n)
		if (q == "null" || b == "null" || q <= 0 || (b - q) / q > 0.02 || (q - b) / q > 0.02)
			print "node " $1 ": " q " vs " b }'
}
lat=$(apart 3)
bw=$(apart 4)
check "latency within 2% busy vs quiet${lat:+ ($lat)}" [ -z "$lat" ]
check "read bandwidth within 2% busy vs quiet${bw:+ ($bw)}" [ -z "$bw" ]
finish

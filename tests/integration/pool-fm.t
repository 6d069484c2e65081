#!/bin/sh
# The fabric manager on two booted guests (docs/pooling.md): LDs bound at
# start, a double bind refused and reported, capacity released by h0 and
# bound to h1 while both run with no byte lost (checksums), `cxlbed fm`
# status/list/bind/unbind against the live run, the pool section and its
# plot in the results, no QEMU left behind; bad events are refused with
# FILE:LINE before anything starts.
. "$(dirname "$0")/lib.sh"
need_image
plan 29
out=$outroot/fm
fm() { "$cxlbed" fm --run "$out" "$@"; }
# Wait (up to $2 s) until `cxlbed fm status --json` satisfies jq filter $1.
wait_status() {
	i=0
	while [ $i -lt $(($2 * 2)) ]; do
		# (jq 1.6 -e passes on empty input: a reply must be there)
		st=$(fm status --json 2>/dev/null)
		[ -n "$st" ] && echo "$st" | jq -e ".result | $1" >/dev/null 2>&1 && return 0
		kill -0 $runpid 2>/dev/null || return 1
		sleep 0.5; i=$((i + 1))
	done
	return 1
}

"$cxlbed" run --out "$out" "$top/tests/data/pool-fm.scn" >"$outroot/run.log" 2>&1 &
runpid=$!

# 1. The start events: the ownership map while the run goes on.
check "status answers while the run goes on, LDs bound at start" \
	wait_status '[.lds[] | select(.state == "bound")] | length == 3' 400
fm status >"$outroot/status.txt" 2>&1
check "cxlbed fm status shows the ownership map (p0.ld0 bound to h0 on rp0)" \
	grep -Eq '^p0\.ld0 +bound +h0 +rp0 ' "$outroot/status.txt"
check "cxlbed fm status shows the pool's figures" \
	grep -Eq '^p0 +768 +768 ' "$outroot/status.txt"
sed 's/^/# /' "$outroot/status.txt" | head -12

# 2. A user's double bind through the socket: refused, exit 1, said so.
fm bind p0.ld2 h0 >"$outroot/bind.out" 2>"$outroot/bind.err"
rc=$?
check "cxlbed fm bind of h1's LD to h0: exit 1 (got $rc)" [ $rc -eq 1 ]
check "... refused: p0.ld2 is bound to h1" grep -q "refused: p0.ld2 is bound to h1" "$outroot/bind.err"
# A request for an LD the run does not have is bad use (exit 2), not a refusal.
fm unbind p0.ld9 >"$outroot/nold.out" 2>"$outroot/nold.err"
rc=$?
check "cxlbed fm unbind of an LD the pool does not have: exit 2 (got $rc)" [ $rc -eq 2 ]
check "... says no logical device p0.ld9" grep -q "no logical device p0.ld9" "$outroot/nold.err"

# 3. The demand shift, then the quiet phase: drive the FM from outside.
check "h0 releases an LD and it is bound to h1 (through the FM, while both run)" \
	wait_status '[.events[] | select(.action == "bind" and .host == "h1" and .source == "demand" and .result == "ok")] | length == 1' 400
check "the settle phase begins" \
	wait_status '[.events[] | select(.action == "phase" and .phase == "settle")] | length == 1' 400
fm unbind p0.ld0 >"$outroot/unbind.out" 2>&1
rc=$?
check "cxlbed fm unbind p0.ld0: exit 0 (got $rc)" [ $rc -eq 0 ]
check "... released by h0 and unbound" grep -q "p0.ld0 released by h0 and unbound" "$outroot/unbind.out"
fm bind p0.ld0 h0 --mode devdax >"$outroot/rebind.out" 2>&1
rc=$?
check "cxlbed fm bind p0.ld0 h0 --mode devdax: exit 0 (got $rc), a dax device" \
	sh -c "[ $rc -eq 0 ] && grep -Eq 'p0.ld0 bound to h0 on rp[01]: region[0-9]+, devdax dax[0-9.]+' '$outroot/rebind.out'"
fm list >"$outroot/list.txt" 2>&1
check "cxlbed fm list: p0.ld0 bound to h0 again, p0.ld1 now h1's" \
	sh -c "grep -Eq '^p0\.ld0 +bound +h0 ' '$outroot/list.txt' && grep -Eq '^p0\.ld1 +bound +h1 ' '$outroot/list.txt'"
sed 's/^/# /' "$outroot/unbind.out" "$outroot/rebind.out"

wait $runpid
rc=$?
check "the run passes (exit $rc)" [ $rc -eq 0 ]
check "its labels agree: the timing model loaded, nothing says 'no timing model', unmeasured nodes have no clock" \
	labels_agree "$out"
[ $rc -eq 0 ] || grep -E "FAIL|fm " "$outroot/run.log" | diag

# 4. The record.
check "the double bind of the scenario is refused and reported (check passes)" \
	[ "$(sj "$out" '[.checks[] | select(.name == "fm:refused:p0.ld0:h1" and .pass)] | length')" = 1 ]
check "the user's double bind is reported too" \
	[ "$(sj "$out" '[.checks[] | select(.name == "fm:refused:p0.ld2:h0" and .pass)] | length')" = 1 ]
check "h0 released p0.ld1 on demand and the kernel migrated its data (> 0 bytes)" \
	[ "$(sj "$out" '[.pool.events[] | select(.action == "unbind" and .ld == "p0.ld1" and .host == "h0" and .result == "ok" and .migrated_bytes > 0)] | length')" = 1 ]
check "the same LD was then bound to h1" \
	[ "$(sj "$out" '[.pool.events[] | select(.action == "bind" and .ld == "p0.ld1" and .host == "h1" and .result == "ok")] | length')" = 1 ]
check "h0: every checksum matches, the released LD's pages moved off it" \
	[ "$(sj "$out" '.workloads[] | select(.host == "h0" and .name == "shift") | .output | .checksum_ok and .lds_after == 1 and ([.chunks[] | select(.node_released) | .on_node_now == 0 and .ok] == [true])')" = true ]
check "h1: the new LD came online as a node and its checksum matches" \
	[ "$(sj "$out" '.workloads[] | select(.host == "h1" and .name == "shift") | .output | .checksum_ok and .new_node > 0 and .new_node_bytes == 268435456')" = true ]
check "pool.samples: lent, used, free, stranded over time" \
	[ "$(sj "$out" '[.pool.samples[] | select(.lent + .free == .size and .used + .stranded == .lent)] | length > 5')" = true ]
check "pool.lds at the end: p0.ld1 is h1's" \
	[ "$(sj "$out" '.pool.lds[] | select(.ld == "p0.ld1") | .host')" = h1 ]
check "every bind's CDAT reached its guest (coordinates:HOST:LD checks pass)" \
	[ "$(sj "$out" '[.checks[] | select(.name | startswith("coordinates:"))] | length >= 5 and all(.pass)')" = true ]
check "the utilisation plot is written" grep -q "lent to h1" "$out/pool-utilisation.svg"
check "report.md has the pool section" grep -q "## Pool (fabric manager)" "$out/report.md"
check "no control socket left" sh -c "! [ -e '$out/fm.sock' ]"
check "no QEMU left behind" no_qemu_left "$out"

# 5. Bad events: exit 2 with FILE:LINE, nothing started.
bad=$outroot/bad.scn
sed 's/^ld = p0.ld1$/ld = p0.ld9/' "$top/tests/data/pool-fm.scn" | sed "s#^topology = .*#topology = $top/topologies/pool-lending.topo#" >"$bad"
"$cxlbed" run --out "$outroot/bad" "$bad" 2>"$outroot/bad.err" >/dev/null
rc=$?
check "an event naming p0.ld9: exit 2 (got $rc), FILE:LINE, no run folder" \
	sh -c "[ $rc -eq 2 ] && grep -q '^$bad:[0-9]*: ld = p0.ld9: no such logical device' '$outroot/bad.err' && [ ! -e '$outroot/bad' ]"
finish

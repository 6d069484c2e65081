#!/bin/sh
# Every shipped topology boots (--boot-only), every region comes online,
# and the guest's enumeration matches the file: memdev serials, CXL ports,
# region sizes and interleave order, NUMA node sizes. The runner's
# enumeration checks do the comparing; here we also count memdevs against
# what `cxlbed plan` says each host has.
. "$(dirname "$0")/lib.sh"
need_image
topos=$(ls "$top"/topologies/*.topo)
# topologies whose devices map a shared pool (a lending pool alone binds
# nothing at boot: tests/integration/pool-fm.t covers it)
pooled=$(grep -l '^pool = ' $topos | wc -l)
plan $(( $(echo "$topos" | wc -l) * 4 + pooled ))

for t in $topos; do
	name=$(basename "$t" .topo)
	out=$outroot/$name
	"$cxlbed" run --boot-only --out "$out" "$t" >"$outroot/$name.out" 2>&1
	rc=$?
	ok $rc "$name: boots, regions online, enumeration matches"
	[ $rc -eq 0 ] && [ -f "$out/summary.json" ] ||
		{ tail -n 25 "$outroot/$name.out" | diag; }
	fails=$(jq -r '[.checks[] | select(.pass | not) | "\(.name): \(.detail)"] | join("; ")' "$out/summary.json" 2>/dev/null)
	check "$name: no failed check ${fails:+($fails)}" [ -f "$out/summary.json" -a -z "$fails" ]
	# plan's per-host header: "# host h0: ..., 4 memdev(s), ..."
	want=$("$cxlbed" plan "$t" 2>/dev/null | sed -n 's/^# host \([^:]*\):.* \([0-9][0-9]*\) memdev.*/\1=\2/p' | sort | tr '\n' ' ')
	got=$(jq -r '.hosts[] | "\(.name)=\(.memdevs)"' "$out/summary.json" 2>/dev/null | sort | tr '\n' ' ')
	check "$name: memdevs per host as planned ($want)" [ -n "$want" -a "$want" = "$got" ]
	if grep -q '^pool = ' "$t"; then
		check "$name: a host's write through the pool is read by the other host" \
			[ "$(jq -r '[.checks[] | select(.name | startswith("pool:"))] | length > 0 and all(.pass)' "$out/summary.json" 2>/dev/null)" = true ]
	fi
	check "$name: no QEMU left behind" no_qemu_left "$out"
done
finish

#!/bin/sh
# Every shipped topology boots (--boot-only), every region comes online,
# and the guest's enumeration matches the file: memdev serials, CXL ports,
# region sizes and interleave order, NUMA node sizes. The runner's
# enumeration checks do the comparing; here we also count memdevs against
# what `cxlbed plan` says each host has. And the guest kernel's memory
# tiers (memory_tierN/nodelist, which the agent reports): DRAM in the top
# tier, every CXL node below it, CXL nodes in their configured latency
# order. cascade's region is devdax (a stock QEMU carries no data two
# switch levels down: docs/qemu.md), so there only DRAM is tiered.
. "$(dirname "$0")/lib.sh"
need_image
topos=$(ls "$top"/topologies/*.topo)
# topologies whose devices map a shared pool (a lending pool alone binds
# nothing at boot: tests/integration/pool-fm.t covers it)
pooled=$(grep -l '^pool = ' $topos | wc -l)
plan $(( $(echo "$topos" | wc -l) * 6 + pooled ))

# Problems with the tiers of summary $1, given each region's configured
# idle read latency as JSON {"r0": 220, ...}; one line each.
tiers_wrong() {
	jq -r --argjson lat "$2" '.hosts[] | .name as $h | .enumeration.tiers as $t |
		def tier($n): [$t[]? | select(any(.nodes[]; . == $n)) | .tier][0];
		([.nodes[] | select(.kind == "local") | tier(.node)] | max) as $d |
		[.nodes[] | select(.kind == "cxl") | {r: .region, t: tier(.node), l: $lat[.region]}] |
		sort_by(.l) as $c |
		(if $d == null then "\($h): DRAM in no tier" else empty end),
		($c[] | select(.t == null or .t <= $d) |
			"\($h): \(.r) in tier \(.t), not below DRAM (tier \($d))"),
		(range(1; $c | length) as $i | select($c[$i].t < $c[$i - 1].t) |
			"\($h): \($c[$i].r) (\($c[$i].l) ns) in tier \($c[$i].t), above \($c[$i - 1].r) (\($c[$i - 1].l) ns)")' \
		"$1" 2>/dev/null || echo "no summary"
}

for t in $topos; do
	name=$(basename "$t" .topo)
	out=$outroot/$name
	"$cxlbed" run --boot-only --out "$out" "$t" >"$outroot/$name.out" 2>&1
	rc=$?
	ok $rc "$name: boots, regions online, enumeration matches"
	[ $rc -eq 0 ] && [ -f "$out/summary.json" ] ||
		{ tail -n 25 "$outroot/$name.out"; host_diag "$out"; } | diag
	fails=$(jq -r '[.checks[] | select(.pass | not) | "\(.name): \(.detail)"] | join("; ")' "$out/summary.json" 2>/dev/null)
	check "$name: no failed check ${fails:+($fails)}" [ -f "$out/summary.json" -a -z "$fails" ]
	# a check that passes says what holds, never that data "read back wrong"
	contra=$(jq -r '[.checks[] | select(.pass and (.detail | test("read back wrong"))) | .name] | join(" ")' "$out/summary.json" 2>/dev/null)
	check "$name: no passing check reads as a failure ${contra:+($contra)}" [ -f "$out/summary.json" -a -z "$contra" ]
	# plan's per-host header: "# host h0: ..., 4 memdev(s), ..."
	want=$("$cxlbed" plan "$t" 2>/dev/null | sed -n 's/^# host \([^:]*\):.* \([0-9][0-9]*\) memdev.*/\1=\2/p' | sort | tr '\n' ' ')
	got=$(jq -r '.hosts[] | "\(.name)=\(.memdevs)"' "$out/summary.json" 2>/dev/null | sort | tr '\n' ' ')
	check "$name: memdevs per host as planned ($want)" [ -n "$want" -a "$want" = "$got" ]
	# plan's device lines end "idle read N ns, write M ns, region R".
	lat=$("$cxlbed" plan "$t" 2>/dev/null | sed -n 's/.*idle read \([0-9.]*\) ns.*, region \([^ ,]*\)$/\2 \1/p' |
		jq -Rn '[inputs | split(" ") | {(.[0]): (.[1] | tonumber)}] |
			reduce .[] as $x ({}; . as $acc | $x | to_entries[0] as $e |
			$acc + {($e.key): ([$acc[$e.key] // 0, $e.value] | max)})')
	wrong=$(tiers_wrong "$out/summary.json" "$lat" | tr '\n' ';')
	check "$name: DRAM in the top memory tier, CXL nodes below in configured latency order${wrong:+ ($wrong)}" \
		[ -n "$lat" -a -z "$wrong" ]
	if grep -q '^pool = ' "$t"; then
		check "$name: a host's write through the pool is read by the other host" \
			[ "$(jq -r '[.checks[] | select(.name | startswith("pool:"))] | length > 0 and all(.pass)' "$out/summary.json" 2>/dev/null)" = true ]
	fi
	check "$name: no QEMU left behind" no_qemu_left "$out"
done
finish

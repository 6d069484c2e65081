#!/bin/sh
# The guest lives in modeled time (docs/timing-model.md, "Guest time"):
# with the timing model the kernel's clocksource and timer are cxlbed's,
# a busy CPU ticks HZ times per modeled second, a 5 s sleep takes 5 s of
# guest time and little host time, and a pointer chase timed only by the
# guest's clock_gettime (no markers) gives the modeled latency of each
# node, the same with both host cores busy.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 12
HZ=250	# the Debian guest kernel's CONFIG_HZ

scn=$top/tests/data/guest-time.scn
"$cxlbed" run --out "$outroot/quiet" "$scn" >"$outroot/quiet.log" 2>&1
ok $? "quiet host: run passes"
busy_start "$outroot/busy.log"
"$cxlbed" run --out "$outroot/busy" "$scn" >"$outroot/busy.log" 2>&1
rc=$?
busy_stop
ok $rc "both host cores busy: run passes"

# FIELD of workload NAME (on NODE, default none) in run RUN
wl() { jq -r --arg n "$2" --argjson node "${4:--1}" \
	'[.workloads[] | select(.name == $n and (.node // -1) == $node)][0] | '"$3" \
	"$outroot/$1/summary.json"; }
for r in quiet busy; do
	jq -c '.workloads[] | [.name, .node, .host_wall_s, .output.ns_per_access,
		.output.modeled.ns_per_access, .output.jiffies_per_s,
		.output.timer_irqs_per_s, .output.sleep_s, .output.tick_edges_us]' "$outroot/$r/summary.json" |
		sed "s/^/$r: /" | diag
	jq -c '.guest_clock' "$outroot/$r/timing-h0.json" | sed "s/^/$r: /" | diag
done

check "the guest kernel's clocksource and clock event device are cxlbed's" \
	[ "$(wl quiet busy '.output.clocksource + "/" + .output.clockevent')" = cxlbed/cxlbed ]
check "summary.json says the guest clock is modeled" \
	[ "$(jq -r .guest_clock "$outroot/quiet/summary.json")" = modeled ]
for r in quiet busy; do
	j=$(wl $r busy .output.jiffies_per_s)
	n=$(wl $r busy '"\(.output.busy_jiffies) in \(.output.busy_s) s, edges within \(.output.tick_edges_us | map(tostring) | join("/")) us"')
	check "$r: a busy CPU ticks HZ ($HZ) times per modeled second (got $j: $n)" \
		awk -v j="$j" -v hz=$HZ 'BEGIN { exit !(j >= hz * 0.99 && j <= hz * 1.01) }'
done
i=$(wl busy busy .output.timer_irqs_per_s)
check "busy host: timer interrupts follow modeled time, not host time ($i/s)" \
	awk -v i="$i" -v hz=$HZ 'BEGIN { exit !(i >= hz * 0.99 && i <= hz * 1.25) }'
s=$(wl quiet sleep .output.sleep_s) w=$(wl quiet sleep .host_wall_s)
check "sleep 5 takes 5 s of guest time ($s s) and less host time ($w s)" \
	awk -v s="$s" -v w="$w" 'BEGIN { exit !(s >= 5 && s < 5.005 && w < 5) }'

# The chase timed by the guest's own clock, no markers: quiet vs busy,
# and against the plugin's modeled figure for the same node and run.
far= modeled_far=
for node in 0 1; do
	q=$(wl quiet clockchase .output.ns_per_access $node)
	b=$(wl busy clockchase .output.ns_per_access $node)
	m=$(wl quiet chase .output.modeled.ns_per_access $node)
	awk -v q="$q" -v b="$b" 'BEGIN { exit !(q > 0 && b > 0 && (b - q) / q <= 0.01 && (q - b) / q <= 0.01) }' ||
		far="$far node $node: $q vs $b;"
	awk -v q="$q" -v m="$m" 'BEGIN { exit !(q > 0 && m > 0 && (m - q) / m <= 0.05 && (q - m) / m <= 0.05) }' ||
		modeled_far="$modeled_far node $node: $q vs $m;"
done
check "clock_gettime chase: quiet and busy within 1%${far:+ ($far)}" [ -z "$far" ]
check "clock_gettime chase within 5% of the modeled figure${modeled_far:+ ($modeled_far)}" \
	[ -z "$modeled_far" ]
check "CXL is slower than local by the guest's own clock" \
	awk -v l="$(wl quiet clockchase .output.ns_per_access 0)" \
	    -v c="$(wl quiet clockchase .output.ns_per_access 1)" 'BEGIN { exit !(c > l * 1.5) }'
check "no QEMU left behind" no_qemu_left "$outroot"
finish

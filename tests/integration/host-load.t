#!/bin/sh
# Modeled figures do not depend on host load: the same short timing run,
# once on a quiet host and once with both host cores kept busy by spinning
# processes, gives latency and bandwidth within 2% on every node; on a
# 1-vCPU guest and on a 4-vCPU one (more vCPUs than host cores, with a
# chaser beside three streamers). A 2-vCPU guest running the measurement
# table's kinds (every vCPU reading at once included) three times, once
# with the host busy, gives every modeled figure within 1%: the guest
# lives in modeled time (docs/timing-model.md, "Guest time").
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 16

spin() { while :; do :; done; }
# One line per workload run: NAME+NODE, clock, latency, bandwidth (modeled).
figures() {
	jq -r '.workloads[] | .output as $o | ($o.modeled // {}) as $m |
		"\(.name)\(.node) \(if $o.modeled then "modeled" else "guest" end) \($m.ns_per_access // $m.loaded_ns_per_access) \($m.read_gbps // $m.load_gbps)"' \
		"$1/summary.json"
}
apart() {  # column $2 of $1.q and $1.b that differ by more than 2%
	paste -d' ' "$1.q" "$1.b" | awk -v c="$2" -v n=4 '{
		q = $c; b = $(c + n)
		if (q == "null" && b == "null")
			next	# no such figure in either run (a chase has no GB/s)
		if (q == "null" || b == "null" || q <= 0 || (b - q) / q > 0.02 || (q - b) / q > 0.02)
			print $1 ": " q " vs " b }'
}

# SCENARIO NAME: the same run quiet and with both host cores spinning.
quiet_and_busy() {
	scn=$top/tests/data/$1 name=$2
	"$cxlbed" run --out "$outroot/$name-quiet" "$scn" >"$outroot/$name-quiet.log" 2>&1
	ok $? "$name, quiet host: run passes"
	spin & s1=$!
	spin & s2=$!
	"$cxlbed" run --out "$outroot/$name-busy" "$scn" >"$outroot/$name-busy.log" 2>&1
	rc=$?
	kill $s1 $s2
	wait $s1 $s2 2>/dev/null
	ok $rc "$name, both host cores busy: run passes"
	figures "$outroot/$name-quiet" >"$outroot/$name.q"
	figures "$outroot/$name-busy" >"$outroot/$name.b"
	sed 's/^/quiet: /' "$outroot/$name.q" | diag
	sed 's/^/busy:  /' "$outroot/$name.b" | diag
	check "$name: every figure is modeled" \
		[ -z "$(cat "$outroot/$name.q" "$outroot/$name.b" | awk '$2 != "modeled"')" ]
	lat=$(apart "$outroot/$name" 3)
	bw=$(apart "$outroot/$name" 4)
	check "$name: latency within 2% busy vs quiet${lat:+ ($lat)}" [ -z "$lat" ]
	check "$name: bandwidth within 2% busy vs quiet${bw:+ ($bw)}" [ -z "$bw" ]
}

# Every modeled figure of run DIR, one "WORKLOAD+NODE.KEY VALUE" a line.
all_figures() {
	jq -r '.workloads[] | .name as $n | (.node // "") as $node |
		(.output.modeled // {} | del(.rois) | to_entries[] |
		 "\($n)\($node).\(.key) \(.value)")' "$1/summary.json" | sort
}

# SCENARIO NAME: three runs, the last with both host cores spinning.
three_runs() {
	scn=$top/tests/data/$1 name=$2
	for r in 1 2 3; do
		[ $r = 3 ] && { spin & s1=$!; spin & s2=$!; }
		"$cxlbed" run --out "$outroot/$name-$r" "$scn" >"$outroot/$name-$r.log" 2>&1
		rc=$?
		[ $r = 3 ] && { kill $s1 $s2; wait $s1 $s2 2>/dev/null; }
		ok $rc "$name, run $r$([ $r = 3 ] && echo ', both host cores busy'): run passes"
		all_figures "$outroot/$name-$r" >"$outroot/$name.$r"
	done
	paste -d' ' "$outroot/$name.1" "$outroot/$name.2" "$outroot/$name.3" | diag
	check "$name: the same modeled figures in every run" \
		[ "$(cut -d' ' -f1 "$outroot/$name.1" | tr '\n' ' ')" = "$(cut -d' ' -f1 "$outroot/$name.3" | tr '\n' ' ')" ]
	far=$(paste -d' ' "$outroot/$name.1" "$outroot/$name.2" "$outroot/$name.3" | awk '{
		lo = $2; hi = $2
		for (i = 4; i <= 6; i += 2) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
		if (lo <= 0 || (hi - lo) / lo > 0.01) print $1 ": " $2 " " $4 " " $6 }')
	check "$name: every figure within 1% over the three runs${far:+ ($far)}" [ -z "$far" ]
}

quiet_and_busy host-load.scn 1cpu
quiet_and_busy host-load-4cpu.scn 4cpu
check "4cpu (more vCPUs than host cores): the loaded run's streamers drew bandwidth" \
	[ "$(awk '$1 ~ /^loaded/ && $4 > 1 { n++ } END { print n + 0 }' "$outroot/4cpu.q")" -ge 1 ]
three_runs host-load-2cpu.scn 2cpu
finish

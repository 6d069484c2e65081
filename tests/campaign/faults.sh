#!/bin/sh
# make faults: a randomised fault campaign (docs/faults.md). Runs
# FAULT_RUNS (default 50) runs, seeds FAULT_SEED (default: from the clock)
# upwards, one at a time; seed S runs scenario S mod 2 of:
#   faults-random.scn        KV offload, replication 2, three pool nodes
#   faults-random-sweep.scn  layer sweep, RS 4+2 split, six pool nodes
# The seed draws each run's fault kind, target and modeled time. Each run
# must pass its checks (no silent corruption, no protected byte lost) and
# leave no QEMU behind. A failing run prints the command that replays it.
# Results: FAULT_OUT (default results/faults-campaign).
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${FAULT_RUNS:-50}
seed=${FAULT_SEED:-$(date +%s)}
out=${FAULT_OUT:-$top/results/faults-campaign}
scns="$top/tests/campaign/faults-random.scn $top/tests/campaign/faults-random-sweep.scn"
nscn=$(echo $scns | wc -w)
mkdir -p "$out"
bad=0
i=0
while [ $i -lt "$runs" ]; do
	s=$((seed + i))
	scn=$(echo $scns | cut -d' ' -f$((s % nscn + 1)))
	dir=$out/seed-$s
	rm -rf "$dir"
	"$top/cxlbed" run --out "$dir" --fault-seed "$s" "$scn" >"$dir.log" 2>&1
	rc=$?
	kind=$(jq -r '.faults[0] | "\(.kind) on \(.target // "-")"' "$dir/summary.json" 2>/dev/null)
	left=$(pgrep -f "qemu-system.*$dir" || true)
	if [ $rc -eq 0 ] && [ -z "$left" ]; then
		echo "ok   seed $s: $(basename "$scn" .scn): $kind"
	else
		bad=$((bad + 1))
		echo "FAIL seed $s: $(basename "$scn" .scn): $kind (exit $rc${left:+, QEMU left: $left}); replay:" \
			"./cxlbed run --fault-seed $s $scn"
		grep -E 'FAILED' "$dir.log" | head -5 | sed 's/^/     /'
	fi
	i=$((i + 1))
done
echo "$((runs - bad))/$runs runs kept the invariants (seeds $seed..$((seed + runs - 1)))"
[ $bad -eq 0 ]

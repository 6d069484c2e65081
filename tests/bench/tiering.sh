#!/bin/sh
# Benchmark: tiering policies side by side and libcxlpool's own cost. Runs
# a tier scenario (default workloads/scenarios/tier-layers.scn; BENCH_SCN
# names another) once and prints, per policy, its span in modeled time
# (the guest clock is modeled), the slowdown against all-local, the
# fast-tier hit ratio and the bytes moved; then the runtime's threads'
# modeled time over libcxlpool's span: its bookkeeping (the helper thread
# deciding what to stage and the copy lanes' own work, outside copies and
# waits: the goal is under 3% of one vCPU) and its data movement (the
# copies it makes instead of the kernel) apart.
# One sample: docs/pooling.md says how far such figures move between runs.
. "$(dirname "$0")/lib.sh"
scn=${BENCH_SCN:-$top/workloads/scenarios/tier-layers.scn}

echo "tiering policies, $(basename "$scn"), one run, modeled time (guest clock modeled)"
bench_run "$scn"
jq -r '.workloads[] | select(.output.policies) | .output as $o |
	([$o.policies[] | select(.policy == "all-local") | .guest_ms][0]) as $base |
	"  \(.name) (\($o.kind)) on \(.host), local fraction \($o.local_fraction):",
	($o.policies[] |
	 "    \(.policy | . + " " * (12 - length)) " +
	 (if .ok then "\(.guest_ms) ms" + (if $base then ", \(.guest_ms / $base * 100 | round / 100)x all-local" else "" end) +
	   ", hit \(.hit_ratio), moved \(.moved_bytes / 1048576 * 10 | round / 10) MiB" +
	   (if .same_result then "" else ", RESULT DIFFERS" end)
	  else "failed: \(.error // "see the run log")" end)),
	($o.policies[] | select(.policy == "libcxlpool" and .ok and .runtime) |
	 "    libcxlpool runtime: bookkeeping \(.runtime.helper_ns / 1e6 / .guest_ms * 1000 | round / 10)% of one vCPU (goal < 3%), " +
	 "data movement \(.runtime.mover_ns / 1e6 / .guest_ms * 1000 | round / 10)%, stalls \(.runtime.stall_ns / 1e6 | . * 10 | round / 10) ms")' \
	"$tmp/run/summary.json"
# The runtime's calls on the application's thread (cxlpool_stream_get/put
# and the prefetch decisions they make): that thread (pinned to vCPU 0)
# ran this many more instructions under libcxlpool than under all-local,
# the same work otherwise. Not in "bookkeeping" above, which counts the
# runtime's own threads.
jq -r --slurpfile t "$(ls "$tmp"/run/timing-*.json | head -1)" '
	($t[0].ns_per_insn) as $npi |
	.workloads[] | select(.output.policies) | .output.policies as $p |
	def roi($name): [$p[] | select(.policy == $name) | .roi][0] as $id |
		[$t[0].rois[] | select(.id == $id)][0];
	(roi("all-local")) as $a | (roi("libcxlpool")) as $l |
	([$p[] | select(.policy == "libcxlpool")][0]) as $lp |
	select($a and $l and $lp.ok and $a.per_vcpu and $l.per_vcpu) |
	(($l.per_vcpu[0].insns - $a.per_vcpu[0].insns) * $npi / 1e6) as $ms |
	"    libcxlpool on the application thread: \(($l.per_vcpu[0].insns - $a.per_vcpu[0].insns) / 1e6 | . * 10 | round / 10)M instructions over all-local'"'"'s, " +
	"\($ms * 10 | round / 10) ms modeled (\($ms / $lp.guest_ms * 1000 | round / 10)% of its span)"' \
	"$tmp/run/summary.json"

#!/bin/sh
# Benchmark: what one guest access to memory costs the host, path by path
# (issue 32; docs/qemu.md). One run of tests/bench/cxl-cost.scn: one
# thread's 64 MiB sequential read and write stream on local DRAM, a
# direct-attached device, a 4-way interleave behind a switch and a 2-way
# interleave behind two cascaded switches, one vCPU, timing model on.
# From each region of the timing report:
#   host CPU ns per access = host_cpu_ns / accesses (host time: what the
#     emulation cost the vCPU thread, the model included)
#   host s per modeled s   = host_cpu_ns / modeled_ns
# and each CXL path against DRAM's (goal: within 1.5x). Then the same on
# Debian's QEMU (BENCH_STOCK=0 leaves it out) for comparison.
set -eu
. "$(dirname "$0")/lib.sh"
stock=$(command -v qemu-system-x86_64 || echo /usr/bin/qemu-system-x86_64)

# table RUNDIR LABEL: one line per path and direction
table() {
	jq -r --arg who "$2" '
		def path: [.links[] | select(.read_bytes > 0 or .write_bytes > 0)
			| .name] as $l |
			if ($l | index("media:mem0")) then "4-way behind a switch"
			elif ($l | index("media:mem4")) then "direct-attached"
			elif ($l | index("media:mem5")) then "2 cascaded switches"
			else "local DRAM" end;
		[.rois[] | {p: path, k: (if .id < 200 then "read" else "write" end),
			ns: (.host_cpu_ns / .accesses), s: (.host_cpu_ns / .modeled_ns),
			mmio: .mmio_lines}] as $r |
		($r | map(select(.p == "local DRAM")) | map({(.k): .ns}) | add) as $d |
		$r[] | "  \($who)  \(.p | . + (" " * (22 - length)))  \(.k | . + (" " * (6 - length)))" +
			"\(.ns * 10 | round / 10) ns/access  \(.s * 10 | round / 10) host s/modeled s" +
			"  \(.ns / $d[.k] * 100 | round / 100)x DRAM  mmio_lines \(.mmio)"' \
		"$1/timing-h0.json"
}
# worst RUNDIR: the largest CXL/DRAM ratio of host ns per access
worst() {
	jq -r '[.rois[] | {cxl: (.mem_reads_cxl + .mem_writes_cxl > 0),
		k: (.id < 200), ns: (.host_cpu_ns / .accesses)}] as $r |
		[$r[] | select(.cxl)] as $c | [$r[] | select(.cxl | not)] as $d |
		[$c[] | . as $x | .ns / ($d[] | select(.k == $x.k) | .ns)] | max' "$1/timing-h0.json"
}

echo "host CPU per guest access, one 64 MiB stream per path, one vCPU (host time, timing model on; $(nproc) cores)"
bench_run "$top/tests/bench/cxl-cost.scn"
cp -r "$tmp/run" "$tmp/ours"
echo "cxlbed's QEMU ($(head -n 1 "$top/build/qemu/build-info" 2>/dev/null || echo "not built"))"
table "$tmp/ours" ours
echo "worst CXL path: $(worst "$tmp/ours" | awk '{printf "%.2f", $1}')x DRAM's host CPU per access (goal: within 1.5x)"
if [ "${BENCH_STOCK:-1}" != 0 ]; then
	rm -rf "$tmp/run"
	"$top/cxlbed" run --qemu "$stock" --out "$tmp/run" "$top/tests/bench/cxl-cost.scn" \
		>"$tmp/log" 2>&1 || true	# its cascade data check cannot pass
	[ -f "$tmp/run/timing-h0.json" ] || { echo "Debian's QEMU run failed"; tail -5 "$tmp/log"; exit 1; }
	echo "Debian's QEMU ($stock, $("$stock" --version | head -n 1))"
	table "$tmp/run" stock
	echo "worst CXL path: $(worst "$tmp/run" | awk '{printf "%.2f", $1}')x DRAM's"
fi

#!/bin/sh
# Benchmark: what one guest access to memory costs the host, path by path
# (issue 32; docs/qemu.md). tests/bench/cxl-cost.scn: one thread's 64 MiB
# sequential read and write stream, four passes, on local DRAM, a
# direct-attached device, a 4-way interleave behind a switch and a 2-way
# interleave behind two cascaded switches; one vCPU, timing model on.
# From each region of the timing report:
#   host CPU ns per access = host_cpu_ns / accesses (host time: what the
#     emulation cost the vCPU thread, the model included)
#   host s per modeled s   = host_cpu_ns / modeled_ns
# and each CXL path against DRAM's (goal: within 1.5x). Host CPU time
# moves by up to 2x between runs on the same quiet machine, so the
# scenario runs BENCH_RUNS times (3) and each figure is the smallest of
# them, each run's own also printed. Then one run on Debian's QEMU for
# comparison (BENCH_STOCK=0 leaves it out).
set -eu
. "$(dirname "$0")/lib.sh"
stock=$(command -v qemu-system-x86_64 || echo /usr/bin/qemu-system-x86_64)
runs=${BENCH_RUNS:-3}

# rows RUNDIR: "path direction ns_per_access host_s_per_modeled_s mmio_lines",
# each region of the timing report named by the workload that marked it
# (a stream marks a read and a write region, in the order the workloads ran)
rows() {
	jq -r --slurpfile s "$1/summary.json" '
		($s[0] | [.workloads[] | .region // (.node as $n |
			($s[0].hosts[0].nodes[] | select(.node == $n) | .region)) //
			"DRAM"]) as $w |
		{"interleaved": "4-way", "direct": "direct", "cascade": "cascade",
		 "DRAM": "DRAM"} as $name |
		.rois | to_entries[] | .value as $r |
		"\($name[$w[.key / 2 | floor]]) \(if $r.id < 200 then "read" else "write" end) " +
		"\($r.host_cpu_ns / $r.accesses) \($r.host_cpu_ns / $r.modeled_ns) \($r.mmio_lines)"' \
		"$1/timing-h0.json"
}
# table WHO FILE: the smallest figure of each path and direction in FILE
# (rows of every run), each against DRAM's; then the worst ratio
table() {
	sort -k1,1 -k2,2 -k3,3g "$2" | awk -v who="$1" '
		!seen[$1 " " $2]++ { ns[$1 " " $2] = $3; s[$1 " " $2] = $4; m[$1 " " $2] = $5
			all[$1 " " $2] = "" }
		{ all[$1 " " $2] = all[$1 " " $2] sprintf(" %.1f", $3) }
		END {
			n = split("DRAM direct 4-way cascade", p, " ")
			for (i = 1; i <= n; i++) for (d = 0; d < 2; d++) {
				k = p[i] " " (d ? "write" : "read"); if (!(k in ns)) continue
				r = ns[k] / ns["DRAM " (d ? "write" : "read")]
				if (p[i] != "DRAM" && r > worst) worst = r
				printf "  %-5s %-8s %-5s %6.1f ns/access %6.1f host s/modeled s %5.2fx DRAM  mmio_lines %s  (runs:%s)\n",
					who, p[i], d ? "write" : "read", ns[k], s[k], r, m[k], all[k]
			}
			printf "worst CXL path: %.2fx DRAM'"'"'s host CPU per access\n", worst
		}'
}

echo "host CPU per guest access, one 64 MiB stream per path (4 passes), one vCPU" \
	"(host time, timing model on; $(nproc) cores); smallest of $runs runs"
echo "cxlbed's QEMU ($(head -n 1 "$top/build/qemu/build-info" 2>/dev/null || echo "not built"))"
: >"$tmp/ours"
i=1
while [ $i -le "$runs" ]; do
	rm -rf "$tmp/run"
	bench_run "$top/tests/bench/cxl-cost.scn"
	rows "$tmp/run" >>"$tmp/ours"
	i=$((i + 1))
done
table ours "$tmp/ours"
echo "(goal: every CXL path within 1.5x)"
# The same without the model (cost=lines: instruction counts, a callback
# per access, the repeat filter and each new line's address translation):
# what QEMU and the plugin's front end cost, whatever the path.
rm -rf "$tmp/run"
CXLBED_TIMING_ARGS=cost=lines bench_run "$top/tests/bench/cxl-cost.scn"
rows "$tmp/run" >"$tmp/lines"
echo "QEMU and the plugin's front end alone (cost=lines, no model, so no modeled time; one run):"
table lines "$tmp/lines" | sed 's/ *[0-9.]* host s\/modeled s//'
if [ "${BENCH_STOCK:-1}" != 0 ]; then
	rm -rf "$tmp/run"
	"$top/cxlbed" run --qemu "$stock" --out "$tmp/run" "$top/tests/bench/cxl-cost.scn" \
		>"$tmp/log" 2>&1 || true	# its cascade data check cannot pass
	[ -f "$tmp/run/timing-h0.json" ] || { echo "Debian's QEMU run failed"; tail -5 "$tmp/log"; exit 1; }
	echo "Debian's QEMU ($stock, $("$stock" --version | head -n 1)), one run"
	rows "$tmp/run" >"$tmp/stock"
	table stock "$tmp/stock"
fi

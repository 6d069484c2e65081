#!/bin/sh
# Benchmark: what keeping vCPUs and hosts in step costs (issue 33;
# docs/timing-model.md, "Keeping vCPUs and hosts in step"). Two scenarios,
# each run on a quiet host and again with both host cores kept busy by
# two spinning processes:
#   tests/bench/vcpus.scn  1, 2 and 4 vCPUs streaming at once (each its
#                          own 32 MiB, read twice), on DRAM and on a 4-way
#                          CXL region (tests/bench/vcpus.topo)
#   tests/bench/hosts.scn  one host streaming from a shared pool alone,
#                          then two hosts together (shared-pool.topo)
# Per stream region of the timing report, for the vCPU that ran it:
#   host CPU ns per access = host_cpu_ns / (accesses / streams)
#     (the region's counters are the host's, summed over its vCPUs;
#     host_cpu_ns is the marking vCPU thread's own CPU time: host time)
#   host s per modeled s   = host_cpu_ns / modeled_ns
# averaged over the streams that ran together, and each against one
# vCPU's (one host's) alone. Goals: 2 vCPUs within 2x per vCPU of one, 4
# within 3x, two hosts within 2x of one, quiet and busy.
set -eu
. "$(dirname "$0")/lib.sh"

# rows RUNDIR: "node streams round ns_per_access host_s_per_modeled_s
# wait_share", one per workload and node of vcpus.scn (its regions end in
# the order the workloads ran, one per stream; a workload's round is how
# often its node and stream count came before); wait_share: the part of
# the streams' host CPU spent in skew waits
vcpu_rows() {
	{ jq -r '.workloads[] | "w \(.node) \(.output.threads // 1)"' "$1/summary.json"
	  jq -r '.rois[] | "r \(.host_cpu_ns) \(.accesses) \(.modeled_ns) \(.wait_cpu_ns)"' "$1/timing-h0.json"
	} | awk 'BEGIN { nw = 0; nr = 0; i = 0 }
		$1 == "w" { node[nw] = $2; k[nw] = $3; round[nw++] = ++seen[$2 " " $3]; next }
		{ cpu[nr] = $2; acc[nr] = $3; mod[nr] = $4; wt[nr++] = $5 }
		END { for (w = 0; w < nw; w++) {
			ns = s = c = wc = 0
			for (j = 0; j < k[w]; j++) {
				ns += cpu[i] / (acc[i] / k[w]); s += cpu[i] / mod[i]
				c += cpu[i]; wc += wt[i]; i++ }
			print node[w], k[w], round[w], ns / k[w], s / k[w], c ? wc / c : 0 } }'
}
# rows RUNDIR: "pool alone|together round ns_per_access host_s_per_modeled_s"
# of hosts.scn: h0 alone, then the mean of h0 and h1 together, each round
# (h0's regions: arm, then alone and together by turns, alone last; h1's:
# arm, then together)
host_rows() {
	jq -r '"\(input_filename | test("h0") | if . then "h0" else "h1" end) " +
		([.rois[] | "\(.host_cpu_ns / .accesses) \(.host_cpu_ns / .modeled_ns)"] | join(" "))' \
		"$1/timing-h0.json" "$1/timing-h1.json" |
	awk '$1 == "h0" { for (p = 0; 4 + 2 * p + 1 <= NF; p++) {
			f = 4 + 2 * p; r = int(p / 2) + 1
			if (p % 2 == 0) print "pool alone", r, $f, $(f + 1)
			else { n0[r] = $f; s0[r] = $(f + 1); rounds = r } } }
	     $1 == "h1" { for (f = 4; f + 1 <= NF; f += 2) { r = (f - 4) / 2 + 1; n1[r] = $f; s1[r] = $(f + 1) } }
	     END { for (r = 1; r <= rounds; r++)
			print "pool together", r, (n0[r] + n1[r]) / 2, (s0[r] + s1[r]) / 2 }'
}

spin_pids=
spin_start() {
	for k in 1 2; do
		sh -c 'while :; do :; done' &
		spin_pids="$spin_pids $!"
	done
}
spin_stop() { [ -z "$spin_pids" ] || kill $spin_pids 2>/dev/null; spin_pids=; }
trap 'spin_stop; rm -rf "$tmp"' EXIT

for load in quiet busy; do
	[ "$load" = busy ] && spin_start
	rm -rf "$tmp/run"
	bench_run "$top/tests/bench/vcpus.scn"
	vcpu_rows "$tmp/run" >"$tmp/vcpus.$load"
	rm -rf "$tmp/run"
	bench_run "$top/tests/bench/hosts.scn"
	host_rows "$tmp/run" >"$tmp/hosts.$load"
	spin_stop
done
# the rows behind the table, for a closer look
[ -z "${CXLBED_BENCH_KEEP:-}" ] || cp "$tmp"/vcpus.* "$tmp"/hosts.* "$CXLBED_BENCH_KEEP"/

# figures ROWS SELECTOR ONE: the rows' median per-stream cost; against
# one vCPU (one host), the median and range over the rounds of that cost
# over the mean of the one-vCPU readings just before and just after the
# round's (the scenarios end on one more; the host's own speed drifts by
# a quarter within a minute on the development VM); for the one-vCPU row
# itself, the range of its readings over their median (the host's noise)
figures() {
	awk -v sel="$2" -v one="$3" '
		function med(a, n,   i, j, t, b) {
			for (i = 1; i <= n; i++) b[i] = a[i]
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && b[j - 1] > b[j]; j--) { t = b[j]; b[j] = b[j - 1]; b[j - 1] = t }
			return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2 }
		{ key = $1 " " $2 }
		key == one { base[$3] = $4; if ($3 > last) last = $3 }
		key == sel { n++; r[n] = $3; ns[n] = $4; s[n] = $5; w[n] = NF > 5 ? $6 : -1 }
		END { lo = 1e9; hi = 0; m = med(ns, n)
			for (i = 1; i <= n; i++) {
				if (sel == one) x[i] = ns[i] / m
				else if (r[i] < last) x[i] = ns[i] / ((base[r[i]] + base[r[i] + 1]) / 2)
				else x[i] = ns[i] / base[r[i]]
				if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
			printf "%6.1f ns/access %6.1f host s/modeled s %5.2fx (%4.2f-%4.2f)", m, med(s, n),
				sel == one ? 1 : med(x, n), lo, hi
			if (w[1] >= 0) printf " %3.0f%% waiting", 100 * med(w, n) }' "$1"
}

echo "keeping vCPUs and hosts in step: host CPU per guest access of each stream (host time, timing model on; $(nproc) cores; busy = two spinning processes)"
echo "  median of three rounds in one run; x: against one vCPU (one host) around the same round, median (range over the rounds;"
echo "  for one vCPU or host alone: the range of its readings against their median, the host's own noise)"
printf '  %-20s %-68s %s\n' "" "quiet" "busy"
for node in 0 1; do
	kind=DRAM; [ "$node" = 1 ] && kind=CXL
	for k in 1 2 4; do
		line="  $(printf '%d vCPU(s), %-4s' "$k" "$kind")"
		for load in quiet busy; do
			line="$line $(printf '%-68s' "$(figures "$tmp/vcpus.$load" "$node $k" "$node 1")")"
		done
		echo "$line"
	done
done
for what in alone together; do
	line="  $(printf '%-20s' "$( [ $what = alone ] && echo "1 host, pool" || echo "2 hosts, one pool")")"
	for load in quiet busy; do
		line="$line $(printf '%-68s' "$(figures "$tmp/hosts.$load" "pool $what" "pool alone")")"
	done
	echo "$line"
done
echo "(goals: 2 vCPUs <= 2x, 4 <= 3x, 2 hosts <= 2x, quiet and busy)"

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

# rows RUNDIR: "node streams ns_per_access host_s_per_modeled_s
# wait_share", one per workload and node of vcpus.scn (its regions end in
# the order the workloads ran, one per stream); wait_share: the part of
# the streams' host CPU spent in skew waits
vcpu_rows() {
	{ jq -r '.workloads[] | "w \(.node) \(.output.threads // 1)"' "$1/summary.json"
	  jq -r '.rois[] | "r \(.host_cpu_ns) \(.accesses) \(.modeled_ns) \(.wait_cpu_ns)"' "$1/timing-h0.json"
	} | awk 'BEGIN { nw = 0; nr = 0; i = 0 }
		$1 == "w" { node[nw] = $2; k[nw++] = $3; next }
		{ cpu[nr] = $2; acc[nr] = $3; mod[nr] = $4; wt[nr++] = $5 }
		END { for (w = 0; w < nw; w++) {
			ns = s = c = wc = 0
			for (j = 0; j < k[w]; j++) {
				ns += cpu[i] / (acc[i] / k[w]); s += cpu[i] / mod[i]
				c += cpu[i]; wc += wt[i]; i++ }
			print node[w], k[w], ns / k[w], s / k[w], c ? wc / c : 0 } }'
}
# rows RUNDIR: "alone|together ns_per_access host_s_per_modeled_s" of
# hosts.scn: h0 alone, then the mean of h0 and h1 together
host_rows() {
	jq -r '.rois as $r | ($r | length) as $n |
		"\(input_filename | test("h0") | if . then "h0" else "h1" end) \($n) " +
		([$r[] | "\(.host_cpu_ns / .accesses) \(.host_cpu_ns / .modeled_ns)"] | join(" "))' \
		"$1/timing-h0.json" "$1/timing-h1.json" |
	awk '$1 == "h0" { alone = $5 " " $6; t0n = $7; t0s = $8 }
	     $1 == "h1" { t1n = $(NF - 1); t1s = $NF }
	     END { print "alone " alone; print "together " (t0n + t1n) / 2 " " (t0s + t1s) / 2 }'
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

echo "keeping vCPUs and hosts in step: host CPU per guest access of each stream (host time, timing model on; $(nproc) cores; busy = two spinning processes)"
printf '  %-22s %-54s %s\n' "" "quiet" "busy"
for node in 0 1; do
	kind=DRAM; [ "$node" = 1 ] && kind=CXL
	for k in 1 2 4; do
		line="  $(printf '%d vCPU(s), %-4s' "$k" "$kind")"
		for load in quiet busy; do
			line="$line $(awk -v n="$node" -v k="$k" '
				$1 == n && $2 == 1 { one = $3 }
				$1 == n && $2 == k { ns = $3; s = $4; w = $5 }
				END { printf "%6.1f ns/access %6.1f host s/modeled s %5.2fx %3.0f%% waiting", ns, s, ns / one, 100 * w }' \
				"$tmp/vcpus.$load")"
		done
		echo "$line"
	done
done
for what in alone together; do
	line="  $(printf '%-22s' "$( [ $what = alone ] && echo "1 host, pool" || echo "2 hosts, one pool")")"
	for load in quiet busy; do
		line="$line $(awk -v w="$what" '$1 == "alone" { one = $2 } $1 == w { ns = $2; s = $3 }
			END { printf "%6.1f ns/access %6.1f host s/modeled s %5.2fx", ns, s, ns / one }' \
			"$tmp/hosts.$load")"
	done
	echo "$line"
done
echo "(x: per vCPU against one vCPU streaming alone, per host against one host alone, same load;" \
	"goals: 2 vCPUs <= 2x, 4 <= 3x, 2 hosts <= 2x)"

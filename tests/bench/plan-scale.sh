#!/bin/sh
# Benchmark: how `cxlbed plan` scales with the number of hosts (host wall
# time, one run each). Validation must stay linear: before issue 8 it was
# quadratic (8,000 hosts took 8.8 s, 53,000 never finished).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/cxlbed-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "cxlbed plan --no-timing, N hosts ([host hI] sections only), host wall time ($(nproc) cores)"
for n in 1000 8000 53000; do
	awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "[host h%d]\n", i }' \
		>"$tmp/hosts.topo"
	t0=$(date +%s.%N)
	"$top/cxlbed" plan --no-timing "$tmp/hosts.topo" >/dev/null
	t1=$(date +%s.%N)
	awk -v n=$n -v a=$t0 -v b=$t1 'BEGIN { printf "  %d hosts: %.2f s\n", n, b - a }'
done

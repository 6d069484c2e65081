#!/bin/sh
# A KV cache shared by a prefill host and a decode host through one CXL
# pool, against 200G and 100G RDMA and recompute (docs/kv-share.md), in
# one run: workloads/scenarios/kv-share.scn, then a third round whose
# reader skips the invalidate (--no-invalidate) and a fourth whose writer
# skips the write-back (--no-flush). Every path gives TTFT and
# throughput, each transfer as the copy engine model times it; every
# fetched block's checksum is right; the correct protocol reads nothing
# stale, each broken one is caught and fails the run. The KV-size x
# hit-ratio sweep expands, and merges the run's figures. No QEMU left
# behind.
. "$(dirname "$0")/lib.sh"
need_image
[ -f "$top/build/timing/libcxlbed-timing.so" ] || skip_all "timing plugin not built (run make)"
plan 16
check "the KV-size x hit-ratio sweep expands to 12 points" \
	sh -c "'$cxlbed' sweep --dry-run --out '$outroot/sweep' '$top/workloads/sweeps/kv-share.sweep' | grep -q '^sweep kv-share: 12 points'"

# the shipped scenario, then a round whose reader keeps its old copies
scn=$outroot/kv-share-stale.scn
sed "s|^topology = .*|topology = $top/topologies/kv-share.topo|" \
	"$top/workloads/scenarios/kv-share.scn" >"$scn"
cat >>"$scn" <<'SCN'

[workload prefill-3]
program = cxlbed-kvshare
args = --prefill --dax {dax} --round 3 --sessions 8 --prefix-tokens 64 --block-tokens 16 --kv-per-token 16K
nodes = none
hosts = h0
timeout = 300

[workload decode-stale]
program = cxlbed-kvshare
args = --decode --dax {dax} --round 3 --requests 8 --hit-ratio 1 --new-tokens 16 --compute-ns-per-token 2000 --paths cxl-load --no-invalidate
nodes = none
hosts = h1
timeout = 300

[workload prefill-4]
program = cxlbed-kvshare
args = --prefill --dax {dax} --round 4 --sessions 8 --prefix-tokens 64 --block-tokens 16 --kv-per-token 16K --no-flush
nodes = none
hosts = h0
timeout = 300

[workload decode-noflush]
program = cxlbed-kvshare
args = --decode --dax {dax} --round 4 --requests 8 --hit-ratio 1 --new-tokens 16 --compute-ns-per-token 2000 --paths cxl-load
nodes = none
hosts = h1
timeout = 300
SCN
out=$outroot/kv
t0=$(date +%s)
"$cxlbed" run --out "$out" "$scn" >"$out.log" 2>&1
rc=$?
echo "host wall time of the run: $(( $(date +%s) - t0 )) s" | diag
bad=$(jq -r '[.checks[] | select(.pass | not) | .name] | join(" ")' "$out/summary.json" 2>/dev/null)
want="stale:decode-stale:h1 stale:decode-noflush:h1"
check "the run ends (exit $rc) with verdict fail, for the two broken protocols alone (failed: ${bad:-none})" \
	[ "$rc" -ne 2 ] && [ "$(sj "$out" .verdict)" = fail ] && [ "$bad" = "$want" ]
[ "$bad" = "$want" ] || { tail -n 25 "$out.log"; host_diag "$out"; } | diag

dec='.workloads[] | select(.name == "decode") | .output'
path() { sj "$out" "$dec | .paths[] | select(.path == \"$1\") | $2"; }
sj "$out" "$dec | .paths[] | \"\(.path): TTFT median \(.ttft_median_us) us, p99 \(.ttft_p99_us) us, \(.requests_per_s) requests/s, fetch \(.fetch_median_us) us, \(.hits) hits\"" | diag
check "prefill on h0, decode on h1" \
	[ "$(sj "$out" '[.workloads[] | select(.program == "cxlbed-kvshare") | "\(.name)@\(.host)"] | join(" ")')" = \
	  "prefill@h0 decode@h1 prefill-2@h0 decode-2@h1 prefill-3@h0 decode-stale@h1 prefill-4@h0 decode-noflush@h1" ]
check "TTFT median and p99 and throughput for cxl-dma, rdma-200g, rdma-100g and recompute" \
	[ "$(sj "$out" "[$dec | .paths[] | select(.ttft_median_us > 0 and .ttft_p99_us >= .ttft_median_us and .requests_per_s > 0) | .path] | join(\" \")")" = \
	  "cxl-dma cxl-load rdma-200g rdma-100g recompute" ]
check "every fetched block's checksum right, in every decode run ($(sj "$out" '[.workloads[] | select(.output.role == "decode") | .output.paths[].blocks] | add') blocks)" \
	[ "$(sj "$out" '[.workloads[] | select(.output.role == "decode") | .output.paths[] | select(.checksum_errors != 0)] | length')" = 0 ]
# one hit: four 256 KiB blocks posted at once; the model's time is the
# NIC's latency + 1 MiB at its rate (docs/kv-share.md's presets)
check "a hit over 200G RDMA: 2.5 us + 1 MiB / 23 GB/s = 48.09 us, within 2% ($(path rdma-200g .fetch_median_us))" \
	within 'a > b * 0.98 && a < b * 1.02' "$(path rdma-200g .fetch_median_us)" 48.09
check "a hit over 100G RDMA: 3.0 us + 1 MiB / 11.5 GB/s = 94.18 us, within 2% ($(path rdma-100g .fetch_median_us))" \
	within 'a > b * 0.98 && a < b * 1.02' "$(path rdma-100g .fetch_median_us)" 94.18
# the DMA engine at 30 GB/s (the pool's path is 48) plus the invalidate
check "a hit over the DMA engine: 1.5 us + 1 MiB / 30 GB/s = 36.45 us, and its invalidate, under 20% more ($(path cxl-dma .fetch_median_us))" \
	within 'a >= b && a < b * 1.2' "$(path cxl-dma .fetch_median_us)" 36.45
check "recompute: 80 tokens x 2 us = 160 us a request, within 1% ($(path recompute .ttft_median_us))" \
	within 'a > b * 0.99 && a < b * 1.01' "$(path recompute .ttft_median_us)" 160
check "the right protocol reads nothing stale (stale: of prefill, decode, prefill-2, decode-2, prefill-3 pass, their flushes counted)" \
	[ "$(sj "$out" '[.checks[] | select((.name | startswith("stale:")) and .pass and .name != "stale:prefill-4:h0")] | length')" = 5 ] &&
	[ "$(sj "$out" '[.workloads[] | select((.name | IN("decode-stale", "prefill-4", "decode-noflush") | not) and .output.stale_reads.flushes > 0 and .output.stale_reads.not_invalidated == 0 and .output.stale_reads.not_flushed == 0)] | length')" = 5 ]
stale='.workloads[] | select(.name == "decode-stale") | .output.stale_reads'
check "the reader that skipped the invalidate is caught: $(sj "$out" "$stale | .not_invalidated") loads not invalidated, the first with offset and call site" \
	[ "$(sj "$out" "$stale | .not_invalidated > 0 and (.events | length) > 0 and (.events[0].kind == \"not_invalidated\") and (.events[0].pc | startswith(\"0x\"))")" = true ]
noflush='.workloads[] | select(.name == "decode-noflush") | .output.stale_reads'
check "a writer that skipped the write-back is caught at the reader: $(sj "$out" "$noflush | .not_flushed") loads of lines never written back, none not invalidated" \
	[ "$(sj "$out" "$noflush | .not_flushed > 0 and .not_invalidated == 0 and (.events[0].kind == \"not_flushed\")")" = true ]
check "report.md puts the run's ratios beside the published 3.8x and 6.5x" \
	grep -q "against 200G RDMA | 3.80x | [0-9.]*x |" "$out/report.md"
check "report.md says what makes CXL's lead larger or smaller" \
	grep -q "CXL's lead grows with a pool path wider" "$out/report.md"
# the sweep's point of the scenario's own parameters (p6: 16K, 0.75) merged
mkdir -p "$outroot/sweep/points/p6/run" && cp "$out/summary.json" "$outroot/sweep/points/p6/run/"
"$cxlbed" sweep --collect "$outroot/sweep" >/dev/null 2>&1
csv() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i } $1 == "p6" && c { print $c }' \
	"$outroot/sweep/sweep.csv"; }
check "sweep --collect puts each path's TTFT and throughput in sweep.csv, on the modeled clock ($(csv decode.rdma-100g.ttft_median_us) us, $(csv decode.cxl-dma.requests_per_s)/s)" \
	within 'a == b && c == d' "$(csv decode.rdma-100g.ttft_median_us)" "$(path rdma-100g .ttft_median_us)" \
		"$(csv decode.cxl-dma.requests_per_s)" "$(path cxl-dma .requests_per_s)" &&
	[ "$(csv clock)" = modeled ]
check "no QEMU left behind" no_qemu_left "$out"
finish

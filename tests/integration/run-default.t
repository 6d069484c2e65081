#!/bin/sh
# `cxlbed run` with no argument: the default scenario on the default
# topology (one switch, 4 Type-3 devices, 4-way region) boots a real guest,
# brings 1 GiB of CXL memory online as a NUMA node, measures every node,
# writes the results files and leaves no QEMU behind. The timing model is
# on by default: every figure is modeled. --no-timing runs the same guest
# on its own clock and says so.
. "$(dirname "$0")/lib.sh"
need_image
plan 20

out=$outroot/default
"$cxlbed" run --out "$out" >"$outroot/stdout" 2>"$outroot/stderr"
rc=$?
ok $rc "cxlbed run (default scenario) exits 0"
[ $rc -eq 0 ] || tail -n 30 "$outroot/stderr" | diag

check "summary.json verdict is pass" [ "$(sj "$out" .verdict)" = pass ]
check "schema is cxlbed.result/1" [ "$(sj "$out" .schema)" = cxlbed.result/1 ]
check "guest enumerated 4 memdevs" [ "$(sj "$out" '.hosts[0].memdevs')" = 4 ]
cxl_mib=$(sj "$out" '[.hosts[0].nodes[] | select(.kind=="cxl") | .mem_bytes] | add / 1048576 | floor')
check "one CXL node of 1024 MiB (got ${cxl_mib} MiB)" [ "${cxl_mib:-0}" -ge 1003 ] 
check "CXL node path names the switch and the 4 devices" \
	[ "$(sj "$out" '.hosts[0].nodes[] | select(.kind=="cxl") | .path')" = "hb0/rp0/sw0/{mem0,mem1,mem2,mem3}" ]
for field in latency_ns read_gbps write_gbps; do
	check "node 0 and the CXL node have $field" \
		[ "$(sj "$out" "[.hosts[0].nodes[] | select(.$field != null and .$field > 0)] | length")" -ge 2 ]
done
check "timing model on by default: every node's clock is modeled" \
	[ "$(sj "$out" '.timing_model and ([.hosts[0].nodes[] | select(.clock != "modeled")] | length == 0)')" = true ]
check "modeled CXL latency above local (switch path)" \
	[ "$(sj "$out" '([.hosts[0].nodes[] | select(.kind=="cxl") | .latency_ns] | min) > ([.hosts[0].nodes[] | select(.kind=="local") | .latency_ns] | max)')" = true ]
check "boot_ready_s recorded" [ "$(sj "$out" '.boot_ready_s > 0')" = true ]
check "report.md, report.html, console and QMP logs written" \
	test -s "$out/report.md" -a -s "$out/report.html" -a -s "$out/console-h0.log" -a -s "$out/qmp-h0.log"
check "QMP log shows capabilities negotiated and the agent creating the region" \
	sh -c "grep -q qmp_capabilities '$out/qmp-h0.log' && grep -q create-region '$out/qmp-h0.log'"
check "the table printed the verdict" grep -q 'verdict: pass' "$outroot/stdout"
check "no QEMU left behind" no_qemu_left "$out"
"$cxlbed" compare "$top/results/baseline/default" "$out" >"$outroot/cmp.out" 2>&1
rc=$?
check "cxlbed compare with the committed baseline (results/baseline/default): exit 0 (got $rc)" [ $rc -eq 0 ]
grep -E '^(verdict|regressed)' "$outroot/cmp.out" | diag
# The baseline is regenerated whenever the model moves a figure (its
# README): a stale one is caught here, in either direction, at 1%.
agree_both_ways 1% "$top/results/baseline/default" "$out" cmp1
check "the committed baseline matches this run within 1% both ways (exit $rc1, $rc2)" \
	[ $rc1 -eq 0 -a $rc2 -eq 0 ]
out_of_bounds cmp1

# --no-timing: the guest's own clock, a functional check, and it says so.
g=$outroot/guest
"$cxlbed" run --no-timing --out "$g" "$top/topologies/direct.topo" >"$outroot/g.stdout" 2>"$outroot/g.stderr"
rc=$?
check "--no-timing: exits 0 ($rc), no -plugin, every node's clock is guest, and it says so" \
	sh -c "[ $rc = 0 ] && grep -q 'timing model off (--no-timing)' '$outroot/g.stderr' &&
		grep -q '^figures: guest wall clock' '$outroot/g.stdout' &&
		[ \"\$(jq -r '.timing_model or ([.hosts[0].nodes[] | select(.clock != \"guest\")] | length > 0)' '$g/summary.json')\" = false ] &&
		! grep -q -- '-plugin' '$g/qemu-h0.cmdline'"
check "no QEMU left behind (--no-timing)" no_qemu_left "$g"
finish

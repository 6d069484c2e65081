#!/bin/sh
# Debian's newest kernel as the guest (docs/kernels.md): `--kernel 7.3`
# downloads the newest 7.3 release a Debian suite serves into
# build/cache/kernels/ the first time (never installing it), builds its
# guest image (its modules, the clock module against its headers) and
# boots it. The default scenario passes on it and on the default 6.12,
# each checked against its own kernel's link-latency rule, and compare
# matches the two runs row by row, naming both kernels. A short tier-kv
# runs the policies that need Linux 6.16 on 7.3 and lists them as
# unavailable on 6.12. plan names a kernel it has not got without
# downloading it. Host time: about 4 minutes here, plus the first
# download and image build (about 40 s and 35 s).
. "$(dirname "$0")/lib.sh"
need_image
command -v apt-get >/dev/null || skip_all "no apt-get: Debian's kernels come through APT"
apt-get update --print-uris 2>/dev/null | grep -q "/dists/bookworm/InRelease" ||
	skip_all "APT's sources list no Debian bookworm repository to take the mirror from"
cache=$top/build/cache/kernels
# the download first, as the first run would make it: a mirror that does
# not answer is no failure of cxlbed's
if ! ls "$cache"/7.3.*.list >/dev/null 2>&1; then
	t0=$(date +%s)
	sh "$top/guest/kernel/fetch-debian.sh" 7.3 "$cache" >"$outroot/fetch.log" 2>&1 ||
		skip_all "Debian's 7.3 could not be downloaded: $(tail -n 1 "$outroot/fetch.log")"
	fetched="downloaded 7.3 in $(($(date +%s) - t0)) s"
fi
plan 21
[ -z "${fetched:-}" ] || echo "$fetched" | diag

ls "$cache" 2>/dev/null | sort >"$outroot/cache.before"

# plan of a line that may not be here: named, nothing downloaded
"$cxlbed" plan --kernel 7.2 "$top/topologies/default.topo" >"$outroot/plan72" 2>&1
rc=$?
ls "$cache" 2>/dev/null | sort >"$outroot/cache.after"
check "plan --kernel 7.2: exit 0 ($rc), names the kernel, downloads nothing" \
	sh -c "[ $rc = 0 ] && grep -q '^# guest kernel: .*7\.2' '$outroot/plan72' &&
		cmp -s '$outroot/cache.before' '$outroot/cache.after'"
grep '^# guest kernel' "$outroot/plan72" | diag

# 7.3: fetched (the first time) and built, then the default scenario
t0=$(date +%s)
k73=$outroot/default-73
"$cxlbed" run --kernel 7.3 --out "$k73" >"$k73.log" 2>&1
rc=$?
run_passes "$k73" "$k73.log" "the default scenario on Debian's 7.3 passes"
echo "host time $(($(date +%s) - t0)) s (download and image build included when they ran)" | diag
grep -E '^cxlbed: kernel|downloading|guest image built' "$k73.log" | diag
release=$(sj "$k73" '.guest_kernel.release')
check "summary.json: a 7.3 release from Debian, its version and suite ($release)" \
	sh -c "case '$release' in 7.3.*) true;; *) false;; esac &&
		[ \"\$(jq -r '.guest_kernel.source' '$k73/summary.json')\" = debian ] &&
		[ -n \"\$(jq -r '.guest_kernel.version // empty' '$k73/summary.json')\" ] &&
		[ -n \"\$(jq -r '.guest_kernel.suite // empty' '$k73/summary.json')\" ]"
check "the guest ran it (kernel:h0, the agent's hello)" \
	[ "$(sj "$k73" '[.checks[] | select(.name == "kernel:h0" and .pass)] | length')" = 1 -a \
	  "$(sj "$k73" '.hosts[0].kernel')" = "$release" ]
check "its regions came online" [ "$(sj "$k73" '[.checks[] | select(.name == "boot:h0" and .pass)] | length')" = 1 ]
check "coordinates: expected as 7.3 adds the link terms (ns over the width), and passed" \
	[ "$(sj "$k73" '[.checks[] | select(.name == "coordinates:h0:r0" and .pass and (.detail | contains("ns rounded up, over the link")))] | length')" = 1 ]
check "the guest clock module loaded: modeled guest time" \
	[ "$(sj "$k73" '.guest_clock')" = modeled ]
check "report.md names the kernel" grep -q "^- guest kernel: $release (Debian" "$k73/report.md"
check "its image: a clock module built for $release" \
	sh -c "modinfo -F vermagic '$top/build/guest/kernels/debian-$release/kmod/cxlbed_clock.ko' | grep -q '^$release '"
check "no QEMU left behind" no_qemu_left "$k73"

# the same on the default 6.12, and the two compared
k612=$outroot/default-612
"$cxlbed" run --kernel 6.12 --out "$k612" >"$k612.log" 2>&1
rc=$?
run_passes "$k612" "$k612.log" "the default scenario on 6.12 (kernel 6.12: the default image) passes"
check "coordinates on 6.12: the link terms in ps, as 6.12.95 adds them" \
	[ "$(sj "$k612" '[.checks[] | select(.name == "coordinates:h0:r0" and .pass and (.detail | contains("ps added as ns")))] | length')" = 1 ]
"$cxlbed" compare "$k612" "$k73" >"$outroot/cmp" 2>&1
rc=$?
head -n 3 "$outroot/cmp" | diag
check "compare 6.12 against 7.3: exit 0 ($rc), both kernels named" \
	sh -c "[ $rc = 0 ] && grep -q '^kernel    baseline 6\.12.*candidate 7\.3.*different kernels' '$outroot/cmp'"
check "... every node figure matched, none lost or new" \
	sh -c "! grep -qE '^(only in|lost|new row)' '$outroot/cmp' &&
		[ \$(grep -cE ' (within|improved|regressed) *\$' '$outroot/cmp') -ge 6 ]"

# the policies 7.3 has and 6.12 lacks
pol() { jq -r ".workloads[0].output.policies[] | select(.policy == \"$2\") | $3" "$1/summary.json"; }
t73=$outroot/tier-73
"$cxlbed" run --kernel 7.3 --out "$t73" "$top/tests/data/tier-kv-short.scn" >"$t73.log" 2>&1
rc=$?
run_passes "$t73" "$t73.log" "tier-kv (4 steps) on 7.3 passes"
check "interleave-auto ran on 7.3 with the kernel's weights, verified" \
	[ "$(pol "$t73" interleave-auto '.ok and .same_result and (.tuned.weights.fast > 0) and (.guest_ms > 0)')" = true ]
check "damon-auto ran on 7.3: its kdamonds started (a goal-tuned quota is a byte or more once they run), verified" \
	[ "$(pol "$t73" damon-auto '.ok and .same_result and (.tuned.promote.effective_quota_bytes >= 1) and (.tuned.demote.effective_quota_bytes >= 1) and (.tuned.demote.goal_metric_bp > 0)')" = true ]
check "report.md: both in the policies' table with their figures" \
	sh -c "grep -q '^| interleave-auto | yes | [0-9]' '$t73/report.md' &&
		grep -q '^| damon-auto | yes | [0-9]' '$t73/report.md' &&
		grep -q 'interleave-auto: the kernel.s weights' '$t73/report.md'"
t612=$outroot/tier-612
"$cxlbed" run --out "$t612" "$top/tests/data/tier-kv-short.scn" >"$t612.log" 2>&1
rc=$?
run_passes "$t612" "$t612.log" "tier-kv (4 steps) on 6.12 passes, the two policies left out"
check "on 6.12 both are listed unavailable, saying they came with Linux 6.16" \
	[ "$(pol "$t612" interleave-auto '(.available == false) and (.why | contains("6.16"))')$(pol "$t612" damon-auto '(.available == false) and (.why | contains("6.16"))')" = truetrue ]
check "report.md says so" grep -q '^| damon-auto | unavailable (kernel)' "$t612/report.md"
finish

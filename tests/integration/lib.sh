# Shared by the integration tests (sourced, not run): TAP output, runs of
# ./cxlbed in a private results folder, and the no-QEMU-left-behind check.
top=$(cd "$(dirname "$0")/../.." && pwd)
cxlbed="$top/cxlbed"
tn=0
failed=0

planned=
plan() { echo "1..$1"; planned=1; }
# Before the plan only: after it, a skip is one `ok N # SKIP reason` line.
skip_all() {
	if [ -n "$planned" ]; then
		echo "not ok $((tn + 1)) - skip_all ($*) after the plan; skip each test instead"
		exit 1
	fi
	echo "1..0 # SKIP $*"; exit 0
}
# A description on one line: a newline in it would end the TAP line early
# (and cut off a TODO directive after it).
one_line() { printf '%s' "$1" | tr '\n' ';'; }
ok() {  # ok CONDITION-EXIT-STATUS DESCRIPTION
	tn=$((tn + 1))
	ok_d=$(one_line "$2")
	if [ "$1" -eq 0 ]; then echo "ok $tn - $ok_d"; last_failed=
	else
		echo "not ok $tn - $ok_d"; failed=$((failed + 1)); last_failed=1
		# on stderr too, so that a CI log without -v says what failed
		echo "# $(basename "$0"): not ok $tn - $ok_d" >&2
		[ -z "${CXLBED_FAILURE_LOG:-}" ] ||
			echo "$(basename "$0"): not ok $tn - $ok_d" >>"$CXLBED_FAILURE_LOG"
	fi
}
last_failed=
check() {  # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then ok 0 "$d"; else ok 1 "$d"; fi
}
skip() { tn=$((tn + 1)); echo "ok $tn # SKIP $*"; }  # skip REASON (one planned test)
# Diagnostics; those right after a failed check also go to the failure log.
diag() {
	if [ -n "$last_failed" ] && [ -n "${CXLBED_FAILURE_LOG:-}" ]; then
		sed 's/^/# /' | tee -a "$CXLBED_FAILURE_LOG"
	else
		sed 's/^/# /'
	fi
}
finish() { [ "$failed" -eq 0 ]; exit $?; }

need_image() {
	[ -x "$cxlbed" ] || skip_all "./cxlbed not built (run make)"
	[ -f "$top/build/guest/vmlinuz" ] && [ -f "$top/build/guest/initramfs.cpio.gz" ] ||
		skip_all "guest image not built (run make)"
}

# A results folder the test owns; removed at exit unless KEEP=1.
outroot=$(mktemp -d /tmp/cxlbed-it.XXXXXX)
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -rf "$outroot"; }
trap cleanup EXIT
# The test's own register of runs in flight (docs/run-state.md): its runs
# are swept by its own cxlbed calls only, and it never sweeps anyone else's.
export CXLBED_STATE_DIR="$outroot/state"

# jq query on a summary.json; prints the value.
sj() { jq -r "$2" "$1/summary.json"; }

# What a failed run's hosts were doing, for the failure log: each console's
# last lines and the timing plugin's safety counters (a hung guest clock
# shows there: ring, kick and sync timeouts; docs/timing-model.md).
host_diag() {  # host_diag DIR
	for c in "$1"/console-*.log; do
		[ -f "$c" ] || continue
		echo "$(basename "$c") (last 12 lines):"
		tail -n 12 "$c" | tr -d '\r' | cut -c1-160
	done
	for j in "$1"/timing-*.json; do
		[ -f "$j" ] || continue
		echo "$(basename "$j"): $(jq -c '{sync_timeouts, guest_clock: (.guest_clock //
			{} | del(.late_mean_ns, .late_max_ns, .warped_ns))}' "$j" 2>/dev/null)"
	done
}

# The checks a run's log reports failed, on one line (a CI log shows the
# end of the failure log only: the reason belongs in the not-ok line).
run_failures() {  # run_failures LOG
	grep -E '^ *FAIL ' "$1" 2>/dev/null | sed 's/^ *FAIL *//; s/  */ /g' | head -n 3 |
		cut -c1-300 | paste -sd';' -
}

# After `"$cxlbed" run --out DIR ... >LOG 2>&1; rc=$?`: the check that the
# run passed, naming its failed checks, and on a failure the log's tail
# and host_diag as diagnostics.
run_passes() {  # run_passes DIR LOG DESCRIPTION (the run's status in $rc)
	rp_fail=$([ "$rc" -eq 0 ] || run_failures "$2")
	ok "$rc" "$3${rp_fail:+ ($rp_fail)}"
	[ "$rc" -eq 0 ] || { tail -n 25 "$2"; host_diag "$1"; } | diag
}

# The host-time safety valves of timing report REPORT on one line, after
# LABEL: did any of them decide something in a run whose figures moved?
valves() {  # valves REPORT LABEL
	jq -r --arg l "$2" '"\($l) \(.host): sync_timeouts \(.sync_timeouts) blocked_skips \(.blocked_skips // 0) stale_rejoins \(.stale_rejoins) together_timeouts \(.together.timeouts // 0) ring_timeouts \(.guest_clock.ring_timeouts // 0) kick_timeouts \(.guest_clock.kick_timeouts // 0) rerings \(.guest_clock.rerings // 0) warp_joins \(.guest_clock.warp_joins // 0) stray \(.guest_clock.stray // 0) irqs \(.guest_clock.irqs // 0)/\(.guest_clock.handled // 0)"' "$1" 2>/dev/null
}

# Run scenario file SCN into folder DIR (stdout/stderr beside it): two
# checks, it exits 0 and its verdict is pass.
run_scn() {  # run_scn DIR SCN
	"$cxlbed" run --out "$1" "$2" >"$1.out" 2>"$1.err"
	rc=$?
	ok $rc "cxlbed run $(basename "$2") exits 0"
	[ $rc -eq 0 ] || { tail -n 30 "$1.err"; host_diag "$1"; } | diag
	check "$(basename "$2" .scn): verdict pass" [ "$(sj "$1" .verdict)" = pass ]
}

# Both host cores kept busy while a run's workloads run (the host-load
# tests): busy_start LOG before `cxlbed run ... >LOG 2>&1`, busy_stop
# after it. The spinning starts at the run's first "enumerate" line, when
# every guest is up: the figures come from the workloads after it, and
# spinning through the boot before it only cost CI host time (three to
# five such boots per test file, 20-40 s each, both cores).
busy_start() {
	busy_flag=$outroot/busy.$$
	: >"$busy_flag"
	(
		while [ -e "$busy_flag" ] && ! grep -q ' enumerate ' "$1" 2>/dev/null; do
			sleep 0.2
		done
		spin_while "$busy_flag" &
		spin_while "$busy_flag" &
		wait
	) &
	busy_pid=$!
}
busy_stop() { rm -f "$busy_flag"; wait "$busy_pid" 2>/dev/null; }
spin_while() { while [ -e "$1" ]; do :; done; }

# Every modeled figure of run DIR, one "WORKLOAD@HOST+NODE.KEY VALUE" a line.
all_figures() {
	jq -r '.workloads[] | .name as $n | .host as $h | (.node // "") as $node |
		(.output.modeled // {} | del(.rois) | to_entries[] |
		 "\($n)@\($h)\($node).\(.key) \(.value)")' "$1/summary.json" | sort
}

# runs_agree SCENARIO NAME N TOLERANCE: N runs into $outroot/NAME-1..N,
# the last with both host cores spinning; every modeled figure (all_figures)
# the same within TOLERANCE (a fraction) over the N runs. N + 2 checks;
# $outroot/NAME.R holds run R's figures, $outroot/NAME.far those apart.
runs_agree() {
	ra_scn=$1 ra_name=$2 ra_n=$3 ra_tol=$4
	ra_files=
	r=1
	while [ $r -le "$ra_n" ]; do
		[ $r = "$ra_n" ] && busy_start "$outroot/$ra_name-$r.log"
		"$cxlbed" run --out "$outroot/$ra_name-$r" "$ra_scn" >"$outroot/$ra_name-$r.log" 2>&1
		rc=$?
		[ $r = "$ra_n" ] && busy_stop
		run_passes "$outroot/$ra_name-$r" "$outroot/$ra_name-$r.log" \
			"$ra_name, run $r$([ $r = "$ra_n" ] && echo ', both host cores busy'): run passes"
		all_figures "$outroot/$ra_name-$r" >"$outroot/$ra_name.$r"
		ra_files="$ra_files $outroot/$ra_name.$r"
		r=$((r + 1))
	done
	# shellcheck disable=SC2086 # one word a run
	paste -d' ' $ra_files | diag
	# shellcheck disable=SC2086
	check "$ra_name: the same modeled figures in every run" \
		sh -c 'f=$1; shift; [ -s "$f" ] || exit 1
			for o; do [ "$(cut -d" " -f1 "$f")" = "$(cut -d" " -f1 "$o")" ] || exit 1; done' \
			sh $ra_files
	# shellcheck disable=SC2086
	paste -d' ' $ra_files | awk -v h="$ra_tol" '{
		lo = $2; hi = $2
		for (i = 4; i <= NF; i += 2) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
		if (lo <= 0 || (hi - lo) / lo > h) { s = $1 ":"; for (i = 2; i <= NF; i += 2) s = s " " $i; print s } }' \
		>"$outroot/$ra_name.far"
	far=$(one_line "$(cat "$outroot/$ra_name.far")")
	# figures apart: did a host-time safety valve decide anything?
	valves=
	if [ -n "$far" ]; then
		valves=$(one_line "$(r=1; while [ $r -le "$ra_n" ]; do
			for ra_rep in "$outroot/$ra_name-$r"/timing-*.json; do
				[ -f "$ra_rep" ] && valves "$ra_rep" "run $r"
			done
			r=$((r + 1))
		done)")
	fi
	check "$ra_name: every figure within $(awk -v h="$ra_tol" 'BEGIN { print h * 100 }')% over the $ra_n runs${far:+ ($far; $valves)}" [ -z "$far" ]
}

# three_runs SCENARIO NAME: three runs, every modeled figure within 1%.
three_runs() { runs_agree "$1" "$2" 3 0.01; }

# A resource's configured read GB/s from a host's timing-model report.
link_rate() {  # link_rate DIR RESOURCE [HOST]
	jq -r ".links[] | select(.name==\"$2\") | .read_gbps_cap" "$1/timing-${3:-h0}.json" 2>/dev/null
}

# Every run folder's figures are modeled: summary says so, every workload
# has its modeled object, and every host's plugin report says "modeled".
all_modeled() {  # all_modeled DIR... (names apart from check's $d)
	for am_dir in "$@"; do
		[ "$(jq -r '.timing_model and ([.workloads[] | select(.output.modeled == null)] | length == 0)' "$am_dir/summary.json")" = true ] || return 1
		for am_rep in "$am_dir"/timing-*.json; do
			[ "$(jq -r .time "$am_rep")" = modeled ] || return 1
		done
	done
}

# A run's labels agree with it: with the timing model loaded, neither
# summary.json's measured_with nor report.md nor report.html says "no
# timing model", and a node no workload measured has no clock (not
# "guest"); without it, measured_with says so (or that nothing was measured).
labels_agree() {  # labels_agree DIR
	[ "$(jq -r 'if .timing_model then
			(.measured_with | test("no timing model") | not) and
			([.hosts[].nodes[] | select(.latency_ns == null and .read_gbps == null and
				.write_gbps == null and .clock != null)] | length == 0)
		else (.measured_with | test("no timing model|no figure was measured")) end' "$1/summary.json" 2>/dev/null)" = true ] &&
	{ [ "$(jq -r .timing_model "$1/summary.json")" = false ] ||
		! grep -q 'no timing model' "$1/report.md" "$1/report.html"; }
}

# agree_both_ways SPECS A B LABEL: `cxlbed compare --threshold SPEC` (each
# of the space-separated SPECS) of A against B and of B against A (a
# committed reference that a model change moved either way), both written
# to $outroot/LABEL.out; sets rc1, rc2. out_of_bounds LABEL, after the
# check, diags the rows out of bounds (the failure log keeps the lines
# that follow a failed check).
agree_both_ways() {
	ab_th=
	for ab_s in $1; do ab_th="$ab_th --threshold $ab_s"; done
	# shellcheck disable=SC2086 # options are words
	"$cxlbed" compare $ab_th "$2" "$3" >"$outroot/$4.out" 2>&1
	rc1=$?
	# shellcheck disable=SC2086
	"$cxlbed" compare $ab_th "$3" "$2" >>"$outroot/$4.out" 2>&1
	rc2=$?
}
out_of_bounds() { grep -E '^regressed|REGRESSED' "$outroot/$1.out" | diag; }
# within EXPR A [B [C [D]]]: awk's EXPR over the numbers a, b, c, d. It
# fails when a number it is given is empty or no number: a figure that was
# not found must not pass a bound (a >= 0.9 * b with b empty held).
within() {
	awk -v n=$(($# - 1)) -v a="${2-}" -v b="${3-}" -v c="${4:-0}" -v d="${5:-0}" '
		function num(x) { return x ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
		BEGIN { if ((n >= 1 && !num(a)) || (n >= 2 && !num(b)) || (n >= 3 && !num(c)) ||
			    (n >= 4 && !num(d)))
				exit 1
			exit !('"$1"') }' 2>/dev/null
}

# No QEMU whose command line names this folder, and none from its pidfiles.
no_qemu_left() {
	dir=$1
	for pf in "$dir"/qemu-*.pid; do
		[ -f "$pf" ] || continue
		pid=$(cat "$pf")
		if [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
			echo "QEMU pid $pid from $pf still running" | diag
			return 1
		fi
	done
	if pgrep -f "qemu-system.*$dir" >/dev/null; then
		pgrep -af "qemu-system.*$dir" | diag
		return 1
	fi
	return 0
}

# The rows of table DIR/table.json whose idle latency is not within 5% of
# the latency the topology's own derived path gives (configured_latency_ns:
# media + every hop, the mean over an interleave), one per line
# ("TOPO/HOST/KIND: ..."). Not the plugin's echo of its config: a wrong
# hop sum there must not move both sides together.
latency_far() {
	jq -r '.rows[] | select(.latency_ns == null or .configured_latency_ns == null or
		.latency_ns < 0.95 * .configured_latency_ns or
		.latency_ns > 1.05 * .configured_latency_ns) |
		"\(.topology)/\(.host)/\(.kind): \(.latency_ns) ns vs configured \(.configured_latency_ns)"' \
		"$1/table.json"
}

# `cxlbed boot` driven through a FIFO on its console. console_boot ARGS...
# starts it (console on $outroot/console.out, progress on
# $outroot/boot.err) and waits until cxlbed hands the console over;
# console_type TEXT types; console_wait PATTERN waits (up to 60 s) until
# the console shows it; console_end powers the guest off and sets
# $console_rc to cxlbed's exit status.
console_boot() {
	mkfifo "$outroot/console.in"
	"$cxlbed" boot "$@" <"$outroot/console.in" >"$outroot/console.out" 2>"$outroot/boot.err" &
	console_pid=$!
	exec 3>"$outroot/console.in"	# hold it open: QEMU must not see EOF
	i=0
	while ! grep -q ' console ' "$outroot/boot.err" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 1500 ] || ! kill -0 $console_pid 2>/dev/null; then break; fi
		sleep 0.2
	done
	sleep 1
}
console_type() { printf '%s\n' "$1" >&3; }
console_wait() {
	i=0
	while ! grep -q "$1" "$outroot/console.out" && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
}
console_end() {
	console_type 'poweroff -f'
	i=0
	while kill -0 $console_pid 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
	if kill -0 $console_pid 2>/dev/null; then kill -INT $console_pid; fi
	wait $console_pid
	console_rc=$?
	exec 3>&-
}

# Headless Chromium (Debian's chromium), as root in a sandbox without
# network: its own profile, nothing in the background. Prints nothing when
# there is none.
chromium_bin() { command -v chromium || command -v chromium-browser || true; }
chromium_run() {  # chromium_run ARGS... (a fresh profile each time)
	prof=$(mktemp -d "$outroot/chromium.XXXXXX")
	timeout 120 "$(chromium_bin)" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --hide-scrollbars --user-data-dir="$prof" "$@"
}
# The verdict of tests/data/report-check.html on report PAGE: "OK | facts"
# or "FAIL problems | facts" (checked in the browser's own layout).
browser_check() {
	chromium_run --allow-file-access-from-files --virtual-time-budget=10000 --enable-logging=stderr --v=0 --dump-dom \
		"file://$top/tests/data/report-check.html?page=file://$1" 2>>"$outroot/chromium.err" |
		sed -n 's/.*<pre id="result">\(.*\)<\/pre>.*/\1/p' | sed 's/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g'
}

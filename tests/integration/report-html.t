#!/bin/sh
# report.html in a real browser: `cxlbed report` redraws the committed
# reference table (six topologies, fourteen loaded-latency curves) and its
# runs; headless Chromium loads each page, which must fetch nothing, and
# every plot's legend must lie inside its plot with each series drawn in
# its own colour, marker and dash (tests/data/report-check.html). Chromium
# also renders the table page to a PNG for a person to look at (KEEP=1
# keeps it). No guest boots here: table.t and run-default.t check that
# real runs write the page.
. "$(dirname "$0")/lib.sh"
[ -x "$cxlbed" ] || skip_all "./cxlbed not built (run make)"
[ -n "$(chromium_bin)" ] || skip_all "no chromium (Debian: chromium; ci/deps installs it)"
plan 12

ref=$outroot/reftable
cp -r "$top/results/reference/table" "$ref"
rm -f "$ref/report.html" "$ref"/*/report.html
"$cxlbed" report "$ref" >"$outroot/report.out" 2>"$outroot/report.err"
rc=$?
ok $rc "cxlbed report on the reference table exits 0"
[ $rc -eq 0 ] || diag <"$outroot/report.err"
n=$(ls "$ref"/*/report.html 2>/dev/null | wc -l)
check "report.html for the table and each of its 6 runs (got $n runs)" \
	sh -c "test -s '$ref/report.html' && [ $n -eq 6 ]"
check "the pages are self-contained: no http(s) or file references to fetch" \
	sh -c "! grep -Eq '(src|href)=\"(https?:|//|file:)' '$ref/report.html' $ref/*/report.html"

v=$(browser_check "$ref/report.html")
echo "table page: $v" | diag
check "table page loads in Chromium, fetches nothing, legend inside the plot, 14 distinct series" \
	sh -c "case '$v' in 'OK | fetched=0 plots=1 series=14 trees=6') exit 0;; *) exit 1;; esac"
v=$(browser_check "$ref/shared-pool/report.html")
echo "shared-pool run page: $v" | diag
check "a run page (shared-pool) loads and draws its topology tree" \
	sh -c "case '$v' in 'OK | fetched=0 '*' trees=1') exit 0;; *) exit 1;; esac"
check "Chromium logged no page error" \
	sh -c "! grep -Eiq 'Uncaught|Failed to load resource|CONSOLE.*error' '$outroot/chromium.err'"

png=$outroot/table.png
chromium_run --screenshot="$png" --window-size=1400,2400 "file://$ref/report.html" \
	>/dev/null 2>&1
check "Chromium renders the table page to a PNG" \
	sh -c "[ \"\$(head -c 8 '$png' | od -An -c | tr -d ' ')\" = '211PNG\r\n032\n' ]"
[ "${KEEP:-0}" = 1 ] && echo "PNG kept: $png" | diag

# A run's page draws what ran on the fabric: the tiering policies side by
# side with each one's hit ratio over time (a pool-policies run), the
# pool's utilisation and the faults' timeline (a kill-pool-node run).
# Both summaries are real runs' (tests/data/report-runs), redrawn here.
cp -r "$top/tests/data/report-runs" "$outroot/runs"
"$cxlbed" report "$outroot/runs/pool-policies" >/dev/null 2>&1 &&
	"$cxlbed" report "$outroot/runs/faults-pool" >/dev/null 2>&1
ok $? "cxlbed report redraws a pool-policies run and a faults run"
v=$(browser_check "$outroot/runs/pool-policies/report.html")
echo "pool-policies run page: $v" | diag
check "tiering page: the policies' table and a hit-ratio plot with one series per policy (4)" \
	sh -c "case '$v' in 'OK | fetched=0 plots=1 series=4 trees=1') grep -q 'Tiering policies' '$outroot/runs/pool-policies/report.html';; *) exit 1;; esac"
v=$(browser_check "$outroot/runs/faults-pool/report.html")
echo "faults run page: $v" | diag
check "faults page: the pool's utilisation and the faults' timeline, legends inside" \
	sh -c "case '$v' in 'OK | fetched=0 plots=2 '*' trees=1') grep -q 'Pool utilisation over time' '$outroot/runs/faults-pool/report.html' && grep -q 'what the workloads saw' '$outroot/runs/faults-pool/report.html';; *) exit 1;; esac"

# A page names what it could not draw rather than fail: the topology of a
# moved run is gone.
mv "$ref/direct" "$outroot/moved"
sed -i 's|"topology" : "[^"]*"|"topology" : "/nonexistent.topo"|' "$outroot/moved/summary.json"
"$cxlbed" report "$outroot/moved" >/dev/null 2>&1
check "a run whose topology file is gone still gets a page, saying so" \
	grep -q 'could not be read' "$outroot/moved/report.html"
"$cxlbed" report "$outroot" >/dev/null 2>"$outroot/bad.err"
rc=$?
check "a folder with no results: exit 2 and says what to give (rc $rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'no summary.json' '$outroot/bad.err'"
finish

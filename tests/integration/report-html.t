#!/bin/sh
# report.html in a real browser: `cxlbed report` redraws the committed
# reference table (six topologies, fourteen loaded-latency curves in one
# panel per kind of path) and its runs; headless Chromium loads each page,
# which must fetch nothing, and every plot's legend must lie inside its
# plot with each series drawn in its own colour, marker and dash, and no
# label written on a plot may cover another (tests/data/report-check.html).
# Chromium also renders the table page to a PNG for a person to look at
# (KEEP=1 keeps it). Run data that would be markup (a host named
# <script>, a run folder named javascript:...) stays text in every page,
# table.md and sweep.md. No guest boots here: table.t and run-default.t
# check that real runs write the page.
. "$(dirname "$0")/lib.sh"
[ -x "$cxlbed" ] || skip_all "./cxlbed not built (run make)"
[ -n "$(chromium_bin)" ] || skip_all "no chromium (Debian: chromium; ci/deps installs it)"
plan 18

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
check "table page loads in Chromium, fetches nothing, a panel per kind of path (3), legends inside, 14 distinct series, no label over another" \
	sh -c "case '$v' in 'OK | fetched=0 plots=3 series=14 labels='*' trees=6') exit 0;; *) exit 1;; esac"
# table.md is the renderer's too: redrawn from table.json, like the page
check "table.md redrawn: devdax rows name their device (3 dax0.0 rows), no row said to exist that does not" \
	sh -c "[ \$(grep -c '^| [a-z0-9-]* | h[01] | dax0.0 | dax |' '$ref/table.md') = 3 ] && ! grep -q 'Load threads -1' '$ref/table.md'"
check "table.md and the page keep the bound column (cores_read_gbps read back): path or cores on every row" \
	sh -c "[ \$(awk -F' [|] ' '/^[|] [a-z]/ && \$11 ~ /^(path|cores)\$/' '$ref/table.md' | wc -l) = 14 ] &&
		[ \$(grep -o '<td>cores</td>\\|<td>path</td>' '$ref/report.html' | wc -l) = 14 ]"
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
	sh -c "case '$v' in 'OK | fetched=0 plots=1 series=4 labels='*' trees=1') grep -q 'Tiering policies' '$outroot/runs/pool-policies/report.html';; *) exit 1;; esac"
v=$(browser_check "$outroot/runs/faults-pool/report.html")
echo "faults run page: $v" | diag
check "faults page: the pool's utilisation and the faults' timeline, legends inside, no label over another" \
	sh -c "case '$v' in 'OK | fetched=0 plots=2 '*' trees=1') grep -q 'Pool utilisation over time' '$outroot/runs/faults-pool/report.html' && grep -q 'what the workloads saw' '$outroot/runs/faults-pool/report.html';; *) exit 1;; esac"
check "faults page: the pool plot sums its 4 pools (6 series, not 20) and counts the killed p1 as failed" \
	sh -c "grep -q 'failed (killed pool nodes), all 4 pools' '$outroot/runs/faults-pool/report.html' && ! grep -q 'p1 lent' '$outroot/runs/faults-pool/report.html'"
# The run had the timing model: nothing on its page says it had none, and
# a node with no figure has no clock.
check "faults page: no 'no timing model' beside the loaded model; its unmeasured node's clock is -" \
	sh -c "! grep -q 'no timing model' '$outroot/runs/faults-pool/report.html' &&
		grep -q '<td>h0</td><td>0</td><td>local</td><td class=\"num\">[0-9]*</td><td class=\"num\">-</td><td class=\"num\">-</td><td class=\"num\">-</td><td>-</td>' '$outroot/runs/faults-pool/report.html'"

# Run data is text, never markup: a table whose run folder is named
# javascript:... and whose host is named <script>...; a sweep whose host is.
hostile=$outroot/hostile
cp -r "$top/results/reference/table" "$hostile"
jq '.runs[0].out_dir = "javascript:alert(1)" | .rows[0].host = "<script>alert(1)</script>|x" |
	.curves[0].label = "<script>alert(2)</script>"' "$ref/table.json" >"$hostile/table.json"
"$cxlbed" report "$hostile" >/dev/null 2>&1
check "a run folder named javascript:... is no link (its run is listed as text); a host named <script> is text (page and table.md)" \
	sh -c "! grep -qi 'href=\"javascript' '$hostile/report.html' && ! grep -q '<script' '$hostile/report.html' &&
		grep -q '<li>direct: run [0-9-]*direct, timing' '$hostile/report.html' &&
		! grep -q '[^\\\\]<script' '$hostile/table.md' &&
		[ \$(grep -c '^| direct |' '$hostile/table.md') = 2 ] && grep -q '^| direct | \\\\<script' '$hostile/table.md'"
sw=$outroot/sweep
"$cxlbed" sweep --dry-run --out "$sw" "$top/tests/data/sweep-2.sweep" >/dev/null 2>&1
for p in p0 p1; do
	mkdir -p "$sw/points/$p/run"
	jq '.hosts[0].name = "<script>alert(1)</script>|x"' "$top/results/reference/table/direct/summary.json" \
		>"$sw/points/$p/run/summary.json"
done
"$cxlbed" sweep --collect "$sw" >/dev/null 2>&1
# every row of its table has as many cells as the header (| unescaped)
cells=$(sed 's/\\|//g' "$sw/sweep.md" | awk -F'|' '/^\|/ { print NF }' | sort -u | wc -l)
check "sweep.md: a host named <script> is escaped text, the table keeps its columns (cell counts: $cells)" \
	sh -c "grep -q 'script' '$sw/sweep.md' && ! grep -q '[^\\\\]<script' '$sw/sweep.md' && [ '$cells' = 1 ] &&
		! grep -q '<script' '$sw/report.html'"

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

# Sourced by benchmarks (sh): a private state folder and one scenario run.
# bench_run SCN: runs it into $tmp/run, or says where to look and exits 1.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/cxlbed-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export CXLBED_STATE_DIR="$tmp/state"

bench_run() {
	"$top/cxlbed" run --out "$tmp/run" "$1" >"$tmp/log" 2>&1 || {
		echo "run failed; see: $top/cxlbed run $1"; tail -5 "$tmp/log"; exit 1; }
}

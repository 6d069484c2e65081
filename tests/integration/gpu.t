#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU mode on a real GPU: the tiering runtime's three workloads at smoke-test
# size, each checked against its all-HBM run, then `cxlbed gpu` writing a
# run directory. Skips on machines without a usable CUDA GPU.
cd "$(dirname "$0")/../.." || exit 1
bin=build/gpu/cxlbed-gpu

have_smi=false
nvidia-smi -L >/dev/null 2>&1 && have_smi=true
if [ ! -x "$bin" ]; then
	$have_smi && echo "1..0 # SKIP GPU mode not built (configure found no nvcc)" ||
		echo "1..0 # SKIP no CUDA GPU on this machine"
	exit 0
fi
if ! "$bin" probe >/dev/null 2>&1; then
	if ! $have_smi; then
		echo "1..0 # SKIP no CUDA GPU on this machine"
		exit 0
	fi
	# A GPU is there but the binary cannot use it (e.g. driver too old for
	# the CUDA runtime it was linked with): that is a failure, not a skip.
	echo "1..1"
	"$bin" probe 2>&1 | sed 's/^/# /'
	echo "not ok 1 - cxlbed-gpu can use the GPU that nvidia-smi lists"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
t() {	# t DESCRIPTION COMMAND...: one TAP line from a command's status
	desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
	fi
}

echo "1..8"
t "cxlbed-gpu probe finds the device" sh -c "'$bin' probe | grep -q '\"name\"'"
t "all workloads at --quick size run and pass their checks" \
	sh -c "'$bin' all --quick >'$tmp/out.json' 2>'$tmp/err'"
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
t "verdict is pass" grep -q '"verdict":"pass"' "$tmp/out.json"
t "no check failed" sh -c "! grep -q '\"pass\":false' '$tmp/out.json'"
t "layer sweep, KV attention and Adam each compared with all-HBM" sh -c \
	"grep -q 'layers.tiered-cxl matches all-hbm' '$tmp/out.json' &&
	 grep -q 'kv.tiered-cxl matches all-hbm' '$tmp/out.json' &&
	 grep -q 'adam.tiered-cxl matches all-hbm' '$tmp/out.json'"
t "the overlap timeline has transfers and compute" sh -c \
	"grep -q '\"fetch\",0' '$tmp/out.json' && grep -q '\"compute\",-1' '$tmp/out.json'"
if [ -x ./cxlbed ]; then
	t "cxlbed gpu writes a run directory" \
		sh -c "./cxlbed gpu layers --quick --out '$tmp/run' >/dev/null 2>&1"
	t "summary.json is cxlbed.result/1 with a gpu object, report and plot exist" sh -c \
		"grep -q '\"schema\" : \"cxlbed.result/1\"' '$tmp/run/summary.json' &&
		 grep -q '\"gpu\"' '$tmp/run/summary.json' &&
		 [ -s '$tmp/run/report.md' ] && grep -q '<svg' '$tmp/run/overlap.svg'"
else
	n=$((n + 1)); echo "ok $n # SKIP ./cxlbed not built on this machine"
	n=$((n + 1)); echo "ok $n # SKIP ./cxlbed not built on this machine"
fi

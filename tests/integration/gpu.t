#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU mode on a real GPU: the tiering runtime's three workloads at smoke-test
# size, each checked against its all-HBM run, then `cxlbed gpu` writing a
# run directory. Skips on machines without a usable CUDA GPU.
. "$(dirname "$0")/lib.sh"
bin=$top/build/gpu/cxlbed-gpu

have_smi=false
nvidia-smi -L >/dev/null 2>&1 && have_smi=true
if [ ! -x "$bin" ]; then
	$have_smi && skip_all "GPU mode not built (configure found no nvcc)"
	skip_all "no CUDA GPU on this machine"
fi
if ! "$bin" probe >/dev/null 2>&1; then
	$have_smi || skip_all "no CUDA GPU on this machine"
	# A GPU is there but the binary cannot use it (e.g. driver too old for
	# the CUDA runtime it was linked with): that is a failure, not a skip.
	plan 1
	"$bin" probe 2>&1 | diag
	ok 1 "cxlbed-gpu can use the GPU that nvidia-smi lists"
	finish
fi

out=$outroot/out.json
plan 8
check "cxlbed-gpu probe finds the device" sh -c "'$bin' probe | grep -q '\"name\"'"
check "all workloads at --quick size run and pass their checks" \
	sh -c "'$bin' all --quick >'$out' 2>'$outroot/err'"
diag <"$outroot/err"
check "verdict is pass" grep -q '"verdict":"pass"' "$out"
check "no check failed" sh -c "! grep -q '\"pass\":false' '$out'"
check "layer sweep, KV attention and Adam each compared with all-HBM" sh -c \
	"grep -q 'layers.tiered-cxl matches all-hbm' '$out' &&
	 grep -q 'kv.tiered-cxl matches all-hbm' '$out' &&
	 grep -q 'adam.tiered-cxl matches all-hbm' '$out'"
check "the overlap timeline has transfers and compute" sh -c \
	"grep -q '\"fetch\",0' '$out' && grep -q '\"compute\",-1' '$out'"
if [ -x "$cxlbed" ]; then
	check "cxlbed gpu writes a run directory" \
		sh -c "'$cxlbed' gpu layers --quick --out '$outroot/run' >/dev/null 2>&1"
	check "summary.json is cxlbed.result/1 with a gpu object, report and plot exist" sh -c \
		"grep -q '\"schema\" : \"cxlbed.result/1\"' '$outroot/run/summary.json' &&
		 grep -q '\"gpu\"' '$outroot/run/summary.json' &&
		 [ -s '$outroot/run/report.md' ] && grep -q '<svg' '$outroot/run/overlap.svg'"
else
	skip "./cxlbed not built on this machine"
	skip "./cxlbed not built on this machine"
fi
finish

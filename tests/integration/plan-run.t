#!/bin/sh
# `cxlbed plan` prints exactly the command line `cxlbed run` starts: the
# same QEMU, guest kernel and initramfs, switch CDAT, devices and (with the
# timing model) plugin argument. A two-host topology with a switch, booted
# only as far as the command line being written.
. "$(dirname "$0")/lib.sh"
need_image
plan 4

topo=$top/topologies/shared-pool.topo
out=$outroot/run
"$cxlbed" run --boot-only --timing --out "$out" "$topo" >"$outroot/stdout" 2>"$outroot/stderr"
ok $? "cxlbed run --boot-only --timing shared-pool.topo exits 0"
"$cxlbed" plan --timing --rundir "$out" "$topo" >"$outroot/plan" 2>"$outroot/plan.err"
ok $? "cxlbed plan --timing shared-pool.topo exits 0"

# The run's shared-segment name carries its run id where plan says RUN_ID.
shm=$(sed -n 's/.*shm=\(\/cxlbed-[^,]*\),.*/\1/p' "$out/qemu-h0.cmdline" | head -n 1)
# plan prints the hosts in file order, each command after its '#' lines.
awk '/^# host /{h=$3; sub(":", "", h)} !/^#/{print > (dir "/plan-" h ".cmd")}' \
	dir="$outroot" "$outroot/plan"
same=0
for h in h0 h1; do
	sed "s|$shm|/cxlbed-RUN_ID|" "$out/qemu-$h.cmdline" >"$outroot/run-$h.cmd"
	if cmp -s "$outroot/run-$h.cmd" "$outroot/plan-$h.cmd"; then
		same=$((same + 1))
	else
		diff "$outroot/run-$h.cmd" "$outroot/plan-$h.cmd" | head -n 10 | diag
	fi
done
check "both hosts: plan's command line is the one run started (shm name aside)" [ "$same" = 2 ]
check "no QEMU left behind" no_qemu_left "$out"
finish

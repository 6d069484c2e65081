#!/bin/bash
# Host cost of the timing plugin on a memory-bound guest loop.
# Boots a small guest (Debian kernel + busybox + membench) with the plugin
# left unarmed (arm=never: plain TCG, the markers only time the regions)
# and armed (every access modeled), and compares membench's phases:
# - host CPU time of the vCPU thread in each region (the plugin's report,
#   host_cpu_ns): what the emulation costs, little moved by other jobs on
#   the host;
# - the guest clock (host wall time: the plugin does not hold the guest
#   clock back), which other jobs on a shared host inflate.
# and, to show where the plugin's cost lies, the same regions armed with
# cost=count (instruction counts only), cost=calls (plus a memory
# callback per access that returns at once) and cost=lines (plus the
# plugin's repeat filter and each new line's address translation): the
# floor QEMU's plugin interface and the plugin's own front end set before
# the model does any work.
# Env: QEMU KERNEL_DEB BUSYBOX B (build dir); RUNS (default 3); MIB (32).
set -euo pipefail
: "${QEMU:=qemu-system-x86_64}" "${B:=build}" "${RUNS:=3}" "${MIB:=32}"
: "${BUSYBOX:=/bin/busybox}"
dir=$B/timing/bench
plugin=$B/timing/libcxlbed-timing.so
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -f "$work.pid" ] && kill "$(cat "$work.pid")" 2>/dev/null; rm -f "$work.pid"' EXIT

kernel=$dir/vmlinuz
if [ ! -f "$kernel" ]; then
	[ -f "${KERNEL_DEB:-}" ] || { echo "overhead: no kernel (KERNEL_DEB)"; exit 0; }
	dpkg-deb -x "$KERNEL_DEB" "$work/k"
	cp "$work"/k/boot/vmlinuz-* "$kernel"
fi
mkdir -p "$work/ir/bin" "$work/ir/proc" "$work/ir/sys" "$work/ir/dev"
cp "$BUSYBOX" "$work/ir/bin/busybox"
cp "$B/timing/membench" "$work/ir/membench"
cat > "$work/ir/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
/membench $MIB ${PASSES:-2}
poweroff -f
INIT
chmod +x "$work/ir/init"
(cd "$work/ir" && find . | cpio -o -H newc 2>/dev/null | gzip) > "$dir/initramfs.cpio.gz"
cat > "$work/t.cfg" <<CFG
cxlbed-timing 1
host name=bench index=0
resource name=dram read_gbps=40 write_gbps=30
target name=local path=local cxl=0 read_ns=90 write_ns=90 via=dram
CFG

# run ARM [OPTS]: prints "seq chase seq_cpu chase_cpu wall" seconds (guest
# clock, then host CPU of the regions, then the whole boot and run)
run() {
	local out=$work/out start end
	rm -f "$work/r.json"
	start=$(date +%s.%N)
	timeout -s KILL 600 "$QEMU" -M q35 -cpu max -m 1G -smp 1 -nographic \
		-no-reboot -kernel "$kernel" -initrd "$dir/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1" -pidfile "$work.pid" \
		-plugin "$plugin,config=$work/t.cfg,report=$work/r.json,arm=$1${2:+,$2}" \
		> "$out" 2>&1 || true
	end=$(date +%s.%N)
	cpu=$(jq -r '[(.rois[] | select(.id == 1) | .host_cpu_ns),
		      (.rois[] | select(.id == 2) | .host_cpu_ns)] |
		     map(. / 1e9 | tostring) | join(" ")' "$work/r.json" 2>/dev/null)
	awk -v w="$(echo "$end - $start" | bc)" -v cpu="${cpu:-0 0}" '
		/membench: seq/ { s = $(NF-3) } /membench: chase/ { c = $(NF-4) }
		END { printf "%s %s %s %s\n", s, c, cpu, w }' "$out"
}

# best (smallest) of each column over the runs
best() { awk '{ for (i = 1; i <= NF; i++) if (NR == 1 || $i < m[i]) m[i] = $i }
	END { for (i = 1; i <= NF; i++) printf "%s%s", m[i], i < NF ? " " : "\n" }'; }

declare -a base plug count calls lines
for i in $(seq "$RUNS"); do
	base+=("$(run never)")
	count+=("$(run marker cost=count)")
	calls+=("$(run marker cost=calls)")
	lines+=("$(run marker cost=lines)")
	plug+=("$(run marker)")
done
# "MIN-MAX" of column $1 over the runs: this host's run-to-run spread,
# which a ratio of the best runs hides (plain TCG's read is bimodal here)
spread() { awk -v c="$1" '{ if (NR == 1 || $c < lo) lo = $c; if (NR == 1 || $c > hi) hi = $c }
	END { printf "%.3f-%.3f", lo, hi }'; }

read -r bs bc bsc bcc bw <<< "$(printf '%s\n' "${base[@]}" | best)"
read -r ps pc psc pcc pw <<< "$(printf '%s\n' "${plug[@]}" | best)"
read -r _ _ nsc ncc _ <<< "$(printf '%s\n' "${count[@]}" | best)"
read -r _ _ csc ccc _ <<< "$(printf '%s\n' "${calls[@]}" | best)"
read -r _ _ lsc lcc _ <<< "$(printf '%s\n' "${lines[@]}" | best)"
bspread=$(printf '%s\n' "${base[@]}" | spread 3)
pspread=$(printf '%s\n' "${plug[@]}" | spread 3)
echo "timing plugin overhead (membench ${MIB} MiB, best of $RUNS, plain TCG vs every access modeled):"
awk -v bs="$bs" -v bc="$bc" -v bsc="$bsc" -v bcc="$bcc" -v bw="$bw" \
    -v nsc="$nsc" -v ncc="$ncc" -v csc="$csc" -v ccc="$ccc" -v lsc="$lsc" -v lcc="$lcc" \
    -v ps="$ps" -v pc="$pc" -v psc="$psc" -v pcc="$pcc" -v pw="$pw" \
    -v bspread="$bspread" -v pspread="$pspread" -v runs="$RUNS" 'BEGIN {
	print "  host CPU time of the vCPU thread in each region:"
	printf "    sequential read  %7.3f s -> %7.3f s  %.2fx (goal <= 3x)\n", bsc, psc, psc / bsc
	printf "      (all %d runs: plain %s s, modeled %s s)\n", runs, bspread, pspread
	printf "    pointer chase    %7.3f s -> %7.3f s  %.2fx\n", bcc, pcc, pcc / bcc
	printf "    memory-bound loop total: %.2fx\n", (psc + pcc) / (bsc + bcc)
	print "  where it goes (host CPU time of the regions, x plain TCG):"
	printf "    sequential read  counting %.2fx, + a callback per access %.2fx, + filter and translation %.2fx, + the model %.2fx\n", nsc / bsc, csc / bsc, lsc / bsc, psc / bsc
	printf "    pointer chase    counting %.2fx, + a callback per access %.2fx, + filter and translation %.2fx, + the model %.2fx\n", ncc / bcc, ccc / bcc, lcc / bcc, pcc / bcc
	print "  host wall time (guest clock; other jobs on the host inflate it):"
	printf "    sequential read  %7.3f s -> %7.3f s  %.2fx\n", bs, ps, ps / bs
	printf "    pointer chase    %7.3f s -> %7.3f s  %.2fx\n", bc, pc, pc / bc
	printf "    whole boot+run   %7.2f s -> %7.2f s  %.2fx\n", bw, pw, pw / bw
}'

#!/bin/bash
# Wall-time cost of the timing plugin on a memory-bound guest loop.
# Boots a small guest (Debian kernel + busybox + membench) without and
# with the plugin and compares the time membench's phases take. Inside
# the guest the clock follows host real time (the plugin does not hold it
# back), so the guest's own timings measure host wall time here.
# Env: QEMU KERNEL_DEB BUSYBOX B (build dir); RUNS (default 2); MIB (32).
set -euo pipefail
: "${QEMU:=qemu-system-x86_64}" "${B:=build}" "${RUNS:=2}" "${MIB:=32}"
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
/membench $MIB 2
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

# run NAME [qemu args]: prints "seq chase wall" seconds
run() {
	local out=$work/out start end
	start=$(date +%s.%N)
	timeout -s KILL 600 "$QEMU" -M q35 -cpu max -m 1G -smp 1 -nographic \
		-no-reboot -kernel "$kernel" -initrd "$dir/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1" -pidfile "$work.pid" \
		"$@" > "$out" 2>&1 || true
	end=$(date +%s.%N)
	awk -v w="$(echo "$end - $start" | bc)" '
		/membench: seq/ { s = $(NF-3) } /membench: chase/ { c = $(NF-4) }
		END { printf "%s %s %s\n", s, c, w }' "$out"
}

declare -a base plug
for i in $(seq "$RUNS"); do
	base+=("$(run)")
	plug+=("$(run -plugin "$plugin,config=$work/t.cfg,report=$work/r.json")")
done
printf '%s\n' "${base[@]}" | sort -n -k1 | head -1 > "$work/b"
printf '%s\n' "${plug[@]}" | sort -n -k1 | head -1 > "$work/p"
read -r bs bc bw < "$work/b"
read -r ps pc pw < "$work/p"
echo "timing plugin overhead (membench ${MIB} MiB, best of $RUNS, host wall time):"
awk -v bs="$bs" -v bc="$bc" -v bw="$bw" -v ps="$ps" -v pc="$pc" -v pw="$pw" 'BEGIN {
	printf "  sequential read  %7.3f s -> %7.3f s  %.2fx\n", bs, ps, ps / bs
	printf "  pointer chase    %7.3f s -> %7.3f s  %.2fx\n", bc, pc, pc / bc
	printf "  whole boot+run   %7.2f s -> %7.2f s  %.2fx\n", bw, pw, pw / bw
	printf "  memory-bound loop total: %.2fx (goal <= 3x)\n", (ps + pc) / (bs + bc)
}'

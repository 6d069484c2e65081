#!/bin/sh
# mkinitramfs.sh: build the guest kernel and initramfs from Debian packages.
#
# Usage: mkinitramfs.sh KERNEL BUSYBOX BINDIR OUTDIR [KMODDIR]
#   KERNEL      linux-image-*.deb (extracted, never installed), or a folder
#               holding a kernel as a package unpacks it: vmlinuz in
#               boot/vmlinuz-RELEASE or (usr/)lib/modules/RELEASE/vmlinuz,
#               modules and config under (usr/)lib/modules/RELEASE or boot/
#               (guest/kernel/stage.sh makes one for any kernel)
#   BUSYBOX     a static busybox
#   BINDIR      guest programs (agent, workloads, ...) copied to /usr/bin
#   OUTDIR      receives vmlinuz, vmlinux (the same kernel, uncompressed,
#               for PVH boot; only for a kernel with CONFIG_PVH),
#               initramfs.cpio.gz, initramfs.manifest (every path in the
#               image, "TYPE PATH", for mklayer.sh), config (the kernel's
#               .config) and kernel.release
#   KMODDIR     cxlbed's own modules (*.ko, the guest clock), copied to
#               /lib/cxlbed; /init loads them first
#
# The image holds only what a CXL guest needs: busybox, the CXL/DAX/NVDIMM
# modules with their dependency closure (decompressed: busybox insmod cannot
# read .ko.xz), ndctl's cxl/daxctl for debugging and the shared libraries
# every carried program links against. No udev: /init loads modules itself.
set -eu

[ $# -eq 4 ] || [ $# -eq 5 ] ||
	{ echo "usage: $0 KERNEL BUSYBOX BINDIR OUTDIR [KMODDIR]" >&2; exit 2; }
deb=$1 busybox=$2 bindir=$3 out=$4 kmoddir=${5:-}
here=$(cd "$(dirname "$0")" && pwd)

# Modules /init loads before the agent starts (volatile regions), and
# those loaded in the background (persistent memory); plus dependencies.
MODULES="cxl_acpi cxl_pci cxl_mem kmem device_dax dax_cxl"
PMEM_MODULES="cxl_pmem nd_pmem dax_pmem"
# Debugging tools carried when the host has them (ndctl, daxctl packages).
TOOLS="/usr/bin/cxl /usr/bin/daxctl"

die() { echo "mkinitramfs: $*" >&2; exit 1; }
[ -f "$deb" ] || [ -d "$deb" ] || die "kernel $deb not found (run ci/deps)"
[ -x "$busybox" ] || die "busybox $busybox not found (Debian: busybox-static)"
command -v cpio >/dev/null || die "cpio missing (Debian: cpio)"
depmod=$(command -v depmod || echo /sbin/depmod)
[ -x "$depmod" ] || die "depmod missing (Debian: kmod)"

mkdir -p "$out"
work="$out/.work"
kroot="$work/kernel"
root="$work/root"
rm -rf "$work"
mkdir -p "$kroot" "$root"
trap 'rm -rf "$work"' EXIT

# 1. Kernel: extract the package (or take the folder), vmlinuz, the
# module tree and the config. Debian's 7.x packages keep all three under
# /usr/lib/modules/RELEASE (merged /usr); 6.12's under /boot and /lib.
if [ -d "$deb" ]; then
	kroot=$(cd "$deb" && pwd)
else
	dpkg-deb -x "$deb" "$kroot"
fi
mods=$kroot/lib/modules
[ -d "$mods" ] || mods=$kroot/usr/lib/modules
kver=$(ls "$mods" 2>/dev/null | head -n 1)
[ -n "$kver" ] || die "no lib/modules in $deb"
kmods="$mods/$kver"
first_of() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return; }; done; }
kimage=$(first_of "$kroot/boot/vmlinuz-$kver" "$kmods/vmlinuz")
kconfig=$(first_of "$kroot/boot/config-$kver" "$kmods/config")
[ -n "$kimage" ] || die "no vmlinuz for $kver in $deb"
[ -n "$kconfig" ] || die "no config for $kver in $deb (boot/config-$kver)"
cp "$kimage" "$out/vmlinuz.tmp"

# The same kernel uncompressed: QEMU boots an ELF vmlinux through its PVH
# entry (CONFIG_PVH), skipping firmware real mode and the in-guest
# decompressor, about 1 s of TCG time. The payload is zstd (or xz).
# Without CONFIG_PVH QEMU boots the bzImage (vmlinuz) instead.
payload_at() {
	LC_ALL=C grep -obUaP "$1" "$kimage" | head -n 1 | cut -d: -f1
}
: > "$out/vmlinux.tmp"
pvh=; grep -qx 'CONFIG_PVH=y' "$kconfig" && pvh=yes
for fmt in zstd:'\x28\xb5\x2f\xfd' xz:'\xfd\x37\x7a\x58\x5a\x00' gzip:'\x1f\x8b\x08'; do
	[ -n "$pvh" ] || break
	off=$(payload_at "${fmt#*:}")
	[ -n "$off" ] || continue
	tail -c +$((off + 1)) "$kimage" |
		${fmt%%:*} -dcq > "$out/vmlinux.tmp" 2>/dev/null || true
	[ "$(head -c 4 "$out/vmlinux.tmp" | od -An -c | tr -d ' ')" = '177ELF' ] && break
	: > "$out/vmlinux.tmp"
done
[ -s "$out/vmlinux.tmp" ] || [ -z "$pvh" ] || die "cannot extract vmlinux from $kimage"

# 2. Module closure, from the modinfo "depends" field of each module,
# copied to /lib/modules/RELEASE in the image whatever the source layout.
# unsign FILE: drop the signature a distribution appends to a module
# (PKCS#7 data, a 12-byte descriptor ending in its big-endian length, the
# 28-byte marker). The kernel checks a signed module's signature on every
# load, about 9 million guest instructions each, while an unsigned one only
# taints the kernel, as cxlbed_clock.ko already does (no forced
# signatures).
unsign() {
	[ "$(tail -c 28 "$1" | head -c 27)" = '~Module signature appended~' ] || return 0
	siglen=$(tail -c 32 "$1" | head -c 4 | od -An -tu1 |
		awk '{ print ((($1 * 256) + $2) * 256 + $3) * 256 + $4 }')
	head -c $(( $(stat -c %s "$1") - 28 - 12 - siglen )) "$1" > "$1.unsigned"
	mv "$1.unsigned" "$1"
}
modpath() {
	p=$(find "$kmods/kernel" -name "$1.ko*" | head -n 1)
	[ -n "$p" ] || p=$(find "$kmods/kernel" -name "$(echo "$1" | tr _ -).ko*" | head -n 1)
	echo "$p"
}
todo="$MODULES $PMEM_MODULES" seen=
while [ -n "$todo" ]; do
	set -- $todo; m=$1; shift; todo=$*
	case " $seen " in *" $m "*) continue ;; esac
	seen="$seen $m"
	p=$(modpath "$m")
	if [ -z "$p" ]; then
		# Built into this kernel (e.g. cxl_port, virtio_console): nothing to carry.
		grep -qs "/$m.ko" "$kmods/modules.builtin" && continue
		die "module $m is neither in $deb nor built in"
	fi
	rel=lib/modules/$kver/${p#"$kmods"/}
	rel=${rel%.xz} rel=${rel%.zst}
	mkdir -p "$root/$(dirname "$rel")"
	case "$p" in
	*.xz)	xz -dc "$p" > "$root/$rel" ;;
	*.zst)	zstd -qdc "$p" > "$root/$rel" ;;
	*)	cp "$p" "$root/$rel"
		# a build tree's modules carry their debug information
		readelf -S "$root/$rel" 2>/dev/null | grep -q '\.debug_info' &&
			strip --strip-debug "$root/$rel" ;;
	esac
	unsign "$root/$rel"
	todo="$todo $(modinfo -F depends "$p" | tr , ' ')"
done
cp "$kmods/modules.builtin" "$kmods/modules.builtin.modinfo" "$kmods/modules.order" \
	"$root/lib/modules/$kver/" 2>/dev/null || true
"$depmod" -b "$root" "$kver"

# 3. Userspace: busybox applets, tools, guest programs, their libraries.
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/etc" \
	"$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run" "$root/root"
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
for t in $TOOLS; do
	[ -x "$t" ] && cp "$t" "$root/usr/bin/" || echo "mkinitramfs: note: $t not found, not carried" >&2
done
for b in "$bindir"/*; do
	[ -f "$b" ] && [ -x "$b" ] && cp "$b" "$root/usr/bin/"
done
# Libraries: whatever ldd resolves for every dynamic program we carry.
for b in "$root"/usr/bin/*; do
	ldd "$b" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'
done | sort -u | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
# Debian 12 is merged-/usr: libraries resolve to /lib/..., keep /usr/lib too.
[ -e "$root/usr/lib" ] || ln -s ../lib "$root/usr/lib"
strip --strip-unneeded "$root"/usr/bin/* "$root"/lib/x86_64-linux-gnu/* 2>/dev/null || true

mkdir -p "$root/lib/cxlbed"
if [ -n "$kmoddir" ]; then
	for k in "$kmoddir"/*.ko; do
		[ -f "$k" ] && cp "$k" "$root/lib/cxlbed/"
	done
fi
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$here/inittab" "$root/etc/inittab"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
printf '127.0.0.1 localhost cxlbed\n::1 localhost\n' > "$root/etc/hosts"
echo "$kver" > "$root/etc/cxlbed-kernel"
echo "$MODULES" > "$root/etc/cxlbed-modules"
echo "$PMEM_MODULES" > "$root/etc/cxlbed-modules-pmem"

# 4. Pack. Fixed mtimes and sorted names keep the archive reproducible.
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) \
	| gzip -n -6 > "$out/initramfs.cpio.gz.tmp"
# What the image holds: a user layer (mklayer.sh) leaves out what is here.
(cd "$root" && find . -mindepth 1 -printf '%y %P\n' | LC_ALL=C sort -k2) \
	> "$out/initramfs.manifest.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
if [ -n "$pvh" ]; then mv "$out/vmlinux.tmp" "$out/vmlinux"; else rm -f "$out/vmlinux.tmp" "$out/vmlinux"; fi
cp "$kconfig" "$out/config"
echo "$kver" > "$out/kernel.release"
mv "$out/initramfs.manifest.tmp" "$out/initramfs.manifest"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
echo "mkinitramfs: $out/initramfs.cpio.gz ($(du -k "$out/initramfs.cpio.gz" | cut -f1) KiB, kernel $kver)"

#!/bin/sh
# prepare.sh: a guest image for a kernel other than the default one
# (docs/kernels.md). cxlbed runs it in two steps, checking the kernel's
# configuration in between, so that a kernel without what cxlbed needs is
# refused before anything is built or booted.
#
#   prepare.sh config KDIR debian LIST     LIST: fetch-debian.sh's RELEASE.list
#   prepare.sh config KDIR tree DIR        a kernel build tree (make's output)
#   prepare.sh config KDIR image BZIMAGE MODULES
#                                          a bzImage and its modules folder
#                                          (lib/modules/RELEASE, as
#                                          modules_install leaves it)
#       -> KDIR/kernel.env (where the kernel comes from, its release) and
#          KDIR/config (its .config)
#   prepare.sh image KDIR BUSYBOX BINDIR
#       -> the guest clock module built against the kernel's headers
#          (KDIR/kmod/), then mkinitramfs.sh: KDIR/vmlinux (or vmlinuz
#          alone without CONFIG_PVH), initramfs.cpio.gz, initramfs.manifest,
#          System.map when the kernel has a real one. Nothing is redone
#          while the inputs (the kernel, the guest programs, these scripts)
#          are the same: KDIR/image.stamp.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "prepare: $*" >&2; exit 1; }
# a kernel cxlbed cannot use: cxlbed refuses it where it was named (exit 3)
refuse() { echo "$*" >&2; exit 3; }
say() { echo "prepare: $*" >&2; }
usage() { sed -n '7,16p' "$0" >&2; exit 2; }

[ $# -ge 2 ] || usage
step=$1 kdir=$2
shift 2
mkdir -p "$kdir"
kdir=$(cd "$kdir" && pwd)
env_get() { sed -n "s/^$1=//p" "$kdir/kernel.env" | head -n 1; }

# --- config: identify the kernel, take its .config -----------------------
config_debian() {
	list=$1
	cache=$(cd "$(dirname "$list")" && pwd)
	release=$(sed -n 's/^release //p' "$list")
	headers=$(sed -n "s/^deb \(linux-headers-[^_]*-amd64_.*\)/\1/p" "$list" | head -n 1)
	[ -n "$release" ] && [ -n "$headers" ] || refuse "$list names no release or headers"
	dpkg-deb --fsys-tarfile "$cache/$headers" |
		tar -xO "./usr/src/linux-headers-$release/.config" > "$kdir/config.new" ||
		refuse "no .config in $cache/$headers"
	{
		echo "source=debian"
		echo "release=$release"
		echo "version=$(sed -n 's/^version //p' "$list")"
		echo "suite=$(sed -n 's/^suite //p' "$list")"
		echo "package=linux-image-$release"
		echo "list=$(cd "$(dirname "$list")" && pwd)/$(basename "$list")"
		echo "config_from=$headers:usr/src/linux-headers-$release/.config"
		sh "$here/facts.sh" debian "$cache/$(sed -n 's/^deb \(linux-kbuild-.*\)/\1/p' "$list")"
	} > "$kdir/kernel.env.new"
}

config_tree() {
	tree=$(cd "$1" && pwd)
	[ -f "$tree/.config" ] || refuse "$tree: no .config (a kernel build tree after make)"
	[ -f "$tree/include/config/kernel.release" ] ||
		refuse "$tree: no include/config/kernel.release (has the kernel been built there?)"
	[ -f "$tree/arch/x86/boot/bzImage" ] || refuse "$tree: no arch/x86/boot/bzImage (make bzImage)"
	[ -f "$tree/modules.order" ] || refuse "$tree: no modules.order (make modules)"
	cp "$tree/.config" "$kdir/config.new"
	release=$(cat "$tree/include/config/kernel.release")
	{
		printf 'source=user\nrelease=%s\npath=%s\nform=tree\nconfig_from=%s\n' \
			"$release" "$tree" "$tree/.config"
		sh "$here/facts.sh" tree "$tree" "$release"
	} > "$kdir/kernel.env.new"
}

config_image() {
	bz=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	mods=$(cd "$2" && pwd)
	[ -f "$bz" ] || refuse "$1: no such bzImage"
	# lib/modules/RELEASE, or a folder above it with exactly one release
	for d in "$mods" "$mods/lib/modules"/* "$mods/usr/lib/modules"/* "$mods"/*; do
		[ -f "$d/modules.order" ] || [ -f "$d/modules.dep" ] && { mods=$d; break; }
	done
	[ -f "$mods/modules.order" ] || [ -f "$mods/modules.dep" ] ||
		refuse "$2: no modules folder (lib/modules/RELEASE with modules.order, as modules_install leaves it)"
	release=$(basename "$mods")
	cfg=
	for c in "$mods/build/.config" "$mods/config" "$(dirname "$bz")/config-$release"; do
		[ -f "$c" ] && { cfg=$c; break; }
	done
	[ -n "$cfg" ] || refuse "no .config for $release: looked in $mods/build/.config," \
		"$mods/config and $(dirname "$bz")/config-$release"
	cp "$cfg" "$kdir/config.new"
	{
		printf 'source=user\nrelease=%s\npath=%s\nmodules=%s\nform=image\nconfig_from=%s\n' \
			"$release" "$bz" "$mods" "$cfg"
		sh "$here/facts.sh" tree "$mods/build" "$release"
	} > "$kdir/kernel.env.new"
}

# --- image: clock module, then the initramfs ---------------------------------
# What the image is made from; a change in any of it rebuilds the image.
inputs() {
	cat "$kdir/kernel.env" "$kdir/config"
	for f in "$here"/*.sh "$top"/guest/image/* "$top"/guest/clock/* \
		 "$top"/include/cxlbed-clock.h "$top"/include/cxlbed-roi.h "$bindir"/*; do
		[ -f "$f" ] && sha256sum "$f"
	done
	case $(env_get source) in
	debian)	cat "$(env_get list)" ;;
	user)	p=$(env_get path)
		sha256sum "$p" 2>/dev/null || sha256sum "$p/arch/x86/boot/bzImage"
		m=$(env_get modules)
		[ -n "$m" ] || m=$p
		find -L "$m" -name '*.ko*' -printf '%P %s %T@\n' 2>/dev/null | LC_ALL=C sort ;;
	esac
}

# The kernel as mkinitramfs.sh takes a folder: vmlinuz, config, modules.
stage_root() {
	root=$1
	release=$(env_get release)
	rm -rf "$root"
	mkdir -p "$root/boot"
	case $(env_get source)/$(env_get form) in
	debian/*)
		list=$(env_get list)
		for d in $(sed -n 's/^deb //p' "$list"); do
			case $d in linux-headers-*|linux-kbuild-*) continue ;; esac
			dpkg-deb -x "$(dirname "$list")/$d" "$root"
		done ;;
	user/tree)
		tree=$(env_get path)
		km=$root/lib/modules/$release
		mkdir -p "$km/kernel"
		cp "$tree/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$release"
		cp "$kdir/config" "$root/boot/config-$release"
		# each module named in modules.order (drivers/cxl/cxl_pci.o or .ko)
		sed -e 's|^kernel/||' -e 's|\.o$|.ko|' "$tree/modules.order" | while read -r m; do
			[ -f "$tree/$m" ] || continue
			mkdir -p "$km/kernel/$(dirname "$m")"
			ln -s "$tree/$m" "$km/kernel/$m"
		done
		for f in modules.order modules.builtin modules.builtin.modinfo; do
			[ -f "$tree/$f" ] && cp "$tree/$f" "$km/"
		done
		if [ -f "$tree/System.map" ]; then
			cp "$tree/System.map" "$kdir/System.map.new"
		fi ;;
	user/image)
		mods=$(env_get modules)
		mkdir -p "$root/lib/modules"
		cp "$(env_get path)" "$root/boot/vmlinuz-$release"
		cp "$kdir/config" "$root/boot/config-$release"
		ln -s "$mods" "$root/lib/modules/$release"
		# Debian's packages hold a placeholder
		if [ -f "$mods/System.map" ] && ! grep -qs ' The real System.map' "$mods/System.map"; then
			cp "$mods/System.map" "$kdir/System.map.new"
		fi ;;
	esac
}

# The folder to build the clock module against.
kbuild_dir() {
	case $(env_get source)/$(env_get form) in
	debian/*)
		list=$(env_get list)
		debs=
		for d in $(sed -n 's/^deb \(linux-headers-.*\|linux-kbuild-.*\)/\1/p' "$list") \
			 $(sed -n 's/^libc //p' "$list"); do
			debs="$debs $(dirname "$list")/$d"
		done
		sh "$here/kheaders.sh" "$kdir/headers" $debs ;;
	user/tree) env_get path ;;
	user/image)
		b=$(env_get modules)/build
		[ -f "$b/Makefile" ] || refuse "$(env_get modules): no build/ link to the kernel's" \
			"build tree, which the guest clock module is built against (give the tree instead)"
		(cd "$b" && pwd) ;;
	esac
}

case $step in
config)
	[ $# -ge 2 ] || usage
	form=$1
	shift
	case $form in
	debian) [ $# -eq 1 ] || usage; config_debian "$1" ;;
	tree) [ $# -eq 1 ] || usage; config_tree "$1" ;;
	image) [ $# -eq 2 ] || usage; config_image "$1" "$2" ;;
	*) usage ;;
	esac
	mv "$kdir/config.new" "$kdir/config"
	mv "$kdir/kernel.env.new" "$kdir/kernel.env"
	;;
image)
	[ $# -eq 2 ] || usage
	busybox=$1 bindir=$2
	[ -f "$kdir/kernel.env" ] || die "$kdir: run the config step first"
	stamp=$(inputs | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$kdir/image.stamp" 2>/dev/null)" = "$stamp" ] &&
	   [ -f "$kdir/initramfs.cpio.gz" ]; then
		exit 0
	fi
	release=$(env_get release)
	rm -f "$kdir/image.stamp" "$kdir/System.map" "$kdir/System.map.new"
	say "guest image for $release ($(env_get source)): clock module, initramfs"
	kb=$(kbuild_dir)
	# their last message says why a kernel is refused
	sh "$top/guest/clock/build.sh" "$kb" "$release" "$kdir/kmod/cxlbed_clock.ko" || exit 3
	stage_root "$kdir/.root"
	sh "$top/guest/image/mkinitramfs.sh" "$kdir/.root" "$busybox" "$bindir" "$kdir" \
		"$kdir/kmod" || exit 3
	rm -rf "$kdir/.root"
	# Debian's headers, unpacked here, are unpacked again if the module
	# must be rebuilt (120 MB for 7.3)
	if [ "$(env_get source)" = debian ]; then
		rm -rf "$kdir/headers"
	fi
	if [ -f "$kdir/System.map.new" ]; then
		mv "$kdir/System.map.new" "$kdir/System.map"
	fi
	echo "$stamp" > "$kdir/image.stamp"
	;;
*) usage ;;
esac

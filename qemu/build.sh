#!/bin/sh
# qemu/build.sh LINK: cxlbed's QEMU, linked as LINK.
#
# Debian's QEMU source (qemu/source) with Debian's own patches, then
# cxlbed's series (qemu/patches/, docs/qemu.md says what each does and
# why), configured for x86_64 system emulation under TCG with plugins.
# Built once per source version, configure flags and patch series, into
# a cache outside the clone ($CXLBED_CACHE, else ~/.cache/cxlbed): a
# second checkout, a clean clone in CI or `make clean` find it there.
# The binary uses the firmware of Debian's own QEMU packages (SeaBIOS,
# the option ROMs), which ci/deps installs.
#
#   qemu/build.sh --key    print the cache key and the folder, build nothing
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${CXLBED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cxlbed}/qemu
pinned=$(sed -n 's/^version *= *//p' "$here/source")
line=$(sed -n 's/^line *= *//p' "$here/source")
flags="--target-list=x86_64-softmmu --enable-plugins --without-default-features
 --enable-tcg --enable-fdt=system --disable-docs --disable-user
 --disable-download --disable-install-blobs --disable-werror
 --firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu"

say() { echo "qemu/build.sh: $*"; }
die() { echo "qemu/build.sh: $*" >&2; exit 1; }

# key VERSION: what the binary is a function of (each patch's diff, below
# its "---" line: a reworded header does not call for a rebuild)
key() {
	{ echo "$1"; echo "$flags"
	  for p in "$here"/patches/*.patch; do sed -n '/^---$/,$p' "$p"; done
	} | sha256sum | cut -c1-12
}
# The versions of QEMU's source APT can fetch.
source_versions() { apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p'; }
# The newest of the pinned line, if the pin is gone.
newest_in_line() {
	source_versions | while read -r v; do
			case "${v#*:}" in "$line".*) echo "$v" ;; esac
		done | sort -V | tail -n 1
}

if [ "${1:-}" = --key ]; then
	k=$(key "$pinned"); echo "$k $cache/$k"; exit 0
fi
link=${1:?usage: qemu/build.sh LINK}

# The link, and build-info beside it: make's record of what it points to.
install_link() { # DIR
	mkdir -p "$(dirname "$link")"
	ln -sfn "$1/bin/qemu-system-x86_64" "$link"
	cp "$1/build-info" "$(dirname "$link")/build-info"
	say "$(head -n 1 "$1/build-info") -> $link"
}
k=$(key "$pinned")
if [ -x "$cache/$k/bin/qemu-system-x86_64" ]; then
	install_link "$cache/$k"; exit 0
fi

for tool in apt-get dpkg-source meson ninja patch flock; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool missing: run ci/deps (it installs QEMU's build dependencies)"
done
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9	# one build at a time: a second checkout waits and then finds it

version=$pinned
if ! source_versions | grep -qxF "$pinned"; then
	version=$(newest_in_line)
	[ -n "$version" ] || die "APT has no source of qemu $line.x: its deb-src" \
		"sources lack trixie (ci/deps adds them); run ci/deps"
	say "qemu $pinned is not on the mirror any more; building $version" \
		"(update qemu/source once the patches are checked on it)"
fi
k=$(key "$version")
dest=$cache/$k
if [ -x "$dest/bin/qemu-system-x86_64" ]; then
	install_link "$dest"; exit 0
fi

work=$cache/.build-$k-$$
trap 'rm -rf "$work"' EXIT
rm -rf "$cache"/.build-"$k"-*
mkdir -p "$work" "$cache/src"
upstream=${version#*:}; upstream=${upstream%-*}
dsc=$cache/src/qemu_${version#*:}.dsc
if [ ! -f "$dsc" ]; then
	say "fetching Debian's qemu $version source"
	# (as root, APT's download sandbox cannot write to the cache: no warning)
	(cd "$cache/src" && apt-get source -qq -o APT::Sandbox::User=root \
		--download-only "qemu=$version") ||
		die "apt-get source qemu=$version failed"
fi
say "unpacking (Debian's patches applied)"
# APT checked the files against the signed Sources index; dpkg-source's
# own signature check would want the Debian keyring.
dpkg-source -q -x "$dsc" "$work/src" >"$work/unpack.log" 2>&1 || {
	cat "$work/unpack.log" >&2; die "dpkg-source -x $dsc failed"; }
for p in "$here"/patches/*.patch; do
	patch -s -p1 -d "$work/src" --fuzz=0 <"$p" ||
		die "$(basename "$p") does not apply to qemu $version"
done
say "configuring qemu $upstream with cxlbed's $(ls "$here"/patches/*.patch | wc -l) patches"
mkdir -p "$work/build"
# shellcheck disable=SC2086 # flags are words
(cd "$work/build" && ../src/configure --python=/usr/bin/python3 $flags \
	--with-pkgversion="cxlbed-$k" >"$work/configure.log" 2>&1) || {
	tail -n 20 "$work/configure.log" >&2; die "configure failed"; }
start=$(date +%s)
say "building (about 1550 steps; 10 CPU-minutes, 20 min on the 2-core development machine)"
ninja -C "$work/build" -j"$(nproc)" qemu-system-x86_64 >"$work/ninja.log" 2>&1 || {
	tail -n 30 "$work/ninja.log" >&2; die "build failed"; }
mkdir -p "$work/out/bin"
cp "$work/build/qemu-system-x86_64" "$work/out/bin/"
{
	echo "qemu $version with cxlbed's patches (key $k)"
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start )) s on $(nproc) cores"
	echo "patches:"; (cd "$here/patches" && ls *.patch | sed 's/^/  /')
	echo "configure:"; echo "$flags" | sed 's/^ */  /'
} >"$work/out/build-info"
rm -rf "$dest"
mv "$work/out" "$dest"
install_link "$dest"

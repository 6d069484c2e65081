#!/bin/sh
# build.sh: the guest clock module (cxlbed_clock.ko) for one kernel.
#
# Usage: build.sh KBUILD_DIR RELEASE OUT_KO
#   KBUILD_DIR  the kernel's build folder (a build tree, or Debian's
#               unpacked linux-headers-RELEASE: guest/kernel/kheaders.sh)
#   RELEASE     the kernel's release; the module's vermagic must name it
#
# Built out of tree with the host's compiler. A kernel built by a compiler
# this host lacks (trixie's gcc-14 for Debian's 7.x) is built with the
# host's gcc, and a flag its .config asks for that this gcc does not know
# falls back the way the kernel's own Makefile does for older compilers:
# -fmin-function-alignment (gcc 14) becomes -falign-functions. BTF for
# modules needs pahole, which nothing else needs: left out (nothing in
# the guest reads the module's BTF).
set -eu

[ $# -eq 3 ] || { echo "usage: $0 KBUILD_DIR RELEASE OUT_KO" >&2; exit 2; }
kdir=$1 release=$2 ko=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "clock module: $*" >&2; exit 1; }
[ -f "$kdir/Makefile" ] || die "$kdir is no kernel build folder (no Makefile)"
[ -f "$kdir/.config" ] || die "$kdir has no .config"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/cxlbed_clock.c" "$here/Kbuild" "$work/"

set -- CONFIG_DEBUG_INFO_BTF_MODULES= CXLBED_CONTRACT_INC="$top/include"
# The compiler the kernel was built with (CONFIG_CC_VERSION_TEXT's first word).
kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\).*/\1/p' "$kdir/.config")
if grep -qx 'CONFIG_CC_IS_GCC=y' "$kdir/.config" && ! command -v "$kcc" >/dev/null 2>&1; then
	echo "clock module: $release was built with $kcc, which this host lacks: using gcc" >&2
	set -- "$@" CC=gcc
	cc=gcc
else
	cc=${kcc:-gcc}
fi
if grep -qx 'CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y' "$kdir/.config" &&
   ! echo 'int x;' | "$cc" -fmin-function-alignment=16 -x c -c -o /dev/null - 2>/dev/null; then
	set -- "$@" CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=
fi
make -s -C "$kdir" M="$work" "$@" modules || die "build against $kdir failed"
magic=$(modinfo -F vermagic "$work/cxlbed_clock.ko" | cut -d' ' -f1)
[ "$magic" = "$release" ] ||
	die "built for '$magic', not $release: $kdir belongs to another kernel"
mkdir -p "$(dirname "$ko")"
strip --strip-debug -o "$ko.tmp" "$work/cxlbed_clock.ko"
mv "$ko.tmp" "$ko"

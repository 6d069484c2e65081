#!/bin/sh
# kheaders.sh: Debian's kernel headers, unpacked (never installed) so that
# an out-of-tree module (the guest clock) builds against them on this host.
#
# Usage: kheaders.sh OUTDIR DEB... [libc6_*.deb]
#   DEBs  linux-headers-RELEASE, linux-headers-...-common, linux-kbuild-...
#         (and libc6, when fetch-debian.sh found the kbuild tools need a
#         newer C library than the host's)
# Prints the folder to build against (OUTDIR/usr/src/linux-headers-RELEASE).
#
# Two fix-ups make the unpacked tree usable where it lies:
# - its Makefiles name the common part and themselves by their installed
#   paths (/usr/src/...): rewritten to OUTDIR/usr/src/...;
# - trixie's kbuild tools (modpost, objtool) are linked against glibc 2.38
#   or newer, and Debian 12 has 2.36. Each tool that asks for more than
#   the host's C library has is moved to TOOL.bin and replaced by a
#   wrapper that starts it with that libc6 package's own dynamic loader
#   and libraries (ld-linux-x86-64.so.2 --library-path), unpacked into
#   OUTDIR/libc. Nothing else runs on that C library, and nothing is
#   installed (docs/kernels.md, "Building modules for a newer kernel").
set -eu

[ $# -ge 2 ] || { echo "usage: $0 OUTDIR DEB..." >&2; exit 2; }
out=$1
shift
die() { echo "kheaders: $*" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
libc=
for d in "$@"; do
	case $(basename "$d") in
	libc6_*) libc=$d ;;
	*) dpkg-deb -x "$d" "$out" || die "cannot unpack $d" ;;
	esac
done
kdir=$(ls -d "$out"/usr/src/linux-headers-*-amd64 2>/dev/null | head -n 1)
[ -n "$kdir" ] || die "no linux-headers-*-amd64 among $*"
sed -i -e "s|^include /usr/src/|include $out/usr/src/|" \
	-e "s|=/usr/src/|=$out/usr/src/|" "$kdir/Makefile"

if [ -n "$libc" ]; then
	dpkg-deb -x "$libc" "$out/libc" || die "cannot unpack $libc"
	lib=$out/libc/usr/lib/x86_64-linux-gnu
	[ -x "$lib/ld-linux-x86-64.so.2" ] || lib=$out/libc/lib/x86_64-linux-gnu
	[ -x "$lib/ld-linux-x86-64.so.2" ] || die "no dynamic loader in $libc"
	have=$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)
	for t in $(find "$out"/usr/lib/linux-kbuild-* -type f -perm -u+x); do
		want=$(objdump -T "$t" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' |
			sed 's/GLIBC_//' | sort -uV | tail -n 1)
		[ -n "$want" ] || continue
		[ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | tail -n 1)" = "$have" ] && continue
		mv "$t" "$t.bin"
		printf '#!/bin/sh\n# %s needs glibc %s (host: %s): run it on %s\nexec %s --library-path %s "$0.bin" "$@"\n' \
			"$(basename "$t")" "$want" "$have" "$(basename "$libc")" \
			"$lib/ld-linux-x86-64.so.2" "$lib" > "$t"
		chmod +x "$t"
	done
fi
echo "$kdir"

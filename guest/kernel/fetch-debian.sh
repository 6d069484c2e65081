#!/bin/sh
# fetch-debian.sh: download a Debian kernel by version line, never install it.
#
# Usage: fetch-debian.sh LINE DEST
#   LINE  "7.3" (the newest 7.3.x any suite serves) or "7.3.4" (that one)
#   DEST  build/cache/kernels: the packages land here, with RELEASE.list
#         (what a later stage.sh reads) naming them; RELEASE goes to stdout
#
# What is downloaded: the image package of the newest matching release
# (linux-image-RELEASE, e.g. 7.3.4+deb13-amd64) and every package of that
# release it depends on (7.x splits it into linux-base, linux-binary and
# linux-modules), the headers of that release with theirs (linux-headers-
# ...-common, linux-kbuild-...) for the guest clock module, all at the
# image's version, from the suite that serves it, through the private APT
# of debian-apt.sh. When the kbuild tools need a newer C library than the
# host's (trixie's are built against glibc 2.41, Debian 12 has 2.36), the
# oldest libc6 that is new enough comes too: kbuild-host.sh runs just those
# tools through it (docs/kernels.md).
set -eu
exec 3>&1 1>&2	# stdout: the release only

[ $# -eq 2 ] || { echo "usage: $0 LINE DEST" >&2; exit 2; }
line=$1 dest=$2
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "fetch-debian: $*" >&2; exit 1; }
refuse() { echo "$*" >&2; exit 3; }	# no such kernel: bad input
say() { echo "fetch-debian: $*" >&2; }
echo "$line" | grep -Eqx '[0-9]+\.[0-9]+(\.[0-9]+)?' ||
	refuse "'$line' is not a kernel version line (7.3, or 7.3.4)"
for t in apt-get apt-cache dpkg-deb flock objdump; do
	command -v $t >/dev/null || die "$t missing (Debian: apt, dpkg, util-linux, binutils)"
done

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
KAPT=$dest/apt
. "$here/debian-apt.sh"
# One fetch at a time in this cache (worktrees may share it).
exec 9>"$dest/.lock"
flock 9

kapt_setup
say "apt-get update ($KERNEL_SUITES)"
kapt_update

# linux-image-UPSTREAM+ABI-amd64, e.g. linux-image-7.3.4+deb13-amd64.
esc=$(echo "$line" | sed 's/\./\\./g')
case $line in
*.*.*) pat="^linux-image-$esc\+[a-z0-9.]+-amd64\$" ;;
*) pat="^linux-image-$esc\.[0-9]+\+[a-z0-9.]+-amd64\$" ;;
esac
image=$(kapt_cache search --names-only "$pat" 2>/dev/null | cut -d' ' -f1 |
	sed 's/^linux-image-//' | sort -V | tail -n 1)
[ -n "$image" ] || refuse "no Debian kernel $line in the suites $KERNEL_SUITES (amd64, main)"
release=$image
image=linux-image-$release
set -- $(kapt_where "$image")
suite=${1:-} version=${2:-}
[ -n "$version" ] || die "APT offers no version of $image"
upstream=${release%%-amd64}	# 7.3.4+deb13: every package of the release names it

# The release's packages: the image's and the headers' closure of
# dependencies that name the release.
closure() {
	todo="$*" seen=
	while [ -n "$todo" ]; do
		set -- $todo; p=$1; shift; todo=$*
		case " $seen " in *" $p "*) continue ;; esac
		seen="$seen $p"
		todo="$todo $(kapt_cache depends --no-recommends --no-suggests "$p=$version" 2>/dev/null |
			sed -n 's/^ *Depends: \([^ <]*\).*/\1/p' | grep -F "$upstream" | tr '\n' ' ')"
	done
	echo $seen
}
pkgs=$(closure "$image" "linux-headers-$release")
say "downloading $pkgs ($version, $suite)"
cd "$dest"
kapt_get download -qq $(for p in $pkgs; do echo "$p=$version"; done) 2>&1 |
	grep -v 'unsandboxed' >&2 || true
list=$release.list.new
{
	echo "release $release"
	echo "version $version"
	echo "suite $suite"
	for p in $pkgs; do
		f=$(ls "${p}_${version#*:}_"*.deb 2>/dev/null | head -n 1)
		[ -n "$f" ] || die "download of $p $version failed"
		echo "deb $f"
	done
} > "$list"

# The kbuild tools' C library: the highest GLIBC_x.y they ask for.
kb=$(grep '^deb linux-kbuild-' "$list" | cut -d' ' -f2)
[ -n "$kb" ] || die "no linux-kbuild package among $pkgs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$kb" "$tmp"
want=$(find "$tmp" -type f -perm -u+x -exec sh -c \
	'objdump -T "$1" 2>/dev/null | grep -o "GLIBC_[0-9.]*"' _ {} \; |
	sed 's/GLIBC_//' | sort -uV | tail -n 1)
have=$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)
if [ -n "$want" ] && [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | tail -n 1)" != "$have" ]; then
	# the oldest libc6 of at least that version any suite serves
	lv=$(kapt_cache madison libc6 | awk -F' [|] ' '{ print $2 }' | sort -uV |
		while read -r v; do
			u=${v%%-*}
			[ "$(printf '%s\n%s\n' "$want" "$u" | sort -V | head -n 1)" = "$want" ] &&
				{ echo "$v"; break; }
		done)
	[ -n "$lv" ] || die "the kbuild tools need glibc $want; no suite serves one"
	say "kbuild tools need glibc $want (host: $have): downloading libc6 $lv"
	kapt_get download -qq "libc6=$lv" 2>&1 | grep -v 'unsandboxed' >&2 || true
	f=$(ls "libc6_${lv#*:}_amd64.deb" 2>/dev/null | head -n 1)
	[ -n "$f" ] || die "download of libc6 $lv failed"
	echo "libc $f" >> "$list"
fi
mv "$list" "$release.list"
echo "$release" >&3

#!/bin/sh
# mklayer.sh: an extra initramfs layer with Debian packages and host files,
# unpacked by the guest kernel over the base image (docs/guest-image.md).
#
# Usage: mklayer.sh [-c DEBCACHE] [-f FILES] MANIFEST OUT [PACKAGE...]
#   DEBCACHE  where downloaded .debs are kept (default build/cache/debs)
#   FILES     host files to carry: lines "HOSTPATH<TAB>GUESTPATH"
#   MANIFEST  the base image's initramfs.manifest ("TYPE PATH" lines)
#   OUT       the layer, a gzip'd newc cpio archive
#
# Packages come only through APT from the machine's own sources: the named
# packages and the Depends/Pre-Depends closure (first alternative, no
# Recommends) that can hold shared libraries (architecture-specific, not
# Essential). The layer keeps every file of the named packages except
# documentation, plus what their ELF files need (DT_NEEDED, walked through
# the base image, the packages and, last, the host) and the base image
# does not already hold; a library whose package the host has installed
# is taken from the host, like the base image's own. Paths follow the base image's merged layout:
# /bin, /sbin, /usr/sbin -> /usr/bin (first in the guest's PATH, so they
# win over busybox applets) and /usr/lib -> /lib (a link in the image).
set -eu
exec 1>&2	# APT's chatter and ours: progress, not results

debs=build/cache/debs files=
while getopts c:f: o; do
	case $o in
	c) debs=$OPTARG ;;
	f) files=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: $0 [-c DEBCACHE] [-f FILES] MANIFEST OUT [PACKAGE...]" >&2; exit 2; }
manifest=$1 out=$2
shift 2
pkgs=$*

die() { echo "mklayer: $*" >&2; exit 1; }
note() { echo "mklayer: $*" >&2; }
[ -f "$manifest" ] || die "base manifest $manifest missing (run make)"
for t in apt-cache apt-get dpkg-deb readelf cpio gzip; do
	command -v $t >/dev/null || die "$t missing (Debian 12 host needed: apt, dpkg, binutils, cpio)"
done

mkdir -p "$(dirname "$out")" "$debs"
work=$(cd "$(mktemp -d "$(dirname "$out")/.layer.XXXXXX")" && pwd)
trap 'rm -rf "$work"' EXIT
stage=$work/stage lr=$work/root
mkdir -p "$stage" "$lr"

# --- 1. Which packages: the named ones and the library-bearing closure. ---
# "PACKAGE ARCH ESSENTIAL VERSION" of the candidate version of each.
# Only the machine's own architecture (or "all"), once per package.
native=$(dpkg --print-architecture)
candidates() {
	apt-cache show --no-all-versions "$@" 2>/dev/null | awk -F': ' -v native="$native" '
		function out() {
			if (p && !(p in done) && (a == native || a == "all")) {
				print p, a, (e ? e : "no"), v; done[p] = 1
			}
			p = v = a = e = ""
		}
		/^Package:/ { p = $2 } /^Version:/ { v = $2 }
		/^Architecture:/ { a = $2 } /^Essential:/ { e = $2 }
		/^$/ { out() }
		END { out() }'
}
# The whole Depends/Pre-Depends graph in one call (APT is slow to start),
# then a walk from the named packages: of "A | B" the first real package,
# no virtual ones, and nothing below a package that cannot hold a library.
: > "$work/graph"
[ -z "$pkgs" ] || apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances $pkgs > "$work/graph" 2>/dev/null ||
	die "apt-cache depends failed for: $pkgs"
: > "$work/cand"
[ -z "$pkgs" ] || candidates $(grep -v '^[ <]' "$work/graph" | sort -u) > "$work/cand"
for p in $pkgs; do
	grep -q "^$p " "$work/cand" || die "no installable candidate for package '$p' in APT's sources"
done
awk -v roots="$pkgs" '
	FILENAME == ARGV[1] { arch[$1] = $2; ess[$1] = $3; ver[$1] = $4; next }
	/^[^ ]/ { cur = $1; picked = 0; next }
	/^ ( |[|])(Pre)?Depends: / {
		alt = substr($1, 1, 1) == "|"; name = $2; sub(/:any$/, "", name)
		if (!picked && name !~ /^</) { deps[cur] = deps[cur] " " name; picked = 1 }
		if (!alt) picked = 0
	}
	END {
		n = split(roots, q, " ")
		for (i = 1; i <= n; i++) named[q[i]] = 1
		for (i = 1; i <= n; i++) {
			p = q[i]
			if (p in seen || !(p in arch)) continue
			seen[p] = 1
			if (!(p in named) && (arch[p] == "all" || ess[p] == "yes")) continue
			print p, arch[p], ver[p]
			m = split(deps[p], d, " ")
			for (j = 1; j <= m; j++) q[++n] = d[j]
		}
	}' "$work/cand" "$work/graph" > "$work/want"

# --- 2. Download what the cache lacks (APT's own sources only), extract. ---
deb_of() {  # PACKAGE ARCH VERSION -> the file apt-get download writes
	echo "$debs/${1}_$(echo "$3" | sed 's/:/%3a/')_$2.deb"
}
need=
while read -r p a v; do
	[ -f "$(deb_of "$p" "$a" "$v")" ] || need="$need $p=$v"
done < "$work/want"
if [ -n "$need" ]; then
	note "downloading$need"
	(cd "$debs" && apt-get download -qq $need 2>&1) | grep -v 'unsandboxed' >&2 || true
fi
while read -r p a v; do
	f=$(deb_of "$p" "$a" "$v")
	[ -f "$f" ] || die "download of $p $v failed (is APT's mirror reachable? try: apt-get update)"
	mkdir -p "$stage/$p"
	dpkg-deb -x "$f" "$stage/$p"
done < "$work/want"

# --- 3. Files into the layer root, in the image's layout. ---
map() {  # a path (no leading /) in a package -> its path in the image
	case $1 in
	bin/* | sbin/* | usr/sbin/*) echo "usr/bin/${1#*bin/}" ;;
	usr/lib/*) echo "lib/${1#usr/lib/}" ;;
	usr/lib) echo lib ;;
	*) echo "$1" ;;
	esac
}
in_base() { grep -qxF -e "f $1" -e "l $1" "$manifest"; }
put() {  # SRC DEST: copy one file or link; the base image's own files win
	dst=$2
	if in_base "$dst"; then
		note "keeping the base image's /$dst"
		return 0
	fi
	mkdir -p "$lr/$(dirname "$dst")"
	if [ -L "$1" ]; then
		t=$(readlink "$1")
		case $t in /*) t=/$(map "${t#/}") ;; esac
		ln -sfn "$t" "$lr/$dst"
	else
		cp -p "$1" "$lr/$dst"
	fi
}
for p in $pkgs; do
	(cd "$stage/$p" && find . -mindepth 1 ! -type d -printf '%P\n') | while read -r f; do
		case $f in
		usr/share/doc/* | usr/share/man/* | usr/share/info/* | usr/share/locale/* | \
		usr/share/lintian/* | usr/share/bug/* | usr/share/bash-completion/* | \
		usr/share/zsh/* | usr/share/fish/* | usr/share/menu/* | \
		lib/systemd/* | usr/lib/systemd/* | usr/lib/tmpfiles.d/* | usr/lib/sysusers.d/*)
			continue ;;
		esac
		put "$stage/$p/$f" "$(map "$f")"
	done
done
if [ -n "$files" ]; then
	tab=$(printf '\t')
	while IFS=$tab read -r host guest; do
		guest=$(map "${guest#/}")
		if [ -d "$host" ]; then
			(cd "$host" && find . -mindepth 1 ! -type d -printf '%P\n') | while read -r f; do
				put "$host/$f" "$guest/$f"
			done
		elif [ -e "$host" ]; then
			put "$(readlink -f "$host")" "$guest"	# the file, not a link to it
		else
			die "host file $host does not exist"
		fi
	done < "$files"
fi

# --- 4. Shared libraries and interpreters every ELF file needs. ---
is_elf() { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
# The layer path of library NAME if someone has it: "" when the base image
# or the layer already does; copies it in from the packages or the host.
libdirs="lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu lib usr/lib lib64"
provide() {  # NAME [RUNPATH dirs...]
	name=$1; shift
	for d in $libdirs "$@"; do
		m=$(map "${d#/}")
		in_base "$m/$name" && return 0
		[ -e "$lr/$m/$name" ] && return 0
	done
	for d in $libdirs "$@"; do
		for s in "$stage"/*/"${d#/}/$name"; do
			[ -e "$s" ] || continue
			m=$(map "${d#/}")
			mkdir -p "$lr/$m"
			# The base image's libraries are the host's: where the host
			# has this package installed, its copy matches them (say
			# libssl.so.3 beside the image's libcrypto.so.3).
			p=${s#"$stage"/}
			p=${p%%/*}
			if [ -e "/${d#/}/$name" ] && [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ]; then
				s="/${d#/}/$name"
			fi
			cp -L "$s" "$lr/$m/$name"
			return 0
		done
	done
	for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64; do
		if [ -e "$d/$name" ]; then
			m=$(map "${d#/}")
			mkdir -p "$lr/$m"
			cp -L "$d/$name" "$lr/$m/$name"
			note "$name taken from the host's $d (in no named package's closure)"
			return 0
		fi
	done
	return 1
}
: > "$work/scanned"
: > "$work/missing"
while :; do
	(cd "$lr" && find . -type f -printf '%P\n') | LC_ALL=C sort > "$work/all"
	LC_ALL=C comm -23 "$work/all" "$work/scanned" > "$work/new"
	[ -s "$work/new" ] || break
	cat "$work/new" >> "$work/scanned"
	LC_ALL=C sort -o "$work/scanned" "$work/scanned"
	while read -r f; do
		is_elf "$lr/$f" || continue
		interp=$(readelf -lW "$lr/$f" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
		if [ -n "$interp" ]; then
			provide "$(basename "$interp")" "$(dirname "$interp")" ||
				echo "interpreter $interp (for /$f)" >> "$work/missing"
		fi
		rpath=$(readelf -dW "$lr/$f" 2>/dev/null |
			sed -n 's/.*(R.*PATH).*\[\(.*\)\]/\1/p' | tr : ' ' |
			sed "s|\\\$ORIGIN|/$(dirname "$f")|g")
		for n in $(readelf -dW "$lr/$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			# shellcheck disable=SC2086
			provide "$n" $rpath || echo "$n (needed by /$f)" >> "$work/missing"
		done
	done < "$work/new"
done
if [ -s "$work/missing" ]; then
	sort -u "$work/missing" | while read -r m; do
		note "warning: not found in the packages, the image or the host: $m"
	done
fi

# --- 5. Pack: only what the base image lacks; reproducible. ---
{
	echo "packages: $pkgs"
	[ -z "$files" ] || sed 's/\t/ -> /' "$files" | sed 's/^/file: /'
} > "$work/stamp"
mkdir -p "$lr/etc"
cp "$work/stamp" "$lr/etc/cxlbed-layer"
# A directory the base holds as a link must never come as a directory.
(cd "$lr" && find . -mindepth 1 -printf '%y %P\n') | LC_ALL=C sort -k2 > "$work/list"
awk 'NR == FNR { if ($1 == "l") link[$2] = 1; else if ($1 == "d") dir[$2] = 1; next }
	{ n = split($2, c, "/"); p = ""
	  for (i = 1; i < n; i++) { p = p (i > 1 ? "/" : "") c[i]
		if (p in link) { print "mklayer: /" $2 " lies under /" p ", a link in the base image" > "/dev/stderr"; bad = 1 } }
	  if (!($1 == "d" && ($2 in dir))) print $2 }
	END { exit bad }' "$manifest" "$work/list" > "$work/cpio.list" || die "layer clashes with the base image's layout"
find "$lr" -exec touch -h -d @0 {} +
(cd "$lr" && cpio -o -H newc -R 0:0 --quiet < "$work/cpio.list") | gzip -n -6 > "$work/layer.cpio.gz"
mv "$work/layer.cpio.gz" "$out"
nlib=$(grep -c '\.so' "$work/cpio.list" || true)
note "$out ($(du -k "$out" | cut -f1) KiB): $(wc -l < "$work/want") package(s) resolved for: ${pkgs:-(none)}; $(wc -l < "$work/cpio.list") entries, $nlib libraries"

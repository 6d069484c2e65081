#!/bin/sh
# facts.sh: what a kernel does with CXL link latency, for the coordinates:
# check (docs/kernels.md, "Link latency"). Prints kernel.env lines:
#
#   cxl_link_unit=ps|ns|unknown    the unit of the per-link term the kernel
#                                  adds to CDAT and HMAT figures (ns)
#   cxl_link_width=yes|no|unknown  whether that term counts the link width
#   cxl_link_from=...              how this was found out
#
# Usage: facts.sh debian KBUILD_DEB     from the package's changelog
#        facts.sh tree DIR RELEASE      from the tree's sources, else RELEASE
#
# Linux 6.12 computes a link's flit time in picoseconds from its speed
# alone and adds it to nanoseconds; "cxl/port: Convert PCIe link latency
# to nanoseconds" and "cxl: Account for link width in latency calculation"
# (mainline 7.4; Debian's stable updates carry them from 6.12.117 and
# 7.3.4) make it nanoseconds, rounded up, over the link's width.
set -eu

units="cxl/port: Convert PCIe link latency to nanoseconds"
width="cxl: Account for link width in latency calculation"
say() {
	echo "cxl_link_unit=$1"
	echo "cxl_link_width=$2"
	echo "cxl_link_from=$3"
}

case ${1:-} in
debian)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	dpkg-deb -x "$2" "$tmp"
	log=$(ls "$tmp"/usr/share/doc/*/changelog.Debian.gz 2>/dev/null | head -n 1)
	if [ -z "$log" ]; then
		say unknown unknown "no changelog in $(basename "$2")"
		exit 0
	fi
	u=ps w=no
	zcat "$log" | grep -qF -- "$units" && u=ns
	zcat "$log" | grep -qF -- "$width" && w=yes
	say $u $w "Debian's changelog ($(basename "$2")): \"$units\" $([ $u = ns ] || echo "not ")listed, \"$width\" $([ $w = yes ] || echo "not ")listed"
	;;
tree)
	dir=$2 release=$3
	src=$dir
	[ -f "$src/drivers/cxl/core/port.c" ] || src=$dir/source
	port=$src/drivers/cxl/core/port.c pci=$src/drivers/cxl/core/pci.c
	if [ -f "$port" ] && [ -f "$pci" ]; then
		u=ps w=no
		sed -n '/^static void add_latency/,/^}/p' "$port" | grep -q '1000' && u=ns
		grep -q 'pcie_link_bandwidth_mbps' "$pci" && w=yes
		say $u $w "the tree's drivers/cxl/core/port.c and pci.c"
	else
		v=$(echo "$release" | sed -n 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
		set -- $v
		if [ -n "$v" ] && { [ "$1" -gt 7 ] || { [ "$1" -eq 7 ] && [ "$2" -ge 4 ]; }; }; then
			say ns yes "release $release: mainline 7.4 and later (no sources in $dir)"
		else
			say unknown unknown "release $release and no sources in $dir: either rule is accepted"
		fi
	fi
	;;
*)
	echo "usage: $0 debian KBUILD_DEB | tree DIR RELEASE" >&2
	exit 2
	;;
esac

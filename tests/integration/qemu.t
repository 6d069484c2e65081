#!/bin/sh
# cxlbed's QEMU (docs/qemu.md) against Debian's, on the same scenario
# (tests/data/qemu-paths.scn): a page-grained interleave behind a switch,
# a 256 B interleave across root ports and two cascaded switches.
# - cxlbed's build is the one runs start, and says so;
# - the fast path is taken: the timing report counts no line of the
#   page-grained and cascaded regions served through QEMU's I/O path,
#   while the 256 B interleave keeps the decoding path (and its data);
# - behind two switch levels the data is right;
# - Debian's QEMU gives the same verdict and the same modeled figures, but
#   serves every CXL line through its I/O path.
. "$(dirname "$0")/lib.sh"
need_image
plan 14

built=$top/build/qemu/qemu-system-x86_64
stock=$(command -v qemu-system-x86_64 || echo /usr/bin/qemu-system-x86_64)
scn=$top/tests/data/qemu-paths.scn

check "make built cxlbed's QEMU ($built) and its --version names the build" \
	sh -c "'$built' --version | grep -q '(cxlbed-'"

# mmio DIR MEDIA: lines of the ROIs that moved bytes through MEDIA that
# QEMU served through its I/O path, and the CXL lines they read
mmio() {
	jq -r --arg m "media:$2" '[.rois[] | select(any(.links[]; .name == $m and
		(.read_bytes > 0 or .write_bytes > 0)))] |
		"\(map(.mmio_lines) | add) \(map(.mem_reads_cxl) | add)"' "$1/timing-h0.json"
}
# figures DIR: every workload's read and write GB/s, one per line
figures() {
	jq -r '.workloads[] | "\(.node // .dax) \(.output.read_gbps) \(.output.write_gbps)"' \
		"$1/summary.json" | sort
}

ours=$outroot/ours
"$cxlbed" run --out "$ours" "$scn" >"$outroot/ours.log" 2>&1
rc=$?
run_passes "$ours" "$outroot/ours.log" "on cxlbed's QEMU: the run passes, data checks included"
check "summary.json names cxlbed's build and its path" \
	sh -c "jq -e '(.qemu_package | startswith(\"cxlbed-\")) and .qemu_path == \"$built\"' '$ours/summary.json' >/dev/null"
check "behind two switch levels the data is right (data:h0:cascade)" \
	sh -c "jq -e '.checks[] | select(.name == \"data:h0:cascade\") | .pass and (.detail | test(\" 0 wrong\"))' '$ours/summary.json' >/dev/null"
set -- $(mmio "$ours" mem0)
diag "page-grained region: $1 of its $2 CXL lines through QEMU's I/O path"
check "page-grained interleave: CXL lines read ($2), none through QEMU's I/O path ($1)" \
	[ "${2:-0}" -gt 0 -a "${1:-1}" -eq 0 ]
set -- $(mmio "$ours" mem4)
check "cascaded switches: CXL lines read ($2), none through QEMU's I/O path ($1)" \
	[ "${2:-0}" -gt 0 -a "${1:-1}" -eq 0 ]
set -- $(mmio "$ours" mem2)
check "256 B interleave keeps the decoding path ($1 of $2 lines through it)" \
	[ "${2:-0}" -gt 0 -a "${1:-0}" -ge "${2:-1}" ]
check "no QEMU left behind (cxlbed's)" no_qemu_left "$ours"

deb=$outroot/debian
"$cxlbed" run --qemu "$stock" --out "$deb" "$scn" >"$outroot/deb.log" 2>&1
rc=$?
run_passes "$deb" "$outroot/deb.log" "on Debian's QEMU (--qemu $stock): the run passes"
check "it warns that the cascaded region holds no data there" \
	grep -q "region cascade has devices behind more than 1 switch level" "$outroot/deb.log"
check "summary.json names Debian's QEMU" \
	sh -c "jq -e '(.qemu_package | startswith(\"cxlbed-\") | not) and .qemu_path == \"$stock\"' '$deb/summary.json' >/dev/null"
set -- $(mmio "$deb" mem0)
check "Debian's QEMU serves the page-grained region through its I/O path ($1 of $2 lines)" \
	[ "${2:-0}" -gt 0 -a "${1:-0}" -ge "${2:-1}" ]
figures "$ours" >"$outroot/ours.fig"
figures "$deb" >"$outroot/deb.fig"
paste "$outroot/ours.fig" "$outroot/deb.fig" | diag
check "the same modeled GB/s on both QEMUs, within 1% (each path, read and write)" \
	sh -c "paste '$outroot/ours.fig' '$outroot/deb.fig' | awk '
		NF != 6 || \$1 != \$4 { bad = 1 }
		{ for (i = 2; i <= 3; i++) { d = \$i - \$(i + 3); if (d < 0) d = -d
			if (d > 0.01 * \$(i + 3)) bad = 1 } }
		END { exit bad || NR < 3 }'"
check "no QEMU left behind (Debian's)" no_qemu_left "$deb"
finish

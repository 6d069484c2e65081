#!/bin/sh
# The guest layer of your packages and files is cached: the same list
# reuses it, a changed package list or a changed carried file rebuilds it
# (cxlbed layer: the step cxlbed run and boot take first, without a boot).
. "$(dirname "$0")/lib.sh"
need_image
command -v apt-cache >/dev/null || skip_all "no APT on this host (packages need Debian 12)"
plan 10

# A carried file unique to this test run, so the first build is a real one.
tool=$outroot/mytool
printf '#!/bin/sh\necho mytool %s\n' "$outroot" > "$tool"
chmod +x "$tool"
layer() {  # NAME ARGS...: run cxlbed layer, keep its stdout and stderr
	n=$1; shift
	"$cxlbed" layer "$@" >"$outroot/$n.out" 2>"$outroot/$n.err"
}
cleanup_layers() {
	for f in "$outroot"/*.out; do
		p=$(cat "$f" 2>/dev/null) || continue
		case $p in */build/guest/layers/*.initrd) rm -f "$p" "${p%.initrd}.cpio.gz" ;; esac
	done
	cleanup
}
trap cleanup_layers EXIT

layer first --packages numactl --files "$tool"
check "first build of a new list and file: built" grep -q ' layer .*built ' "$outroot/first.err"
initrd=$(cat "$outroot/first.out")
lay=${initrd%.initrd}.cpio.gz
# libnuma is in the layer unless the base image carries it already (the
# pooling runtime links it): a layer never repeats what the base holds.
check "the layer holds numactl and the carried file at /usr/bin, libnuma in it or in the base" \
	sh -c "zcat '$lay' | cpio -t --quiet | grep -qx usr/bin/numactl && zcat '$lay' | cpio -t --quiet | grep -qx usr/bin/mytool &&
		{ zcat '$lay' | cpio -t --quiet | grep -q 'lib/x86_64-linux-gnu/libnuma.so.1' ||
		  grep -q 'lib/x86_64-linux-gnu/libnuma.so.1' '$top/build/guest/initramfs.manifest'; } &&
		! { zcat '$lay' | cpio -t --quiet | grep -q 'lib/x86_64-linux-gnu/libnuma.so.1' &&
		    grep -q 'lib/x86_64-linux-gnu/libnuma.so.1' '$top/build/guest/initramfs.manifest'; }"
check "the initrd is the base image followed by the layer" \
	[ "$(stat -c %s "$initrd")" -eq $(($(stat -c %s "$top/build/guest/initramfs.cpio.gz") + $(stat -c %s "$lay"))) ]
stamp=$(stat -c %Y.%y "$lay")

layer again --packages numactl --files "$tool"
check "same list again: reused, not rebuilt" grep -q ' layer .*reused ' "$outroot/again.err"
check "same path, file untouched" [ "$(cat "$outroot/again.out")" = "$initrd" ] && [ "$(stat -c %Y.%y "$lay")" = "$stamp" ]

layer more --packages "numactl sysbench" --files "$tool"
check "a package added: another layer, built" sh -c "grep -q ' layer .*built ' '$outroot/more.err' && [ \"\$(cat '$outroot/more.out')\" != '$initrd' ]"

printf '#!/bin/sh\necho mytool changed\n' > "$tool"
layer changed --packages numactl --files "$tool"
check "the carried file changed: rebuilt under a new key" sh -c "grep -q ' layer .*built ' '$outroot/changed.err' && [ \"\$(cat '$outroot/changed.out')\" != '$initrd' ]"

layer filesonly --files "$tool"
check "host files alone, no packages: a layer with just them" \
	sh -c "p=\$(cat '$outroot/filesonly.out') && zcat \"\${p%.initrd}.cpio.gz\" | cpio -t --quiet | grep -qx usr/bin/mytool"

"$cxlbed" layer --packages "numactl cxlbed-no-such-package" >"$outroot/bad.out" 2>"$outroot/bad.err"
rc=$?
check "an unknown package: exit 2 (got $rc), named, nothing built" \
	sh -c "[ $rc -eq 2 ] && grep -q \"'cxlbed-no-such-package'\" '$outroot/bad.err' && ! grep -q ' layer ' '$outroot/bad.err'"
printf '[scenario]\ntopology = %s\npackages = numactl\n  # a comment\npackages-typo = x\n' "$top/topologies/direct.topo" > "$outroot/bad.scn"
printf '[scenario]\ntopology = %s\n\npackages = numactl nosuch-pkg-cxlbed\n' "$top/topologies/direct.topo" > "$outroot/bad2.scn"
"$cxlbed" run "$outroot/bad2.scn" >/dev/null 2>"$outroot/bad2.err"
rc=$?
check "cxlbed run refuses it with FILE:LINE before anything starts (exit $rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q '^$outroot/bad2.scn:4: .*nosuch-pkg-cxlbed' '$outroot/bad2.err' && ! grep -q qemu '$outroot/bad2.err'"
[ "$failed" -eq 0 ] || for f in "$outroot"/*.err; do echo "== $f"; cat "$f"; done | diag
finish

#!/bin/sh
# `cxlbed boot --packages`: a console where Debian's own programs run,
# carried with their libraries in an extra layer, beside a host file.
. "$(dirname "$0")/lib.sh"
need_image
command -v apt-cache >/dev/null || skip_all "no APT on this host (packages need Debian 12)"
plan 7

out=$outroot/boot
tool=$outroot/hello-cxl
printf '#!/bin/sh\necho "carried: $(uname -r)"\n' > "$tool"
chmod +x "$tool"
console_boot --out "$out" --packages "sysbench numactl" --files "$tool" "$top/topologies/direct.topo"
check "the layer was built or reused before boot" grep -Eq ' layer +(built|reused) ' "$outroot/boot.err"
console_type ''
console_type 'sysbench --version; numactl --hardware; hello-cxl; echo DONE-$((6*7))'
console_wait 'DONE-42'
check "sysbench runs in the guest" grep -q '^sysbench 1\.' "$outroot/console.out"
check "numactl --hardware sees the local and the CXL node" \
	sh -c "grep -q '^available: 2 nodes (0-1)' '$outroot/console.out' && grep -q '^node 1 size: 25[0-9] MB' '$outroot/console.out'"
check "the host file was carried to /usr/bin and runs" grep -q '^carried: 6\.12' "$outroot/console.out"
console_end
check "poweroff in the guest ends cxlbed boot with status 0 (got $console_rc)" [ $console_rc -eq 0 ]
check "QEMU booted the base image with the layer behind it" \
	grep -q -- "-initrd [^ ]*/build/guest/layers/[0-9a-f]*\.initrd" "$out/qemu-h0.cmdline"
check "no QEMU left behind" no_qemu_left "$out"
[ "$failed" -eq 0 ] || { tail -n 20 "$outroot/boot.err"; tail -n 40 "$outroot/console.out"; } | diag
finish

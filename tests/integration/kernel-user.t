#!/bin/sh
# A user's own kernel (docs/kernels.md): a build tree made from Debian's
# 6.12 packages, laid out as `make` leaves one (.config, Makefile,
# Module.symvers, scripts, include/config/kernel.release,
# arch/x86/boot/bzImage, modules.order and the modules beside their
# sources), boots with its regions online, its clock module built against
# it. The tree holds the modules the guest image takes (the CXL, DAX and
# NVDIMM drivers and what they depend on), as the image step uses no
# others. The same kernel as a bzImage with its modules folder is found by
# plan; a copy whose .config lacks the CXL stack is refused before
# anything starts, naming each option and its line. Host time: about 90 s.
. "$(dirname "$0")/lib.sh"
need_image
cfg=$top/config.mk
image_deb=$(sed -n 's/^KERNEL_DEB = //p' "$cfg")
headers=$(sed -n 's/^KHEADERS_DEBS = //p' "$cfg")
[ -f "$image_deb" ] || skip_all "no KERNEL_DEB in config.mk (run ./configure)"
plan 11

# --- the tree ---------------------------------------------------------------
t0=$(date +%s)
unpacked=$outroot/deb
dpkg-deb -x "$image_deb" "$unpacked"
release=$(ls "$unpacked/lib/modules")
tree=$(sh "$top/guest/kernel/kheaders.sh" "$outroot/headers" $headers)
mods=$unpacked/lib/modules/$release
mkdir -p "$tree/arch/x86/boot"
cp "$unpacked/boot/vmlinuz-$release" "$tree/arch/x86/boot/bzImage"
cp "$mods/modules.builtin" "$mods/modules.builtin.modinfo" "$tree/"
# the image's modules and their dependencies, uncompressed where the tree builds them
todo="cxl_acpi cxl_pci cxl_mem kmem device_dax dax_cxl cxl_pmem nd_pmem dax_pmem" seen=
: >"$tree/modules.order"
while [ -n "$todo" ]; do
	set -- $todo; m=$1; shift; todo=$*
	case " $seen " in *" $m "*) continue ;; esac
	seen="$seen $m"
	p=$(find "$mods/kernel" -name "$m.ko*" -o -name "$(echo "$m" | tr _ -).ko*" | head -n 1)
	[ -n "$p" ] || continue	# built in
	rel=${p#"$mods/kernel/"}
	rel=${rel%.xz}
	mkdir -p "$tree/$(dirname "$rel")"
	xz -dc "$p" >"$tree/$rel"
	echo "${rel%.ko}.o" >>"$tree/modules.order"
	todo="$todo $(modinfo -F depends "$p" | tr , ' ')"
done
echo "tree of $release made in $(($(date +%s) - t0)) s: $(wc -l <"$tree/modules.order") modules" | diag

# --- it boots -----------------------------------------------------------------
t0=$(date +%s)
out=$outroot/user
"$cxlbed" run --kernel "$tree" --out "$out" >"$out.log" 2>&1
rc=$?
run_passes "$out" "$out.log" "the default scenario on the build tree passes"
echo "host time $(($(date +%s) - t0)) s, image build included" | diag
check "summary.json: your build, from the tree, release $release" \
	[ "$(sj "$out" '.guest_kernel.source + " " + .guest_kernel.path + " " + .guest_kernel.release')" = "user $tree $release" ]
check "kernel:h0 and the regions online" \
	[ "$(sj "$out" '[.checks[] | select((.name == "kernel:h0" or .name == "boot:h0") and .pass)] | length')" = 2 ]
kdir=$(sj "$out" '.guest_kernel.image')
check "its clock module built against the tree ($kdir/kmod)" \
	sh -c "modinfo -F vermagic '$kdir/kmod/cxlbed_clock.ko' | grep -q '^$release '"
check "and loaded: the guest's clock is modeled, the workloads' figures too" \
	[ "$(sj "$out" '.guest_clock == "modeled" and ([.hosts[0].nodes[] | select(.clock != "modeled")] | length == 0)')" = true ]
check "coordinates: the tree has no sources and is older than 7.4, so the figure names its rule" \
	[ "$(sj "$out" '[.checks[] | select(.name == "coordinates:h0:r0" and .pass and (.detail | contains("was not known")))] | length')" = 1 ]
check "no QEMU left behind" no_qemu_left "$out"

# --- a bzImage and its modules folder, as modules_install leaves it -----------------
inst=$outroot/install/lib/modules/$release
mkdir -p "$inst"
(cd "$tree" && find . -name '*.ko' | while read -r k; do
	mkdir -p "$inst/kernel/$(dirname "$k")"; cp "$k" "$inst/kernel/$k"; done)
cp "$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$inst/"
sed 's|^|kernel/|; s|\.o$|.ko|' "$tree/modules.order" >"$inst/modules.order"
ln -s "$tree" "$inst/build"
"$cxlbed" plan --kernel "$tree/arch/x86/boot/bzImage" --kernel-modules "$outroot/install" \
	"$top/topologies/default.topo" >"$outroot/plan-image" 2>&1
rc=$?
check "plan --kernel BZIMAGE --kernel-modules DIR: exit 0 ($rc), your build found" \
	grep -q "^# guest kernel: $release (your build: $tree/arch/x86/boot/bzImage, modules $inst)" \
		"$outroot/plan-image"
[ $rc -eq 0 ] || tail -n 5 "$outroot/plan-image" | diag

# --- without CXL: refused before anything starts --------------------------------
nocxl=$outroot/nocxl
mkdir -p "$nocxl"
for f in "$tree"/* "$tree"/.kernelvariables; do ln -s "$f" "$nocxl/"; done
rm "$nocxl/include"; cp -r "$tree/include" "$nocxl/include"
sed -e 's/^CONFIG_CXL_REGION=y$/# CONFIG_CXL_REGION is not set/' \
    -e '/^CONFIG_CXL_BUS=/d' "$tree/.config" >"$nocxl/.config"
line=$(grep -n '^# CONFIG_CXL_REGION is not set' "$nocxl/.config" | cut -d: -f1)
"$cxlbed" plan --kernel "$nocxl" "$top/topologies/default.topo" >"$outroot/plan-nocxl" 2>&1
rc=$?
check "plan --kernel NOCXL: exit 2 ($rc): --kernel, CONFIG_CXL_REGION at .config:$line, CONFIG_CXL_BUS" \
	sh -c "[ $rc = 2 ] && grep -q '^--kernel $nocxl: kernel $release lacks what cxlbed needs' '$outroot/plan-nocxl' &&
		grep -q 'CONFIG_CXL_REGION is not set ($nocxl/.config:$line; needed =y)' '$outroot/plan-nocxl' &&
		grep -q 'CONFIG_CXL_BUS is missing from $nocxl/.config' '$outroot/plan-nocxl'"
head -n 4 "$outroot/plan-nocxl" | diag
printf '[scenario]\ntopology = %s\n\nkernel = %s\n' "$top/topologies/default.topo" "$nocxl" \
	>"$outroot/nocxl.scn"
"$cxlbed" run --out "$outroot/refused" "$outroot/nocxl.scn" >"$outroot/run-nocxl" 2>&1
rc=$?
check "run of a scenario naming it: exit 2 ($rc) at nocxl.scn:4" \
	sh -c "[ $rc = 2 ] && grep -q '^$outroot/nocxl.scn:4: kernel = $nocxl: kernel $release lacks' '$outroot/run-nocxl'"
check "nothing started: no run folder, no QEMU" \
	sh -c "[ ! -e '$outroot/refused' ]" && no_qemu_left "$outroot/refused"

# the images made of this test's kernels go with it
for k in "$top"/build/guest/kernels/user-*; do
	grep -qs "^path=$outroot/" "$k/kernel.env" && rm -rf "$k"
done
finish

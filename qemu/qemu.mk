# cxlbed's QEMU (qemu/build.sh, docs/qemu.md): Debian's source and the
# patches here, built once per source version and patch series into a
# cache outside the clone, then linked as build/qemu/qemu-system-x86_64,
# which cxlbed starts unless told otherwise (--qemu, CXLBED_QEMU).
QEMU_BUILT := $(B)/qemu/build-info
$(QEMU_BUILT): qemu/build.sh qemu/source $(wildcard qemu/patches/*.patch)
	qemu/build.sh $(B)/qemu/qemu-system-x86_64

ALL_TARGETS += $(QEMU_BUILT)

# The guest clock module (cxlbed_clock.ko), built out of tree against
# Debian's headers for the default guest kernel (guest/clock/build.sh).
# The header packages are unpacked under $(B)/kheaders, never installed
# (guest/kernel/kheaders.sh); another kernel's module is built the same
# way by guest/kernel/prepare.sh (docs/kernels.md).
KH := $(B)/kheaders
KH_STAMP := $(KH)/.extracted
CLOCK_KO := $(B)/guest/kmod/cxlbed_clock.ko

$(KH_STAMP): $(KHEADERS_DEBS) guest/kernel/kheaders.sh
	sh guest/kernel/kheaders.sh $(KH) $(KHEADERS_DEBS) >/dev/null
	touch $@

$(CLOCK_KO): guest/clock/cxlbed_clock.c guest/clock/Kbuild guest/clock/build.sh \
		include/cxlbed-clock.h include/cxlbed-roi.h $(KH_STAMP)
	+k=$$(ls -d $(KH)/usr/src/linux-headers-*-amd64) && \
		sh guest/clock/build.sh $$k $${k##*/linux-headers-} $@

$(B)/guest/initramfs.cpio.gz: $(CLOCK_KO)
ALL_TARGETS += $(CLOCK_KO)

# The guest clock module (cxlbed_clock.ko), built out of tree against
# Debian's headers for the guest kernel. The header packages are extracted
# under $(B)/kheaders, never installed; their Makefile names the common
# part by its installed path, which the extraction rewrites.
KH := $(B)/kheaders
KH_STAMP := $(KH)/.extracted
CLOCK_BUILD := $(B)/guest/clock-build
CLOCK_KO := $(B)/guest/kmod/cxlbed_clock.ko

$(KH_STAMP): $(KHEADERS_DEBS)
	rm -rf $(KH) && mkdir -p $(KH)
	for d in $(KHEADERS_DEBS); do dpkg-deb -x $$d $(KH) || exit 1; done
	sed -i 's|^include /usr/src/|include $(abspath $(KH))/usr/src/|' \
		$(KH)/usr/src/linux-headers-*-amd64/Makefile
	touch $@

# BTF for modules needs pahole, which nothing else needs: left out.
$(CLOCK_KO): guest/clock/cxlbed_clock.c guest/clock/Kbuild \
		emulator/timing/cxlbed-clock.h emulator/timing/cxlbed-roi.h $(KH_STAMP)
	rm -rf $(CLOCK_BUILD) && mkdir -p $(CLOCK_BUILD) $(@D)
	cp guest/clock/cxlbed_clock.c guest/clock/Kbuild $(CLOCK_BUILD)/
	$(MAKE) -s -C $(wildcard $(KH)/usr/src/linux-headers-*-amd64) \
		M=$(abspath $(CLOCK_BUILD)) CONFIG_DEBUG_INFO_BTF_MODULES= \
		CXLBED_TIMING_INC=$(abspath emulator/timing) modules
	strip --strip-debug -o $@ $(CLOCK_BUILD)/cxlbed_clock.ko

$(B)/guest/initramfs.cpio.gz: $(CLOCK_KO)
ALL_TARGETS += $(CLOCK_KO)

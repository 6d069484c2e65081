# Guest side: the in-guest agent and the image (kernel + initramfs) that
# carries it. Guest programs link dynamically against Debian's libcxl,
# libdaxctl and json-c; the image builder copies those libraries in.
GUEST_PKGS := libcxl libdaxctl json-c
GUEST_CFLAGS := $(BASE_CFLAGS) $(CFLAGS) $(shell pkg-config --cflags $(GUEST_PKGS)) \
	-Iinclude
GUEST_LIBS := $(shell pkg-config --libs $(GUEST_PKGS)) -ldl
GUEST_BIN := $(B)/guest/bin

AGENT_SRCS := $(filter-out guest/agent/test_%.c,$(wildcard guest/agent/*.c))
AGENT_OBJS := $(AGENT_SRCS:%.c=$(B)/obj/%.o)

$(B)/obj/guest/agent/%.o: guest/agent/%.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_BIN)/cxlbed-agent: $(AGENT_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(GUEST_LIBS)

# Unit tests of agent parts that run on the host, test_X.c against X.o:
# the wire protocol (framing and JSON, no libcxl) and stuck.c (where a
# timed-out program was, read from the host's own /proc).
$(B)/tests/guest-agent-%: guest/agent/test_%.c $(B)/obj/guest/agent/%.o tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -Itests/unit -Iguest/agent -o $@ $< \
		$(B)/obj/guest/agent/$*.o $(shell pkg-config --libs json-c)
UNIT_TESTS += $(B)/tests/guest-agent-proto $(B)/tests/guest-agent-stuck

# The image carries every program in $(GUEST_BIN); other fragments add
# theirs with a prerequisite line: $(B)/guest/initramfs.cpio.gz: PROGRAM
# kernel.env: where the kernel came from (docs/kernels.md), read by runs
# that name it (`kernel = 6.12`) and written into their summary.json.
GUEST_IMAGE := $(B)/guest/initramfs.cpio.gz $(B)/guest/vmlinuz $(B)/guest/vmlinux \
	$(B)/guest/initramfs.manifest $(B)/guest/kernel.env
$(GUEST_IMAGE) &: guest/image/mkinitramfs.sh guest/image/init guest/image/inittab \
		guest/kernel/facts.sh $(KERNEL_DEB) $(BUSYBOX) $(GUEST_BIN)/cxlbed-agent
	sh guest/image/mkinitramfs.sh $(KERNEL_DEB) $(BUSYBOX) $(GUEST_BIN) $(B)/guest \
		$(B)/guest/kmod
	{ printf 'source=debian\nrelease=%s\nversion=%s\npackage=%s\n' \
		"$$(cat $(B)/guest/kernel.release)" "$$(dpkg-deb -f $(KERNEL_DEB) Version)" \
		"$$(dpkg-deb -f $(KERNEL_DEB) Package)" && \
	  sh guest/kernel/facts.sh debian $(foreach d,$(KHEADERS_DEBS),$(if $(findstring /linux-kbuild-,$(d)),$(d))); } \
		> $(B)/guest/kernel.env

ALL_TARGETS += $(GUEST_BIN)/cxlbed-agent $(GUEST_IMAGE)

include guest/clock/clock.mk

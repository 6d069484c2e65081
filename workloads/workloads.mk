# Guest workloads: small C programs run inside the guest by the agent.
# Each prints exactly one JSON object line. Built into $(B)/guest/bin/ so
# that the guest image carries them. Region-of-interest markers come from
# the timing plugin's header (include/cxlbed-roi.h).
WL_PROGS := chase stream loaded verify ldshift timecheck
WL_BINS := $(WL_PROGS:%=$(B)/guest/bin/cxlbed-%)
WL_CFLAGS := $(BASE_CFLAGS) $(CFLAGS) -pthread -Iinclude
# Helpers shared by the programs; the archive lets each take what it uses.
WL_LIB_SRCS := wl roi pass cycle evict thread
WL_LIB := $(B)/obj/workloads/libwl.a

$(B)/obj/workloads/%.o: workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_CFLAGS) -c $< -o $@

$(WL_LIB): $(WL_LIB_SRCS:%=$(B)/obj/workloads/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/guest/bin/cxlbed-%: $(B)/obj/workloads/%.o $(WL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $^

$(B)/guest/initramfs.cpio.gz: $(WL_BINS)
ALL_TARGETS += $(WL_BINS)
include workloads/pool/pool.mk
include workloads/kvshare/kvshare.mk

# cxlbed-protect: a workload on libcxlpool's protected blocks
# (docs/faults.md); it links libcxlpool, the protection layer
# (guest/protect) and libtracefs, which the image builder carries with it.
$(B)/guest/bin/cxlbed-protect: $(B)/obj/workloads/protect.o \
		$(B)/obj/workloads/protect_log.o $(CP_LIB) $(PROT_LIB) $(WL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $^ $(CP_LIBS) $(PROT_LIBS)

$(B)/obj/workloads/protect.o $(B)/obj/workloads/protect_log.o: \
	WL_CFLAGS += -Iguest/protect -I$(CP_DIR) $(shell pkg-config --cflags libtracefs)

$(B)/guest/initramfs.cpio.gz: $(B)/guest/bin/cxlbed-protect
ALL_TARGETS += $(B)/guest/bin/cxlbed-protect

# Guest workloads: small C programs run inside the guest by the agent.
# Each prints exactly one JSON object line. Built into $(B)/guest/bin/ so
# that the guest image carries them.
WL_PROGS := chase stream
WL_BINS := $(WL_PROGS:%=$(B)/guest/bin/cxlbed-%)
WL_CFLAGS := $(BASE_CFLAGS) $(CFLAGS)

$(B)/obj/workloads/%.o: workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_CFLAGS) -c $< -o $@

$(B)/guest/bin/cxlbed-%: $(B)/obj/workloads/%.o $(B)/obj/workloads/wl.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

$(B)/guest/initramfs.cpio.gz: $(WL_BINS)
ALL_TARGETS += $(WL_BINS)

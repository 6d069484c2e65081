# cxlbed-kvshare: a KV cache shared between two hosts through a CXL pool,
# against RDMA and recompute (docs/kv-share.md). In the guest image.
KV_SRCS := $(wildcard workloads/kvshare/*.c)
KV_OBJS := $(KV_SRCS:%.c=$(B)/obj/%.o)
KV_BIN := $(B)/guest/bin/cxlbed-kvshare
KV_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) -Iinclude -Iworkloads

$(B)/obj/workloads/kvshare/%.o: workloads/kvshare/%.c
	@mkdir -p $(@D)
	$(CC) $(KV_CFLAGS) -c $< -o $@

$(KV_BIN): $(KV_OBJS) $(WL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $(KV_OBJS) $(WL_LIB) -lm

$(B)/guest/initramfs.cpio.gz: $(KV_BIN)
ALL_TARGETS += $(KV_BIN)

# Host unit tests of its parts (TAP): workloads/kvshare/tests/NAME.c ->
# $(B)/tests/kvshare-NAME, linked with every object but main's
KV_PART_OBJS := $(filter-out $(B)/obj/workloads/kvshare/kv_main.o,$(KV_OBJS))
KV_TESTS := $(patsubst workloads/kvshare/tests/%.c,$(B)/tests/kvshare-%,\
	$(wildcard workloads/kvshare/tests/*.c))

$(B)/tests/kvshare-%: workloads/kvshare/tests/%.c $(KV_PART_OBJS) $(WL_LIB) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(KV_CFLAGS) -Itests/unit -Iworkloads/kvshare -o $@ $< $(KV_PART_OBJS) $(WL_LIB) -lm

UNIT_TESTS += $(KV_TESTS)

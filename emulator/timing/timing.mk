# Timing model: the TCG plugin build/timing/libcxlbed-timing.so, its model
# tests (TAP programs build/tests/timing-*) and its overhead benchmark.
# The model files are plain C + glib, testable without QEMU.
TIMING_DIR := emulator/timing
# The model (plain C + glib) vs the QEMU-facing files (timing_plugin.c,
# plugin_*.c), which only the plugin links.
TIMING_QEMU_SRCS := $(TIMING_DIR)/timing_plugin.c \
		    $(wildcard $(TIMING_DIR)/plugin_*.c)
TIMING_MODEL_SRCS := $(filter-out $(TIMING_QEMU_SRCS),\
			$(wildcard $(TIMING_DIR)/*.c))
TIMING_MODEL_OBJS := $(TIMING_MODEL_SRCS:%.c=$(B)/timing/obj/%.o)
TIMING_QEMU_OBJS := $(TIMING_QEMU_SRCS:%.c=$(B)/timing/obj/%.o)
TIMING_PLUGIN := $(B)/timing/libcxlbed-timing.so
TIMING_CFLAGS := -fPIC -fvisibility=hidden -Iinclude $(shell pkg-config --cflags glib-2.0)
TIMING_LIBS := $(shell pkg-config --libs glib-2.0) -lpthread -lm -lrt
TIMING_TEST_SRCS := $(wildcard $(TIMING_DIR)/tests/*.c)
TIMING_TESTS := $(TIMING_TEST_SRCS:$(TIMING_DIR)/tests/%.c=$(B)/tests/timing-%)

$(B)/timing/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(TIMING_CFLAGS) -c $< -o $@

$(TIMING_PLUGIN): $(TIMING_QEMU_OBJS) $(TIMING_MODEL_OBJS)
	$(CC) -shared -o $@ $^ $(TIMING_LIBS)

$(B)/tests/timing-%: $(TIMING_DIR)/tests/%.c $(TIMING_MODEL_OBJS) tests/unit/tap.h
	@mkdir -p $(@D) $(B)/obj/tests
	$(CC) $(BASE_CFLAGS) -MF $(B)/obj/tests/$(@F).d $(CFLAGS) $(TIMING_CFLAGS) -I$(TIMING_DIR) -Itests/unit \
		-o $@ $< $(TIMING_MODEL_OBJS) $(TIMING_LIBS)

# The guest side of the benchmark: a static memory-bound loop.
$(B)/timing/membench: $(TIMING_DIR)/bench/membench.c include/cxlbed-roi.h
	@mkdir -p $(@D)
	$(CC) -O2 -static -Iinclude -o $@ $<

# The model alone on the host: cost per access and per line, no QEMU.
$(B)/timing/modelbench: $(TIMING_DIR)/bench/modelbench.c $(TIMING_MODEL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(TIMING_CFLAGS) -I$(TIMING_DIR) -o $@ $< \
		$(TIMING_MODEL_OBJS) $(TIMING_LIBS)

timing: $(TIMING_PLUGIN) $(TIMING_TESTS)

ALL_TARGETS += $(TIMING_PLUGIN)
UNIT_TESTS += $(TIMING_TESTS)
BENCHES += "env QEMU=$(QEMU) KERNEL_DEB=$(KERNEL_DEB) BUSYBOX=$(BUSYBOX) \
	B=$(B) $(TIMING_DIR)/bench/overhead.sh" "$(B)/timing/modelbench 32 4" \
	"$(B)/timing/modelbench 32 4 read cxl"
CLEAN_FILES += $(B)/timing

bench: $(B)/timing/membench $(B)/timing/modelbench
.PHONY: timing

# The generator lives in the host library; its test reads the result back
# with the plugin's parser.
$(B)/tests/timing-config-gen: $(TIMING_DIR)/tests/host/config_gen.c \
		$(TIMING_MODEL_OBJS) $(B)/libcxlbed-host.a tests/unit/tap.h
	@mkdir -p $(@D) $(B)/obj/tests
	$(CC) $(BASE_CFLAGS) -MF $(B)/obj/tests/$(@F).d $(CFLAGS) $(GLIB_CFLAGS) $(HOST_INC) -I$(TIMING_DIR) -DSRCDIR='"$(CURDIR)"' \
		-Itests/unit -o $@ $< $(TIMING_MODEL_OBJS) $(B)/libcxlbed-host.a \
		$(GLIB_LIBS) -lpthread -lm -lrt
UNIT_TESTS += $(B)/tests/timing-config-gen

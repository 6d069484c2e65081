# The sanitizer stage: the host library, the timing model and every unit
# test built again with clang's AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer, any report fatal, then run with prove.
# `make check-asan` (part of `make check`); objects in build/asan/.
ASAN_DIR := $(B)/asan
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	      -fno-omit-frame-pointer -Wno-missing-field-initializers
ASAN_HOST_OBJS := $(HOST_LIB_SRCS:%.c=$(ASAN_DIR)/obj/%.o)
ASAN_MODEL_OBJS := $(TIMING_MODEL_SRCS:%.c=$(ASAN_DIR)/obj/%.o)
ASAN_UNIT := $(UNIT_SRCS:tests/unit/%.c=$(ASAN_DIR)/tests/%)
ASAN_MODEL_TESTS := $(TIMING_TEST_SRCS:$(TIMING_DIR)/tests/%.c=$(ASAN_DIR)/tests/timing-%)
ASAN_TESTS := $(ASAN_UNIT) $(ASAN_MODEL_TESTS) $(ASAN_DIR)/tests/timing-config-gen

$(ASAN_DIR)/obj/emulator/timing/%.o: emulator/timing/%.c
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) $(ASAN_FLAGS) $(TIMING_CFLAGS) -c $< -o $@

$(ASAN_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) $(ASAN_FLAGS) $(GLIB_CFLAGS) $(HOST_INC) -c $< -o $@

$(ASAN_DIR)/libcxlbed-host.a: $(ASAN_HOST_OBJS)
	@rm -f $@ && ar rcs $@ $^

$(ASAN_DIR)/tests/%: tests/unit/%.c tests/unit/tap.h $(ASAN_DIR)/libcxlbed-host.a
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) -MF $(ASAN_DIR)/obj/$*.d $(ASAN_FLAGS) $(GLIB_CFLAGS) \
		$(HOST_INC) -Itests/unit -DSRCDIR='"$(CURDIR)"' -o $@ $< \
		$(ASAN_DIR)/libcxlbed-host.a $(GLIB_LIBS) -lm

$(ASAN_DIR)/tests/timing-%: $(TIMING_DIR)/tests/%.c $(ASAN_MODEL_OBJS) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) -MF $(ASAN_DIR)/obj/timing-$*.d $(ASAN_FLAGS) \
		$(TIMING_CFLAGS) -I$(TIMING_DIR) -Itests/unit -o $@ $< \
		$(ASAN_MODEL_OBJS) $(TIMING_LIBS)

$(ASAN_DIR)/tests/timing-config-gen: $(TIMING_DIR)/tests/host/config_gen.c \
		$(ASAN_MODEL_OBJS) $(ASAN_DIR)/libcxlbed-host.a tests/unit/tap.h
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) -MF $(ASAN_DIR)/obj/timing-config-gen.d $(ASAN_FLAGS) \
		$(GLIB_CFLAGS) $(HOST_INC) -I$(TIMING_DIR) -Itests/unit -DSRCDIR='"$(CURDIR)"' \
		-o $@ $< $(ASAN_MODEL_OBJS) $(ASAN_DIR)/libcxlbed-host.a $(GLIB_LIBS) \
		-lpthread -lm -lrt

# The protection layer's store and codes (guest/protect: plain C and
# pthreads; its tests race threads and catch SIGBUS). monitor.c (tracefs)
# is not among what the tests link.
ASAN_PROT_OBJS := $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(filter-out %/monitor.c,$(PROT_SRCS)))
ASAN_PROT_TESTS := $(PROT_TEST_SRCS:$(PROT_DIR)/tests/%.c=$(ASAN_DIR)/tests/protect-%)

$(ASAN_DIR)/obj/$(PROT_DIR)/%.o: $(PROT_DIR)/%.c
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) $(ASAN_FLAGS) -pthread -c $< -o $@

$(ASAN_DIR)/tests/protect-%: $(PROT_DIR)/tests/%.c $(ASAN_PROT_OBJS) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) -MF $(ASAN_DIR)/obj/protect-$*.d $(ASAN_FLAGS) -pthread \
		-I$(PROT_DIR) -Itests/unit -o $@ $< $(ASAN_PROT_OBJS)

ASAN_TESTS += $(ASAN_PROT_TESTS)

# The agent's look at a timed-out program (stuck.c: /proc read into fixed
# buffers), on the host's own /proc.
$(ASAN_DIR)/tests/guest-agent-stuck: guest/agent/test_stuck.c guest/agent/stuck.c \
		guest/agent/agent.h tests/unit/tap.h
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) $(ASAN_FLAGS) $(shell pkg-config --cflags json-c) \
		-Iinclude -Itests/unit -Iguest/agent -o $@ \
		guest/agent/test_stuck.c guest/agent/stuck.c

ASAN_TESTS += $(ASAN_DIR)/tests/guest-agent-stuck

# glib's own caches (types, quarks) are reachable, not leaks; LSan agrees.
check-asan: $(ASAN_TESTS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		prove $(sort $(ASAN_TESTS))

CLEAN_FILES += $(ASAN_DIR)
.PHONY: check-asan

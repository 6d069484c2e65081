# libcxlpool: the in-guest pooling runtime (plain C on libc, libnuma and
# libcxl) on top of the shared tiering core, and cxlpoold.
#   $(B)/guest/lib/libcxlpool.a   the library (core objects included)
#   $(B)/guest/bin/cxlpoold       the daemon (in the guest image)
#   $(B)/tests/pool-*             host unit tests (TAP)
CP_DIR := guest/runtime/pool
CP_SRCS := $(filter-out $(CP_DIR)/cxlpoold%.c,$(wildcard $(CP_DIR)/*.c))
CP_OBJS := $(CP_SRCS:%.c=$(B)/obj/%.o)
CP_LIB := $(B)/guest/lib/libcxlpool.a
CP_CFLAGS = $(RT_CFLAGS) -I$(RT_DIR) -I$(CP_DIR) $(shell pkg-config --cflags libcxl numa)
# protected.c (cxlpool_prot.h) sits on the protection layer: programs that
# call it link $(PROT_LIB) and $(PROT_LIBS) after the library
$(B)/obj/$(CP_DIR)/protected.o: CP_CFLAGS += -I$(PROT_DIR) $(shell pkg-config --cflags libtracefs)
CP_LIBS := $(shell pkg-config --libs libcxl numa) -lpthread -lm

$(B)/obj/$(CP_DIR)/%.o: $(CP_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(CP_CFLAGS) -c $< -o $@

$(CP_LIB): $(CP_OBJS) $(RT_CORE_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

CP_TEST_SRCS := $(wildcard $(CP_DIR)/tests/*.c)
CP_TESTS := $(CP_TEST_SRCS:$(CP_DIR)/tests/%.c=$(B)/tests/pool-%)

$(B)/tests/pool-%: $(CP_DIR)/tests/%.c $(CP_LIB) tests/unit/tap.h
	@mkdir -p $(@D) $(B)/obj/$(CP_DIR)/tests
	$(CC) $(CP_CFLAGS) -MF $(B)/obj/$(CP_DIR)/tests/$*.d -Itests/unit \
		-o $@ $< $(CP_LIB) $(CP_LIBS)

ALL_TARGETS += $(CP_LIB)
UNIT_TESTS += $(CP_TESTS)
CLEAN_FILES += $(B)/guest/lib

CP_DAEMON := $(B)/guest/bin/cxlpoold
$(CP_DAEMON): $(B)/obj/$(CP_DIR)/cxlpoold.o $(CP_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $< $(CP_LIB) $(CP_LIBS)

$(B)/guest/initramfs.cpio.gz: $(CP_DAEMON)
ALL_TARGETS += $(CP_DAEMON)

# cxlpoold-check: a give-back end to end in the guest (tests/integration/pool-policies.t)
CP_CHECK := $(B)/guest/bin/cxlpoold-check
$(CP_CHECK): $(B)/obj/$(CP_DIR)/cxlpoold-check.o $(CP_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(CP_LIB) $(CP_LIBS)

$(B)/guest/initramfs.cpio.gz: $(CP_CHECK)
ALL_TARGETS += $(CP_CHECK)

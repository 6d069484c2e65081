# The protection layer (guest/protect): Reed-Solomon and replication of
# pool data across failure domains, checked reads, repair, and the
# detection of failures in the guest (docs/faults.md). Plain C11 + libc;
# monitor.c alone needs libtracefs (Debian libtracefs-dev), and only the
# programs that watch the kernel's events link it.
PROT_DIR := guest/protect
PROT_SRCS := $(wildcard $(PROT_DIR)/*.c)
PROT_OBJS := $(PROT_SRCS:%.c=$(B)/obj/%.o)
PROT_LIB := $(B)/libcxlprotect.a
PROT_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) -pthread $(shell pkg-config --cflags libtracefs)
PROT_LIBS := $(shell pkg-config --libs libtracefs) -pthread

$(B)/obj/$(PROT_DIR)/%.o: $(PROT_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(PROT_CFLAGS) -c $< -o $@

$(PROT_LIB): $(PROT_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

PROT_TEST_SRCS := $(wildcard $(PROT_DIR)/tests/*.c)
PROT_TESTS := $(PROT_TEST_SRCS:$(PROT_DIR)/tests/%.c=$(B)/tests/protect-%)

$(B)/tests/protect-%: $(PROT_DIR)/tests/%.c $(PROT_LIB) tests/unit/tap.h
	@mkdir -p $(@D) $(B)/obj/$(PROT_DIR)/tests
	$(CC) $(PROT_CFLAGS) -MF $(B)/obj/$(PROT_DIR)/tests/$*.d -I$(PROT_DIR) \
		-Itests/unit -o $@ $< $(PROT_LIB) $(PROT_LIBS)

ALL_TARGETS += $(PROT_LIB)
UNIT_TESTS += $(PROT_TESTS)

# make bench: protection's steady-state cost against unprotected (booted guest)
BENCHES += tests/bench/protect-overhead.sh

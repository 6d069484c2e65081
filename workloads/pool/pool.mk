# cxlbed-pool: the pooling workloads under each tiering policy, linked
# with libcxlpool (guest/runtime/pool/). In the guest image.
PW_SRCS := $(wildcard workloads/pool/*.c)
PW_OBJS := $(PW_SRCS:%.c=$(B)/obj/%.o)
PW_BIN := $(B)/guest/bin/cxlbed-pool
PW_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) -pthread -Iinclude -I$(CP_DIR) -I$(RT_DIR)

$(B)/obj/workloads/pool/%.o: workloads/pool/%.c
	@mkdir -p $(@D)
	$(CC) $(PW_CFLAGS) -c $< -o $@

$(PW_BIN): $(PW_OBJS) $(CP_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $(PW_OBJS) $(CP_LIB) $(CP_LIBS)

$(B)/guest/initramfs.cpio.gz: $(PW_BIN)
ALL_TARGETS += $(PW_BIN)

# Host unit tests of the workloads' own parts (TAP), linked with every
# object but main's: workloads/pool/tests/NAME.c -> $(B)/tests/pool-workload-NAME
PW_PART_OBJS := $(filter-out $(B)/obj/workloads/pool/pool_main.o,$(PW_OBJS))
PW_TESTS := $(patsubst workloads/pool/tests/%.c,$(B)/tests/pool-workload-%,\
	$(wildcard workloads/pool/tests/*.c))

$(B)/tests/pool-workload-%: workloads/pool/tests/%.c $(PW_PART_OBJS) $(CP_LIB) tests/unit/tap.h
	@mkdir -p $(@D) $(B)/obj/workloads/pool/tests
	$(CC) $(PW_CFLAGS) -MF $(B)/obj/workloads/pool/tests/$*.d -Itests/unit -Iworkloads/pool \
		-o $@ $< $(PW_PART_OBJS) $(CP_LIB) $(CP_LIBS)

UNIT_TESTS += $(PW_TESTS)

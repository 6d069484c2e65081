# Tiering runtime: a backend-neutral core in plain C11 (libc + pthreads,
# no glib) shared by the in-guest pooling runtime and the CUDA backend.
#   $(B)/librt-core.a          the core + host backend
#   $(B)/tests/runtime-*       CPU unit tests (TAP) driving the real scheduler
#   $(B)/bench/runtime-victims eviction bookkeeping per access, host time
#   $(B)/gpu/cxlbed-gpu        GPU-mode binary (only when configure found nvcc)
RT_DIR := guest/runtime
RT_CORE_SRCS := $(wildcard $(RT_DIR)/*.c)
RT_CORE_OBJS := $(RT_CORE_SRCS:%.c=$(B)/obj/%.o)
RT_LIB := $(B)/librt-core.a
RT_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) -pthread

$(B)/obj/$(RT_DIR)/%.o: $(RT_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(RT_LIB): $(RT_CORE_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

RT_TEST_SRCS := $(wildcard $(RT_DIR)/tests/*.c)
RT_TESTS := $(RT_TEST_SRCS:$(RT_DIR)/tests/%.c=$(B)/tests/runtime-%)

# Dependency files go under obj/, not next to the TAP programs prove runs.
$(B)/tests/runtime-%: $(RT_DIR)/tests/%.c $(RT_LIB) tests/unit/tap.h
	@mkdir -p $(@D) $(B)/obj/$(RT_DIR)/tests
	$(CC) $(RT_CFLAGS) -MF $(B)/obj/$(RT_DIR)/tests/$*.d -I$(RT_DIR) \
		-Itests/unit -o $@ $< $(RT_LIB) -lm

# Host-time benchmark of the runtime's bookkeeping (`make bench`).
RT_BENCH := $(B)/bench/runtime-victims
$(RT_BENCH): $(RT_DIR)/bench/victims.c $(RT_LIB)
	@mkdir -p $(@D) $(B)/obj/$(RT_DIR)/bench
	$(CC) $(RT_CFLAGS) -MF $(B)/obj/$(RT_DIR)/bench/victims.d -I$(RT_DIR) \
		-o $@ $< $(RT_LIB) -lm

ALL_TARGETS += $(RT_LIB) $(RT_BENCH)
BENCHES += $(RT_BENCH)
UNIT_TESTS += $(RT_TESTS)
CLEAN_FILES += $(RT_LIB) $(RT_BENCH) $(B)/gpu

# CUDA part: every .cu plus the core, compiled by nvcc; cudart is linked
# statically so the binary needs only libc on the GPU machine.
RT_CU_SRCS := $(wildcard $(RT_DIR)/cuda/*.cu)
RT_GPU_BIN := $(B)/gpu/cxlbed-gpu
NVCC_ARCH ?= -gencode arch=compute_80,code=sm_80 \
	     -gencode arch=compute_90,code=sm_90 \
	     -gencode arch=compute_90,code=compute_90
NVCC_FLAGS ?= -O2 -std=c++17 $(NVCC_ARCH) -cudart static \
	      -Xcompiler -static-libstdc++,-static-libgcc

ifneq ($(NVCC),)
$(RT_GPU_BIN): $(RT_CU_SRCS) $(wildcard $(RT_DIR)/cuda/*.h $(RT_DIR)/*.h) $(RT_LIB)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -I$(RT_DIR) -I$(RT_DIR)/cuda -o $@ \
		$(RT_CU_SRCS) $(RT_LIB) -lpthread -lm
ALL_TARGETS += $(RT_GPU_BIN)
else
rt-gpu-skip:
	@echo "gpu: nvcc not found by ./configure; GPU mode (build/gpu/cxlbed-gpu) not built"
ALL_TARGETS += rt-gpu-skip
.PHONY: rt-gpu-skip
endif
include $(RT_DIR)/pool/pool.mk

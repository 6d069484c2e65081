# Fuzz targets (libFuzzer, clang's -fsanitize=fuzzer with ASan and UBSan):
# the topology, scenario and sweep parsers, the summary.json/table.json
# readers with what compare and report do with a result (fuzz-results),
# and the fabric manager's command handler, one RUN/fm.sock line per input
# (fuzz-fm). `make fuzz` builds them; `make check-fuzz` runs each for
# FUZZ_SECONDS from a seed corpus of shipped and bad-input files (part of
# `make check`). A finding stops the run and leaves its input in
# build/fuzz/crash-* (or leak-, timeout-): turn it into a test file and fix it.
FUZZ_SECONDS ?= 30
FUZZ_DIR := $(B)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -Wno-missing-field-initializers \
	    -fno-omit-frame-pointer
FUZZ_LIB_OBJS := $(HOST_LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_TARGETS := $(FUZZ_DIR)/fuzz-topology $(FUZZ_DIR)/fuzz-scenario $(FUZZ_DIR)/fuzz-sweep \
	$(FUZZ_DIR)/fuzz-results $(FUZZ_DIR)/fuzz-fm

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
		$(GLIB_CFLAGS) $(HOST_INC) -c $< -o $@

$(FUZZ_DIR)/libcxlbed-host.a: $(FUZZ_LIB_OBJS)
	@rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz-%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_oracle.h $(FUZZ_DIR)/libcxlbed-host.a
	$(CLANG) $(BASE_CFLAGS) -MF $(FUZZ_DIR)/obj/fuzz-$*.d -O1 -g $(FUZZ_SAN) \
		-fsanitize=fuzzer $(GLIB_CFLAGS) $(HOST_INC) -Itests/fuzz -DSRCDIR='"$(CURDIR)"' \
		-o $@ $< $(FUZZ_DIR)/libcxlbed-host.a $(GLIB_LIBS) -lm

fuzz: $(FUZZ_TARGETS)

# $(call fuzz_run,KIND,SEED DIRS[,FLAGS]): corpus-KIND/ keeps what earlier
# runs found; the seeds are only read. On a finding: the log's tail, and fail.
define fuzz_run
	@mkdir -p $(FUZZ_DIR)/corpus-$(1)
	@echo "fuzz-$(1): $(FUZZ_SECONDS) s from $(2)"
	@$(FUZZ_DIR)/fuzz-$(1) -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-dict=tests/fuzz/$(1).dict -artifact_prefix=$(FUZZ_DIR)/ $(3) \
		-print_final_stats=1 $(FUZZ_DIR)/corpus-$(1) $(2) \
		2>$(FUZZ_DIR)/fuzz-$(1).log || \
		{ tail -n 40 $(FUZZ_DIR)/fuzz-$(1).log; exit 1; }
	@grep -E '^stat::number_of_executed_units' $(FUZZ_DIR)/fuzz-$(1).log
endef

# Each fuzzer is a target of its own, so that `make -jN check` runs N of
# them at once: the same seconds each, in less wall time.
FUZZ_KINDS := topology scenario sweep results fm
fuzz_seeds_topology := topologies tests/data
fuzz_seeds_scenario := workloads/scenarios tests/data
fuzz_seeds_sweep := tests/fuzz/sweep-seeds tests/data
fuzz_seeds_results := results tests/data/report-runs tests/fuzz/results tests/fuzz/results-refused
fuzz_seeds_fm := tests/fuzz/fm-requests
# the fabric manager's progress lines (a bind per input) are not kept:
# stderr closed, libFuzzer reports on its own copy
fuzz_flags_fm := -close_fd_mask=2

check-fuzz: $(addprefix check-fuzz-,$(FUZZ_KINDS))
$(addprefix check-fuzz-,$(FUZZ_KINDS)): check-fuzz-%: $(FUZZ_DIR)/fuzz-%
	$(call fuzz_run,$*,$(fuzz_seeds_$*),$(fuzz_flags_$*))

CLEAN_FILES += $(FUZZ_DIR)
.PHONY: fuzz check-fuzz $(addprefix check-fuzz-,$(FUZZ_KINDS))

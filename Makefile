# cxlbed top-level Makefile. Each part of the tree adds itself through its
# own fragment (*.mk) so that parts can grow without touching this file.
#
#   make          the CLI (./cxlbed), guest image, timing plugin, runtime
#   make check    build, then run the TAP suite with prove, the sanitizer
#                 stage and a bounded fuzz run
#   make fuzz     build the fuzz targets (build/fuzz/fuzz-*)
#   make bench    benchmarks that print figures
ifeq ($(wildcard config.mk),)
$(error config.mk missing: run ./configure (and sudo ci/deps if it asks))
endif
include config.mk

B := build
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP
GLIB_CFLAGS := $(shell pkg-config --cflags glib-2.0 gio-unix-2.0 json-glib-1.0)
GLIB_LIBS := $(shell pkg-config --libs glib-2.0 gio-unix-2.0 json-glib-1.0)

# Fragments append to these.
ALL_TARGETS :=
UNIT_TESTS :=        # TAP executables built under build/tests/
BENCHES :=           # commands run by `make bench`
CLEAN_FILES :=

include qemu/qemu.mk
include emulator/emulator.mk
include $(wildcard emulator/timing/timing.mk)
include $(wildcard guest/guest.mk)
include $(wildcard guest/runtime/runtime.mk)
include $(wildcard guest/protect/protect.mk)
include $(wildcard workloads/workloads.mk)
include tests/tests.mk

.DEFAULT_GOAL := all
all: $(ALL_TARGETS)

# Unit TAP programs first (seconds), then the integration tests that boot
# guests, then the unit tests again under ASan+UBSan and a bounded fuzz run
# of the topology and scenario parsers (tests/asan.mk, tests/fuzz/fuzz.mk).
# PROVE_ARGS narrows the run to those tests alone:
#   make check PROVE_ARGS=tests/integration/plan.t
#
# The build and the tests run CHECK_JOBS at a time (default: one per host
# core). Each integration test boots its own guests in modeled time, so
# its figures do not depend on what runs beside it (the three-run tests
# load both host cores on purpose). One test at a time kept 1.24 of 2
# cores busy (prove --timer, CPU over wall, the first 15 files): the rest
# is waiting on guests, agents and QMP, which a second test fills. The
# longest go first (host seconds, one at a time on the 2-core CI
# machine: userprog.t 900, pool-shares.t 640, host-load.t 590, faults-kill.t
# 500, table-paths.t and the 4-vCPU queue-write.t 300-400, teardown.t
# about 360, most others 20-180), so that the two lanes end together:
# stop 29's CI ran out of time with userprog.t and table-paths.t, sorted
# last, alone in one lane.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SLOW_TESTS := userprog pool-shares host-load faults-kill table-paths queue-write \
	pool-gups pool-fm pool-policies faults-removal table topologies teardown \
	run-default numa-regions sweep run-isolation
SLOW_FIRST := $(addprefix tests/integration/,$(addsuffix .t,$(SLOW_TESTS)))
INTEGRATION_TESTS = $(SLOW_FIRST) \
	$(filter-out $(SLOW_FIRST),$(sort $(wildcard tests/integration/*.t)))
TAP_TESTS = $(INTEGRATION_TESTS) $(sort $(UNIT_TESTS))
# Integration tests also write each failed check, with the diagnostics
# after it, to $(B)/check-failures.log; on a failure it is printed last,
# then its not-ok lines alone, so that the tail of a CI log says what
# failed and why even when the diagnostics are long. --timer stamps each file's
# line with its host time, so that the log also says where the time went.
check:
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) all $(UNIT_TESTS)
	@rm -f $(B)/check-failures.log
	CXLBED_FAILURE_LOG=$(abspath $(B))/check-failures.log prove --timer -j$(CHECK_JOBS) \
		$(if $(V),-v) $(or $(PROVE_ARGS),$(TAP_TESTS)) || \
		{ echo "== failed checks ($(B)/check-failures.log)"; \
		  tail -c 12000 $(B)/check-failures.log 2>/dev/null; \
		  echo "== failed checks, one line each"; \
		  grep -a ': not ok ' $(B)/check-failures.log 2>/dev/null | cut -c1-600; exit 1; }
ifeq ($(PROVE_ARGS),)
	$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-asan check-fuzz
endif

bench: all
	@set -e; for b in $(BENCHES); do echo "== $$b"; $$b; done

# A randomised fault campaign on booted guests (docs/faults.md):
# make faults FAULT_RUNS=50 [FAULT_SEED=N]
faults: all
	tests/campaign/faults.sh

clean:
	rm -rf $(B)/obj $(B)/tests $(B)/guest $(CLEAN_FILES) cxlbed

.PHONY: all check bench clean faults
# (not the unpacked kernel headers and images: their *.d are not make's)
-include $(shell find $(B) \( -path $(B)/kheaders -o -path $(B)/guest/kernels \) -prune -o -type f -name '*.d' -print 2>/dev/null)

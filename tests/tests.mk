# Unit tests: each tests/unit/NAME.c is one TAP program, linked with the
# host library. Integration tests are scripts in tests/integration/*.t.
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_TESTS += $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)

$(B)/tests/%: tests/unit/%.c tests/unit/tap.h $(B)/libcxlbed-host.a
	@mkdir -p $(@D) $(B)/obj/tests
	$(CC) $(BASE_CFLAGS) -MF $(B)/obj/tests/$*.d $(CFLAGS) $(GLIB_CFLAGS) $(HOST_INC) -Itests/unit \
		-DSRCDIR='"$(CURDIR)"' -o $@ $< $(B)/libcxlbed-host.a $(GLIB_LIBS) -lm

# Sanitized builds: fuzz targets (tests/fuzz/) and the unit tests under
# ASan+UBSan (tests/asan.mk); both are part of a full `make check`.
CLANG ?= clang
include tests/fuzz/fuzz.mk
include tests/asan.mk

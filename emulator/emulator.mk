# Host side: the cxlbed CLI and the library its verbs and unit tests share.
# New .c files under these directories are picked up automatically.
HOST_DIRS := emulator/common emulator/topology emulator/qemu emulator/run \
	     emulator/report emulator/cli emulator/fm emulator/faults \
	     emulator/export emulator/sweep
HOST_SRCS := $(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.c))
HOST_LIB_SRCS := $(filter-out emulator/cli/main.c,$(HOST_SRCS))
HOST_LIB_OBJS := $(HOST_LIB_SRCS:%.c=$(B)/obj/%.o)
HOST_INC := $(foreach d,$(HOST_DIRS),-I$(d)) -Iemulator

$(B)/obj/emulator/%.o: emulator/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(GLIB_CFLAGS) $(HOST_INC) -c $< -o $@

$(B)/libcxlbed-host.a: $(HOST_LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@ && ar rcs $@ $^

cxlbed: $(B)/obj/emulator/cli/main.o $(B)/libcxlbed-host.a
	$(CC) $(CFLAGS) -o $@ $^ $(GLIB_LIBS) -lm

ALL_TARGETS += cxlbed
BENCHES += tests/bench/boot-ready.sh tests/bench/run-timing.sh tests/bench/fm-bind.sh \
	tests/bench/plan-scale.sh tests/bench/guest-clock.sh \
	tests/bench/tiering.sh

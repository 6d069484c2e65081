# Host side: the cxlbed CLI and the library its verbs and unit tests share.
# New .c files under these directories are picked up automatically.
HOST_DIRS := emulator/common emulator/schedule emulator/topology emulator/qemu emulator/run \
	     emulator/results emulator/cli emulator/fm emulator/faults \
	     emulator/export emulator/sweep
HOST_SRCS := $(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.c))
HOST_LIB_SRCS := $(filter-out emulator/cli/main.c,$(HOST_SRCS))
HOST_LIB_OBJS := $(HOST_LIB_SRCS:%.c=$(B)/obj/%.o)
# One include folder: every include names its room ("topology/path.h"),
# so that who uses whom shows in the code (docs/architecture.md).
HOST_INC := -Iemulator -I$(B)/gen

# cxlbed's version and the commit it is built from (`cxlbed --version`,
# summary.json): the VERSION file's version; `git describe --always
# --dirty` when this folder is a git checkout's top, else VERSION's commit
# line, which `git archive` fills in (.gitattributes), else "unknown".
# Remade on every make, rewritten only when it changed, so that only
# version.o follows a new commit or an edit.
VERSION_H := $(B)/gen/cxlbed_version.h
$(VERSION_H): version-force
	@mkdir -p $(@D)
	@v=$$(sed -n 's/^version //p' VERSION); \
	g="git -c safe.directory=$(CURDIR) -C $(CURDIR)"; \
	if [ "$$($$g rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ]; then \
		c=$$($$g describe --always --dirty 2>/dev/null); \
	else \
		c=$$(sed -n 's/^commit //p' VERSION); \
	fi; \
	case "$$c" in ''|*'$$Format'*) c=unknown;; esac; \
	printf '/* made by emulator/emulator.mk */\n#define CXLBED_VERSION "%s"\n#define CXLBED_COMMIT "%s"\n' \
		"$${v:-unknown}" "$$c" >$@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(foreach o,obj asan/obj fuzz/obj,$(B)/$(o)/emulator/common/version.o): $(VERSION_H)
.PHONY: version-force
CLEAN_FILES += $(B)/gen

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
	tests/bench/tiering.sh tests/bench/cxl-cost.sh tests/bench/sysbench.sh \
	tests/bench/vcpus.sh

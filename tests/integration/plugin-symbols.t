#!/bin/sh
# The timing plugin resolves its symbols only when QEMU loads it, so a
# function lost in an edit links fine and fails at the first --timing run.
# Every undefined symbol must come from QEMU's plugin API, glib (which QEMU
# loads) or a versioned system library.
. "$(dirname "$0")/lib.sh"
so=$top/build/timing/libcxlbed-timing.so
[ -f "$so" ] || skip_all "timing plugin not built (run make)"
command -v nm >/dev/null || skip_all "nm not installed (Debian: binutils)"
plan 2
unknown=$(nm -D --undefined-only "$so" | awk '{print $2}' |
	grep -v -e '^qemu_plugin_' -e '^g_' -e '@' -e '^_ITM_' -e '^__gmon_start__$' -e '^__cxa_finalize$')
check "no undefined symbol outside QEMU's API, glib and libc${unknown:+: $unknown}" [ -z "$unknown" ]
check "the plugin exports qemu_plugin_install and qemu_plugin_version" \
	sh -c "nm -D --defined-only '$so' | grep -q ' qemu_plugin_install\$' && nm -D --defined-only '$so' | grep -q ' qemu_plugin_version\$'"
finish

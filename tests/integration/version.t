#!/bin/sh
# Which cxlbed made a run: `cxlbed --version` names VERSION's version and
# the commit the build embedded (emulator/emulator.mk): `git describe
# --always --dirty` in a checkout; in a tree `git archive` exported (no
# .git), the commit git wrote into VERSION; in a plain copy, "unknown".
# No guest boots here.
. "$(dirname "$0")/lib.sh"
[ -x "$cxlbed" ] || skip_all "./cxlbed not built (run make)"
command -v git >/dev/null || skip_all "no git"
g() { git -c safe.directory="$top" -C "$top" "$@"; }
[ "$(g rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top" && pwd -P)" ] ||
	skip_all "$top is not a git checkout"
plan 5

version=$(sed -n 's/^version //p' "$top/VERSION")
# The Makefile makes the header on every make; `make cxlbed` brings it up
# to date with the tree as it is now, dirty or not.
make -s -C "$top" cxlbed >/dev/null 2>&1
check "cxlbed --version: VERSION's version and git describe --always --dirty" \
	[ "$("$cxlbed" --version)" = "cxlbed $version (commit $(g describe --always --dirty))" ]

# made in a folder of its own: FOLDER is a copy of the tree without .git
header_in() {
	cp "$top/config.mk" "$1/" &&
	make -s -C "$1" build/gen/cxlbed_version.h >"$1.log" 2>&1 &&
	sed -n 's/^#define CXLBED_COMMIT "\(.*\)"$/\1/p' "$1/build/gen/cxlbed_version.h"
}
mkdir -p "$outroot/export"
g archive HEAD | tar -x -C "$outroot/export"
check "git archive's tree has no .git" [ ! -e "$outroot/export/.git" ]
commit=$(header_in "$outroot/export")
check "built from a git archive export: the commit is HEAD's ($commit)" \
	[ "$commit" = "$(g rev-parse HEAD)" ]
[ "$failed" -eq 0 ] || tail -n 5 "$outroot/export.log" | diag
mkdir -p "$outroot/copy"
g ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$outroot/copy")
commit=$(header_in "$outroot/copy")
check "built from a plain copy without .git: the commit is unknown, the build goes on" \
	[ "$commit" = unknown ]
check "... and the version is still VERSION's" \
	grep -q "^#define CXLBED_VERSION \"$version\"\$" "$outroot/copy/build/gen/cxlbed_version.h"
finish

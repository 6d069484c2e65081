#!/bin/sh
# The docs stand on their own: none points outside the repository (a
# sibling folder's notes, a machine's path), where a reader of a clone
# finds nothing. No guest boots here.
. "$(dirname "$0")/lib.sh"
plan 1

outside=$(cd "$top" && grep -nE '\.\./shared|(^|[^a-z])/work/|shared/notes' README.md docs/*.md)
check "README.md and docs/ name no path outside the repository" [ -z "$outside" ]
[ -z "$outside" ] || echo "$outside" | diag
finish

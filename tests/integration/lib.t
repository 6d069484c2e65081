#!/bin/sh
# The integration tests' own checks (lib.sh), without a guest: a bound
# held against a figure that was not found must fail (contention.t's
# `a >= 0.9 * b` passed with b empty when link_rate found no pool).
. "$(dirname "$0")/lib.sh"
plan 6

fails() { ! "$@"; }
check "within: a bound between two figures holds" within 'a >= 0.9 * b' 9.5 10
check "within: and fails when it does not" fails within 'a >= 0.9 * b' 8 10
check "within: fails when a figure is empty" fails within 'a >= 0.9 * b' 9.5 ""
check "within: fails when a figure is no number (jq's null)" fails within 'a >= 0.9 * b' 9.5 null
check "within: takes exponents and signs" within 'a > 0 && b < 0' 1.5e3 -2
check "within: an unused figure may be left out" within 'a > b' 2 1
finish

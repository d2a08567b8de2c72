#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tiers.sh -- the integration tests' two tiers, as the Makefile's
# INTEG_FULL draws them: make check runs every test that no entry
# matches, make check-full runs them all. Fails when an entry matches no
# test of the binary (a suite renamed or gone, a typo), so the list never
# names what is not there. Prints how many tests each tier has (from
# --list: a parameterized test counts once); with -v, each test's tier.
# The entries are Criterion's --filter globs over SUITE/TEST, extglob
# included; bash's extglob matches them the same way.
#
# usage: bash tests/integ/tiers.sh [-v] path/to/integ_tests 'ENTRY ...'
set -eu
shopt -s extglob
set -f			# the entries are patterns: no pathname expansion
verbose=0
if [ "$1" = -v ]; then
	verbose=1
	shift
fi
bin=$1 list=$2

tests=$("$bin" --list | awk '/^[a-z_0-9]+: [0-9]+ tests?$/ { s = substr($1, 1, length($1) - 1); next }
	/── / { print s "/" $NF }')
[ -n "$tests" ] || { echo "tiers.sh: $bin --list lists no test" >&2; exit 1; }

declare -A used
quick=0 full=0
for t in $tests; do
	tier=check
	for e in $list; do
		if [[ $t == $e ]]; then
			tier=check-full
			used[$e]=1
		fi
	done
	if [ $tier = check ]; then quick=$((quick + 1)); else full=$((full + 1)); fi
	[ $verbose = 0 ] || printf '%-10s %s\n' "$tier" "$t"
done

fail=0
for e in $list; do
	[ -n "${used[$e]:-}" ] && continue
	echo "tiers.sh: $e, in the Makefile's INTEG_FULL, matches no test" >&2
	fail=1
done
echo "tiers: $quick tests in make check, $full more in make check-full ($((quick + full)) in all)"
exit $fail

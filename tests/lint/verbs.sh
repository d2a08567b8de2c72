#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# verbs.sh -- every verb has its row: each value of enum lr_verb
# (src/cli/verbs.h) has a row "[VERB_X] = { "x", verb_x, ..." in
# src/cli/verbs.c, and its function is defined in a file of src/cli/.
# (The table's length is a _Static_assert in verbs.c.) Exits 1 if not.
cd "$(dirname "$0")/../../src/cli" || exit 2
enum=$(sed -n '/^enum lr_verb {/,/}/p' verbs.h | tr -c 'A-Z_\n' ' ' | tr ' ' '\n' |
	grep '^VERB_')
[ -n "$enum" ] || { echo "verbs: no enum lr_verb in src/cli/verbs.h" >&2; exit 2; }
fail=0
for v in $enum; do
	fn=$(sed -n "s/^[[:space:]]*\\[$v\\] = { \"[a-z-]*\", \\([a-z_]*\\),.*/\\1/p" verbs.c)
	if [ -z "$fn" ]; then
		echo "verbs: $v has no row in src/cli/verbs.c"; fail=1; continue
	fi
	grep -q "^$fn(struct lr_ctx \*x, struct lr_err \*e)" *.c ||
		{ echo "verbs: $v: $fn is not defined in src/cli/"; fail=1; }
done
exit $fail

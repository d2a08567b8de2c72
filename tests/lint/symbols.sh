#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# symbols.sh BUILD_DIR -- no cycle between modules as the linker sees them:
# module A depends on B when A's object uses a function or variable B's
# defines. Catches what #include lines cannot (a prototype declared in a
# third header). Prints the loops found; exits 1 if any.
#
# And no file-local symbol exported: a function or variable an object
# defines must be used by another object (of src/, or a unit test's),
# else it is static. main() is the one exception.
cd "${1:?usage: symbols.sh BUILD_DIR}" || exit 2
objs=$(find core config out proc backend sched web cli -name '*.o' 2>/dev/null | sort)
[ -n "$objs" ] || { echo "symbols: no objects under $1" >&2; exit 2; }
tests=$(find tests/unit -name '*.o' 2>/dev/null | sort)
[ -n "$tests" ] || { echo "symbols: no unit test objects under $1" >&2; exit 2; }
status=0
local=$(for o in $objs $tests; do
	m=${o%.o}
	nm "$o" | awk -v m="$m" '$2 ~ /^[TDBR]$/ && m !~ /^tests\// { print "def", m, $3 }
		$1 == "U" { print "use", m, $2 }'
done | awk '$1 == "def" { owner[$3] = $2; next }
	{ if ($2 != owner[$3]) used[$3] = 1 }
	END { for (s in owner) if (!(s in used) && s != "main") print owner[s] ": " s }' |
	sort)
if [ -n "$local" ]; then
	echo "symbols: exported but used only in its own file (make it static):"
	echo "$local" | sed 's/^/  /'
	status=1
fi
for o in $objs; do
	m=${o%.o}
	nm "$o" | awk -v m="$m" '$1 ~ /^[TDBR]$/ || $2 ~ /^[TDBR]$/ { print "def", m, $NF }
		$1 == "U" { print "use", m, $2 }'
done | awk '$1 == "def" { owner[$3] = $2; next }
	{ uses[NR] = $2 " " $3 }
	END { for (i in uses) { split(uses[i], u, " ");
		if ((u[2] in owner) && owner[u[2]] != u[1]) print u[1], owner[u[2]] } }' |
	sort -u > /tmp/symbols.$$
loops=$(tsort /tmp/symbols.$$ 2>&1 >/dev/null)
rm -f /tmp/symbols.$$
[ -z "$loops" ] && exit $status
echo "symbols: module cycle: $(echo "$loops" | sed 's/^tsort: //' | tr '\n' ' ')"
exit 1

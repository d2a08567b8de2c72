#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# tree.sh -- the rules of src/'s layout, checked from its #include lines
# (src/README.md explains them). Prints one line per breach; exits 1 if any.
#
#   1. no include cycle between modules (a module is a .c and its .h)
#   2. the folders are layered: core < out < backend < config < proc < sched
#      < web < cli;
#      a folder includes only its own headers and those of lower folders
#   3. a backend (backend/redis, backend/pg, backend/mysql) includes no other
#      backend's header, and no folder includes a backend's private header:
#      only backend/backend.c includes a backend's public header NAME/NAME.h
#   4. a library's headers only where it is used: hiredis in backend/redis,
#      libpq in backend/pg, libmariadb in backend/mysql, libyaml in config,
#      OpenSSL in backend/redis/tls.c, libmicrohttpd in web/mhd.c
#   5. core/ calls nothing that changes the process (environment, time zone,
#      signals, prctl)
#   6. no source file over 800 lines; over 500, a warning (split a file
#      when a concept wants a file of its own, not to get under a number)
cd "$(dirname "$0")/../../src" || exit 2
fail=0
breach() { echo "tree: $*"; fail=1; }

files=$(find . -name '*.[ch]' | sed 's|^\./||' | sort)

# Every project include, as "FILE HEADER" (HEADER relative to src/).
edges=$(for f in $files; do
	sed -n 's|^#include "\([^"]*\)".*|\1|p' "$f" | while read -r h; do
		[ -f "$h" ] && echo "$f $h"
	done
done)

# 1. Module cycles: tsort finds them.
loops=$(echo "$edges" | awk '{ a = $1; b = $2; sub(/\.[ch]$/, "", a);
	sub(/\.[ch]$/, "", b); if (a != b) print a, b }' | tsort 2>&1 >/dev/null)
[ -n "$loops" ] && breach "include cycle: $(echo "$loops" | sed 's/^tsort: //' |
	tr '\n' ' ')"

layer() {
	case $1 in
	core/*) echo 0 ;; out/*) echo 1 ;; backend/*) echo 2 ;;
	config/*) echo 3 ;; proc/*) echo 4 ;; sched/*) echo 5 ;; web/*) echo 6 ;;
	cli/*) echo 7 ;;
	*) echo 9 ;;
	esac
}
backend_of() {
	case $1 in backend/*/*) echo "$1" | cut -d/ -f2 ;; esac
}

echo "$edges" | while read -r f h; do
	# 2. layers
	lf=$(layer "$f"); lh=$(layer "$h")
	[ "$lh" -gt "$lf" ] && echo "tree: $f includes $h, a higher layer"
	# 3. backends apart
	bf=$(backend_of "$f"); bh=$(backend_of "$h")
	if [ -n "$bh" ] && [ "$bf" != "$bh" ]; then
		if [ "$h" != "backend/$bh/$bh.h" ]; then
			echo "tree: $f includes $h, private to backend/$bh"
		elif [ "$f" != backend/backend.c ]; then
			echo "tree: $f includes $h: only backend/backend.c picks a backend"
		fi
	fi
done | sort -u > /tmp/tree.$$
[ -s /tmp/tree.$$ ] && { cat /tmp/tree.$$; fail=1; }
rm -f /tmp/tree.$$

# 4. libraries where they belong
lib_rule() {	# pattern folder
	for f in $(grep -l "^#include <$1" $files); do
		case $f in $2*) ;; *) breach "$f includes <$1...>, kept in $2" ;; esac
	done
}
lib_rule hiredis backend/redis/
lib_rule libpq-fe backend/pg/
lib_rule mysql.h backend/mysql/
lib_rule yaml.h config/
lib_rule openssl/ backend/redis/tls.c
lib_rule microhttpd.h web/mhd.c

# 5. core/ sets no process-global state
for f in $(grep -lE '\b(setenv|unsetenv|putenv|tzset|sigaction|signal|prctl|setlocale)\(' \
		core/*.c); do
	breach "$f changes the process ($(grep -oE '\b(setenv|unsetenv|putenv|tzset|sigaction|signal|prctl|setlocale)\(' "$f" |
		sort -u | tr '\n' ' '))"
done

# 6. file size
for f in $files; do
	n=$(wc -l < "$f")
	if [ "$n" -gt 800 ]; then
		breach "$f has $n lines (800 at most)"
	elif [ "$n" -gt 500 ]; then
		echo "tree: warning: $f has $n lines: does a part of it want a file of its own?"
	fi
done
exit $fail

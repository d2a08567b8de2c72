#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# src/README.md names every source file: each .c, and each .h that has no
# .c of its own, by its file name, so a newcomer finds every file there.
cd "$(dirname "$0")/../../src" || exit 1
fail=0
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
	case $f in
	*.h) [ -f "${f%.h}.c" ] && continue ;;
	esac
	name=$(basename "$f")
	grep -q "\`$name\`" README.md && continue
	echo "readme: src/README.md does not name $f"
	fail=1
done
exit $fail

#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check.sh -- contrib/monitoring against lockrun: every lockrun_* metric
# the dashboard and the alert rules read is one lockrun writes (its name in
# src/web/), and, where promtool is installed, the rules load and pass
# their unit tests (lockrun-alerts.test.yaml).
#
# usage: tests/monitoring/check.sh   (from the top of the tree)
set -u
dir=contrib/monitoring
fails=0

for f in "$dir/lockrun-dashboard.json" "$dir/lockrun-alerts.yaml"; do
	for m in $(grep -o 'lockrun_[a-z_]*[a-z]' "$f" | sed 's/_bucket$//' | sort -u); do
		# in a C string: after a quote or a \n, before a quote, a
		# brace, a space or an underscore suffix of a histogram
		grep -qE "(\"|\\\\n)$m([\"{ ]|_bucket)" src/web/*.c ||
			{ echo "FAIL $f reads $m, which lockrun does not write" >&2; fails=$((fails + 1)); }
	done
done
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$dir/lockrun-dashboard.json" >/dev/null ||
		{ echo "FAIL $dir/lockrun-dashboard.json is not JSON" >&2; fails=$((fails + 1)); }
fi
if command -v promtool >/dev/null 2>&1; then
	promtool check rules "$dir/lockrun-alerts.yaml" >/dev/null &&
		(cd "$dir" && promtool test rules lockrun-alerts.test.yaml) ||
		{ echo "FAIL promtool" >&2; fails=$((fails + 1)); }
else
	echo "check.sh: no promtool (Debian: apt-get install prometheus): rules not tested"
fi
[ "$fails" -eq 0 ] && echo "monitoring: ok"
exit $((fails > 0))

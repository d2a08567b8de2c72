#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# surface.sh -- keeps what users read in step with the program: every
# option --help lists is in lockrun(1), the completions and (where it has
# a config key) lockrun.yaml(5); every exit status the code returns is in
# lockrun(1)'s EXIT STATUS; the README's Install says what the unit's
# sandbox blocks and names the drop-in that opens it, which is shipped all
# comments; the README's install from source works as written, and its
# walkthrough runs with what that installed and prints what the README
# shows. Usage: sh tests/docs/surface.sh [path/to/lockrun]
set -u
BIN=$(realpath "${1:-./lockrun}")
MAN1=man/lockrun.1 MAN5=man/lockrun.yaml.5
# The completion scripts; one that does not exist yet is skipped, said so.
COMPLETIONS=${SURFACE_COMPLETIONS:-"contrib/completion/lockrun.bash contrib/completion/_lockrun contrib/completion/lockrun.fish"}
# The config key of each option, from its row in src/cli/cli.c: a row
# that sets a task setting (TO_TASK) or a backend's own (TO_OWN) names
# it ("ttl", "renew" for --no-renew); any other option has no key.
ROWS=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", .*, TO_\(TASK\|OWN\), "\([a-z_]*\)",.*/\1 \3/p' \
	src/cli/cli.c)
[ -n "$ROWS" ] || { echo "surface: no option rows in src/cli/cli.c" >&2; exit 1; }
fail=0
bad() { echo "surface: $*" >&2; fail=1; }

# --- options ------------------------------------------------------------
# Every option a --help lists: the words that start with - or -- in it.
help_text() {
	"$BIN" --help
	for v in status history logs unlock tick cron pause resume trigger import-crontab; do
		"$BIN" "$v" --help
	done
}
OPTS=$(help_text | grep -oE '(^|[ ,[])--?[A-Za-z][A-Za-z-]*' | sed 's/^[ ,[]//' | sort -u)
[ -n "$OPTS" ] || bad "no option found in --help"

# lockrun(1): SYNOPSIS, and the .It lines that define options.
SYN=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$MAN1")
ITS=$(grep -E '^\.It ' "$MAN1")
in_man1() {	# $1: the option as --help writes it
	case $1 in
	--*) printf '%s\n%s\n' "$SYN" "$ITS" | grep -qE "Fl -${1#--}( |$|=|\\\\)" ;;
	-*) c=${1#-}
		printf '%s\n%s\n' "$SYN" "$ITS" | grep -qE "Fl [A-Za-z]*$c[A-Za-z]*( |$)" ;;
	esac
}
in_completion() {	# $1 option, $2 file
	case $1 in
	--*) n=${1#--}; grep -qE -- "(--$n([^A-Za-z-]|$))|(-l '?$n'?([^A-Za-z-]|$))|(--long(-option)? '?$n'?)" "$2" ;;
	-*) c=${1#-}; grep -qE -- "(-$c([^A-Za-z-]|$))|(-s '?$c'?([^A-Za-z]|$))|(--short(-option)? '?$c'?)" "$2" ;;
	esac
}
has_key() {	# $1 long option without dashes: no setting, or its key in (5)?
	k=$(printf '%s\n' "$ROWS" | awk -v o="$1" '$1 == o { print $2 }')
	[ -z "$k" ] && return 0
	grep -qE "Ic (redis\\.)?$k( |$)" "$MAN5"
}
for o in $OPTS; do
	in_man1 "$o" || bad "lockrun(1) does not list $o (SYNOPSIS or an .It line)"
	for f in $COMPLETIONS; do
		[ -f "$f" ] || continue
		in_completion "$o" "$f" || bad "$f does not offer $o"
	done
	case $o in --*) has_key "${o#--}" || bad "lockrun.yaml(5) has no key for $o" ;; esac
done
for f in $COMPLETIONS; do [ -f "$f" ] || echo "surface: $f does not exist yet: not checked"; done

# --- exit statuses ------------------------------------------------------
# What the code can return: the sysexits.h and LR_EXIT_* constants it uses,
# and the plain statuses verbs return (1: status --stale-after, unlock not
# confirmed), each in lockrun(1)'s EXIT STATUS.
EXIT=$(sed -n '/^\.Sh EXIT STATUS/,/^\.Sh /p' "$MAN1")
codes=1
for n in $(grep -rhoE '\bEX_[A-Z]+\b' src | sort -u); do
	v=$(sed -n "s/^#define[[:space:]]*$n[[:space:]]*\([0-9]*\).*/\1/p" /usr/include/sysexits.h)
	[ -n "$v" ] && codes="$codes $v" || bad "$n: not in sysexits.h"
done
for n in $(grep -rhoE '\bLR_EXIT_[A-Z]+\b' src | sort -u); do
	v=$(sed -n "s/^#define[[:space:]]*$n[[:space:]]*\([0-9]*\).*/\1/p" src/core/err.h)
	[ -n "$v" ] && codes="$codes $v" || bad "$n: not in src/core/err.h"
done
for v in $codes; do
	printf '%s\n' "$EXIT" | grep -qE "(^|[^0-9])$v([^0-9]|$)" ||
		bad "exit status $v is not in lockrun(1) EXIT STATUS"
done

# --- the README's Install: the unit's sandbox ---------------------------------
# Each protection of lockrun-cron.service that makes a crontab's job fail
# is in the unit and named in the Install section, with the drop-in that
# opens it: where the package ships it, where it goes, and its two most
# used lines. The drop-in, as shipped, is comments only: it opens nothing
# until the administrator says so.
UNIT=contrib/lockrun-cron.service DROPIN=lockrun-cron.service.d/sandbox.conf
INSTALL=$(awk '/^## Install$/ { f = 1; next } f && /^## / { exit } f' README.md)
for p in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes; do
	grep -qxF "$p" "$UNIT" || bad "$UNIT has no $p, which README Install names"
done
for w in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes EROFS \
    ReadWritePaths= ProtectHome=read-only /etc/systemd/system/$DROPIN \
    /usr/share/doc/lockrun/examples/$DROPIN; do
	printf '%s\n' "$INSTALL" | grep -qF -- "$w" || bad "README Install does not say $w"
done
if [ -f "contrib/$DROPIN" ]; then
	live=$(grep -vn -e '^#' -e '^[[:space:]]*$' "contrib/$DROPIN")
	[ -z "$live" ] || bad "contrib/$DROPIN has lines that are not comments: $live"
	for w in '#[Service]' '#ReadWritePaths=' '#ProtectHome=read-only'; do
		awk -v w="$w" 'index($0, w) == 1 { found = 1 } END { exit !found }' \
		    "contrib/$DROPIN" || bad "contrib/$DROPIN has no line that begins $w"
	done
else
	bad "contrib/$DROPIN does not exist"
fi

# --- the README's install from source ---------------------------------------
# A new user's first steps: the ```sh block after "From source:" runs line by
# line in this tree as the README writes it, but for what cannot run here as
# written: "sudo " is dropped, and "make install" installs under a throwaway
# DESTDIR. What it installs is checked, and the installed lockrun is the one
# the walkthrough below runs.
W=$(mktemp -d) || exit 1
trap 'kill "$(cat "$W/redis.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$W"' EXIT
awk '/^From source:/ { f = 1; next } f && /^```sh$/ { b = 1; next }
	b && /^```/ { exit } b { print }' README.md >"$W/install.sh"
[ -s "$W/install.sh" ] || bad "README.md has no \`\`\`sh block after \"From source:\""
while IFS= read -r line; do
	cmd=$(printf '%s\n' "$line" | sed -e 's/[[:space:]]*#.*//' -e 's/sudo //g' \
	    -e "s|make install|make install DESTDIR=$W/root|g")
	[ -n "$cmd" ] || continue
	if ! sh -c "$cmd" >"$W/install.log" 2>&1; then
		bad "README install from source: '$line' failed:"
		tail -n 20 "$W/install.log" >&2
	fi
done <"$W/install.sh"
PREFIX=$(sed -n 's/^PREFIX[[:space:]]*?=[[:space:]]*//p' Makefile)
for f in bin/lockrun share/man/man1/lockrun.1 share/man/man5/lockrun.yaml.5 \
    share/man/man7/lockrun.7 share/doc/lockrun/examples/$DROPIN; do
	[ -e "$W/root${PREFIX:-/usr/local}/$f" ] ||
		bad "README install from source: make install did not install $f under ${PREFIX:-/usr/local}"
done
[ -x "$W/root${PREFIX:-/usr/local}/bin/lockrun" ] && BIN="$W/root${PREFIX:-/usr/local}/bin/lockrun"

# --- the README's walkthrough ----------------------------------------------
# ```yaml FILE and ```crontab FILE blocks are written to FILE; each
# ```console block's "$ "
# lines run, in order, in one shell, against a throwaway redis-server, and
# what they print must be the block's other lines once times (relative
# ones too: "now", "in 4 h", "3 min ago"), pids, tokens, durations and the
# host name are made alike on both sides.
redis-server --port 0 --unixsocket "$W/redis.sock" --save '' --appendonly no \
	--pidfile "$W/redis.pid" --daemonize yes >/dev/null || { bad "redis-server"; exit 1; }
i=0
while ! [ -S "$W/redis.sock" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
HOST=$(uname -n)
alike() {
	sed -E -e "s/$HOST/web1/g" -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/TIME/g' \
	    -e 's/\b(now|in [0-9]+ (s|min|h|days)|[0-9]+ (s|min|h|days) ago)\b/WHEN/g' \
	    -e 's/[0-9]{16}/TOKEN/g' -e 's/web1([: ] *)[0-9]+/web1\1PID/g' \
	    -e 's/[0-9]+(\.[0-9]+)?m?s\b/DUR/g' -e 's/[[:space:]]+/ /g' -e 's/ $//'
}
awk -v dir="$W" '
	/^```(yaml|crontab) [^ ]+$/ { file = dir "/" $2; printf "" > file; mode = "yaml"; next }
	/^```console$/ { n++; mode = "console"; next }
	/^```/ { mode = ""; next }
	mode == "yaml" { print > file }
	mode == "console" && /^\$ / { print substr($0, 3) > (dir "/cmd" n); next }
	mode == "console" { print > (dir "/want" n) }
	END { print n + 0 > (dir "/blocks") }
' README.md
nblocks=$(cat "$W/blocks")
[ "$nblocks" -gt 0 ] || bad "README.md has no \`\`\`console block"
mkdir -p "$W/bin" && ln -s "$BIN" "$W/bin/lockrun"
b=1
while [ "$b" -le "$nblocks" ]; do
	touch "$W/want$b"
	(cd "$W" && env -u LOCKRUN_CONFIG -u LOCKRUN_REDIS_URL PATH="$W/bin:$PATH" \
	    LOCKRUN_URL="unix://$W/redis.sock" sh -c ". ./cmd$b" >"$W/got$b" 2>&1)
	if ! alike <"$W/want$b" >"$W/want$b.n" || ! alike <"$W/got$b" >"$W/got$b.n" ||
	    ! cmp -s "$W/want$b.n" "$W/got$b.n"; then
		bad "README console block $b prints otherwise:"
		diff "$W/want$b.n" "$W/got$b.n" >&2
	fi
	b=$((b + 1))
done
[ $fail -eq 0 ] && echo "surface: options, exit statuses, the install from source and" \
    "$nblocks README blocks in step"
exit $fail

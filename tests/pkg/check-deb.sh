#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Checks the Debian package make deb built: its files, its hardening, its
# Recommends/Suggests against the binary's .note.dlopen, its systemd unit
# (systemd-analyze verify, with the sandbox's drop-in turned on) and what
# its maintainer scripts ask of systemd, its configuration, and lintian.
#
# usage: tests/pkg/check-deb.sh DIR   (DIR holds lockrun_*.deb and *.changes)
set -u
dir=${1:?usage: check-deb.sh DIR}
fails=0

fail()
{
	fails=$((fails + 1))
	echo "FAIL $*" >&2
}

deb=$(ls "$dir"/lockrun_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "check-deb: no lockrun_*.deb in $dir" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' > "$tmp/files"

# Where Debian expects each file.
for f in /usr/bin/lockrun \
	/usr/share/man/man1/lockrun.1.gz /usr/share/man/man5/lockrun.yaml.5.gz \
	/usr/share/man/man7/lockrun.7.gz \
	/usr/share/bash-completion/completions/lockrun \
	/usr/share/zsh/vendor-completions/_lockrun \
	/usr/share/fish/vendor_completions.d/lockrun.fish \
	/usr/share/doc/lockrun/copyright /usr/share/doc/lockrun/changelog.gz \
	/usr/share/doc/lockrun/examples/config.example.yaml \
	/usr/share/doc/lockrun/examples/crontab.example \
	/usr/share/doc/lockrun/examples/kubernetes-cronjob.yaml \
	/usr/share/doc/lockrun/examples/lockrun-nightly-backup.service \
	/usr/share/doc/lockrun/examples/lockrun-nightly-backup.timer \
	/usr/share/doc/lockrun/examples/lockrun-dashboard.json \
	/usr/share/doc/lockrun/examples/lockrun-alerts.yaml \
	/usr/share/doc/lockrun/examples/lockrun-alerts.test.yaml \
	/usr/share/doc/lockrun/examples/lockrun-cron.service \
	/usr/share/doc/lockrun/examples/lockrun-cron.service.d/sandbox.conf \
	/lib/systemd/system/lockrun-cron.service \
	/etc/lockrun/lockrun.yaml /etc/lockrun/tasks.d/; do
	grep -qxF "$f" "$tmp/files" || fail "$deb lacks $f"
done
# The licence is the copyright file; nothing goes under /usr/local.
grep -qxF /usr/share/doc/lockrun/LICENSE "$tmp/files" && fail "$deb ships LICENSE beside copyright"
grep -q '^/usr/local' "$tmp/files" && fail "$deb ships files under /usr/local"

# The binary is built with the distribution's hardening: a PIE, full
# RELRO (GNU_RELRO and BIND_NOW), the stack protector, fortified calls.
dpkg-deb -x "$deb" "$tmp/root"
bin=$tmp/root/usr/bin/lockrun
readelf -h "$bin" | grep -q 'Type:.*DYN' || fail "lockrun is not a PIE"
readelf -l "$bin" | grep -q GNU_RELRO || fail "lockrun has no RELRO segment"
readelf -d "$bin" | grep -q 'BIND_NOW\|FLAGS.*NOW' || fail "lockrun is not linked with -z now"
readelf -W --dyn-syms "$bin" | grep -q __stack_chk_fail || fail "lockrun has no stack protector"
readelf -W --dyn-syms "$bin" | grep -q '__[a-z]*_chk@' || fail "lockrun calls no fortified function"

# Each library the binary may load (its .note.dlopen, the format systemd
# defined) is a Recommends or a Suggests as the note's priority says,
# named by Debian's rule: libfoo.so.N is in libfooN (libfoo2.so.N: libfoo2-N).
objcopy -O binary --only-section=.note.dlopen "$bin" "$tmp/note" 2>/dev/null
tr -d '\000' < "$tmp/note" | grep -o '"priority":"[a-z]*","soname":\["[^"]*"' |
	sed 's/"priority":"\([a-z]*\)","soname":\["\(.*\)"/\1 \2/' > "$tmp/sonames"
[ -s "$tmp/sonames" ] || fail "lockrun has no .note.dlopen"
while read -r priority soname; do
	lib=${soname%%.so.*} ver=${soname##*.so.}
	case $lib in *[0-9]) pkg=$lib-$ver ;; *) pkg=$lib$ver ;; esac
	case $priority in
	recommended) field=Recommends ;;
	*) field=Suggests ;;
	esac
	dpkg-deb -f "$deb" "$field" | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
		grep -qxF "$pkg" || fail "$deb: $soname ($priority) but $pkg not in $field"
done < "$tmp/sonames"

# The configuration is a conffile, and runs nothing: it reads as a config
# with no task (tasks.d, empty, included).
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles 2>/dev/null |
	grep -qxF /etc/lockrun/lockrun.yaml || fail "$deb: /etc/lockrun/lockrun.yaml is no conffile"
"$bin" check -c "$tmp/root/etc/lockrun/lockrun.yaml" 2>/dev/null |
	grep -q ': ok, 0 tasks$' || fail "$deb: /etc/lockrun/lockrun.yaml is not a config with no task"

# The sandbox's drop-in is an example, every line of it a comment: as
# shipped it opens nothing. Nothing goes under /etc/systemd/, which is the
# administrator's (systemctl edit writes there, systemctl revert empties
# it). Its settings, turned on ("#Name=" made "Name="), are verified with
# the unit below.
dropin=$tmp/root/usr/share/doc/lockrun/examples/lockrun-cron.service.d/sandbox.conf
if [ -f "$dropin" ]; then
	live=$(grep -vn -e '^#' -e '^[[:space:]]*$' "$dropin")
	[ -z "$live" ] || fail "$deb: sandbox.conf is not commented out: $live"
	grep -q '^#\[Service\]$' "$dropin" || fail "$deb: sandbox.conf has no #[Service]"
fi
grep -q '^/etc/systemd/' "$tmp/files" && fail "$deb ships files under /etc/systemd/"

# The unit is installed, neither enabled nor started by the package, and
# names the binary the package ships.
unit=$tmp/root/lib/systemd/system/lockrun-cron.service
exec_path=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit" 2>/dev/null)
[ "$exec_path" = /usr/bin/lockrun ] || fail "lockrun-cron.service: ExecStart= runs '$exec_path'"
# The maintainer scripts, run with stand-ins for systemctl and the
# deb-systemd-* helpers that log what they are asked, as if systemd ran
# (the scripts' /run/systemd/system pointed at a folder that exists): an
# install neither enables nor starts the unit (an enable only where it was
# enabled before keeps the admin's choice across upgrades); an upgrade
# stops nothing before it and try-restarts the unit after it (a running
# scheduler is restarted on the new binary, a stopped or disabled one
# stays so); a removal stops it.
ms=$tmp/ms
mkdir -p "$ms/bin" "$ms/run-systemd"
for t in systemctl deb-systemd-invoke deb-systemd-helper; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/log"\n' "$t" "$ms" > "$ms/bin/$t"
	chmod +x "$ms/bin/$t"
done
for s in preinst postinst prerm postrm; do
	dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./$s 2>/dev/null |
		sed "s|/run/systemd/system|$ms/run-systemd|g" > "$ms/$s"
done
# what script ARGS... asked of systemd, one line a call
maint()
{
	: > "$ms/log"
	[ -s "$ms/$1" ] && PATH=$ms/bin:$PATH sh "$ms/$@" > /dev/null 2>&1
	cat "$ms/log"
}
unit_calls()
{
	grep -E "(invoke|systemctl) .*(start|stop|restart).*lockrun-cron" || true
}
grep -q 'deb-systemd-helper enable' "$ms/postinst" && ! grep -q 'was-enabled' "$ms/postinst" &&
	fail "$deb: postinst enables lockrun-cron.service on install"
got=$(maint postinst configure | unit_calls)
[ -z "$got" ] || fail "$deb: postinst configure (install) asks: $got"
got=$(maint preinst upgrade 0.0.1 | unit_calls)
[ -z "$got" ] || fail "$deb: preinst upgrade asks: $got"
got=$(maint prerm upgrade 0.0.2 | unit_calls)
[ -z "$got" ] || fail "$deb: prerm upgrade asks: $got"
got=$(maint postinst configure 0.0.1 | unit_calls)
[ "$got" = "deb-systemd-invoke try-restart lockrun-cron.service" ] ||
	fail "$deb: postinst configure (upgrade) asks '$got', not a try-restart"
got=$(maint prerm remove | unit_calls)
[ "$got" = "deb-systemd-invoke stop lockrun-cron.service" ] ||
	fail "$deb: prerm remove asks '$got', not a stop"

# systemd-analyze verify on the unit as installed: in a root holding this
# system's units and /bin/kill (ExecReload=) and the package's files, so
# that ExecStart= and the man pages in Documentation= are the package's;
# with the sandbox's drop-in in place and every setting in it turned on.
if command -v systemd-analyze >/dev/null 2>&1 && [ -d /lib/systemd/system ]; then
	v=$tmp/verify
	mkdir -p "$v/lib/systemd" "$v/bin" "$v/etc/systemd/system/lockrun-cron.service.d"
	cp -a /lib/systemd/system "$v/lib/systemd/"
	cp /bin/kill "$v/bin/"
	cp -a "$tmp/root/." "$v/"
	[ -f "$dropin" ] && sed 's/^#\([^ #]\)/\1/' "$dropin" \
		> "$v/etc/systemd/system/lockrun-cron.service.d/sandbox.conf"
	if ! MANPATH=$v/usr/share/man systemd-analyze verify --root="$v" \
		/lib/systemd/system/lockrun-cron.service > "$tmp/verify.out" 2>&1 ||
		[ -s "$tmp/verify.out" ]; then
		cat "$tmp/verify.out" >&2
		fail "systemd-analyze verify lockrun-cron.service"
	fi
else
	echo "check-deb: no systemd-analyze here: lockrun-cron.service not verified" >&2
fi

# lintian, failing on errors and warnings (informational tags shown).
changes=$(ls "$dir"/lockrun_*.changes 2>/dev/null | head -1)
lintian --fail-on error,warning --display-info --allow-root "${changes:-$deb}" ||
	fail "lintian"

if [ "$fails" -eq 0 ]; then
	echo "check-deb: $deb: files, hardening, Recommends/Suggests, unit, drop-in," \
		"config and lintian ok"
fi
[ "$fails" -eq 0 ]

# SPDX-License-Identifier: BSD-2-Clause
# lockrun -- run a command once across a fleet, under a lock held in Redis.
#
#   make            build ./lockrun
#   make check      install missing packages (as root), build, run every test
#   make check SANITIZE=1   the same under AddressSanitizer + UBSan
#   make demo       race three lockruns against a throwaway redis-server
#   make bench      median wall time and peak RSS against flock(1)
#   make install PREFIX=/usr DESTDIR=...

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/lockrun
CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config

# Debian packages the build, the tests and the demo need. lockrun links
# OpenSSL (libssl-dev) for rediss://. The test fixtures run sentinels as
# `redis-server CONF --sentinel` (so no redis-sentinel package), build
# clusters and speak TLS with redis-cli (redis-tools), and make their
# certificates with openssl. The SQL backends link libpq and MariaDB
# Connector/C; the SQL fixtures run initdb, postgres, psql and pg_isready
# (from /usr/lib/postgresql/N/bin: Debian keeps them off PATH), and
# mariadb-install-db, mariadbd (in /usr/sbin), mariadb and mariadb-admin.
DEB_PKGS = build-essential pkg-config libhiredis-dev libyaml-dev libcriterion-dev \
	redis-server redis-tools openssl libssl-dev util-linux faketime tzdata mandoc cppcheck \
	postgresql postgresql-client libpq-dev libpq5 \
	mariadb-server mariadb-client libmariadb-dev libmariadb3
# What `make deps` checks for, as commands, files (globs allowed: an
# unmatched one counts as missing) and pkg-config modules.
DEP_CMDS = cc make pkg-config redis-server redis-cli openssl flock faketime mandoc cppcheck \
	mariadb mariadb-admin mariadb-install-db
DEP_FILES = /usr/share/zoneinfo/America/New_York \
	/usr/lib/postgresql/*/bin/initdb /usr/lib/postgresql/*/bin/postgres \
	/usr/lib/postgresql/*/bin/psql /usr/lib/postgresql/*/bin/pg_isready \
	/usr/sbin/mariadbd
DEP_MODS = hiredis yaml-0.1 criterion openssl libpq libmariadb

ifeq ($(SANITIZE),1)
B = build/asan
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BIN = $(B)/lockrun
export LSAN_OPTIONS = suppressions=$(abspath tests/lsan.supp):print_suppressions=0
else
B = build/rel
SAN =
BIN = lockrun
endif

WARN = -Wall -Wextra -Wstrict-prototypes -Wwrite-strings -Wshadow \
	$(if $(filter true,$(CI)),-Werror)

# One program, lockrun, linked against the system's shared glibc, hiredis
# and libyaml, a PIE. The libraries that only some URLs need are loaded
# with dlopen() when a URL needs them (tls.c, pg_conn.c, mysql_conn.c):
# OpenSSL for rediss://, libpq for postgres://, libmariadb for mysql://; a
# Redis run maps none of them. Their headers are needed to build:
#   TLS=yes|no   rediss:// (libssl-dev); yes fails the build without them
#   SQL=yes|no   postgres:// and mysql:// (libpq-dev, libmariadb-dev)
#   LINK=static  glibc, hiredis, libyaml and OpenSSL linked in, for a release
#                tarball: a static binary cannot dlopen(), so SQL=no, and
#                TLS is linked in rather than loaded (about 6 MB)
# CPPFLAGS, CFLAGS and LDFLAGS from the environment (a distribution's
# hardening) are used as given; lockrun's own flags go beside them.
TLS ?= yes
SQL ?= yes
LINK ?= dynamic
ifeq ($(SANITIZE),1)
LINK = dynamic
endif
ifeq ($(LINK),static)
SQL = no
endif
ifneq ($(filter-out yes no,$(TLS) $(SQL)),)
$(error TLS and SQL take yes or no)
endif
ifneq ($(filter-out dynamic static,$(LINK)),)
$(error LINK takes dynamic or static)
endif
# The sonames dlopen() may load: --version lists them; packagers read them
# from the .note.dlopen section (notes.c) for Recommends.
TLS_MOD = $(if $(filter yes,$(TLS)),openssl)
SQL_MODS = $(if $(filter yes,$(SQL)),libpq libmariadb)
LIB_MODS = hiredis yaml-0.1
LR_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(SAN) -MMD -MP -I$(B) -Isrc -fPIE \
	-DLOCKRUN_VERSION='"$(VERSION)"' $(if $(TLS_MOD),-DLR_TLS) \
	$(if $(SQL_MODS),-DLR_SQL) $(if $(filter static,$(LINK)),-DLR_TLS_LINKED) \
	$(shell $(PKG_CONFIG) --cflags $(LIB_MODS) $(TLS_MOD) $(SQL_MODS) 2>/dev/null)
ifeq ($(LINK),static)
LR_LIBS = -static $(shell $(PKG_CONFIG) --libs --static $(LIB_MODS) $(TLS_MOD))
LR_LDFLAGS = -no-pie
else
LR_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_MODS)) -ldl
LR_LDFLAGS = -pie
endif
TEST_DYN_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_MODS))
TEST_CFLAGS = $(shell $(PKG_CONFIG) --cflags criterion)
TEST_LIBS = $(shell $(PKG_CONFIG) --libs criterion)

# Pure modules: libc only, linked alone into the unit tests.
# The source tree, a folder per subsystem (src/README.md says which is
# which); every object but main's goes into the unit tests too.
SRC_CORE = $(addprefix core/,err duration keys civil zone cron cron_parse schedule task lease \
	text file url)
SRC_CONFIG = config/config config/yamltree
SRC_OUT = $(addprefix out/,log json table)
SRC_PROC = $(addprefix proc/,supervise child spawn guard hooks)
SRC_BACKEND = backend/backend backend/record backend/lock backend/notes
SRC_REDIS = $(addprefix backend/redis/,redis rlock rconn rlink rsecret rreader \
	rcluster cluster sentinel sentinel_url rurl rerr tls)
SRC_PG = $(addprefix backend/pg/,pg pg_conn pg_query pg_sql pgurl)
SRC_MYSQL = $(addprefix backend/mysql/,mysql mysql_conn mysql_read mysql_sql mysqlurl)
SRC_SCHED = $(addprefix sched/,due runs tick heap lines notify crond)
SRC_CLI = $(addprefix cli/,cli ctx run check status status_json status_prom history unlock secret schedverbs)
CORE = $(SRC_CORE) $(SRC_CONFIG) $(SRC_OUT) $(SRC_PROC) $(SRC_BACKEND) $(SRC_REDIS) \
	$(if $(SQL_MODS),$(SRC_PG) $(SRC_MYSQL)) $(SRC_SCHED) $(SRC_CLI)
CORE_OBJS = $(CORE:%=$(B)/%.o)
UNIT_SRCS = $(wildcard tests/unit/*.c)
# shim.c is not linked into the tests: it is preloaded into lockrun.
INTEG_SRCS = $(filter-out tests/integ/shim.c,$(wildcard tests/integ/*.c))
# The fixtures the bench and the demo link too (without Criterion), and
# the process helpers they share with the tests.
FIXTURE_OBJ = $(B)/tests/redis_fixture.o $(B)/tests/sql_fixture.o $(B)/tests/proc.o
SHIM = $(B)/tests/shim.so

.PHONY: all check unit integ deps demo bench install uninstall clean lint

all: $(BIN)

# Asked for and missing is an error, not a build without it.
have-libs:
	@for m in $(LIB_MODS) $(TLS_MOD) $(SQL_MODS); do \
		$(PKG_CONFIG) --exists $$m || { echo "make: $$m is missing (make deps, or" \
		"TLS=no / SQL=no to build without it)" >&2; exit 1; }; done

LUA = src/backend/redis/scripts
$(B)/scripts.h: $(LUA)/embed.sh $(LUA)/history.lua $(LUA)/acquire.lua $(LUA)/renew.lua \
		$(LUA)/release.lua $(LUA)/unlock.lua $(LUA)/check.lua
	@mkdir -p $(B)
	sh $(LUA)/embed.sh $(filter %.lua,$^) > $@.tmp && mv $@.tmp $@

$(B)/backend/redis/rlock.o: $(B)/scripts.h

# The build's settings, so that changing TLS, SQL or LINK rebuilds what
# depends on them.
$(B)/flags: FORCE
	@mkdir -p $(@D)
	@echo '$(TLS) $(SQL) $(LINK)' | cmp -s - $@ || echo '$(TLS) $(SQL) $(LINK)' > $@
.PHONY: FORCE have-libs
FORCE:

$(B)/%.o: src/%.c $(B)/flags | have-libs
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LR_CFLAGS) $(CFLAGS) -c -o $@ $<

# Criterion's eq(str, ...) takes char *, so string literals may not be const here.
$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LR_CFLAGS) $(TEST_CFLAGS) -Wno-discarded-qualifiers $(CFLAGS) \
		-c -o $@ $<

# -z now binds every libc symbol at start (full RELRO): the guard forked
# later then never writes the GOT, and each such write would copy a page
# (perf stat counts about a dozen fewer page faults a run).
$(BIN): $(CORE_OBJS) $(B)/cli/main.o
	$(CC) $(SAN) $(LR_LDFLAGS) $(LDFLAGS) -Wl,-z,now -o $@ $^ $(LR_LIBS)

$(B)/unit_tests: $(UNIT_SRCS:tests/%.c=$(B)/tests/%.o) $(CORE_OBJS)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS) $(TEST_LIBS)

$(B)/integ_tests: $(INTEG_SRCS:tests/%.c=$(B)/tests/%.o)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS) $(TEST_LIBS)

$(B)/bench: $(B)/tests/bench/bench.o $(FIXTURE_OBJ) $(addprefix $(B)/core/,cron.o \
		cron_parse.o zone.o civil.o err.o)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS)

$(B)/demo: $(B)/tests/bench/demo.o $(FIXTURE_OBJ)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS)

# The fault shim the integration tests LD_PRELOAD into lockrun. Never with
# $(SAN): a preloaded library must not bring a second sanitizer runtime.
$(SHIM): tests/integ/shim.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -MMD -MP -fPIC -shared $(CFLAGS) $(LDFLAGS) \
		-o $@ $< -ldl

$(FIXTURE_OBJ): $(B)/tests/%.o: tests/integ/%.c
	@mkdir -p $(@D)
	$(CC) $(LR_CFLAGS) $(CFLAGS) -c -o $@ $<

# Unit tests first (fast, pure), then the real binary against redis-server.
check: deps
	$(MAKE) --no-print-directory unit integ

unit: $(B)/unit_tests
	cd tests/data && ../../$(B)/unit_tests

integ: $(BIN) $(B)/integ_tests $(SHIM)
	LOCKRUN_BIN=$(abspath $(BIN)) LOCKRUN_DATA=$(abspath tests/data) \
		LOCKRUN_SHIM=$(abspath $(SHIM)) $(B)/integ_tests

demo: deps
	$(MAKE) --no-print-directory $(BIN) $(B)/demo
	$(B)/demo $(abspath $(BIN))

bench: deps
	$(MAKE) --no-print-directory $(BIN) $(B)/bench
	$(B)/bench $(abspath $(BIN))

# Install what is missing: as root with apt-get, else print the command.
deps:
	@missing=""; \
	for c in $(DEP_CMDS); do command -v $$c >/dev/null 2>&1 || missing=1; done; \
	for m in $(DEP_MODS); do $(PKG_CONFIG) --exists $$m 2>/dev/null || missing=1; done; \
	for f in $(DEP_FILES); do [ -e $$f ] || missing=1; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	cmd="apt-get install -y --no-install-recommends $(DEB_PKGS)"; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "make deps: installing $(DEB_PKGS)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$cmd; \
	else \
		echo "make deps: missing build or test dependencies; as root, run:" >&2; \
		echo "    apt-get update && $$cmd" >&2; \
		exit 1; \
	fi

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DOCDIR)
	install -m 644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/lockrun
	install -m 644 man/lockrun.1 $(DESTDIR)$(MANDIR)/man1/lockrun.1
	install -m 644 man/lockrun.yaml.5 $(DESTDIR)$(MANDIR)/man5/lockrun.yaml.5

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lockrun $(DESTDIR)$(DOCDIR)/LICENSE \
		$(DESTDIR)$(MANDIR)/man1/lockrun.1 \
		$(DESTDIR)$(MANDIR)/man5/lockrun.yaml.5

# The man pages, and cppcheck over src/ as the build sees it. One check is
# off, with its reason: ctuuninitvar takes snprintf()'s destination, a
# field of a struct the callee fills, for a read of that struct.
CPPCHECK = cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability \
	--inline-suppr --suppress=missingIncludeSystem --suppress=ctuuninitvar \
	-D__GNUC__ $(if $(TLS_MOD),-DLR_TLS) $(if $(SQL_MODS),-DLR_SQL) -Isrc -I$(B) \
	$(filter -I%,$(shell $(PKG_CONFIG) --cflags $(LIB_MODS) $(TLS_MOD) $(SQL_MODS) 2>/dev/null))
# tests/lint/ checks the tree's rules: from the #include lines (cycles,
# layers, each backend apart, libraries where they belong, file sizes) and
# from the objects' symbols (no cycle the linker sees).
lint: deps $(B)/scripts.h $(CORE_OBJS)
	mandoc -Tlint -Wwarning man/lockrun.1 man/lockrun.yaml.5
	sh tests/lint/tree.sh
	sh tests/lint/symbols.sh $(B)
	$(CPPCHECK) src/

clean:
	rm -rf build lockrun

-include $(shell find $(B) -name '*.d' 2>/dev/null)

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
# lockrun-sql, which lockrun execs for mysql:// and postgres:// URLs
LIBEXECDIR ?= $(PREFIX)/libexec/lockrun
MANDIR ?= $(PREFIX)/share/man
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
	redis-server redis-tools openssl libssl-dev util-linux faketime tzdata \
	postgresql postgresql-client libpq-dev libpq5 \
	mariadb-server mariadb-client libmariadb-dev libmariadb3
# What `make deps` checks for, as commands, files (globs allowed: an
# unmatched one counts as missing) and pkg-config modules.
DEP_CMDS = cc make pkg-config redis-server redis-cli openssl flock faketime \
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
# TLS (rediss://) when OpenSSL is there (libssl-dev; `make deps` installs
# it): without it, lockrun builds and refuses rediss:// URLs with a message.
# Recursive (=) on purpose: evaluated when a recipe runs, after `deps`.
TLS_MOD = $(shell $(PKG_CONFIG) --exists openssl 2>/dev/null && echo openssl)
LIB_MODS = hiredis yaml-0.1 $(TLS_MOD)
LR_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(SAN) -MMD -MP -I$(B) -Isrc \
	-DLOCKRUN_VERSION='"$(VERSION)"' $(if $(TLS_MOD),-DLR_TLS) \
	-DLR_LIBEXECDIR='"$(LIBEXECDIR)"' \
	$(shell $(PKG_CONFIG) --cflags $(LIB_MODS))
# lockrun is linked statically by default, libc and OpenSSL included: no
# ld.so work and no shared libraries mapped on every cron start (make
# bench: about 1 ms and 700 KiB of peak RSS less a run; README,
# "Dependencies"). It is not a PIE: a static PIE relocates itself at each
# start, and OpenSSL brings 20,000 relocations, which cost about 110 page
# faults and 2 ms a run (perf stat, 200 runs) -- a third more than the whole
# uncontended run. The stack, heap and mmap areas are still randomized;
# LINK=static-pie randomizes the image too, at that cost. The linker warns
# that getaddrinfo (and OpenSSL's dlopen, which lockrun never reaches: it
# does not read openssl.cnf, where providers and engines are named) in a
# static binary would load parts of the same glibc at run time; glibc 2.36
# has the "files" and "dns" hosts sources built in, so only sources beyond
# those (mdns, resolve) depend on it, and a failure there falls through to
# dns. LINK=libs links only hiredis, libyaml and OpenSSL statically;
# LINK=dynamic links everything as shared libraries.
# Under SANITIZE=1 the binary is dynamic, as the sanitizers need.
LINK ?= static
ifeq ($(SANITIZE),1)
LINK = dynamic
endif
LIBS_STATIC = -Wl,-Bstatic $(shell $(PKG_CONFIG) --libs $(LIB_MODS)) -Wl,-Bdynamic \
	$(if $(TLS_MOD),-ldl -pthread)
ifeq ($(LINK),static)
LR_LIBS = -no-pie -static $(shell $(PKG_CONFIG) --libs --static $(LIB_MODS))
else ifeq ($(LINK),static-pie)
LR_LIBS = -static-pie $(shell $(PKG_CONFIG) --libs --static $(LIB_MODS))
else ifeq ($(LINK),libs)
LR_LIBS = $(LIBS_STATIC)
else
LR_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_MODS))
endif
TEST_DYN_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_MODS))
TEST_CFLAGS = $(shell $(PKG_CONFIG) --cflags criterion)
TEST_LIBS = $(shell $(PKG_CONFIG) --libs criterion)

# Pure modules: libc only, linked alone into the unit tests. pg_sql is
# pure too, but only lockrun-sql needs its statements: not in lockrun.
PURE = err duration keys rurl sentinel_url cron schedule task lease rerr text cluster sqlurl pgurl
SQL_PURE_OBJS = $(B)/pg_sql.o
CORE = $(PURE) file secret yamltree config cli log tls rreader rconn sentinel rcluster lock backend redis_backend \
	child guard supervise check ctx run status history unlock
CORE_OBJS = $(CORE:%=$(B)/%.o)
# lockrun-sql: the same program with the SQL backends, linked against a
# shared libc so that it can dlopen() libpq or libmariadb (a static binary
# cannot). Only ctx.o and backend.o differ (-DLR_SQL): lockrun execs it for
# SQL URLs, lockrun-sql does not. Its other libraries are static, as
# LINK=libs links them.
SQL_BIN = $(dir $(BIN))lockrun-sql
SQL_CFLAGS = -DLR_SQL $(shell $(PKG_CONFIG) --cflags libpq libmariadb 2>/dev/null)
SQL_OBJS = $(filter-out $(B)/ctx.o $(B)/backend.o,$(CORE_OBJS)) $(B)/sql/ctx.o \
	$(B)/sql/backend.o $(B)/sql/pg.o $(B)/sql/pg_conn.o $(SQL_PURE_OBJS) $(B)/sql/mysql.o \
	$(B)/sql/mysql_conn.o $(B)/sql/mysql_read.o $(B)/sql/mysql_sql.o $(B)/main.o
UNIT_SRCS = $(wildcard tests/unit/*.c)
# shim.c is not linked into the tests: it is preloaded into lockrun.
INTEG_SRCS = $(filter-out tests/integ/shim.c,$(wildcard tests/integ/*.c))
# The fixtures the bench and the demo link too (without Criterion).
FIXTURE_OBJ = $(B)/tests/redis_fixture.o $(B)/tests/sql_fixture.o
SHIM = $(B)/tests/shim.so

.PHONY: all check unit integ deps demo bench install uninstall clean lint

all: $(BIN) $(SQL_BIN)

$(B)/scripts.h: src/scripts/embed.sh src/scripts/history.lua src/scripts/acquire.lua \
		src/scripts/renew.lua src/scripts/release.lua src/scripts/unlock.lua \
		src/scripts/check.lua
	@mkdir -p $(B)
	sh src/scripts/embed.sh $(filter %.lua,$^) > $@.tmp && mv $@.tmp $@

$(B)/lock.o: $(B)/scripts.h

$(B)/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(LR_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/sql/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(LR_CFLAGS) $(SQL_CFLAGS) $(CFLAGS) -c -o $@ $<

# Criterion's eq(str, ...) takes char *, so string literals may not be const here.
$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(LR_CFLAGS) $(TEST_CFLAGS) -Wno-discarded-qualifiers $(CFLAGS) -c -o $@ $<

# -z now binds every libc symbol at start (full RELRO) when libc is
# shared: the guard forked later then never writes the GOT, and each such
# write would copy a page (perf stat counts about a dozen fewer page faults
# a run).
$(BIN): $(CORE_OBJS) $(B)/main.o
	$(CC) $(SAN) $(LDFLAGS) -Wl,-z,now -o $@ $^ $(LR_LIBS)

$(SQL_BIN): $(SQL_OBJS)
	$(CC) $(SAN) $(LDFLAGS) -Wl,-z,now -o $@ $^ $(if $(SAN),$(TEST_DYN_LIBS),$(LIBS_STATIC)) -ldl

# The same program with a shared libc, for the tests that preload a
# library into lockrun (libfaketime, the fault shim): a static binary
# ignores LD_PRELOAD.
$(B)/lockrun-preload: $(CORE_OBJS) $(B)/main.o
	$(CC) $(SAN) $(LDFLAGS) -Wl,-z,now -o $@ $^ $(LIBS_STATIC)

# ctx.c has LIBEXECDIR compiled in: a make install with another PREFIX
# than the build's must rebuild it, or lockrun would look for lockrun-sql
# where it was not installed. The stamp changes only with the value.
$(B)/libexecdir: FORCE
	@mkdir -p $(@D)
	@echo '$(LIBEXECDIR)' | cmp -s - $@ || echo '$(LIBEXECDIR)' > $@
$(B)/ctx.o $(B)/sql/ctx.o: $(B)/libexecdir
.PHONY: FORCE
FORCE:

# It execs the lockrun-sql beside it for a SQL URL, as lockrun does.
ifneq ($(abspath $(dir $(SQL_BIN))),$(abspath $(B)))
$(B)/lockrun-sql: $(SQL_BIN)
	ln -sf $(abspath $(SQL_BIN)) $@
endif

$(B)/unit_tests: $(UNIT_SRCS:tests/%.c=$(B)/tests/%.o) $(CORE_OBJS) $(SQL_PURE_OBJS)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS) $(TEST_LIBS)

$(B)/integ_tests: $(INTEG_SRCS:tests/%.c=$(B)/tests/%.o)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS) $(TEST_LIBS)

$(B)/bench: $(B)/tests/bench/bench.o $(FIXTURE_OBJ)
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

integ: $(BIN) $(SQL_BIN) $(B)/lockrun-preload $(B)/lockrun-sql $(B)/integ_tests $(SHIM)
	LOCKRUN_BIN=$(abspath $(BIN)) LOCKRUN_BIN_PRELOAD=$(abspath $(B)/lockrun-preload) \
		LOCKRUN_DATA=$(abspath tests/data) \
		LOCKRUN_SHIM=$(abspath $(SHIM)) $(B)/integ_tests

demo: deps
	$(MAKE) --no-print-directory $(BIN) $(SQL_BIN) $(B)/demo
	$(B)/demo $(abspath $(BIN))

bench: deps
	$(MAKE) --no-print-directory $(BIN) $(SQL_BIN) $(B)/bench
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

install: $(BIN) $(SQL_BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/lockrun
	install -m 755 $(SQL_BIN) $(DESTDIR)$(LIBEXECDIR)/lockrun-sql
	install -m 644 man/lockrun.1 $(DESTDIR)$(MANDIR)/man1/lockrun.1
	install -m 644 man/lockrun.yaml.5 $(DESTDIR)$(MANDIR)/man5/lockrun.yaml.5

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lockrun $(DESTDIR)$(LIBEXECDIR)/lockrun-sql \
		$(DESTDIR)$(MANDIR)/man1/lockrun.1 \
		$(DESTDIR)$(MANDIR)/man5/lockrun.yaml.5

lint:
	mandoc -Tlint -Wwarning man/lockrun.1 man/lockrun.yaml.5

clean:
	rm -rf build lockrun lockrun-sql

-include $(wildcard $(B)/*.d $(B)/sql/*.d $(B)/tests/*.d $(B)/tests/*/*.d)

# SPDX-License-Identifier: BSD-2-Clause
# lockrun -- run a command once across a fleet, under a lock held in Redis.
#
#   make            build ./lockrun
#   make check      install missing packages (as root), build, run the quick
#                   tests: those that need only redis-server (under 3 minutes)
#   make check-full the same with every test: the SQL servers, sentinels,
#                   clusters, TLS, the browser, the long real-time ones
#   make check SANITIZE=1, make check-full SANITIZE=1   under ASan + UBSan
#   make demo       race three lockruns against a throwaway redis-server
#   make bench      median wall time and peak RSS against flock(1)
#                   (BENCH_ONLY=fleet, seconds, round-trips, check, loop, cron or
#                   capture: that section alone)
#   make install PREFIX=/usr DESTDIR=...
#   make deb        build the Debian package into build/deb (make deb-check: and lint it)
#   make fuzz       libFuzzer on each parser for FUZZ_TIME seconds (needs clang)
#   make image      build contrib/Dockerfile.cron's image, where docker or podman runs

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/lockrun
EXAMPLEDIR ?= $(DOCDIR)/examples
# Where each shell looks for completions it loads on demand. zsh's fpath
# holds vendor-completions under /usr on Debian, site-functions elsewhere.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config

# Debian packages, in sets, each for a target and what it runs. The build:
# the compiler and the headers of what lockrun links or loads (OpenSSL for
# rediss://, libpq and MariaDB Connector/C for the databases,
# libmicrohttpd for cron --listen: headers only, see below). The demo:
# redis-server, which it starts. make check: Criterion; faketime and
# tzdata for the faked clocks and time zones; flock (util-linux), which
# the tests' jobs hold; bash-completion, zsh and fish for the completion
# tests. make lint: Criterion (it compiles the unit tests, whose symbols
# tests/lint/symbols.sh reads), mandoc and cppcheck. make check-full, the
# rest: redis-cli (redis-tools) to build clusters and speak TLS, openssl
# for the certificates (sentinels run as `redis-server CONF --sentinel`,
# so no redis-sentinel package); the SQL servers, whose fixtures run
# initdb, postgres, psql and pg_isready (from /usr/lib/postgresql/N/bin:
# Debian keeps them off PATH), and mariadb-install-db, mariadbd (in
# /usr/sbin), mariadb and mariadb-admin; chromium, which loads the status
# page `cron --listen` serves (the browser test); and prometheus for
# promtool, which checks the metrics and tests contrib/monitoring's alert
# rules. `make deps WHAT=demo|lint|check|full` checks a set (full, the
# default, is every package here); make demo, lint, check and check-full
# each check their own.
DEB_PKGS_BUILD = build-essential pkg-config libhiredis-dev libyaml-dev libssl-dev \
	libpq-dev libmariadb-dev libmicrohttpd-dev
DEB_PKGS_demo = $(DEB_PKGS_BUILD) redis-server
DEB_PKGS_check = $(DEB_PKGS_demo) libcriterion-dev faketime tzdata util-linux \
	bash-completion zsh fish
DEB_PKGS_lint = $(DEB_PKGS_BUILD) libcriterion-dev mandoc cppcheck
DEB_PKGS_full = $(DEB_PKGS_check) mandoc cppcheck redis-tools openssl postgresql \
	postgresql-client libpq5 mariadb-server mariadb-client libmariadb3 chromium prometheus
# What `make deps` checks for, as commands, files (globs allowed: an
# unmatched one counts as missing) and pkg-config modules.
DEP_CMDS_BUILD = cc make pkg-config
DEP_CMDS_demo = $(DEP_CMDS_BUILD) redis-server
DEP_CMDS_check = $(DEP_CMDS_demo) faketime flock zsh fish
DEP_CMDS_lint = $(DEP_CMDS_BUILD) mandoc cppcheck
DEP_CMDS_full = $(DEP_CMDS_check) mandoc cppcheck redis-cli openssl mariadb mariadb-admin \
	mariadb-install-db chromium promtool
DEP_FILES_demo =
DEP_FILES_check = /usr/share/zoneinfo/America/New_York \
	/usr/share/bash-completion/bash_completion
DEP_FILES_lint =
DEP_FILES_full = $(DEP_FILES_check) \
	/usr/lib/postgresql/*/bin/initdb /usr/lib/postgresql/*/bin/postgres \
	/usr/lib/postgresql/*/bin/psql /usr/lib/postgresql/*/bin/pg_isready \
	/usr/sbin/mariadbd
DEP_MODS_BUILD = hiredis yaml-0.1 openssl libpq libmariadb libmicrohttpd
DEP_MODS_demo = $(DEP_MODS_BUILD)
DEP_MODS_check = $(DEP_MODS_BUILD) criterion
DEP_MODS_lint = $(DEP_MODS_BUILD) criterion
DEP_MODS_full = $(DEP_MODS_check)
WHAT ?= full
ifeq ($(filter demo lint check full,$(WHAT)),)
$(error WHAT takes demo, lint, check or full)
endif
DEB_PKGS = $(DEB_PKGS_$(WHAT))
DEP_CMDS = $(DEP_CMDS_$(WHAT))
DEP_FILES = $(DEP_FILES_$(WHAT))
DEP_MODS = $(DEP_MODS_$(WHAT))

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
# OpenSSL for rediss://, libpq for postgres://, libmariadb for mysql://,
# libmicrohttpd for `cron --listen`; a Redis run maps none of them. Their headers are needed to build:
#   TLS=yes|no   rediss:// (libssl-dev); yes fails the build without them
#   SQL=yes|no   postgres:// and mysql:// (libpq-dev, libmariadb-dev)
#   WEB=yes|no   `cron --listen`, the HTTP server (libmicrohttpd-dev): its
#                /metrics, health checks and status page
#   LINK=static  glibc, hiredis, libyaml and OpenSSL linked in, for a release
#                tarball: a static binary cannot dlopen(), so SQL=no, WEB=no, and
#                TLS is linked in rather than loaded (about 6 MB)
# CPPFLAGS, CFLAGS and LDFLAGS from the environment (a distribution's
# hardening) are used as given; lockrun's own flags go beside them.
TLS ?= yes
SQL ?= yes
WEB ?= yes
LINK ?= dynamic
ifeq ($(SANITIZE),1)
LINK = dynamic
endif
ifeq ($(LINK),static)
SQL = no
WEB = no
endif
ifneq ($(filter-out yes no,$(TLS) $(SQL) $(WEB)),)
$(error TLS, SQL and WEB take yes or no)
endif
ifneq ($(filter-out dynamic static,$(LINK)),)
$(error LINK takes dynamic or static)
endif
# The sonames dlopen() may load: --version lists them; packagers read them
# from the .note.dlopen section (notes.c) for Recommends.
TLS_MOD = $(if $(filter yes,$(TLS)),openssl)
SQL_MODS = $(if $(filter yes,$(SQL)),libpq libmariadb)
WEB_MOD = $(if $(filter yes,$(WEB)),libmicrohttpd)
LIB_MODS = hiredis yaml-0.1
LR_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(SAN) -MMD -MP -I$(B) -Isrc -fPIE \
	-DLOCKRUN_VERSION='"$(VERSION)"' $(if $(TLS_MOD),-DLR_TLS) \
	$(if $(SQL_MODS),-DLR_SQL) $(if $(filter static,$(LINK)),-DLR_TLS_LINKED) \
	$(if $(WEB_MOD),-DLR_WEB) \
	$(shell $(PKG_CONFIG) --cflags $(LIB_MODS) $(TLS_MOD) $(SQL_MODS) $(WEB_MOD) 2>/dev/null)
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
SRC_CORE = $(addprefix core/,err duration keys civil zone cron cron_parse schedule task tail setting \
	lease text file url near where window)
SRC_CONFIG = $(addprefix config/,config yamltree walk server options files tasksdir crontab crontab_cmd)
SRC_OUT = $(addprefix out/,log json table)
SRC_PROC = $(addprefix proc/,capture supervise child spawn guard hooks)
SRC_BACKEND = backend/backend backend/record backend/lock backend/notes backend/batch
SRC_REDIS = $(addprefix backend/redis/,redis rlock rfleet rconn rlink rreader \
	rcluster cluster sentinel sentinel_url rurl rerr rsettings rscript rtrigger rclaim tls)
SRC_PG = $(addprefix backend/pg/,pg pg_conn pg_query pg_sql pg_batch pg_lock pg_renew pg_status pg_withdraw pgurl)
SRC_MYSQL = $(addprefix backend/mysql/,mysql mysql_args mysql_batch mysql_conn mysql_lock mysql_read mysql_renew mysql_sql mysqlurl)
SRC_SCHED = $(addprefix sched/,due claim starter run_table start_queue tick heap lines report notify trigger missed defer crond view away \
	leases lease_client outcome mux)
SRC_WEB = $(addprefix web/,rows triage prom html page runpage peers mhd serve)
SRC_CLI = $(addprefix cli/,cli verbs ctx entry run run_state acquire hookspec doubt skip pause check status \
	status_text status_next status_json status_html history logs unlock secret schedverbs retry runas boot import mail when replace)
CORE = $(SRC_CORE) $(SRC_CONFIG) $(SRC_OUT) $(SRC_PROC) $(SRC_BACKEND) $(SRC_REDIS) \
	$(if $(SQL_MODS),$(SRC_PG) $(SRC_MYSQL)) $(SRC_SCHED) $(SRC_WEB) $(SRC_CLI)
CORE_OBJS = $(CORE:%=$(B)/%.o)
UNIT_SRCS = $(wildcard tests/unit/*.c)
# shim.c is not linked into the tests: it is preloaded into lockrun.
INTEG_SRCS = $(filter-out tests/integ/shim.c,$(wildcard tests/integ/*.c))
# The fixtures the bench and the demo link too (without Criterion), and
# the process helpers they share with the tests.
FIXTURE_OBJ = $(B)/tests/redis_fixture.o $(B)/tests/sql_fixture.o $(B)/tests/proc.o
SHIM = $(B)/tests/shim.so

# Fuzzing (tests/fuzz/): one libFuzzer target per parser of what others
# write (the config loader, cron expressions, crontab files, durations, the Redis,
# Sentinel, PostgreSQL and MariaDB URLs, the Redis reply reader), and of
# the writers that hand a lock server's values to readers (the status page
# and the exposition, page: checked for well-formedness), each a
# fuzz_NAME.c with a seed corpus in tests/fuzz/corpus/NAME. `make fuzz`
# builds them with clang, libFuzzer, ASan and UBSan into build/fuzz and
# runs each for FUZZ_TIME seconds (what it learns goes to
# build/fuzz/corpus/NAME; copy an input worth keeping into the seeds).
# `make check` replays the seeds through the same entry points, built by
# $(CC) with replay.c's main(), under SANITIZE=1's sanitizers too: no
# clang and no fuzzing time.
FUZZ_TARGETS = config cron crontab duration redisurl sentinelurl rreader page \
	$(if $(SQL_MODS),pgurl mysqlurl)
FUZZ_TIME ?= 60
FUZZ_CC ?= clang
FUZZ_B = build/fuzz
FUZZ_SAN = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_CFLAGS = $(subst -I$(B),-I$(FUZZ_B),$(filter-out -fsanitize=% -fno-sanitize-recover=% \
	-fno-omit-frame-pointer,$(LR_CFLAGS))) $(FUZZ_SAN)

.PHONY: hooks all check check-full test-bins unit integ integ-full tiers completion surface monitoring \
	deps deps-demo deps-lint deps-check deb-deps deb \
	deb-check demo bench install uninstall clean lint fuzz fuzz-replay image

all: $(BIN)

# Asked for and missing is an error, not a build without it.
have-libs:
	@for m in $(LIB_MODS) $(TLS_MOD) $(SQL_MODS) $(WEB_MOD); do \
		$(PKG_CONFIG) --exists $$m || { echo "make: $$m is missing (make deps, or" \
		"TLS=no / SQL=no / WEB=no to build without it)" >&2; exit 1; }; done

LUA = src/backend/redis/scripts
$(B)/scripts.h $(FUZZ_B)/scripts.h: $(LUA)/embed.sh $(LUA)/history.lua $(LUA)/acquire.lua $(LUA)/renew.lua \
		$(LUA)/renew_many.lua $(LUA)/release.lua $(LUA)/unlock.lua $(LUA)/check.lua \
		$(LUA)/pause.lua $(LUA)/missed.lua $(LUA)/take.lua $(LUA)/claim.lua \
		$(LUA)/schedulers.lua $(LUA)/places.lua
	@mkdir -p $(@D)
	sh $(LUA)/embed.sh $(filter %.lua,$^) > $@.tmp && mv $@.tmp $@

$(B)/backend/redis/rlock.o $(B)/backend/redis/rfleet.o: $(B)/scripts.h
$(FUZZ_B)/backend/redis/rlock.o $(FUZZ_B)/backend/redis/rfleet.o: $(FUZZ_B)/scripts.h

# The build's settings, so that changing TLS, SQL or LINK rebuilds what
# depends on them.
$(B)/flags: FORCE
	@mkdir -p $(@D)
	@echo '$(TLS) $(SQL) $(WEB) $(LINK)' | cmp -s - $@ || echo '$(TLS) $(SQL) $(WEB) $(LINK)' > $@
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

$(B)/bench: $(B)/tests/bench/bench.o $(B)/tests/bench/cron_bench.o \
		$(B)/tests/bench/fleet_bench.o $(B)/tests/bench/seconds_bench.o $(B)/tests/bench/web_load.o \
		$(B)/tests/bench/rt_bench.o $(B)/tests/bench/loop_bench.o \
		$(B)/tests/bench/inflight_bench.o $(FIXTURE_OBJ) \
		$(addprefix $(B)/core/,cron.o \
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

# Unit tests first (fast, pure), the fuzz corpus replayed, the shell
# completions, then the real binary against redis-server, then the
# documentation against the binary. make check runs the quick tier of the
# integration tests (INTEG_FULL, below, says which are not in it) and
# needs only make deps WHAT=check's packages; make check-full runs them
# all, then contrib/monitoring's checks, with every package. Measured on
# a 2-core machine with another job's tests running beside it (2026-12-07),
# make check from a fresh clone took 167 s: 40 s to build and run the 491
# unit tests, 7 s for the fuzz corpus and the completions, 46 s to build
# the integration tests, 71 s to run 505 of them (429 as --list counts
# them: it counts a parameterized test once) and 3 s for make surface.
# Every test, before the tiers, took 496 s (then the README's figure).
# Later (2026-12-07, .ci/run from a fresh clone, 2 cores): make check 161 s
# (549 unit, 554 integration), make check-full SANITIZE=1 722 s (772).
# With the test binaries built on every core first (2026-12-08, fresh
# clone, 2 cores, a helper's tests beside it): make check 142 s (572 unit,
# 576 integration).
check: deps-check
	$(MAKE) --no-print-directory -j$(BUILD_JOBS) test-bins
	$(MAKE) --no-print-directory unit fuzz-replay completion integ surface

check-full: deps
	$(MAKE) --no-print-directory -j$(BUILD_JOBS) test-bins
	$(MAKE) --no-print-directory unit fuzz-replay completion integ-full surface monitoring

# Everything the tests run, built first on every core: the tests themselves
# then run one target at a time, so that a unit test's output is never
# interleaved with an integration test's and the servers they start do not
# compete with the compiler.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test-bins: $(BIN) $(B)/unit_tests $(B)/integ_tests $(SHIM) \
		$(FUZZ_TARGETS:%=$(B)/fuzz/replay_%)

unit: $(B)/unit_tests
	cd tests/data && ../../$(B)/unit_tests

$(B)/fuzz/replay_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/fuzz_util.o \
		$(B)/tests/fuzz/replay.o $(CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^ $(TEST_DYN_LIBS)

fuzz-replay: $(FUZZ_TARGETS:%=$(B)/fuzz/replay_%)
	@for t in $(FUZZ_TARGETS); do \
		printf '%s: ' $$t; $(B)/fuzz/replay_$$t tests/fuzz/corpus/$$t/* || exit 1; \
	done

$(FUZZ_B)/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/fuzz_%: $(FUZZ_B)/tests/fuzz/fuzz_%.o $(FUZZ_B)/tests/fuzz/fuzz_util.o \
		$(CORE:%=$(FUZZ_B)/%.o)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(TEST_DYN_LIBS)

# Objects made on the way to a target are kept: the next build reuses them.
.PRECIOUS: $(FUZZ_B)/%.o $(FUZZ_B)/tests/fuzz/%.o $(B)/tests/fuzz/%.o

fuzz:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz: $(FUZZ_CC) is missing;" \
		"as root: apt-get install clang" >&2; exit 1; }
	$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(FUZZ_B)/fuzz_%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_B)/corpus/$$t; \
		echo "make fuzz: $$t for $(FUZZ_TIME) s"; \
		$(FUZZ_B)/fuzz_$$t -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_B)/$$t- $(FUZZ_B)/corpus/$$t \
			tests/fuzz/corpus/$$t || exit 1; \
	done

# The integration tests, in two tiers. make integ (make check's) runs
# every test that no entry of INTEG_FULL matches; make integ-full (make
# check-full's) runs every test. An entry is a Criterion --filter glob
# over SUITE/TEST, so a suite or test that is not listed is in the quick
# tier: list a new one here, with why, when it needs more than
# redis-server and libfaketime or waits tens of seconds. Both check that
# each entry matches a test (tests/integ/tiers.sh; make tiers lists each
# test's tier), and under make integ the fixtures that need more than
# redis-server refuse to start (LR_TEST_TIER=check: fixture_tier()).
#
# PostgreSQL and MariaDB: a test on one is named pg_NAME or mysql_NAME,
# whatever its suite (THREE() names its own so); and the suites of the
# SQL backends and their fixture alone.
INTEG_FULL = */pg_* */mysql_* sqlfixture/* sqlbound/* backends_sql/* backends_session/* \
	ghost_sql/* cron_sql_scale/* mysql_tls/*
# Three sentinels.
INTEG_FULL += sentinel/* fixture/sentinels_*
# A six-node Redis Cluster, joined by redis-cli --cluster create (redis-tools).
INTEG_FULL += cluster/* cluster_slots/* cluster_failover/* fixture/cluster_*
# The test PKI, made with the openssl command, and the TLS servers it serves.
INTEG_FULL += tls/* fixture/certs_* fixture/tls_*
# chromium, loading the status page.
INTEG_FULL += web/a_browser_* page/a_browser_*
# Real time: suites whose tests each wait tens of seconds of wall clock
# (schedules under a minute at the clock's own speed, a minute's edge, a
# 40 s stall, a 20 s outage, a slow sink, a scheduler stopped past its TTL),
INTEG_FULL += cron_seconds/* ghost_cron/* late_start/* blast/* ends/* cron_idle/* \
	cron_retry/* ghost_trigger/*
# and the tests of other suites that took 10 s or more (on 2 cores, four
# jobs, another job's tests beside them).
INTEG_FULL += cron_log/a_server_down_is_tried_again_* cron_away/refused_for_20s_* \
	cron_missed/a_slot_missed_while_the_server_was_away_* cron_fleet/three_servers_* \
	cron_time/a_clock_stepped_back_* cron_contain/sigstop_of_the_scheduler_past_the_ttl_* \
	ghost/a_timed_out_acquire_* listen/trickling_clients_* listen/slow_readers_* \
	fault/a_vanished_key_*
space := $(subst ,, )
INTEG_QUICK = !($(subst $(space),|,$(strip $(INTEG_FULL))))

# The integration tests mostly wait (on their servers, timers, faked
# clocks), so they run two to a CPU: on 2 cores the suite took 250 s one to
# a CPU and 136 s two to a CPU. INTEG_JOBS=N to choose.
INTEG_JOBS ?= $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 1) )))
# The browser test keeps its screenshot of the status page in $(B).
INTEG_ENV = LOCKRUN_BIN=$(abspath $(BIN)) LOCKRUN_DATA=$(abspath tests/data) \
	LOCKRUN_SHIM=$(abspath $(SHIM)) LR_TEST_SCREENSHOT=$(abspath $(B))/status-page.png
integ: $(BIN) $(B)/integ_tests $(SHIM)
	bash tests/integ/tiers.sh $(B)/integ_tests '$(INTEG_FULL)'
	$(INTEG_ENV) LR_TEST_TIER=check $(B)/integ_tests --jobs $(INTEG_JOBS) \
		--filter '$(INTEG_QUICK)'

integ-full: $(BIN) $(B)/integ_tests $(SHIM)
	bash tests/integ/tiers.sh $(B)/integ_tests '$(INTEG_FULL)'
	$(INTEG_ENV) $(B)/integ_tests --jobs $(INTEG_JOBS)

tiers: $(B)/integ_tests
	bash tests/integ/tiers.sh -v $(B)/integ_tests '$(INTEG_FULL)'

# contrib/monitoring: the metrics its dashboard and alert rules read are
# lockrun's, and the rules pass their promtool unit tests.
monitoring:
	sh tests/monitoring/check.sh

# The completions for bash (driven with COMP_WORDS, against the options
# the binary's --help lists), zsh and fish.
completion: $(BIN)
	bash tests/completion/bash.sh $(abspath $(BIN))
	sh tests/completion/zsh-fish.sh


# What users read against what the program does: --help against the man
# pages and completions, exit statuses, the README's walkthrough.
surface: $(BIN)
	sh tests/docs/surface.sh $(BIN)

demo: deps-demo
	$(MAKE) --no-print-directory $(BIN) $(B)/demo
	$(B)/demo $(abspath $(BIN))

bench: deps
	$(MAKE) --no-print-directory $(BIN) $(B)/bench
	$(B)/bench $(abspath $(BIN)) $(BENCH_ONLY)

# Install what is missing: as root with apt-get, else print the command.
# deps-demo: what the build and the demo need, and nothing more;
# deps-lint, deps-check: what make lint and make check need.
deps-demo deps-lint deps-check:
	@$(MAKE) --no-print-directory deps WHAT=$(@:deps-%=%)

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
		echo "make deps: missing what make $(if $(filter full,$(WHAT)),check-full,$(WHAT))" \
			"needs; as root, run:" >&2; \
		echo "    apt-get update && $$cmd" >&2; \
		exit 1; \
	fi

# The examples installed beside the documentation: the config, a crontab,
# a systemd service and timer, a Kubernetes CronJob, a Grafana dashboard
# and Prometheus alert rules with their tests.
EXAMPLES = config.example.yaml contrib/crontab.example contrib/kubernetes-cronjob.yaml \
	contrib/lockrun-nightly-backup.service contrib/lockrun-nightly-backup.timer \
	contrib/monitoring/lockrun-dashboard.json contrib/monitoring/lockrun-alerts.yaml \
	contrib/monitoring/lockrun-alerts.test.yaml \
	contrib/lockrun-cron.service
# A drop-in for lockrun-cron.service, every line commented out, kept in a
# folder named as the one it is copied to. It is an example rather than a
# file under /etc/systemd/system/: that folder is the administrator's
# (systemctl edit writes there, systemctl revert empties it), and a file
# the package put there would show in systemd-delta as a local change.
EXAMPLE_DROPIN = lockrun-cron.service.d/sandbox.conf

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DOCDIR) $(DESTDIR)$(EXAMPLEDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/lockrun
	install -m 644 man/lockrun.1 $(DESTDIR)$(MANDIR)/man1/lockrun.1
	install -m 644 man/lockrun.yaml.5 $(DESTDIR)$(MANDIR)/man5/lockrun.yaml.5
	install -m 644 man/lockrun.7 $(DESTDIR)$(MANDIR)/man7/lockrun.7
	install -m 644 $(EXAMPLES) $(DESTDIR)$(EXAMPLEDIR)
	install -d $(DESTDIR)$(EXAMPLEDIR)/$(dir $(EXAMPLE_DROPIN))
	install -m 644 contrib/$(EXAMPLE_DROPIN) $(DESTDIR)$(EXAMPLEDIR)/$(EXAMPLE_DROPIN)
	install -m 644 contrib/completion/lockrun.bash $(DESTDIR)$(BASHCOMPDIR)/lockrun
	install -m 644 contrib/completion/_lockrun $(DESTDIR)$(ZSHCOMPDIR)/_lockrun
	install -m 644 contrib/completion/lockrun.fish $(DESTDIR)$(FISHCOMPDIR)/lockrun.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lockrun $(DESTDIR)$(DOCDIR)/LICENSE \
		$(DESTDIR)$(MANDIR)/man1/lockrun.1 \
		$(DESTDIR)$(MANDIR)/man5/lockrun.yaml.5 \
		$(DESTDIR)$(MANDIR)/man7/lockrun.7 \
		$(addprefix $(DESTDIR)$(EXAMPLEDIR)/,$(notdir $(EXAMPLES)) $(EXAMPLE_DROPIN)) \
		$(DESTDIR)$(BASHCOMPDIR)/lockrun $(DESTDIR)$(ZSHCOMPDIR)/_lockrun \
		$(DESTDIR)$(FISHCOMPDIR)/lockrun.fish
	-rmdir $(DESTDIR)$(EXAMPLEDIR)/$(dir $(EXAMPLE_DROPIN)) $(DESTDIR)$(EXAMPLEDIR) \
		$(DESTDIR)$(DOCDIR) 2>/dev/null

# The Debian package (debian/), built by dpkg-buildpackage in a copy of
# the tree under build/deb, so that its `make clean` leaves this tree's
# build alone; the .deb, .buildinfo and .changes land in build/deb.
# make deb-check also lints it and checks its contents
# (tests/pkg/check-deb.sh). The packaging tools and the Build-Depends are
# installed for these targets only (make deb-deps, as root); systemd for
# systemd-analyze, which verifies the package's unit.
DEB_TOOLS = dpkg-dev debhelper lintian fakeroot systemd
DEB_SRC = build/deb/lockrun-$(VERSION)

deb-deps:
	@if command -v lintian >/dev/null 2>&1 && command -v dpkg-checkbuilddeps >/dev/null 2>&1 \
		&& command -v systemd-analyze >/dev/null 2>&1 \
		&& dpkg-checkbuilddeps 2>/dev/null; then exit 0; fi; \
	cmd="apt-get install -y --no-install-recommends $(DEB_TOOLS)"; \
	bd="apt-get build-dep -y --no-install-recommends ./"; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "make deb: installing $(DEB_TOOLS) and debian/control's Build-Depends"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$cmd && \
			DEBIAN_FRONTEND=noninteractive $$bd; \
	else \
		echo "make deb: as root, run: apt-get update && $$cmd && $$bd" >&2; exit 1; \
	fi

deb: deb-deps
	rm -rf build/deb && mkdir -p $(DEB_SRC)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
			tar -cf - --null -T - | tar -xf - -C $(DEB_SRC); \
	else \
		tar -cf - --exclude=./build --exclude=./lockrun . | tar -xf - -C $(DEB_SRC); \
	fi
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b -j2
	rm -rf $(DEB_SRC)
	ls build/deb/*.deb

deb-check: deb
	sh tests/pkg/check-deb.sh build/deb

# contrib/Dockerfile.cron's image, built from this tree, by the first of
# docker and podman found that answers (CONTAINER=... to choose); skipped,
# with a message, where none does.
CONTAINER ?= $(firstword $(foreach c,docker podman,$(shell command -v $(c) 2>/dev/null)))
IMAGE ?= lockrun-cron
image:
	@if [ -z "$(CONTAINER)" ] || ! $(CONTAINER) info >/dev/null 2>&1; then \
		echo "make image: skipped: no container engine here (docker or podman," \
			"or CONTAINER=...)" >&2; exit 0; fi; \
	$(CONTAINER) build -f contrib/Dockerfile.cron -t $(IMAGE) .

# The man pages, and cppcheck over src/ as the build sees it. One check is
# off, with its reason: ctuuninitvar takes snprintf()'s destination, a
# field of a struct the callee fills, for a read of that struct.
CPPCHECK = cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability \
	--inline-suppr --suppress=missingIncludeSystem --suppress=ctuuninitvar \
	-D__GNUC__ $(if $(TLS_MOD),-DLR_TLS) $(if $(SQL_MODS),-DLR_SQL) $(if $(WEB_MOD),-DLR_WEB) \
	-Isrc -I$(B) \
	$(filter -I%,$(shell $(PKG_CONFIG) --cflags $(LIB_MODS) $(TLS_MOD) $(SQL_MODS) $(WEB_MOD) 2>/dev/null))
# tests/lint/ checks the tree's rules: from the #include lines (cycles,
# layers, each backend apart, libraries where they belong, file sizes) and
# from the objects' symbols (no cycle the linker sees, no exported symbol
# only its own file uses), one way out (exit() in main.c and forked
# children only), and a row in src/cli/verbs.c for every verb.
lint: deps-lint $(B)/scripts.h $(CORE_OBJS) $(UNIT_SRCS:tests/%.c=$(B)/tests/%.o)
	mandoc -Tlint -Wwarning man/lockrun.1 man/lockrun.yaml.5 man/lockrun.7
	sh tests/lint/tree.sh
	sh tests/lint/exits.sh
	sh tests/lint/verbs.sh
	sh tests/lint/readme.sh
	sh tests/lint/symbols.sh $(B)
	$(CPPCHECK) src/

# The commit-msg hook (tests/lint/commit-msg): subjects of 72 characters
# at most, a blank line before the body.
hooks:
	@hooks=$$(git rev-parse --git-path hooks) && mkdir -p "$$hooks" && \
		cp tests/lint/commit-msg "$$hooks/commit-msg" && \
		echo "make hooks: installed $$hooks/commit-msg"

clean:
	rm -rf build lockrun

-include $(shell find $(B) -name '*.d' 2>/dev/null)
ifneq ($(filter fuzz $(FUZZ_B)/%,$(MAKECMDGOALS)),)
-include $(shell find $(FUZZ_B) -name '*.d' 2>/dev/null)
endif

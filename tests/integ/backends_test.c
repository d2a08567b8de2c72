/* SPDX-License-Identifier: BSD-2-Clause */
/* backends_test.c -- one table of behaviours, run against each backend:
 * Redis, PostgreSQL and MariaDB (MySQL's protocol). Every test below is
 * written once, as a function, and THREE() makes a Test of it for each
 * backend, on its own throwaway server: redis_NAME, pg_NAME, mysql_NAME.
 * Real binary, real servers; what a test looks at (held or free, the
 * history) it asks lockrun itself, so the same assertion holds for each. */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "proxy.h"
#include "sql_fixture.h"

enum backend { BE_REDIS, BE_PG, BE_MYSQL };

static enum backend be;
static struct sql_server srv;
static const char *url;
static const char *pw_env[] = { "LOCKRUN_REDIS_PASSWORD=" SQL_PASSWORD, NULL };

static void
teardown(void)
{
	sql_stop(&srv);
	suite_teardown();
}

/* suite_setup() starts a redis-server: the Redis backend's, and fx.dir,
 * the scratch dir every test uses. */
TestSuite(backends, .init = suite_setup, .fini = teardown, .timeout = 120);

/* The backend's server, and the URL the runs are given. */
static void
use(enum backend b)
{
	be = b;
	if (b == BE_REDIS) {
		url = fx.url;
		return;
	}
	cr_assert(eq(int, sql_start(&srv, b == BE_PG ? SQL_PG : SQL_MYSQL), 0),
	    "%s did not start", sql_name(b == BE_PG ? SQL_PG : SQL_MYSQL));
	url = srv.url;
}

#define THREE(name)							\
	Test(backends, redis_##name) { use(BE_REDIS); name(); }		\
	Test(backends, pg_##name) { use(BE_PG); name(); }		\
	Test(backends, mysql_##name) { use(BE_MYSQL); name(); }

/* The SQL servers' user has a password; the URLs do not hold it. */
static const char *const *
env_with(const char *const *extra)
{
	static const char *env[16];
	size_t n = 0;

	if (be != BE_REDIS)
		env[n++] = pw_env[0];
	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	return env;
}

/* lockrun --url URL ARGS, and lockrun VERB --url URL ARGS. */
#define RUN(res, ...) lr_run_env((res), env_with(NULL),			\
	(const char *const[]){ "--url", url, __VA_ARGS__, NULL })
#define VERB(res, verb, ...) lr_run_env((res), env_with(NULL),		\
	(const char *const[]){ verb, "--url", url, __VA_ARGS__, NULL })
#define START(...) lr_start_env(env_with(NULL),				\
	(const char *const[]){ "--url", url, __VA_ARGS__, NULL })

/* Is key's lock held, as `lockrun status` sees it? */
static int
held(const char *key)
{
	struct result r;

	VERB(&r, "status", "--json", key);
	cr_assert(eq(int, r.status, 0), "status: %s", r.err);
	return strstr(r.out, "\"held\":true") != NULL;
}

/* The events of key's history, newest first, as "EVENT EVENT ...". */
static const char *
events(const char *key, char *buf, size_t n)
{
	struct result r;
	size_t len = 0;

	VERB(&r, "history", "--json", "-n", "50", key);
	cr_assert(eq(int, r.status, 0), "history: %s", r.err);
	buf[0] = '\0';
	for (const char *p = r.out; (p = strstr(p, "\"event\":\"")) != NULL; ) {
		const char *end;

		p += 9;
		if ((end = strchr(p, '"')) == NULL)
			break;
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%.*s",
		    len ? " " : "", (int)(end - p), p);
		p = end;
	}
	return buf;
}

/* How many of the n processes have exited. */
static int
exited(const pid_t *pid, int n)
{
	int dead = 0;

	for (int i = 0; i < n; i++)
		dead += !alive(pid[i]);
	return dead;
}

/* Ten lockruns started together for one key: one runs the command, nine
 * skip; the winner is kept running until all nine have decided. */
static void
ten_racers_run_once(void)
{
	struct gate g;
	pid_t pid[10];
	int ok = 0, skipped = 0;

	gate_open_file(&g, "");		/* each racer that ran appends to it */
	for (int i = 0; i < 10; i++)
		pid[i] = START("-k", "race", "-E", "75", "--", "sh", "-c", gate_sh(&g));
	/* a racer that ran would wait for go: nine gone are nine skips */
	POLL_UNTIL(exited(pid, 10) == 9);
	cr_assert(eq(int, exited(pid, 10), 9), "nine skipped while the tenth runs");
	POLL_UNTIL(file_lines(g.ready) > 0);
	cr_assert(eq(int, file_lines(g.ready), 1), "one command ran");
	gate_release(&g);
	for (int i = 0; i < 10; i++) {
		int st = lr_wait(pid[i]);

		ok += st == 0;
		skipped += st == 75;
	}
	cr_assert(eq(int, ok, 1));
	cr_assert(eq(int, skipped, 9));
	cr_assert(eq(int, file_lines(g.ready), 1));
	cr_assert(eq(int, held("race"), 0), "released");
}
THREE(ten_racers_run_once)

/* A copy still running: the next run skips without running its command,
 * and runs once the first has ended. */
static void
a_held_lock_is_skipped_then_free(void)
{
	const char *mark = scratch("mark");
	char buf[512];
	struct result r;
	struct gate g;
	pid_t first;

	gate_open(&g, "");
	first = START("-k", "job", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	cr_assert(eq(int, held("job"), 1));
	RUN(&r, "-k", "job", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the skipped command did not run");
	RUN(&r, "-k", "job", "--", "touch", mark);
	cr_assert(eq(int, r.status, 0), "a skip exits 0 by default");
	cr_assert(eq(int, access(mark, F_OK), -1));

	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	cr_assert(eq(int, held("job"), 0));
	RUN(&r, "-k", "job", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), 0), "the lock was free again");
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)),
	    "released ran released skipped-held skipped-held ran"));
}
THREE(a_held_lock_is_skipped_then_free)

/* --one-server: a slot runs once, wherever it starts; the next slot runs
 * again. The clock is frozen (libfaketime) at two instants of one slot,
 * then in the next. */
static void
a_slot_runs_once(void)
{
	const char *ran = scratch("ran");
	const double t0 = 1772359200.0;		/* 2026-03-01T10:00:00Z */
	const double at[] = { t0 + 1.5, t0 + 42.0, t0 + 61.0 };
	const int want[] = { 0, 75, 0 };
	char cmd[256], buf[3][128], evbuf[512];
	const char *fake[6];
	struct result r;

	snprintf(cmd, sizeof(cmd), "echo run >> %s", ran);
	for (int i = 0; i < 3; i++) {
		faketime_frozen_env(fake, buf, at[i]);
		lr_run_env(&r, env_with(fake), (const char *const[]){ "--url", url,
		    "--one-server", "--every", "1m", "-k", "slot", "-E", "75", "--", "sh",
		    "-c", cmd, NULL });
		cr_assert(eq(int, r.status, want[i]), "run %d: stderr: %s", i, r.err);
		cr_assert(eq(int, file_lines(ran), i == 0 ? 1 : i), "run %d", i);
	}
	cr_assert(eq(str, (char *)events("slot", evbuf, sizeof(evbuf)),
	    "released ran skipped-slot released ran"));
}
THREE(a_slot_runs_once)

/* SIGTERM to lockrun reaches the command; lockrun exits with the
 * command's status and frees the lock before it exits. */
static void
sigterm_is_forwarded_and_the_lock_released(void)
{
	const char *got = scratch("got");
	char trap[512], buf[512];
	struct gate g;
	pid_t lr;

	gate_open(&g, "");
	snprintf(trap, sizeof(trap), "trap 'echo TERM > %s; exit 3' TERM; ", got);
	lr = START("-k", "term", "--ttl", "1h", "--", "sh", "-c",
	    gate_sh_then(&g, trap, "while :; do sleep 1 & wait $!; done"));
	gate_wait(&g);
	kill(lr, SIGTERM);
	cr_assert(eq(int, lr_wait(lr), 3), "the command's status");
	cr_assert(eq(int, file_lines(got), 1), "the command had SIGTERM");
	cr_assert(eq(int, held("term"), 0), "freed when lockrun exited");
	cr_assert(eq(str, (char *)events("term", buf, sizeof(buf)), "released ran"));
}
THREE(sigterm_is_forwarded_and_the_lock_released)

/* SIGKILL of lockrun: the guard stops the command's whole tree -- this one
 * ignores SIGTERM, so that takes --kill-after -- and only then frees the
 * lock, long before its hour-long lease (the poll's guard is 30 s), and
 * records the run as killed (the history shows the newest 50 entries). A newcomer meanwhile skips: the commands hold
 * a file lock, and a second copy alongside would write OVERLAP. */
static void
sigkill_frees_the_lock_once_the_tree_is_gone(void)
{
	const char *lockf = scratch("job.lock"), *overlap = scratch("overlap");
	char before[512], again[512], buf[512];
	struct result r;
	long long guard = 0;
	struct gate g;
	pid_t lr;
	long sleeper;

	gate_open(&g, "");
	snprintf(before, sizeof(before), "trap '' TERM; exec 9>%s; flock -n 9 || "
	    "echo OVERLAP >> %s; ", lockf, overlap);
	lr = START("-k", "kill", "--ttl", "1h", "--kill-after", "1s", "--", "sh", "-c",
	    gate_sh_child(&g, before));
	sleeper = gate_wait(&g);
	cr_assert(alive((pid_t)sleeper));
	kill(lr, SIGKILL);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGKILL));
	snprintf(again, sizeof(again), "exec 9>%s; flock -n 9 || echo OVERLAP >> %s",
	    lockf, overlap);
	/* bounded poll: runs skip until the tree is gone and the lock freed */
	do
		RUN(&r, "-k", "kill", "-E", "75", "--", "sh", "-c", again);
	while (r.status == 75 && poll_tick(&guard));
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, alive((pid_t)sleeper), 0), "the command's child is gone");
	cr_assert(eq(int, file_lines(overlap), 0), "no two copies at once");
	/* the guard records the kill on a connection of its own, a session
	 * lock's after closing the one that held it: the newcomer's run may
	 * come before it, or around it; and the server lets that session's
	 * lock go only as it notices the close, so newcomers may still be
	 * skipped after the kill is recorded (never run beside the command:
	 * the file lock above says so) */
	cr_assert(matches(events("kill", buf, sizeof(buf)), "^(killed released ran|"
	    "released killed ran|released ran killed|released ran (skipped-held )+killed)"
	    "( |$)"), "history: %s", buf);
}
THREE(sigkill_frees_the_lock_once_the_tree_is_gone)

/* --timeout: the command is stopped, lockrun exits 124, the lock is free
 * and the history says why. */
static void
a_timeout_stops_the_command(void)
{
	char buf[512];
	struct result r;

	RUN(&r, "-k", "slow", "--timeout", "200ms", "--", "sleep", "60");
	cr_assert(eq(int, r.status, 124), "stderr: %s", r.err);
	cr_assert(eq(int, held("slow"), 0));
	cr_assert(eq(str, (char *)events("slow", buf, sizeof(buf)),
	    "stopped-timeout ran"));
}
THREE(a_timeout_stops_the_command)

/* --wait: a run that finds the lock held waits, and runs when it is
 * freed. It has said it waits (its skipped-held entry) before the holder
 * lets go. */
static void
wait_runs_after_the_holder(void)
{
	const char *mark = scratch("mark");
	char buf[512];
	struct gate g;
	pid_t first, waiter;

	gate_open(&g, "");
	first = START("-k", "queue", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	waiter = START("-k", "queue", "--wait", "1h", "--", "touch", mark);
	POLL_UNTIL(strstr(events("queue", buf, sizeof(buf)), "skipped-held") != NULL);
	cr_assert(eq(str, buf, "skipped-held ran"));
	cr_assert(eq(int, access(mark, F_OK), -1), "it waits");
	cr_assert(eq(int, alive(waiter), 1));
	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	cr_assert(eq(int, lr_wait(waiter), 0));
	cr_assert(eq(int, access(mark, F_OK), 0), "it ran after the holder");
	cr_assert(eq(str, (char *)events("queue", buf, sizeof(buf)),
	    "released ran released skipped-held ran"));
}
THREE(wait_runs_after_the_holder)

/* --min-hold: the lock outlives a quick command; `lockrun unlock` frees
 * it, and says so in the history. */
static void
min_hold_keeps_the_lock_until_unlocked(void)
{
	const char *mark = scratch("mark");
	char buf[512];
	struct result r;

	RUN(&r, "-k", "hold", "--min-hold", "1h", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, held("hold"), 1), "held after the command ended");
	RUN(&r, "-k", "hold", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(int, access(mark, F_OK), -1));

	VERB(&r, "unlock", "--yes", "--host", "ops", "hold");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "^key +lockrun:\\{hold\\}\n"), "stdout: %s", r.out);
	cr_assert(matches(r.out, "\nfreed +lockrun:\\{hold\\}\n$"), "stdout: %s", r.out);
	cr_assert(eq(int, held("hold"), 0));
	RUN(&r, "-k", "hold", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), 0));
	cr_assert(eq(str, (char *)events("hold", buf, sizeof(buf)),
	    "released ran unlocked skipped-held released ran"));
}
THREE(min_hold_keeps_the_lock_until_unlocked)

/* `lockrun unlock` of a running holder: at its next keep-alive it finds
 * the lock lost and stops its command; it does not take the lock back. */
static void
unlock_stops_a_running_holder(void)
{
	char err[1024], buf[512];
	struct result r;
	struct gate g;
	pid_t holder;

	gate_open(&g, "");
	holder = START("-k", "run", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 1000"));
	gate_wait(&g);
	VERB(&r, "unlock", "--yes", "--host", "ops", "run");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, be == BE_REDIS ? "\nttl +[0-9]s left \\([0-9]+ms\\)\n" :
	    "\nttl +none: a session lock, held while its holder is connected\n"),
	    "stdout: %s", r.out);
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command got SIGTERM");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{run}")
	    != NULL, "stderr: %s", err);
	cr_assert(eq(int, held("run"), 0), "not taken back");
	cr_assert(eq(str, (char *)events("run", buf, sizeof(buf)), "lost unlocked ran"));
}
THREE(unlock_stops_a_running_holder)

/* A holder frozen mid-run (SIGSTOP) sends no keep-alive: its lock ends
 * with its lease (2 s), and another run takes it -- on Redis as the key
 * expires, on a database as the server ends the idle session
 * (idle_session_timeout, wait_timeout), not hours later. */
static void
a_frozen_holders_lock_ends_with_its_lease(void)
{
	char err[1024];
	struct result r;
	long long guard = 0;
	struct gate g;
	pid_t holder;

	gate_open(&g, "");
	holder = START("-k", "frozen", "--ttl", "2s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 1000"));
	gate_wait(&g);
	kill(holder, SIGSTOP);
	/* bounded poll: a run skips until the lease is over */
	do
		RUN(&r, "-k", "frozen", "-E", "75", "--", "true");
	while (r.status == 75 && poll_tick(&guard));
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	kill(holder, SIGCONT);
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, alive(holder), 0), "the thawed holder found it lost and ended");
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "its command was stopped");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{frozen}")
	    != NULL, "stderr: %s", err);
}
THREE(a_frozen_holders_lock_ends_with_its_lease)

/* `lockrun status` names the holder while it runs, and the last run's
 * end after; `lockrun check` reaches the server and the records. */
static void
status_and_check_see_the_run(void)
{
	struct result r;
	struct gate g;
	pid_t lr;

	gate_open(&g, "");
	lr = START("--host", "alpha", "-k", "seen", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	VERB(&r, "status", "--json", "seen");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "\"held\":true") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"host\":\"alpha\"") != NULL, "%s", r.out);
	/* the TTL column: a session lock has none, a lease what is left */
	VERB(&r, "status", "seen");
	cr_assert(matches(r.out, be == BE_REDIS ? "\nseen +held +alpha:[0-9]+ +[-0-9T:Z]+ "
	    "+[0-9a-z]+ +[0-9]+s +" : "\nseen +held +alpha:[0-9]+ +[-0-9T:Z]+ +[0-9a-z]+ "
	    "+session +"), "%s", r.out);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
	VERB(&r, "status", "--json", "seen");
	cr_assert(strstr(r.out, "\"held\":false") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"event\":\"released\"") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"status\":0") != NULL, "%s", r.out);

	VERB(&r, "check", "-k", "seen", "--", "true");
	cr_assert(eq(int, r.status, 0), "stdout: %s stderr: %s", r.out, r.err);
	cr_assert(strstr(r.out, ": reachable\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "types and permissions ok") != NULL, "%s", r.out);
}
THREE(status_and_check_see_the_run)

/*
 * A database restart under a running job: the holder's session lock went
 * with the old server, and lockrun, watching its connection, finds it lost
 * at once and stops the command. A newcomer started at once waits out the
 * old lease (or until the old holder deleted its row) and runs after it --
 * never while the first command runs. The commands hold
 * a file lock; a second copy alongside would write OVERLAP.
 */
static void
restart(enum sql_kind k)
{
	const char *lockf = scratch("job.lock"), *overlap = scratch("overlap");
	const char *ran = scratch("ran");
	char script[512], err[1024], buf[512];
	struct result r;
	long long guard = 0;
	struct gate g;
	pid_t first;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	gate_open(&g, "");
	snprintf(script, sizeof(script), "exec 9>%s; flock -n 9 || echo OVERLAP >> %s; "
	    "echo $$ >> %s; ", lockf, overlap, ran);
	first = START("-k", "db", "--ttl", "6s", "--", "sh", "-c",
	    gate_sh_then(&g, script, "while :; do sleep 1 & wait $!; done"));
	gate_wait(&g);
	cr_assert(eq(int, sql_restart(&srv), 0));

	/* bounded poll: the holder notices at its next keep-alive */
	POLL_UNTIL(!alive(first));
	cr_assert(eq(int, lr_wait(first), 128 + SIGTERM), "the command was stopped");
	cr_assert(strstr(lr_stderr_of(first, err, sizeof(err)), "LOST LOCK") != NULL,
	    "stderr: %s", err);
	snprintf(script, sizeof(script), "exec 9>%s; flock -n 9 || echo OVERLAP >> %s; "
	    "echo $$ >> %s", lockf, overlap, ran);
	/* bounded poll: a newcomer runs once the old lease is over */
	do
		RUN(&r, "-k", "db", "-E", "75", "--", "sh", "-c", script);
	while (r.status == 75 && poll_tick(&guard));
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(ran), 2));
	cr_assert(eq(int, file_lines(overlap), 0), "no two copies at once");
	/* the holder sees its session end at once, while the server may still
	 * be down: its end is recorded (lost) only if it could connect again
	 * by the time its command was gone; else newcomers wait out its lease */
	cr_assert(matches(events("db", buf, sizeof(buf)), "^released ran( skipped-held)*"
	    "( lost)?( ran)?$"), "history: %s", buf);
}

Test(backends, pg_a_database_restart_stops_the_command) { restart(SQL_PG); }
Test(backends, mysql_a_database_restart_stops_the_command) { restart(SQL_MYSQL); }

/* A host without the client library: one line naming the Debian package
 * to install, exit 69, and no command run. The fault shim makes dlopen()
 * of that one library fail as the loader does when it is not there. */
static void
missing_library(enum sql_kind k, const char *lib, const char *pkg)
{
	const char *mark = scratch("mark");
	char buf[3][256], missing[64], want[256];
	const char *shim[6] = { 0 };
	struct result r;
	size_t i;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	shim_env(shim, buf, NULL, NULL);
	snprintf(missing, sizeof(missing), "LOCKRUN_SHIM_DLOPEN_MISSING=%s", lib);
	for (i = 0; shim[i] != NULL; i++)
		;
	shim[i] = missing;
	lr_run_env(&r, env_with(shim), (const char *const[]){ "--url", url, "-k", "lib",
	    "--", "touch", mark, NULL });
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	snprintf(want, sizeof(want), "^lockrun: [a-z]+://: cannot load %s \\(Debian: "
	    "apt-get install %s\\): [^\n]*No such file or directory\n$", lib, pkg);
	cr_assert(matches(r.err, want), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command did not run");
}

Test(backends, pg_a_missing_libpq_is_named) { missing_library(SQL_PG, "libpq.so.5", "libpq5"); }
Test(backends, mysql_a_missing_libmariadb_is_named)
{
	missing_library(SQL_MYSQL, "libmariadb.so.3", "libmariadb3");
}

/* A password in a PostgreSQL URL's query (libpq takes password=) is
 * lockrun's, as one before the '@' is: $LOCKRUN_URL does not reach the
 * command with it. */
Test(backends, pg_a_password_in_the_url_query_stays_out_of_the_command)
{
	char var[400];
	const char *env[] = { var, NULL };
	struct result r;

	use(BE_PG);
	snprintf(var, sizeof(var), "LOCKRUN_URL=%s?password=%s", srv.url, SQL_PASSWORD);
	lr_run_env(&r, env, (const char *const[]){ "-k", "pw", "--", "sh", "-c",
	    "env | grep -c " SQL_PASSWORD "; true", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "0\n"), "the command saw it");
}

/* A database URL in the config that cannot be read is a config error at
 * its place, exit 78, and nothing runs: a MySQL one is read with the
 * config, a PostgreSQL one by libpq when the backend is set up. */
Test(backends, a_bad_database_url_in_the_config_is_named_at_its_place)
{
	static const char *const bad[][2] = {
		{ "mysql://u@127.0.0.1:99999/db", "mysql://: port must be a number" },
		{ "postgres://u@[::1/db", "postgres URL: end of string reached" },
	};
	const char *mark = scratch("mark"), *path = scratch("bad.yaml");
	char want[300];
	struct result r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *fp = fopen(path, "w");

		cr_assert(fp != NULL);
		fprintf(fp, "prefix: \"lr:\"\nurl: \"%s\"\n", bad[i][0]);
		fclose(fp);
		lr_run_env(&r, pw_env, (const char *const[]){ "-c", path, "-k", "x", "--",
		    "touch", mark, NULL });
		cr_assert(eq(int, r.status, 78), "%s: stderr: %s", bad[i][0], r.err);
		snprintf(want, sizeof(want), "^lockrun: %s:2:6: url: %s", path, bad[i][1]);
		cr_assert(matches(r.err, want), "stderr: %s", r.err);
		cr_assert(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s",
		    r.err);
		cr_assert(eq(int, access(mark, F_OK), -1), "nothing ran");
	}
}

/* Over the server's unix socket, with the password from --password-file:
 * a run and a skip. */
static void
socket_and_password_file(enum sql_kind k)
{
	const char *pwf = scratch("pw");
	const char *args[] = { "--url", NULL, "--password-file", pwf, "-k", "sock", "-E",
	    "75", "--", "true", NULL };
	struct result r;
	struct gate g;
	FILE *fp;
	pid_t first;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	gate_open(&g, "");
	args[1] = srv.sock_url;
	fp = fopen(pwf, "w");
	cr_assert(fp != NULL);
	fprintf(fp, "%s\n", SQL_PASSWORD);
	fclose(fp);
	cr_assert(eq(int, chmod(pwf, 0600), 0), "lockrun refuses a file others can read");
	first = lr_start_env(NULL, (const char *const[]){ "--url", srv.sock_url,
	    "--password-file", pwf, "-k", "sock", "--", "sh", "-c", gate_sh(&g), NULL });
	gate_wait(&g);
	lr_run_env(&r, NULL, args);
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	lr_run_env(&r, NULL, args);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
}

Test(backends, pg_over_the_socket_with_a_password_file) { socket_and_password_file(SQL_PG); }
Test(backends, mysql_over_the_socket_with_a_password_file)
{
	socket_and_password_file(SQL_MYSQL);
}

/* Rows past their expiry go as a side effect of other runs: a task's
 * history and last-run rows (--history-ttl 1s here) are gone once later
 * runs of another task have pruned them. */
static void
expired_rows_are_pruned(enum sql_kind k)
{
	const char *count =
	    "SELECT (SELECT count(*) FROM lockrun_history WHERE k LIKE '%{old}%') + "
	    "(SELECT count(*) FROM lockrun_last WHERE k LIKE '%{old}%')";
	char out[64];
	struct result r;
	long long guard = 0;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	RUN(&r, "-k", "old", "--history-ttl", "1s", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, sql_admin(&srv, count, out, sizeof(out)), 0));
	cr_assert(eq(int, atoi(out), 3), "ran, released and the last run: %s", out);
	/* bounded poll: runs of another task, until the old rows are gone */
	do {
		RUN(&r, "-k", "new", "--", "true");
		cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
		cr_assert(eq(int, sql_admin(&srv, count, out, sizeof(out)), 0));
	} while (atoi(out) > 0 && poll_tick(&guard));
	cr_assert(eq(int, atoi(out), 0), "left: %s", out);
}

Test(backends, pg_expired_rows_are_pruned) { expired_rows_are_pruned(SQL_PG); }
Test(backends, mysql_expired_rows_are_pruned) { expired_rows_are_pruned(SQL_MYSQL); }

/* `lockrun check` against a MariaDB user that may create the tables but
 * not DELETE from them: the tables are made (as a first run would), and
 * each is named for the missing privilege -- not as missing. */
Test(backends, mysql_check_names_a_missing_privilege_on_each_table)
{
	char limited[200];
	struct result r;

	use(BE_MYSQL);
	cr_assert(eq(int, sql_admin(&srv, "CREATE DATABASE lr_limited; "
	    "CREATE USER 'limited'@'%' IDENTIFIED BY '" SQL_PASSWORD "'; "
	    "GRANT SELECT, INSERT, UPDATE, CREATE ON lr_limited.* TO 'limited'@'%'",
	    NULL, 0), 0));
	snprintf(limited, sizeof(limited), "mysql://limited@127.0.0.1:%d/lr_limited", srv.port);
	lr_run_env(&r, pw_env, (const char *const[]){ "check", "--url", limited, "-k", "t",
	    "--", "true", NULL });
	cr_assert(eq(int, r.status, 69), "stdout: %s stderr: %s", r.out, r.err);
	cr_assert(matches(r.err, "^lockrun: mysql [^ ]+: table lockrun_keys: permission "
	    "denied for DELETE\nlockrun: mysql [^ ]+: table lockrun_history: permission "
	    "denied for DELETE\nlockrun: mysql [^ ]+: table lockrun_last: permission "
	    "denied for DELETE\n$"), "stderr: %s", r.err);
}

/*
 * A keep-alive answered late -- its UPDATE waits behind another session's
 * row lock for 5 s, past the 500ms command timeout -- is waited for, not
 * taken for a lost session: closing the connection would end the session
 * and free the lock. The lease (12 s, renewed every 4 s) outlasts the wait
 * however the 5 s fall between renewals, so the job runs to its end.
 * PostgreSQL only: libmariadb reads an answer it has begun (the renewal's
 * first statements answer at once) within its own read timeout, the
 * command timeout in whole seconds, and drops the connection past it.
 */
Test(backends, pg_a_slow_keepalive_is_waited_for)
{
	const char *hold =
	    "BEGIN; SELECT 1 FROM lockrun_keys WHERE k = 'lockrun:{slow}' FOR UPDATE; "
	    "SELECT pg_sleep(5); COMMIT;";
	char err[2048], buf[512];
	struct gate g;
	pid_t holder, locker;
	int st;

	use(BE_PG);
	gate_open(&g, "");
	holder = START("-k", "slow", "--ttl", "12s", "--command-timeout", "500ms",
	    "--kill-after", "1s", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	if ((locker = fork()) == 0)
		_exit(sql_admin(&srv, hold, NULL, 0) == 0 ? 0 : 1);
	cr_assert(locker > 0);
	POLL_UNTIL(strstr(lr_stderr_of(holder, err, sizeof(err)), "renew-slow") != NULL ||
	    strstr(err, "no answer within") != NULL);
	cr_assert(strstr(err, "no answer within 500ms; waiting for it while the lease "
	    "lasts") != NULL, "stderr: %s", err);
	cr_assert(eq(int, waitpid(locker, &st, 0), locker));
	cr_assert(eq(int, st, 0), "the row lock was held and let go");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(holder), 0), "stderr: %s",
	    lr_stderr_of(holder, err, sizeof(err)));
	cr_assert(strstr(err, "LOST LOCK") == NULL, "stderr: %s", err);
	cr_assert(eq(str, (char *)events("slow", buf, sizeof(buf)), "released ran"));
}

/* A slot key given in full to `lockrun unlock`: freed, and its history
 * entry names the slot, as each backend reads it from the key's stamp. */
static void
unlock_of_a_slot_key_names_the_slot(void)
{
	const double t0 = 1772359200.0;		/* 2026-03-01T10:00:00Z */
	char buf[3][128];
	const char *fake[6];
	struct result r;

	faketime_frozen_env(fake, buf, t0 + 5);
	lr_run_env(&r, env_with(fake), (const char *const[]){ "--url", url, "--one-server",
	    "--every", "1h", "--no-overlap", "-k", "hourly", "--", "true", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	VERB(&r, "unlock", "--yes", "lockrun:{hourly}:slot:20260301T1000Z");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "\nfreed +lockrun:\\{hourly\\}:slot:20260301T1000Z\n"),
	    "stdout: %s", r.out);
	VERB(&r, "history", "--json", "-n", "1", "hourly");
	cr_assert(matches(r.out, "\"event\":\"unlocked\".*\"slot\":\"2026-03-01T10:00:00Z\""),
	    "%s", r.out);
}
THREE(unlock_of_a_slot_key_names_the_slot)

/*
 * The lease decides on a database too. A holder whose session ends while
 * its host stays up -- the server ends it (pg_terminate_backend(), KILL)
 * or a proxy in between is cut -- notices at once and stops its command;
 * newcomers started meanwhile skip while its lease row lives, and run once
 * it is gone. The commands hold a file lock for their whole tree (exec
 * keeps fd 9); a newcomer that ran beside the holder's command would find
 * it held and write OVERLAP. At least 20 newcomers, then on until one runs.
 */
static void
newcomers_never_overlap(const char *lockf, const char *overlap)
{
	char again[512];
	struct result r;
	long long guard = 0;
	int starters = 0;

	snprintf(again, sizeof(again), "exec 9>%s; flock -n 9 || echo OVERLAP >> %s",
	    lockf, overlap);
	/* bounded poll: newcomers skip until the holder's lease row is gone */
	do {
		RUN(&r, "-k", "sess", "-E", "75", "--", "sh", "-c", again);
		starters++;
	} while ((starters < 20 || r.status == 75) && poll_tick(&guard));
	cr_assert(eq(int, file_lines(overlap), 0), "a newcomer ran beside the holder's "
	    "command");
	cr_assert(eq(int, r.status, 0), "one ran in the end; stderr: %s", r.err);
}

/* The job, through g: holds the file lock for its whole tree; ignore_term
 * makes stopping it take --kill-after. */
static const char *
flock_job(struct gate *g, int ignore_term, const char *lockf, const char *overlap)
{
	char before[512];

	snprintf(before, sizeof(before), "%sexec 9>%s; flock -n 9 || echo OVERLAP >> %s; ",
	    ignore_term ? "trap '' TERM; " : "", lockf, overlap);
	return gate_sh_then(g, before, "exec sleep 600");
}

/* End the session that holds the stable key's lock, as an admin would:
 * PostgreSQL's holder of the advisory lock (the only one taken), MariaDB's
 * of the GET_LOCK. */
static void
end_holders_session(enum sql_kind k, const char *stable)
{
	char sql[256], out[64];

	if (k == SQL_PG) {
		cr_assert(eq(int, sql_admin(&srv, "SELECT count(pg_terminate_backend(pid)) "
		    "FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted",
		    out, sizeof(out)), 0));
		cr_assert(eq(str, out, "1\n"), "one session terminated");
		return;
	}
	snprintf(sql, sizeof(sql), "SELECT IS_USED_LOCK('%s')", stable);
	cr_assert(eq(int, sql_admin(&srv, sql, out, sizeof(out)), 0));
	cr_assert(atoi(out) > 0, "the holder's connection: %s", out);
	snprintf(sql, sizeof(sql), "KILL %d", atoi(out));
	cr_assert(eq(int, sql_admin(&srv, sql, NULL, 0), 0));
}

static void
session_ended_by_the_server(enum sql_kind k)
{
	const char *lockf = scratch("job.lock"), *overlap = scratch("overlap");
	char err[2048];
	struct gate g;
	pid_t holder;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	gate_open(&g, "");
	/* an hour's lease: newcomers can run soon only after the holder let go */
	holder = START("-k", "sess", "--ttl", "1h", "--", "sh", "-c",
	    flock_job(&g, 0, lockf, overlap));
	gate_wait(&g);
	end_holders_session(k, "lockrun:{sess}");
	newcomers_never_overlap(lockf, overlap);
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command was stopped");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{sess}")
	    != NULL, "stderr: %s", err);
}

Test(backends, pg_a_terminated_session_stops_the_command_and_newcomers_wait)
{
	session_ended_by_the_server(SQL_PG);
}
Test(backends, mysql_a_killed_session_stops_the_command_and_newcomers_wait)
{
	session_ended_by_the_server(SQL_MYSQL);
}

/* The same through a proxy that is cut: the holder cannot reach the
 * server again to free its row, so newcomers wait out its lease (3 s),
 * and must not find its command still running then. */
static void
session_cut_by_a_proxy(enum sql_kind k)
{
	const char *lockf = scratch("job.lock"), *overlap = scratch("overlap");
	char err[2048], purl[128];
	struct proxy p;
	struct gate g;
	pid_t holder;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	gate_open(&g, "");
	cr_assert(eq(int, proxy_start(&p, srv.port), 0));
	snprintf(purl, sizeof(purl), "%s://lockrun@127.0.0.1:%d/lockrun",
	    k == SQL_PG ? "postgres" : "mysql", p.port);
	holder = lr_start_env(env_with(NULL), (const char *const[]){ "--url", purl, "-k",
	    "sess", "--ttl", "3s", "--", "sh", "-c", flock_job(&g, 0, lockf, overlap), NULL });
	gate_wait(&g);
	proxy_cut(&p);
	newcomers_never_overlap(lockf, overlap);
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command was stopped");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{sess}")
	    != NULL, "stderr: %s", err);
}

Test(backends, pg_a_cut_connection_stops_the_command_and_newcomers_wait)
{
	session_cut_by_a_proxy(SQL_PG);
}
Test(backends, mysql_a_cut_connection_stops_the_command_and_newcomers_wait)
{
	session_cut_by_a_proxy(SQL_MYSQL);
}

/* `lockrun unlock` of a running holder leaves a tombstone: newcomers skip
 * while the holder, told at its next keep-alive, stops its command -- one
 * that ignores SIGTERM, so that takes --kill-after -- and run once its
 * release has deleted the tombstone. */
static void
unlock_waits_for_the_holder_to_stop(enum sql_kind k)
{
	const char *lockf = scratch("job.lock"), *overlap = scratch("overlap");
	char err[2048];
	struct result r;
	struct gate g;
	pid_t holder;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	gate_open(&g, "");
	holder = START("-k", "sess", "--ttl", "6s", "--kill-after", "2s", "--", "sh", "-c",
	    flock_job(&g, 1, lockf, overlap));
	gate_wait(&g);
	VERB(&r, "unlock", "--yes", "--host", "ops", "sess");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	newcomers_never_overlap(lockf, overlap);
	cr_assert(matches(r.out, "\ntold    [^ ]+ pid [0-9]+ to stop; lockrun:\\{sess\\} stays "
	    "held until it has\n"), "stdout: %s", r.out);
	cr_assert(eq(int, lr_wait(holder), 128 + SIGKILL), "the command was killed");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{sess}")
	    != NULL, "stderr: %s", err);
}

Test(backends, pg_unlock_of_a_running_holder_waits_for_it_to_stop)
{
	unlock_waits_for_the_holder_to_stop(SQL_PG);
}
Test(backends, mysql_unlock_of_a_running_holder_waits_for_it_to_stop)
{
	unlock_waits_for_the_holder_to_stop(SQL_MYSQL);
}

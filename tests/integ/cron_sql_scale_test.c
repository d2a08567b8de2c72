/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_sql_scale_test.c -- lockrun cron at a fleet's size on PostgreSQL
 * and MariaDB (issue 30): the runs' locks are held by the scheduler's one
 * session, so a server that takes 20 connections runs 60 tasks due at
 * once; and when that session is ended under the scheduler
 * (pg_terminate_backend(), KILL), every run stops its command before its
 * lease ends, and the tasks' next runs start only then: never two copies
 * of a task's command at once (each holds a flock of its own). */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */

/* The server of kind b taking max connections in all (0: the fixture's). */
static void
sql_with(enum backend b, int max)
{
	use(b);
	srv.max_connections = max;
	cr_assert(eq(int, sql_restart(&srv), 0), "%s did not start again", sql_name(srv.kind));
}

TestSuite(cron_sql_scale, .init = suite_setup, .fini = backends_teardown, .timeout = 200);

/* The sessions user lockrun holds now (the asking one is the admin's). */
static int
sessions(void)
{
	char out[64];

	if (sql_admin(&srv, be == BE_PG ? "SELECT count(*) FROM pg_stat_activity WHERE "
	    "usename = 'lockrun'" : "SELECT count(*) FROM information_schema.processlist "
	    "WHERE user = 'lockrun'", out, sizeof(out)) != 0)
		return -1;
	return atoi(out);
}

/* The scheduler's session, its first: its pid or connection id, or 0. */
static int
scheduler_session(void)
{
	char out[64];

	if (sql_admin(&srv, be == BE_PG ? "SELECT pid FROM pg_stat_activity WHERE "
	    "usename = 'lockrun' ORDER BY backend_start LIMIT 1" : "SELECT id FROM "
	    "information_schema.processlist WHERE user = 'lockrun' ORDER BY id LIMIT 1",
	    out, sizeof(out)) != 0)
		return 0;
	return atoi(out);
}

/* A server with max_connections = 20, 60 tasks due at once, each
 * running 25 s, a starting_deadline of 15 s: all 60 run in their slot,
 * their locks in the scheduler's session. (Each run with a session of its
 * own, those past the server's 20 were refused, again at each retry while
 * the first ran, and their slots were missed.) */
static void
max_connections_20_and_60_tasks_due_at_once_all_run(enum backend b)
{
	char logbuf[256], cmd[512];
	const char *log;
	long long guard = 0;
	pid_t cron;
	int peak = 0, step = 0;

	sql_with(b, 20);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; exec sleep 25", log);
	cron = cron_server_at(0, tasks_config(url, 60, "  starting_deadline: 15s\n", cmd),
	    T_1200 - 2, pw_env[0]);
	/* the starts take a while on a loaded machine: 30 s and more */
	for (int i = 0; i < 3 && lines_matching(log, "^t[0-9]+$") < 60; i++, guard = 0)
		while (lines_matching(log, "^t[0-9]+$") < 60 && poll_tick(&guard))
			if (step++ % 20 == 0 && sessions() > peak)
				peak = sessions();
	if (sessions() > peak)
		peak = sessions();
	kill(cron, SIGTERM);
	cr_assert(eq(int, lr_wait(cron), 0));
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), 60), "%s\nthe scheduler said:\n%s",
	    file_peek(log), lr_stderr_of(cron, (char[65536]){ 0 }, 65536));
	cr_assert(le(int, peak, 2), "%d sessions", peak);
}

Test(cron_sql_scale, pg_max_connections_20_and_60_tasks_due_at_once_all_run)
{
	max_connections_20_and_60_tasks_due_at_once_all_run(BE_PG);
}

Test(cron_sql_scale, mysql_max_connections_20_and_60_tasks_due_at_once_all_run)
{
	max_connections_20_and_60_tasks_due_at_once_all_run(BE_MYSQL);
}

/* How many of the ten tasks' locks are held, as status sees them. */
static int
locks_held(void)
{
	int n = 0;

	for (int i = 0; i < 10; i++) {
		char key[8];

		snprintf(key, sizeof(key), "t%02d", i);
		n += held(key);
	}
	return n;
}

/* Ten runs in progress, their locks in the scheduler's session, which the
 * server ends (pg_terminate_backend(), KILL): each run learns at its next
 * renewal, over a new session, that its lock is gone, and stops its
 * command; once the rows' leases end, a second scheduler's runs of the
 * next minute start, all ten; no two copies of a task ever ran at once. */
static void
the_schedulers_session_ended_stops_its_runs_before_newcomers(enum backend k)
{
	char logbuf[256], pidbuf[256], cmd[2048], sql[128];
	const char *log, *pids, *cfg;
	pid_t a, b;
	int pid;

	sql_with(k, 0);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	snprintf(pidbuf, sizeof(pidbuf), "%s", scratch("pids"));
	log = logbuf;
	pids = pidbuf;
	snprintf(cmd, sizeof(cmd), "exec 9>%s.%%1$s; flock -n 9 || { echo overlap %%1$s >> %s; "
	    "exit 1; }; echo $$ >> %s; echo start %%1$s >> %s; exec sleep 120", log, log, pids,
	    log);
	cfg = tasks_config(url, 10, "  ttl: 6s\n  starting_deadline: 30s\n", cmd);
	a = cron_server_at(0, cfg, T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^start ") >= 10);
	cr_assert(eq(int, lines_matching(log, "^start "), 10), "%s", file_peek(log));
	cr_assert(gt(int, pid = scheduler_session(), 0));
	snprintf(sql, sizeof(sql), k == BE_PG ? "SELECT pg_terminate_backend(%d)" :
	    "KILL %d", pid);
	cr_assert(eq(int, sql_admin(&srv, sql, NULL, 0), 0));
	POLL_UNTIL(alive_in(pids) == 0);
	cr_assert(eq(int, alive_in(pids), 0), "a command outlived its lock");
	POLL_UNTIL(locks_held() == 0);
	b = cron_server_at(1, cfg, T_1200 + 60 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^start ") >= 20);
	kill(b, SIGTERM);
	cr_assert(eq(int, lr_wait(b), 0));
	kill(a, SIGTERM);
	cr_assert(eq(int, lr_wait(a), 0));
	cr_assert(eq(int, lines_matching(log, "^start "), 20), "%s\nthe scheduler said:\n%s",
	    file_peek(log), lr_stderr_of(a, (char[16384]){ 0 }, 16384));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
}

Test(cron_sql_scale, pg_the_schedulers_session_ended_stops_its_runs_before_newcomers)
{
	the_schedulers_session_ended_stops_its_runs_before_newcomers(BE_PG);
}

Test(cron_sql_scale, mysql_the_schedulers_session_ended_stops_its_runs_before_newcomers)
{
	the_schedulers_session_ended_stops_its_runs_before_newcomers(BE_MYSQL);
}

/* The server's transaction counter: each transaction that writes takes
 * the next id (this one too), so two readings tell how many wrote in
 * between, at once (pg_stat_database's xact_commit lags by up to 10 s,
 * and counts the starts' statements late into the window). */
static long long
xids(void)
{
	char out[64];

	cr_assert(eq(int, sql_admin(&srv, "SELECT pg_current_xact_id()::text", out,
	    sizeof(out)), 0), "%s", sql_last_error());
	return atoll(out);
}

/* Busy loops, one a CPU, niced a little (so that the tests running beside
 * this one are slowed, not starved): the scheduler renews its leases on
 * a machine with no idle core. Returns the group to kill. */
static pid_t
hog_start(void)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", "for i in $(seq $(nproc)); do nice -n 5 sh -c "
		    "'while :; do :; done' & done; wait", (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

/* The runs of tasks t00.. that wrote their name to log, and the starts
 * scheduler cron said did not run, and why (report.c: missed, skipped,
 * not claimed). */
static int
started(const char *log, pid_t cron)
{
	return lines_matching(log, "^t[0-9]+$") + stderr_matching(cron, "^lockrun: t[0-9]+ "
	    "[^ ]+: (missed|skipped|not claimed)");
}

/* Each of the n tasks ran, or the scheduler said why not: a start lost
 * without a word fails. (On a loaded CI under ASan one of 300 starts was
 * missing twice; the scheduler's first 16 KB of lines did not say which,
 * nor why: the log says now.) */
static void
unstarted_said(const char *log, pid_t cron, int n)
{
	char re[64], err[16384];
	int gone = 0;

	for (int t = 0; t < n; t++) {
		snprintf(re, sizeof(re), "^t%02d$", t);
		if (lines_matching(log, re) == 1)
			continue;
		gone++;
		snprintf(re, sizeof(re), "^lockrun: t%02d [^ ]+: (missed|skipped|not claimed)", t);
		if (stderr_matching(cron, re) == 1)
			continue;
		snprintf(re, sizeof(re), "(^| )t%02d[: ]", t);
		cr_fatal("t%02d neither ran nor was said given up; the scheduler's lines "
		    "on it:\n%s", t, stderr_lines(cron, re, err, sizeof(err)));
	}
	cr_log_info("%d of %d started (the others said why not)", n - gone, n);
	for (int t = 0, shown = 0; t < n && shown < 5; t++) {
		snprintf(re, sizeof(re), "^t%02d$", t);
		if (lines_matching(log, re) == 1)
			continue;
		snprintf(re, sizeof(re), "(^| )t%02d[: ]", t);
		cr_log_info("t%02d did not run:\n%s", t, stderr_lines(cron, re, err,
		    sizeof(err)));
		shown++;
	}
}

/* 300 runs of one scheduler on PostgreSQL with max_connections 20, each
 * with a ttl of 6s, every CPU busy: their leases are renewed in one
 * batch a renewal period (one transaction, one round trip), and no lease
 * is lost. (One statement a lease: 300 transactions a period, in 300
 * round trips that a busy machine stretched past the leases.) The tasks
 * are hourly and their runs long, so that starts slowed down (ASan, a
 * loaded CI) neither meet the next fire time nor see the first runs end
 * before the last has started. */
Test(cron_sql_scale, pg_300_leases_renew_in_one_transaction_a_period, .timeout = 330)
{
	enum { TASKS = 300 };
	char logbuf[256], cmd[1024], err[16384];
	long long c0, c1, guard = 0;
	const char *log;
	pid_t cron, hog;

	sql_with(BE_PG, 20);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; exec sleep 300", log);
	cron = cron_server_at(0, tasks_config_on(url, TASKS, "0 * * * *", "  ttl: 6s\n"
	    "  starting_deadline: 5m\n", cmd), T_1200 - 2, pw_env[0]);
	/* 300 starts take a while, longer under ASan: a minute and more, and
	 * past 150 s on a loaded CI, whose renewal batches (300 leases) the
	 * loop waits for between starts */
	for (int i = 0; i < 8 && started(log, cron) < TASKS; i++, guard = 0)
		while (started(log, cron) < TASKS && poll_tick(&guard))
			;
	unstarted_said(log, cron, TASKS);

	/* three renewal periods (ttl/3) on a busy machine */
	hog = hog_start();
	c0 = xids();
	pace_ms(6000);
	c1 = xids() - 1;	/* less the reading's own */
	kill(-hog, SIGKILL);
	waitpid(hog, NULL, 0);
	lr_stderr_of(cron, err, sizeof(err));
	cron_stop(cron);
	cr_log_info("%lld transactions in 6 s for %d leases", c1 - c0, TASKS);
	cr_assert(eq(ptr, strstr(err, "LOST"), NULL), "%s", err);
	cr_assert(le(i64, c1 - c0, 15), "%lld transactions in three renewal periods",
	    c1 - c0);
}

/* n tasks due at once on backend k, with the task settings defaults,
 * each run writing its name to log[256], sleeping run_s, then "end" and
 * its name; once all have started, the trigger on the leases' rows that
 * sql makes. Returns the scheduler, to stop; err[n] for its stderr. */
static pid_t
runs_then_trigger(enum backend k, int n, const char *defaults, int run_s, const char *sql,
    char log[256], char *err, size_t errn)
{
	char cmd[1024];
	pid_t cron;

	use(k);
	snprintf(log, 256, "%s", scratch("runs.log"));
	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; sleep %d; echo end %%1$s >> %s", log,
	    run_s, log);
	cron = cron_server_at(0, tasks_config(url, n, defaults, cmd), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") >= n);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), n), "%s",
	    lr_stderr_of(cron, err, errn));
	cr_assert(eq(int, sql_admin(&srv, sql, NULL, 0), 0), "%s", sql_last_error());
	return cron;
}

/* One lease whose renewal the server refuses (a trigger on its row, as a
 * bad row or a DBA's rule would): the batch it was in is undone, and
 * goes again one statement at a time (PostgreSQL), or goes on past it in
 * the next exchange (MariaDB: the leases answered before it stand), so
 * the other runs keep their leases and end as they would; only that one
 * loses its lease. The ttl leaves room for a loaded machine: with 6s,
 * under ASan on CI with other tests beside it, the renewals of all ten
 * came too late once (each said "no answer", then "answers again"). */
static void
a_renewal_refused_costs_its_own_lease_only(enum backend k, const char *trigger)
{
	enum { TASKS = 10 };
	char log[256], err[16384];
	pid_t cron = runs_then_trigger(k, TASKS, "  ttl: 15s\n", 12, trigger, log, err,
	    sizeof(err));

	POLL_UNTIL(lines_matching(log, "^end t[0-9]+$") >= TASKS - 1);
	cron_stop(cron);
	lr_stderr_of(cron, err, sizeof(err));
	cr_assert(eq(int, lines_matching(log, "^end t[0-9]+$"), TASKS - 1), "%s", err);
	cr_assert(eq(int, lines_matching(log, "^end t05$"), 0), "t05 ran on without its "
	    "lease: %s", err);
	cr_assert(matches(err, "t05[^\n]*LOST LOCK"), "%s", err);
	cr_assert(eq(int, matches(err, "t0[0-46-9][^\n]*LOST"), 0), "%s", err);
}

Test(cron_sql_scale, pg_a_renewal_refused_costs_its_own_lease_only)
{
	a_renewal_refused_costs_its_own_lease_only(BE_PG, "CREATE FUNCTION no_t05() "
	    "RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.k = 'lockrun:{t05}' THEN "
	    "RAISE EXCEPTION 'not t05'; END IF; RETURN NEW; END $$; CREATE TRIGGER no_t05 "
	    "BEFORE UPDATE ON lockrun_keys FOR EACH ROW EXECUTE FUNCTION no_t05()");
}

/* (v is NOT NULL: strict mode refuses the update, with no statement
 * body the client would split at its semicolons.) */
Test(cron_sql_scale, mysql_a_renewal_refused_costs_its_own_lease_only)
{
	a_renewal_refused_costs_its_own_lease_only(BE_MYSQL, "CREATE TRIGGER no_t05 BEFORE "
	    "UPDATE ON lockrun_keys FOR EACH ROW SET NEW.v = IF(NEW.k = 'lockrun:{t05}', "
	    "NULL, NEW.v)");
}

/* A server slow to renew many leases (here each renewal takes 50 ms, as
 * a busy server's would): one batch of 60 takes 3 s, longer than the
 * command timeout (2 s) but well within the leases (ttl 30s, renewed
 * 10 s in). The scheduler waits for the answer while the leases last,
 * since closing its session would lose them all: no lease is lost and
 * every run ends as it would. (Waiting the command timeout only, it
 * closed the session at 2 s and every run got LOST LOCK.) */
Test(cron_sql_scale, pg_a_slow_batch_is_waited_for_while_its_leases_last)
{
	enum { TASKS = 60 };
	char log[256], err[16384];
	pid_t cron = runs_then_trigger(BE_PG, TASKS, "  ttl: 30s\n", 14, "CREATE FUNCTION slow() "
	    "RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.05); RETURN NEW; "
	    "END $$; CREATE TRIGGER slow BEFORE UPDATE ON lockrun_keys FOR EACH ROW EXECUTE "
	    "FUNCTION slow()", log, err, sizeof(err));

	POLL_UNTIL(lines_matching(log, "^end t[0-9]+$") >= TASKS);
	cron_stop(cron);
	lr_stderr_of(cron, err, sizeof(err));
	cr_assert(eq(int, lines_matching(log, "^end t[0-9]+$"), TASKS), "%s", err);
	cr_assert(eq(ptr, strstr(err, "LOST"), NULL), "%s", err);
}

/* The command of the batch tests' runs: it holds a flock of its task's
 * own while it runs (a second copy at once says "overlap"), writes its
 * name to log and sleeps s seconds. */
static const char *
flocked(const char *log, int s)
{
	static char cmd[1024];

	snprintf(cmd, sizeof(cmd), "exec 9>%s.%%1$s; flock -n 9 || { echo overlap %%1$s "
	    ">> %s; exit 1; }; echo %%1$s >> %s; exec sleep %d", log, log, log, s);
	return cmd;
}

/* Each of the n tasks t00.. ran once, as its history ("ran", then how it
 * ended) and its counter say. */
static void
each_ran_once(int n, const char *end)
{
	char key[8], buf[1024], want[64];

	snprintf(want, sizeof(want), "^%s ran$", end);
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "t%02d", i);
		cr_assert(matches(events(key, buf, sizeof(buf)), want), "%s: %s", key, buf);
		cr_assert(eq(dbl, metric(key, "lockrun_runs_total", NULL), 1.0), "%s", key);
	}
}

/* The exchanges MariaDB logged (its general log, on while it is asked)
 * whose text holds what. */
static int
logged(const char *what)
{
	char sql[256], out[64];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM mysql.general_log WHERE "
	    "command_type = 'Query' AND argument LIKE '%%%s%%'", what);
	cr_assert(eq(int, sql_admin(&srv, sql, out, sizeof(out)), 0), "%s", sql_last_error());
	return atoi(out);
}

/* What the server counts of an operation: on PostgreSQL the transactions
 * that wrote (any, this reading's own too), on MariaDB the exchanges
 * whose text holds what (its general log, turned on by tables_with()). */
static long long
counted(const char *what)
{
	return be == BE_PG ? xids() : logged(what);
}

/* Backend k's tables made (by a run), then the triggers on them that sql
 * makes (PostgreSQL) or mysql makes (MariaDB); MariaDB's general log on. */
static void
tables_with(enum backend k, const char *pg, const char *mysql)
{
	struct result r;

	use(k);
	RUN(&r, "-k", "tables", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, sql_admin(&srv, k == BE_PG ? pg : mysql, NULL, 0), 0), "%s",
	    sql_last_error());
	if (k == BE_MYSQL)
		cr_assert(eq(int, sql_admin(&srv, "SET GLOBAL log_output = 'TABLE'; "
		    "SET GLOBAL general_log = 1", NULL, 0), 0), "%s", sql_last_error());
}

/* Each acquire costs the server 20 ms (a trigger on the fence row). */
#define SLOW_PG	"CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " \
	"IF NEW.k LIKE '%:fence' THEN PERFORM pg_sleep(0.02); END IF; RETURN NEW; END $$; " \
	"CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON lockrun_keys FOR EACH ROW EXECUTE " \
	"FUNCTION slow()"
#define SLOW_MYSQL "CREATE TRIGGER slow BEFORE INSERT ON lockrun_keys FOR EACH ROW " \
	"SET @lr_slow := IF(NEW.k LIKE '%:fence', SLEEP(0.02), 0)"
/* The text of an acquire, of a release (MariaDB's general log) */
#define ACQUIRE_TEXT	"GET\\_LOCK(@name, 0)"
#define RELEASE_TEXT	"@rel := IF(@ttl > 0, RELEASE\\_LOCK(@name), NULL)"

/* 30 tasks due at once on one scheduler's session, each acquire costing
 * the server 20 ms (a trigger on the fence row, as a busy server's
 * would): the runs that come ready while a batch is answered go in the
 * next, and their releases, when the scheduler is stopped, go together:
 * a few transactions (PostgreSQL) or exchanges (MariaDB), not one a run;
 * each task ran once, its history and its counter say so. (One
 * statement a lease: 30 for the acquires and 30 for the releases.) */
static void
the_acquires_and_releases_of_30_runs_go_in_few_batches(enum backend k)
{
	enum { TASKS = 30 };
	char logbuf[256];
	const char *log;
	long long c0, acquires, releases;
	pid_t cron;

	tables_with(k, SLOW_PG, SLOW_MYSQL);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	c0 = counted(ACQUIRE_TEXT);
	cron = cron_server_at(0, tasks_config(url, TASKS, "  ttl: 5m\n  starting_deadline: "
	    "30s\n", flocked(log, 60)), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") >= TASKS);
	acquires = counted(ACQUIRE_TEXT) - c0 - (k == BE_PG);	/* less the reading's own */
	c0 = counted(RELEASE_TEXT);
	cron_stop(cron);
	releases = counted(RELEASE_TEXT) - c0 - (k == BE_PG);
	cr_log_info("%s: %lld batches for %d acquires, %lld for their releases",
	    sql_name(srv.kind), acquires, TASKS, releases);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), TASKS), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(lt(i64, acquires, TASKS / 2), "%lld batches for %d acquires", acquires,
	    TASKS);
	cr_assert(lt(i64, releases, TASKS / 2), "%lld batches for %d releases", releases,
	    TASKS);
	each_ran_once(TASKS, "released");
}

Test(cron_sql_scale, pg_the_acquires_and_releases_of_30_runs_go_in_few_transactions)
{
	the_acquires_and_releases_of_30_runs_go_in_few_batches(BE_PG);
}

Test(cron_sql_scale, mysql_the_acquires_and_releases_of_30_runs_go_in_few_exchanges)
{
	the_acquires_and_releases_of_30_runs_go_in_few_batches(BE_MYSQL);
}

/* The session locks the sessions of user lockrun hold (MariaDB: of the
 * n tasks t00..'s names). */
static int
session_locks(int n)
{
	char sql[2048], out[64];
	size_t len;

	if (be == BE_PG)
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM pg_locks l JOIN "
		    "pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND "
		    "l.objsubid = 1 AND a.usename = 'lockrun'");
	else {
		len = (size_t)snprintf(sql, sizeof(sql), "SELECT 0");
		for (int i = 0; i < n && len < sizeof(sql); i++)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, " + "
			    "(IS_USED_LOCK('lockrun:{t%02d}') IS NOT NULL)", i);
	}
	cr_assert(eq(int, sql_admin(&srv, sql, out, sizeof(out)), 0), "%s", sql_last_error());
	return atoi(out);
}

/* Ten tasks due at once, their acquires and then their releases in
 * batches (the fence trigger of the test above), and the server refusing
 * one task's acquire (t03: a trigger on its stable row) and another's
 * release (t07), each part way: only t03 does not run and only t07's end
 * is not recorded; the other runs run once and end as they would. On
 * PostgreSQL the batch is undone and goes again one statement at a time;
 * on MariaDB the others' answers stand, and the rest goes on past the
 * refused one. No session lock is left behind: the locks the undone
 * acquires took are let go before they go again (else each would be held
 * twice, and once after its release), and t03's and t07's are let go. */
static void
a_refusal_in_a_batch_costs_its_own_run_only(enum backend k)
{
	enum { TASKS = 10 };
	char logbuf[256], gobuf[256], cmd[2048], buf[1024], key[8];
	const char *log, *go;
	pid_t cron;

	tables_with(k, "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
	    "IF TG_OP = 'DELETE' THEN IF OLD.k = 'lockrun:{t07}' THEN RAISE EXCEPTION "
	    "'not t07'; END IF; RETURN OLD; END IF; IF NEW.k = 'lockrun:{t03}' THEN RAISE "
	    "EXCEPTION 'not t03'; END IF; IF NEW.k LIKE '%:fence' THEN PERFORM "
	    "pg_sleep(0.02); END IF; RETURN NEW; END $$; CREATE TRIGGER slow BEFORE INSERT OR "
	    "UPDATE OR DELETE ON lockrun_keys FOR EACH ROW EXECUTE FUNCTION slow()",
	    /* no statement bodies, which the client would split at their
	     * semicolons: v is NOT NULL (strict mode refuses it), and a
	     * subquery of two rows is refused */
	    "CREATE TRIGGER slow BEFORE INSERT ON lockrun_keys FOR EACH ROW SET NEW.v = "
	    "IF(NEW.k = 'lockrun:{t03}', NULL, IF(NEW.k LIKE '%:fence' AND SLEEP(0.02) = 0, "
	    "NEW.v, NEW.v)); CREATE TRIGGER no_t07 BEFORE DELETE ON lockrun_keys FOR EACH ROW "
	    "SET @lr_no := (SELECT 1 FROM DUAL WHERE OLD.k = 'lockrun:{t07}' UNION ALL "
	    "SELECT 2 FROM DUAL WHERE OLD.k = 'lockrun:{t07}')");
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	snprintf(gobuf, sizeof(gobuf), "%s", scratch("go"));
	log = logbuf;
	go = gobuf;
	/* the runs end together once the test says go */
	snprintf(cmd, sizeof(cmd), "exec 9>%s.%%1$s; flock -n 9 || { echo overlap %%1$s >> "
	    "%s; exit 1; }; echo %%1$s >> %s; i=0; while [ ! -e %s ] && [ $i -lt 600 ]; do "
	    "sleep 0.1; i=$((i+1)); done; echo end %%1$s >> %s", log, log, log, go, log);
	cron = cron_server_at(0, tasks_config(url, TASKS, "  ttl: 5m\n  starting_deadline: "
	    "30s\n", cmd), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") >= TASKS - 1 &&
	    stderr_matching(cron, "t03") > 0);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), TASKS - 1), "%s\n%s",
	    file_peek(log), lr_stderr_of(cron, (char[16384]){ 0 }, 16384));
	write_scratch("go", "go\n");
	POLL_UNTIL(lines_matching(log, "^end ") >= TASKS - 1 && session_locks(TASKS) == 0);
	cr_assert(eq(int, session_locks(TASKS), 0), "a session lock was left held");
	cron_stop(cron);
	cr_assert(eq(int, lines_matching(log, "^t03$"), 0), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	for (int i = 0; i < TASKS; i++) {
		snprintf(key, sizeof(key), "t%02d", i);
		if (i != 3)	/* t03 has no history */
			cr_assert(matches(events(key, buf, sizeof(buf)), i == 7 ? "^ran$" :
			    "^released ran$"), "%s: %s", key, buf);
	}
}

Test(cron_sql_scale, pg_a_refusal_in_a_batch_costs_its_own_run_only)
{
	a_refusal_in_a_batch_costs_its_own_run_only(BE_PG);
}

Test(cron_sql_scale, mysql_a_refusal_in_a_batch_costs_its_own_run_only)
{
	a_refusal_in_a_batch_costs_its_own_run_only(BE_MYSQL);
}

/* MariaDB refuses a statement of the bookkeeping of the acquires (and
 * releases) of t00, t02, .. t08, behind their answers (their history
 * entries: a trigger), in batches: the answers up to each refusal stand,
 * the refused bookkeeping's too (its run goes ahead, its lock kept: not
 * let go as a refused acquire's would be, nor another run's acquire
 * failed in its place), and the rest go on in the next exchange; each
 * task runs once, no run is told of a refusal, and no lock is left held
 * once they end. */
Test(cron_sql_scale, mysql_a_refusal_behind_an_answer_keeps_that_answer)
{
	enum { TASKS = 10 };
	char logbuf[256], buf[1024], key[8];
	const char *log;
	pid_t cron;

	tables_with(BE_MYSQL, NULL, SLOW_MYSQL "; CREATE TRIGGER no_even BEFORE INSERT ON "
	    "lockrun_history FOR EACH ROW SET NEW.k = IF(NEW.k IN ('lockrun:{t00}:history', "
	    "'lockrun:{t02}:history', 'lockrun:{t04}:history', 'lockrun:{t06}:history', "
	    "'lockrun:{t08}:history'), NULL, NEW.k)");
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	cron = cron_server_at(0, tasks_config(url, TASKS, "  ttl: 5m\n  starting_deadline: "
	    "30s\n", flocked(log, 3)), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") >= TASKS && session_locks(TASKS) == 0);
	cron_stop(cron);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), TASKS), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(eq(int, session_locks(TASKS), 0), "a session lock was left held");
	cr_assert(eq(int, stderr_matching(cron, "cannot be null"), 0), "a run was told of "
	    "a refusal: %s", lr_stderr_of(cron, (char[16384]){ 0 }, 16384));
	for (int i = 1; i < TASKS; i += 2) {	/* the others have no history */
		snprintf(key, sizeof(key), "t%02d", i);
		cr_assert(matches(events(key, buf, sizeof(buf)), "^released ran$"), "%s: %s",
		    key, buf);
	}
}

/* 30 runs of one scheduler on MariaDB with a ttl of 6s: their leases
 * are renewed in one exchange a renewal period, each lease's statements
 * in turn (a multi-statement string), not one exchange a lease; each
 * task ran once, its history and its counter say so. (One exchange a
 * lease: 30 a renewal period, 90 in three.) */
Test(cron_sql_scale, mysql_30_leases_renew_in_one_exchange_a_period)
{
	enum { TASKS = 30 };
	char logbuf[256];
	const char *log;
	int renewals;
	pid_t cron;

	use(BE_MYSQL);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	cron = cron_server_at(0, tasks_config(url, TASKS, "  ttl: 6s\n  starting_deadline: "
	    "30s\n", flocked(log, 60)), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") >= TASKS);
	cr_assert(eq(int, sql_admin(&srv, "SET GLOBAL log_output = 'TABLE'; "
	    "SET GLOBAL general_log = 1", NULL, 0), 0), "%s", sql_last_error());
	pace_ms(6000);		/* three renewal periods (ttl/3) */
	cr_assert(eq(int, sql_admin(&srv, "SET GLOBAL general_log = 0", NULL, 0), 0));
	renewals = logged("IS_USED_LOCK");
	cr_log_info("%d exchanges renewed %d leases in 6 s", renewals, TASKS);
	cron_stop(cron);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), TASKS), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(le(int, renewals, 12), "%d exchanges renewed %d leases in 6 s", renewals,
	    TASKS);
	each_ran_once(TASKS, "released");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* ghost_sql_test.c -- on PostgreSQL and MariaDB, an acquire that lockrun
 * gave up on never takes effect afterwards: the statement is made to
 * queue behind a row lock the test holds (the task's fence row, FOR
 * UPDATE, as another transaction would), run A gives up and exits 69, the
 * test's transaction ends, A's statement runs to its end on the server,
 * and then run B runs: A's statement, past its window, wrote nothing.
 * And a client whose clock is minutes off claims no slot there either. */
#include <sys/wait.h>

#include <signal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "sql_fixture.h"

static struct sql_server srv;

static void
teardown(void)
{
	sql_stop(&srv);
	suite_teardown();
}

TestSuite(ghost_sql, .init = suite_setup, .fini = teardown, .timeout = 180);

static long
count(const char *sql)
{
	char out[64] = "";

	cr_assert(eq(int, sql_admin(&srv, sql, out, sizeof(out)), 0), "%s", sql);
	return strtol(out, NULL, 10);
}

/* How many client sessions other than the asker's. */
static long
sessions(void)
{
	return count(srv.kind == SQL_PG ? "SELECT count(*) FROM pg_stat_activity WHERE "
	    "backend_type = 'client backend' AND pid <> pg_backend_pid()" :
	    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'lockrun'");
}

static void
queued_behind_a_row_lock(enum sql_kind kind, const char *mode, const char *key)
{
	const char *mark = scratch("sqlghost.mark");
	char sql[512], a_cmd[300], b_cmd[300], err[4096];
	struct result r;
	pid_t holder, a, b;
	int status;

	if (srv.pid == 0) {
		cr_assert(eq(int, sql_start(&srv, kind), 0));
		setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
		LR(&r, "--url", srv.url, "-k", "warm", "--", "true");	/* the tables */
		cr_assert(eq(int, r.status, 0), "%s", r.err);
	}
	unlink(mark);
	snprintf(sql, sizeof(sql), "INSERT INTO lockrun_keys (k, v, expires_ms) VALUES "
	    "('lockrun:{%s}:fence', '1', 99999999999999)", key);
	cr_assert(eq(int, sql_admin(&srv, sql, NULL, 0), 0));
	/* another transaction holds the fence row for 8s (the fault) */
	snprintf(sql, sizeof(sql), "BEGIN; SELECT 1 FROM lockrun_keys WHERE "
	    "k = 'lockrun:{%s}:fence' FOR UPDATE; SELECT %s(8); COMMIT;", key,
	    kind == SQL_PG ? "pg_sleep" : "SLEEP");
	if ((holder = fork()) == 0)
		_exit(sql_admin(&srv, sql, NULL, 0) == 0 ? 0 : 1);
	POLL_UNTIL(count(kind == SQL_PG ? "SELECT count(*) FROM pg_stat_activity WHERE "
	    "query LIKE '%pg_sleep(8)%' AND state = 'active' AND pid <> pg_backend_pid()" :
	    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE "
	    "'SELECT SLEEP(8)%'") == 1);

	snprintf(a_cmd, sizeof(a_cmd), "echo A >> %s", mark);
	snprintf(b_cmd, sizeof(b_cmd), "echo B >> %s", mark);
	a = LR_START("--url", srv.url, "--command-timeout", "2s", mode, "-k", key, "--",
	    "sh", "-c", a_cmd);
	status = lr_wait(a);
	cr_assert(eq(int, status, 69), "A: %s", lr_stderr_of(a, err, sizeof(err)));
	/* the row lock goes; A's statement, queued behind it, runs to its end
	 * and its session ends, as its client is gone */
	waitpid(holder, NULL, 0);
	POLL_UNTIL(sessions() == 0);
	cr_assert(eq(long, sessions(), 0));
	b = LR_START("--url", srv.url, "--command-timeout", "5s", "-v", mode, "-k", key,
	    "--", "sh", "-c", b_cmd);
	status = lr_wait(b);
	lr_stderr_of(b, err, sizeof(err));
	cr_assert(eq(int, status, 0), "B: %s", err);
	if (access(mark, F_OK) != 0) {
		char hist[2048] = "";
		snprintf(sql, sizeof(sql), "SELECT event, pid, token FROM lockrun_history "
		    "WHERE k = 'lockrun:{%s}:history' ORDER BY id", key);
		sql_admin(&srv, sql, hist, sizeof(hist));
		cr_assert(0, "B skipped (A was %ld): %s\nhistory:\n%s", (long)a, err, hist);
	}
	cr_assert(eq(int, file_lines(mark), 1));
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM lockrun_history WHERE "
	    "k = 'lockrun:{%s}:history' AND event = 'ran' AND pid = '%ld'", key, (long)a);
	cr_assert(eq(long, count(sql), 0), "the history says A ran");
}

Test(ghost_sql, pg_a_queued_acquire_never_takes_the_slot)
{
	queued_behind_a_row_lock(SQL_PG, "--one-server", "pq1");
	queued_behind_a_row_lock(SQL_PG, "--no-overlap", "pq2");
}

Test(ghost_sql, mysql_a_queued_acquire_never_takes_the_slot)
{
	queued_behind_a_row_lock(SQL_MYSQL, "--one-server", "mq1");
	queued_behind_a_row_lock(SQL_MYSQL, "--no-overlap", "mq2");
}

/*
 * An acquire that the database ran in time but whose answer never reached
 * lockrun (the fault shim makes it deaf for 1.5s from the acquire's send
 * on, past its command timeout of 1s) is withdrawn by the run that gave
 * up, on a new connection: its rows go, its "ran" entry becomes
 * "withdrawn", and the next run takes the slot.
 */
static void
unanswered(enum sql_kind kind, const char *key)
{
	const char *mark = scratch("sqlwd.mark");
	char cmd[300], err[4096], preload[300], sql[512];
	const char *env[] = { preload, "LOCKRUN_SHIM_DEAF_ONCE=1500",
	    "LOCKRUN_SHIM_DEAF_AFTER=say_held", "ASAN_OPTIONS=verify_asan_link_order=0",
	    NULL };
	struct result r;
	pid_t a;
	int status;

	cr_assert(eq(int, sql_start(&srv, kind), 0));
	setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
	LR(&r, "--url", srv.url, "-k", "warm", "--", "true");	/* the tables */
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "echo A >> %s", mark);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", getenv("LOCKRUN_SHIM"));
	a = LR_START_ENV(env, "--url", srv.url, "--command-timeout", "1s", "--no-overlap",
	    "--one-server", "-k", key, "--", "sh", "-c", cmd);
	status = lr_wait(a);
	lr_stderr_of(a, err, sizeof(err));
	cr_assert(eq(int, status, 69), "%s", err);
	cr_assert(strstr(err, "withdrew the request: it had taken the lock") != NULL,
	    "%s", err);
	/* a timeout, not a broken connection: not asked again */
	cr_assert(matches(err, kind == SQL_PG ? "acquire: no answer in time" :
	    "acquire: no answer within 1s \\(Lost connection"), "%s", err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command ran");
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM lockrun_keys WHERE k = "
	    "'lockrun:{%s}' OR k LIKE 'lockrun:{%s}:slot:%%'", key, key);
	cr_assert(eq(long, count(sql), 0), "the lock or the slot is still taken");
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM lockrun_history WHERE "
	    "k = 'lockrun:{%s}:history' AND event = 'ran' AND pid = '%ld'", key, (long)a);
	cr_assert(eq(long, count(sql), 0), "the history says A ran");
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM lockrun_history WHERE "
	    "k = 'lockrun:{%s}:history' AND event = 'withdrawn'", key);
	cr_assert(eq(long, count(sql), 1), "no withdrawn entry");
	LR(&r, "--url", srv.url, "--no-overlap", "--one-server", "-k", key, "--", "sh", "-c",
	    cmd);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, file_lines(mark), 1), "the next run did not take the slot");
}

Test(ghost_sql, pg_an_unanswered_acquire_is_withdrawn)
{
	unanswered(SQL_PG, "pwd");
}

Test(ghost_sql, mysql_an_unanswered_acquire_is_withdrawn)
{
	unanswered(SQL_MYSQL, "mwd");
}

/*
 * The renewal: MariaDB is paused (the whole server: its sessions are
 * threads) while a run holds the lock. The run waits for its renewal while the lease
 * lasts, says at the lease's term point that it is unconfirmed, and is
 * killed (SIGKILL: no release). The database stays paused 4s more, past
 * the lease's end (the fault), then goes on and runs the renewal it had
 * queued, past its deadline: the lease is not extended, the row has no
 * more than what was left of it, never a new ttl.
 * (PostgreSQL 14 and later need no test of this kind: a backend paused
 * while idle ends its session at its idle_session_timeout, the ttl since
 * its last statement, before it reads a queued renewal; its window
 * matters for a renewal queued behind a row lock, which this does not
 * time.)
 */
static void
renewal_paused(enum sql_kind kind, const char *key)
{
	const char *mark = scratch("sqlrn.mark");
	char cmd[300], err[4096], sql[512];
	struct result r;
	pid_t a, paused;
	long left;

	cr_assert(eq(int, sql_start(&srv, kind), 0));
	setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
	LR(&r, "--url", srv.url, "-k", "warm", "--", "true");	/* the tables */
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "touch %s; exec sleep 60", mark);
	a = LR_START("--url", srv.url, "--command-timeout", "1s", "--no-overlap", "--ttl",
	    "6s", "--kill-mode", "process", "-k", key, "--", "sh", "-c", cmd);
	POLL_UNTIL(access(mark, F_OK) == 0);
	cr_assert(eq(int, access(mark, F_OK), 0), "%s", lr_stderr_of(a, err, sizeof(err)));
	paused = kind == SQL_PG ? (pid_t)count("SELECT pid FROM pg_stat_activity WHERE "
	    "backend_type = 'client backend' AND pid <> pg_backend_pid()") : srv.pid;
	cr_assert(gt(int, paused, 0));
	cr_assert(eq(int, kill(paused, SIGSTOP), 0));
	POLL_UNTIL(strstr(lr_stderr_of(a, err, sizeof(err)), "has not confirmed") != NULL);
	cr_assert(strstr(err, "has not confirmed") != NULL, "%s", err);
	cr_assert(eq(int, kill(a, SIGKILL), 0));
	lr_wait(a);
	fixture_tick(4000);
	cr_assert(eq(int, kill(paused, SIGCONT), 0));
	/* the run's session ends once the server has run what it had queued */
	POLL_UNTIL(sessions() == 0);
	cr_assert(eq(long, sessions(), 0));
	snprintf(sql, sizeof(sql), kind == SQL_PG ? "SELECT coalesce(max(expires_ms), 0) - "
	    "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM lockrun_keys "
	    "WHERE k = 'lockrun:{%s}'" : "SELECT COALESCE(MAX(expires_ms), 0) - "
	    "CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED) FROM lockrun_keys "
	    "WHERE k = 'lockrun:{%s}'", key);
	left = count(sql);
	cr_assert(lt(long, left, 3000), "the lease has %ld ms more: a renewal that lockrun "
	    "gave up on extended it", left);
}

Test(ghost_sql, mysql_a_renewal_lockrun_gave_up_on_never_extends_the_lease)
{
	renewal_paused(SQL_MYSQL, "mrn");
}

/*
 * The command ends while its renewal waits on a paused MariaDB: lockrun
 * waits for that answer while the lease lasts, and no longer. It ends
 * with the server still paused: the lease's end, the release's connect
 * timeout, out. (It waited for ever before: the wait's end was "never",
 * cast to an int for poll(2).)
 */
Test(ghost_sql, mysql_a_renewal_in_flight_is_not_waited_for_past_the_lease)
{
	const char *mark = scratch("sqlend.mark");
	char cmd[300], err[4096];
	struct result r;
	pid_t a;
	int gone;

	cr_assert(eq(int, sql_start(&srv, SQL_MYSQL), 0));
	setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
	LR(&r, "--url", srv.url, "-k", "warm", "--", "true");	/* the tables */
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	snprintf(cmd, sizeof(cmd), "touch %s; exec sleep 60", mark);
	a = LR_START("--url", srv.url, "--command-timeout", "1s", "--connect-timeout", "1s",
	    "--no-overlap", "--ttl", "6s", "--kill-mode", "process", "-k", "mend", "--", "sh",
	    "-c", cmd);
	POLL_UNTIL(access(mark, F_OK) == 0);
	cr_assert(eq(int, access(mark, F_OK), 0), "%s", lr_stderr_of(a, err, sizeof(err)));
	cr_assert(eq(int, kill(srv.pid, SIGSTOP), 0));
	POLL_UNTIL(!alive(a));
	gone = !alive(a);
	cr_assert(eq(int, kill(srv.pid, SIGCONT), 0));
	cr_assert(gone, "lockrun still waits on the paused server past its lease: %s",
	    lr_stderr_of(a, err, sizeof(err)));
	lr_wait(a);
	cr_assert(strstr(lr_stderr_of(a, err, sizeof(err)), "has not confirmed") != NULL,
	    "%s", err);
}

static void
clock_off(enum sql_kind kind)
{
	const char *env[6];
	char buf[3][128], sql[256];
	struct result r;

	cr_assert(eq(int, sql_start(&srv, kind), 0));
	setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
	faketime_env(env, buf, (double)time(NULL) + 300);
	/* faketime_env fills four and a NULL: the password rides in ours */
	lr_run_env(&r, env, (const char *const[]){ "--url", srv.url, "--one-server", "-k",
	    "fast", "--", "true", NULL });
	cr_assert(eq(int, r.status, 75), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: this server's clock is off by [0-9.]+ s against "
	    "the lock server; not claiming slot "), "%s", r.err);
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM lockrun_keys WHERE k LIKE "
	    "'lockrun:{fast}:slot:%%'");
	cr_assert(eq(long, count(sql), 0), "a slot was claimed");
	LR(&r, "--url", srv.url, "--one-server", "-k", "fast", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "--url", srv.url, "check");
	cr_assert(matches(r.out, "\nclock +this host is [0-9]+ ms (ahead of|behind) the lock "
	    "server \\(\\+/- [0-9]+ ms\\)\n"), "%s", r.out);
}

Test(ghost_sql, pg_a_clock_minutes_off_claims_no_slot)
{
	clock_off(SQL_PG);
}

Test(ghost_sql, mysql_a_clock_minutes_off_claims_no_slot)
{
	clock_off(SQL_MYSQL);
}

/*
 * --min-hold keeps the row for the rest of the hold after the command
 * ends, and no longer. The database is paused as the command ends
 * (PostgreSQL: the run's session; MariaDB: the whole server, its sessions
 * being threads): lockrun gives up on its release and exits, and the
 * pause lasts past the hold's end (the fault). The release the server
 * then runs, late, leaves no live row, and the run's ending is recorded
 * once, though lockrun may have sent its release twice (PostgreSQL: again
 * on a new session, which answered in time).
 */
static void
late_release(enum sql_kind kind, const char *key)
{
	struct gate g;
	struct result r;
	char err[4096], sql[512];
	pid_t a, paused;

	cr_assert(eq(int, sql_start(&srv, kind), 0));
	setenv("LOCKRUN_REDIS_PASSWORD", SQL_PASSWORD, 1);
	LR(&r, "--url", srv.url, "-k", "warm", "--", "true");	/* the tables */
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	gate_open(&g, key);
	a = LR_START("--url", srv.url, "--command-timeout", "1s", "--connect-timeout", "1s",
	    "--no-overlap", "--ttl", "20s", "--min-hold", "5s", "-k", key, "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);
	paused = kind == SQL_PG ? (pid_t)count("SELECT pid FROM pg_stat_activity WHERE "
	    "backend_type = 'client backend' AND pid <> pg_backend_pid()") : srv.pid;
	cr_assert(gt(int, paused, 0));
	cr_assert(eq(int, kill(paused, SIGSTOP), 0));
	POLL_UNTIL(proc_state(paused) == 'T');
	gate_release(&g);
	cr_assert(eq(int, lr_wait(a), 0), "%s", lr_stderr_of(a, err, sizeof(err)));
	fixture_tick(5000);
	cr_assert(eq(int, kill(paused, SIGCONT), 0));
	/* the run's sessions end once the server has run what it had queued */
	POLL_UNTIL(sessions() == 0);
	cr_assert(eq(long, sessions(), 0));
	snprintf(sql, sizeof(sql), kind == SQL_PG ? "SELECT count(*) FROM lockrun_keys WHERE "
	    "k = 'lockrun:{%s}' AND expires_ms > floor(extract(epoch FROM clock_timestamp()) "
	    "* 1000)::bigint" : "SELECT COUNT(*) FROM lockrun_keys WHERE k = 'lockrun:{%s}' "
	    "AND expires_ms > CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED)", key);
	cr_assert(eq(long, count(sql), 0), "a release that ran after the hold's end kept "
	    "the row");
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM lockrun_history WHERE "
	    "k = 'lockrun:{%s}:history' AND event = 'released'", key);
	cr_assert(eq(long, count(sql), 1), "the run's ending is not recorded once");
}

Test(ghost_sql, pg_a_late_release_never_extends_the_min_hold)
{
	late_release(SQL_PG, "pmh");
}

Test(ghost_sql, mysql_a_late_release_never_extends_the_min_hold)
{
	late_release(SQL_MYSQL, "mmh");
}

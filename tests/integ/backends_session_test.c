/* SPDX-License-Identifier: BSD-2-Clause */
/* backends_session_test.c -- a SQL backend's lock lives with its session:
 * the database restarted, the session ended by the server or cut by a
 * proxy, or the holder told by `lockrun unlock` to stop. The holder stops
 * its command, and no newcomer runs beside it. */
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

#include "backends.h"
#include "proxy.h"

TestSuite(backends_session, .init = suite_setup, .fini = backends_teardown,
    .timeout = 120);

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

Test(backends_session, pg_a_database_restart_stops_the_command) { restart(SQL_PG); }
Test(backends_session, mysql_a_database_restart_stops_the_command) { restart(SQL_MYSQL); }

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

Test(backends_session, pg_a_terminated_session_stops_the_command_and_newcomers_wait)
{
	session_ended_by_the_server(SQL_PG);
}
Test(backends_session, mysql_a_killed_session_stops_the_command_and_newcomers_wait)
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
	    "sess", "--ttl", "3s", "--", "sh", "-c", flock_job(&g, 0, lockf, overlap),
	    NULL });
	gate_wait(&g);
	proxy_cut(&p);
	newcomers_never_overlap(lockf, overlap);
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command was stopped");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{sess}")
	    != NULL, "stderr: %s", err);
}

Test(backends_session, pg_a_cut_connection_stops_the_command_and_newcomers_wait)
{
	session_cut_by_a_proxy(SQL_PG);
}
Test(backends_session, mysql_a_cut_connection_stops_the_command_and_newcomers_wait)
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

Test(backends_session, pg_unlock_of_a_running_holder_waits_for_it_to_stop)
{
	unlock_waits_for_the_holder_to_stop(SQL_PG);
}
Test(backends_session, mysql_unlock_of_a_running_holder_waits_for_it_to_stop)
{
	unlock_waits_for_the_holder_to_stop(SQL_MYSQL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* onetask_test.c -- one task's data stays its own (issue 41): a row of
 * one task's grown past what lockrun reads fails that task's request
 * alone, with its name and the cause, and not the scheduler's shared
 * session (PostgreSQL, MariaDB: every run's session lock in it) nor, on
 * Redis, what status and cron --listen show of the other tasks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define NTASKS	6		/* t00..t05; t05 is the bad one */

TestSuite(one_task, .init = suite_setup, .fini = backends_teardown, .timeout = 200);

/* The tables lockrun writes, created by a first run. */
static void
tables_made(void)
{
	struct result r;

	RUN(&r, "-k", "warmup", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
}

/* Six tasks under one scheduler, t05's row made larger than lockrun reads
 * (PostgreSQL: its pause row, 20 MB; MariaDB: its lock row, 2 MB, in a
 * column widened for it): t00..t04 each hold their lease over several
 * renewals (ttl 3s, a command of 8 s) and end normally, no LOST LOCK, the
 * scheduler's session the one they started on; t05's line names it and
 * the cause. (Before, the answer past the bound closed the shared session:
 * every other run's session lock went with it, LOST LOCK, 143.) */
static void
a_large_row_of_one_task_fails_that_task_alone(enum backend b)
{
	char logbuf[256], cmd[1024], err[65536];
	const char *log;
	pid_t cron;

	use(b);
	tables_made();
	if (b == BE_PG)
		cr_assert(eq(int, sql_admin(&srv, "INSERT INTO lockrun_keys (k, v, expires_ms) "
		    "VALUES ('lockrun:{t05}:pause', '1781524000000 0 elsewhere someone ' || "
		    "repeat('x', 20000000), NULL)", NULL, 0), 0));
	else
		cr_assert(eq(int, sql_admin(&srv, "ALTER TABLE lockrun_keys MODIFY v LONGBLOB "
		    "NOT NULL; INSERT INTO lockrun_keys (k, v, expires_ms) VALUES "
		    "('lockrun:{t05}', CONCAT('0123456789abcdef 1 elsewhere 1 "
		    "2026-06-15T11:00:00Z ', REPEAT('x', 2000000)), 4102444800000)", NULL, 0), 0));
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	snprintf(cmd, sizeof(cmd), "echo start %%1$s >> %s; sleep 8; echo end %%1$s >> %s",
	    log, log);
	cron = cron_server_at(0, tasks_config(url, NTASKS, "  ttl: 3s\n"
	    "  starting_deadline: 30s\n", cmd), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^end ") >= NTASKS - 1);
	POLL_UNTIL(stderr_matching(cron, "t05.*larger than lockrun accepts") >= 1);
	kill(cron, SIGTERM);
	cr_assert(eq(int, lr_wait(cron), 0));
	lr_stderr_of(cron, err, sizeof(err));
	cr_assert(eq(int, lines_matching(log, "^end t0[0-4]$"), NTASKS - 1), "%s\n"
	    "the scheduler said:\n%s", file_peek(log), err);
	cr_assert(eq(int, lines_matching(log, "t05"), 0), "%s", file_peek(log));
	cr_assert(eq(int, stderr_matching(cron, "LOST LOCK"), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(cron, "t0[0-4].*status[= ]143|exit 143"), 0), "%s", err);
	cr_assert(ge(int, stderr_matching(cron, "t05.*larger than lockrun accepts"), 1), "%s",
	    err);
}

Test(one_task, pg_a_20mb_pause_row_fails_that_task_alone)
{
	a_large_row_of_one_task_fails_that_task_alone(BE_PG);
}

Test(one_task, mysql_a_2mb_lock_row_fails_that_task_alone)
{
	a_large_row_of_one_task_fails_that_task_alone(BE_MYSQL);
}

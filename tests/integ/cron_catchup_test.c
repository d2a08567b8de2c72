/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_catchup_test.c -- a fire time that fell while no scheduler ran
 * (every server down, a restart): a scheduler that starts within the
 * task's starting_deadline runs it once, late, across the fleet -- the
 * slot record decides -- and one that starts past it does not. Against
 * Redis and PostgreSQL; the schedulers' clocks faked with libfaketime
 * (the lock server's is real: clock_tolerance 0). The job holds a flock
 * for its whole tree: two copies at once say "overlap". */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(cron_catchup, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* A task daily at 12:00 whose late start may be a minute late, and one
 * every minute (the default deadline, 5m); each run appends "NAME SLOT
 * SERVER" to log. */
static const char *
catchup_config(const char *log)
{
	char body[2048];

	snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\ntasks:\n"
	    "  daily:\n    schedule: '0 12 * * *'\n    starting_deadline: 1m\n"
	    "    command: 'flock -n %s.daily sh -c ''echo \"daily $LOCKRUN_SLOT $SERVER\" >> "
	    "%s'' || echo overlap >> %s'\n"
	    "  minutely:\n    schedule: '* * * * *'\n"
	    "    command: 'echo \"minutely $LOCKRUN_SLOT $SERVER\" >> %s'\n",
	    url, log, log, log, log);
	return write_scratch("catchup.yaml", body);
}

/* lockrun cron -v -c cfg as server i, its clock running from at. */
static pid_t
server_at(int i, const char *cfg, double at)
{
	return cron_server_at(i, cfg, at, be != BE_REDIS ? pw_env[0] : NULL);
}


/*
 * No scheduler ran at 12:00. Two start at 12:00:20, within daily's
 * deadline: 12:00 runs once, late, on one of them, the other skips it
 * (the slot record); minutely's 12:00 too. A third starts at 12:00:40,
 * after that run: it finds the slot taken and runs nothing again.
 */
static void
caught_up_once(enum backend b)
{
	const char *log = scratch("runs.log"), *cfg;
	char err[16384];
	pid_t s[3];
	int late = 0;

	use(b);
	cfg = catchup_config(log);
	for (int i = 0; i < 2; i++)
		s[i] = server_at(i, cfg, T_1200 + 20);
	for (int i = 0; i < 2; i++)
		POLL_UNTIL(sched_decided(s[i], "daily|minutely") == 2);
	s[2] = server_at(2, cfg, T_1200 + 40);
	POLL_UNTIL(sched_decided(s[2], "daily|minutely") == 2);
	for (int i = 0; i < 3; i++) {
		late += stderr_matching(s[i], "daily: starting fire time "
		    "2026-06-15T12:00:00Z .* late");
		cr_assert(eq(int, sched_decided(s[i], "daily"), 1), "server %d: %s", i,
		    lr_stderr_of(s[i], err, sizeof(err)));
		cron_stop(s[i]);
	}
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^daily 2026-06-15T12:00:00Z [0-2]$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^minutely 2026-06-15T12:00:00Z [0-2]$"), 1),
	    "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^daily"), 1), "%s", file_peek(log));
	cr_assert(eq(int, stderr_matching(s[2], "^(daily: lockrun: skipped|lockrun: daily "
	    "[^ ]+: skipped: the slot is taken)"), 1),
	    "the third server ran the slot again: %s", lr_stderr_of(s[2], err, sizeof(err)));
	cr_assert(ge(int, late, 2), "the servers did not say they started it late");
}

Test(cron_catchup, redis_a_fire_time_no_server_ran_runs_once_late)
{
	caught_up_once(BE_REDIS);
}

Test(cron_catchup, pg_a_fire_time_no_server_ran_runs_once_late)
{
	caught_up_once(BE_PG);
}

/*
 * A scheduler that starts at 12:01:30 is past daily's deadline (1m): it
 * does not run 12:00. minutely's 12:01, within its 5m, is caught up: when
 * it has run, the scheduler's start-up decisions are all made.
 */
Test(cron_catchup, past_the_deadline_nothing_is_caught_up)
{
	const char *log = scratch("runs.log"), *cfg;
	pid_t s;

	use(BE_REDIS);
	cfg = catchup_config(log);
	s = server_at(0, cfg, T_1200 + 90);
	POLL_UNTIL(stderr_matching(s, "^minutely: lockrun: released") == 1);
	cron_stop(s);
	cr_assert(eq(int, lines_matching(log, "^minutely 2026-06-15T12:01:00Z 0$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^daily"), 0), "%s", file_peek(log));
}

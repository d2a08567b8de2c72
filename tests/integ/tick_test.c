/* SPDX-License-Identifier: BSD-2-Clause */
/* tick_test.c -- `lockrun tick` through the real binary, its clock frozen
 * by libfaketime: which tasks are due, each slot once across many ticks,
 * what it exits with and says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(tick, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* A config of three tasks, each appending "NAME SLOT" to log: every
 * minute, hourly, and every five minutes; and one without a schedule. */
static const char *
three_tasks(const char *log)
{
	char body[2048];

	snprintf(body, sizeof(body), "tasks:\n"
	    "  minutely:\n    schedule: '* * * * *'\n"
	    "    command: 'echo \"minutely $LOCKRUN_SLOT\" >> %s'\n"
	    "  hourly:\n    schedule: '@hourly'\n"
	    "    command: 'echo \"hourly $LOCKRUN_SLOT\" >> %s'\n"
	    "  fively:\n    schedule: '*/5 * * * *'\n"
	    "    command: 'echo \"fively $LOCKRUN_SLOT\" >> %s'\n"
	    "  manual:\n    command: 'echo manual >> %s'\n", log, log, log, log);
	return write_config_faked(body);
}

/* Run one tick at the frozen instant at. */
static void
tick_at(struct result *r, const char *cfg, double at)
{
	const char *env[6];
	char buf[3][128];

	faketime_frozen_env(env, buf, at);
	lr_run_env(r, env, (const char *const[]){ "tick", "-c", cfg, NULL });
}

Test(tick, starts_the_tasks_whose_fire_time_is_this_minute)
{
	struct result r;
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);

	tick_at(&r, cfg, T_1200 + 3 * 60 + 10);		/* 12:03:10 */
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, (char *)file_peek(log), "minutely 2026-06-15T12:03:00Z\n"));
}

Test(tick, a_coarser_schedule_is_due_at_its_fire_times_only)
{
	struct result r;
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);

	tick_at(&r, cfg, T_1200 + 5 * 60 + 1);		/* 12:05:01 */
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 2), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)minutely 2026-06-15T12:05:00Z\n"));
	cr_assert(matches(file_peek(log), "(^|\n)fively 2026-06-15T12:05:00Z\n"));
}

Test(tick, a_late_tick_starts_the_slot_of_its_minute)
{
	struct result r;
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);

	tick_at(&r, cfg, T_1200 + 50);			/* 12:00:50 */
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 3), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)hourly 2026-06-15T12:00:00Z\n"), "%s",
	    file_peek(log));
}

Test(tick, a_tick_a_little_early_joins_the_coming_fire_time)
{
	struct result r;
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);

	tick_at(&r, cfg, T_1200 - 2);			/* 11:59:58, tolerance 5s */
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(file_peek(log), "(^|\n)hourly 2026-06-15T12:00:00Z\n"), "%s",
	    file_peek(log));
	cr_assert(eq(int, file_lines(log), 3), "%s", file_peek(log));
}

/* Six servers' ticks at once, for each of three minutes: each slot of
 * each task ran once, whichever tick won it. */
Test(tick, many_ticks_at_once_run_each_slot_once)
{
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);
	char buf[6][3][128];
	const char *env[6][6];
	pid_t pids[6];

	for (int minute = 4; minute <= 6; minute++) {
		for (int i = 0; i < 6; i++) {
			faketime_frozen_env(env[i], buf[i], T_1200 + minute * 60 + i * 7);
			pids[i] = LR_START_ENV(env[i], "tick", "-c", cfg);
		}
		for (int i = 0; i < 6; i++)
			cr_assert(eq(int, lr_wait(pids[i]), 0));
	}
	cr_assert(eq(int, file_lines(log), 4), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)fively 2026-06-15T12:05:00Z\n"), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)minutely 2026-06-15T12:04:00Z\n"), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)minutely 2026-06-15T12:05:00Z\n"), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)minutely 2026-06-15T12:06:00Z\n"), "%s", file_peek(log));
}

Test(tick, exits_with_the_first_failure_and_says_so_in_one_line)
{
	struct result r;
	const char *cfg = write_config_faked("tasks:\n"
	    "  ok:\n    schedule: '* * * * *'\n    command: [true]\n"
	    "  bad:\n    schedule: '* * * * *'\n    command: [sh, -c, 'exit 3']\n"
	    "  worse:\n    schedule: '* * * * *'\n    command: [sh, -c, 'exit 4']\n");

	tick_at(&r, cfg, T_1200 + 30);
	cr_assert(eq(int, r.status, 3), "stderr: %s", r.err);
	cr_assert(matches(r.err, "tick at 2026-06-15T12:00:30Z: 3 due, 1 ran, 0 skipped, "
	    "2 failed \\(first: bad, status 3\\)\n$"), "stderr: %s", r.err);
}

Test(tick, a_slot_already_run_is_a_skip_and_exits_0)
{
	struct result r;
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);

	tick_at(&r, cfg, T_1200 + 70);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	tick_at(&r, cfg, T_1200 + 80);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 1), "%s", file_peek(log));
}

Test(tick, nothing_due_is_0)
{
	struct result r;
	const char *cfg = write_config_faked("tasks:\n  nightly:\n    schedule: '0 3 * * *'\n"
	    "    command: [false]\n");

	tick_at(&r, cfg, T_1200 + 30);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
}

Test(tick, takes_no_arguments_and_needs_a_config)
{
	struct result r;
	const char *cfg = write_config_faked("tasks: {}\n");

	LR(&r, "tick", "-c", cfg, "extra");
	cr_assert(eq(int, r.status, 64), "stderr: %s", r.err);
	unsetenv("LOCKRUN_CONFIG");
	LR(&r, "tick");
	cr_assert(eq(int, r.status, 64), "stderr: %s", r.err);
	cr_assert(matches(r.err, "needs a config file"), "stderr: %s", r.err);
}

/* A tick at the frozen instant at with -v, its server given by url. */
static void
tick_v_at(struct result *r, const char *cfg, double at, const char *url)
{
	const char *env[8];
	char buf[3][128];
	size_t n = 0;

	faketime_frozen_env(env, buf, at);
	while (env[n])
		n++;
	env[n++] = url;
	env[n] = NULL;
	lr_run_env(r, env, (const char *const[]){ "tick", "-v", "-c", cfg, NULL });
}

/*
 * A second tick in the same minute: each run skips, the slot taken, and
 * tick says why, task by task, and counts them as skipped (conflict_exit
 * is 0, so a skip's status is a success's: the run's own record tells).
 */
Test(tick, says_each_skip_and_counts_it_though_its_status_is_0)
{
	struct result r;
	const char *log = scratch("runs.log");
	const char *cfg = three_tasks(log);
	char url[300];

	snprintf(url, sizeof(url), "LOCKRUN_URL=%s", fx.url);
	tick_v_at(&r, cfg, T_1200 + 70, url);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.err, "(^|\n)lockrun: minutely 2026-06-15T12:01:00Z: started, pid "
	    "[0-9]+\n"), "stderr: %s", r.err);
	cr_assert(matches(r.err, "(^|\n)lockrun: minutely 2026-06-15T12:01:00Z: ended, status 0 "
	    "after "), "stderr: %s", r.err);
	tick_v_at(&r, cfg, T_1200 + 80, url);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.err, "(^|\n)lockrun: minutely 2026-06-15T12:01:00Z: skipped: slot "
	    "2026-06-15T12:01:00Z already ran on [^ ]+ pid [0-9]+ at "), "stderr: %s", r.err);
	cr_assert(matches(r.err, "tick at 2026-06-15T12:01:20Z: 1 due, 0 ran, 1 skipped, "
	    "0 failed\n$"), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 1), "%s", file_peek(log));
}

/* The server is down: each due slot is missed, an error line without -v. */
Test(tick, a_slot_nobody_ran_is_an_error_line)
{
	struct result r;
	const char *cfg = three_tasks(scratch("runs.log"));
	const char *env[7];
	char buf[3][128];
	size_t n = 0;

	faketime_frozen_env(env, buf, T_1200 + 70);
	while (env[n])
		n++;
	env[n++] = "LOCKRUN_URL=redis://127.0.0.1:1/0";
	env[n] = NULL;
	lr_run_env(&r, env, (const char *const[]){ "tick", "-c", cfg, NULL });
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(matches(r.err, "(^|\n)lockrun: minutely 2026-06-15T12:01:00Z: missed: the run "
	    "took no lock and ran nothing \\(status 69\\): [^\n]*127\\.0\\.0\\.1:1"), "stderr: %s",
	    r.err);
}

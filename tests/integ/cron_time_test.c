/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_time_test.c -- `lockrun cron` when the wall clock misbehaves, its
 * clock moved by libfaketime: a missed fire time inside and outside the
 * starting_deadline, a clock stepped back, and the DST changes of
 * Europe/Berlin in both directions. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

TestSuite(cron_time, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* A task NAME on schedule appending "NAME SLOT" to log; more is YAML for
 * the task, each line indented by four spaces. */
static size_t
task_yaml(char *buf, size_t n, const char *name, const char *schedule, const char *log,
    const char *more)
{
	return (size_t)snprintf(buf, n, "  %s:\n    schedule: '%s'\n%s    command: "
	    "'echo \"%s $LOCKRUN_SLOT\" >> %s'\n", name, schedule, more, name, log);
}


/*
 * The clock jumps 3m20s forward in the seconds before 12:00 (a VM pause, a
 * suspend), so the timer armed for 12:00 goes off at 12:03:20 (libfaketime
 * does not tell the kernel of the jump, so cron learns of it then, not at
 * the jump: the same late start). A daily 12:00 with the default deadline
 * (5m) runs, once, late; one with a deadline of 2m does not, and is logged
 * missed; a minutely task runs 12:03 once and does not catch up the three
 * minutes before.
 */
Test(cron_time, a_missed_fire_time_runs_once_late_inside_the_deadline_and_not_outside)
{
	const char *log = scratch("runs.log"), *clk = scratch("clock");
	char body[2048], cbuf[2][256];
	const char *env[6];
	size_t k;
	pid_t pid;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += task_yaml(body + k, sizeof(body) - k, "inside", "0 12 * * *", log, "");
	k += task_yaml(body + k, sizeof(body) - k, "outside", "0 12 * * *", log,
	    "    starting_deadline: 2m\n");
	/* each's 30s deadline catches up no 11:59 at the start, and leaves
	 * 12:03 (20s late) in */
	task_yaml(body + k, sizeof(body) - k, "each", "* * * * *", log,
	    "    starting_deadline: 30s\n");
	clock_file_set(clk, T_1200 - 8);
	clock_file_env(env, cbuf, clk);
	pid = LR_START_ENV(env, "cron", "-v", "-c", write_config_faked(body));
	POLL_UNTIL(stderr_matching(pid, "cron: 3 scheduled tasks") == 1);
	cr_assert(eq(int, lines_matching(log, "."), 0), "nothing ran before 12:00");
	clock_file_step(clk, 200);

	POLL_UNTIL(stderr_matching(pid, "^(inside|each): lockrun: released") == 2 &&
	    stderr_matching(pid, "outside: fire time 2026-06-15T12:00:00Z missed by .*"
	    "starting_deadline: skipped") == 1);
	cron_stop(pid);
	cr_assert(eq(int, file_lines(log), 2), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^inside 2026-06-15T12:00:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^each 2026-06-15T12:03:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, stderr_matching(pid, "outside: fire time 2026-06-15T12:00:00Z "
	    "missed by .*starting_deadline: skipped"), 1));
	cr_assert(eq(int, stderr_matching(pid, "inside: starting fire time "
	    "2026-06-15T12:00:00Z .* late"), 1));
	cr_assert(eq(int, stderr_matching(pid, "each: fire times from 2026-06-15T12:00:00Z to "
	    "before 2026-06-15T12:03:00Z were missed"), 1));
}

/*
 * The clock is stepped back 10s just after the 12:00 slot ran. libfaketime
 * cannot step CLOCK_REALTIME under a timerfd (TFD_TIMER_CANCEL_ON_SET needs
 * the real clock set, which would move this machine's clock), so cron is
 * made to plan again from the earlier clock by SIGHUP, which also adds a
 * task u at 12:00: when u has run, 12:00 has come a second time. The task
 * that ran is not started again by that cron (it remembers its slot), and
 * a second cron started on the earlier clock is refused the slot by its
 * key in Redis (the fleet remembers it).
 */
Test(cron_time, a_clock_stepped_back_reruns_nothing)
{
	const char *log = scratch("runs.log"), *clk = scratch("clock");
	char body[2048], cbuf[2][256];
	const char *env[6], *cfg;
	size_t k;
	pid_t first, second;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += task_yaml(body + k, sizeof(body) - k, "t", "0 12 * * *", log, "");
	cfg = write_config_faked(body);
	clock_file_set(clk, T_1200 - 4);
	clock_file_env(env, cbuf, clk);
	first = LR_START_ENV(env, "cron", "-v", "-c", cfg);
	POLL_UNTIL(stderr_matching(first, "^t: lockrun: released") == 1);
	cr_assert(eq(str, (char *)file_peek(log), "t 2026-06-15T12:00:00Z\n"));

	clock_file_step(clk, -10);
	task_yaml(body + k, sizeof(body) - k, "u", "0 12 * * *", log, "");
	write_config_faked(body);
	kill(first, SIGHUP);
	POLL_UNTIL(stderr_matching(first, "read .* again: 2 scheduled tasks") == 1);
	second = LR_START_ENV(env, "cron", "-v", "-c", cfg);
	/* the second decides t too (its start put off a little when the
	 * first ranks first for it: sched/claim.h) */
	POLL_UNTIL(sched_decided(first, "u") == 1 && sched_decided(second, "t|u") == 2);
	cron_stop(first);
	cron_stop(second);

	cr_assert(eq(int, lines_matching(log, "^t "), 1), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^u 2026-06-15T12:00:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, stderr_matching(first, "^t: lockrun: (acquired|skipped)"), 1),
	    "the first cron started t once");
	cr_assert(eq(int, stderr_matching(second, "^t: lockrun: skipped: slot "
	    "2026-06-15T12:00:00Z already ran") + stderr_matching(second, "^lockrun: t "
	    "2026-06-15T12:00:00Z: skipped: the slot is taken"), 1), "the slot's key "
	    "refused it");
}

/* Start cron on cfg at `at`, wait until its task name has ended or been
 * skipped n times, stop it; its pid. */
static pid_t
cron_until(const char *cfg, double at, const char *name, int n)
{
	pid_t pid = cron_at(cfg, at);

	POLL_UNTIL(sched_decided(pid, name) >= n || !alive(pid));
	cron_stop(pid);
	return pid;
}

#define T_SPRING_0100	1774746000.0	/* 2026-03-29T01:00:00Z: Berlin 02:00 CET is 03:00 CEST */
#define T_FALL_0030	1792888200.0	/* 2026-10-25T00:30:00Z: 02:30 CEST */
#define T_FALL_0130	1792891800.0	/* 2026-10-25T01:30:00Z: 02:30 CET, the second */

/*
 * The clocks go forward in Berlin: 02:30 that night does not exist. The
 * cron module (src/core/cron.h, lockrun.yaml(5) timezone:) fires a skipped
 * wall time at the first instant after the jump, 01:00:00Z, once; 03:00,
 * the first wall time after it, fires then too. Nothing fires at 01:30Z
 * (03:30 CEST, where a normalised 02:30 would land).
 */
Test(cron_time, dst_spring_forward_fires_a_skipped_time_at_the_change_once)
{
	const char *log = scratch("runs.log");
	const char *berlin = "    timezone: Europe/Berlin\n";
	char body[2048];
	size_t k;
	pid_t late;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += task_yaml(body + k, sizeof(body) - k, "twothirty", "30 2 * * *", log, berlin);
	k += task_yaml(body + k, sizeof(body) - k, "three", "0 3 * * *", log, berlin);
	task_yaml(body + k, sizeof(body) - k, "probe", "30 1 * * *", log,
	    "    timezone: UTC\n");
	write_config_faked(body);
	cron_until(scratch("lockrun.yaml"), T_SPRING_0100 - 3, "(twothirty|three)", 2);
	late = cron_until(scratch("lockrun.yaml"), T_SPRING_0100 + 1800 - 3, "probe", 1);

	cr_assert(eq(int, lines_matching(log, "^twothirty 2026-03-29T01:00:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^three 2026-03-29T01:00:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^probe 2026-03-29T01:30:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, file_lines(log), 3), "%s", file_peek(log));
	cr_assert(eq(int, stderr_matching(late, "^(twothirty|three): "), 0));
}

/*
 * The clocks go back in Berlin: 02:30 comes twice, at 00:30Z (CEST) and at
 * 01:30Z (CET). As cron(8) does, a fixed-time task (30 2 * * *) runs at
 * the first only, while one whose hour field is wild (30 * * * *) runs at
 * both, each its own slot. The second cron, started just before 01:30Z,
 * starts the wild one and nothing else.
 */
Test(cron_time, dst_fall_back_runs_a_fixed_time_once_and_a_wild_one_twice)
{
	const char *log = scratch("runs.log");
	const char *berlin = "    timezone: Europe/Berlin\n";
	char body[2048];
	size_t k;
	pid_t second;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += task_yaml(body + k, sizeof(body) - k, "twothirty", "30 2 * * *", log, berlin);
	task_yaml(body + k, sizeof(body) - k, "halfpast", "30 * * * *", log, berlin);
	write_config_faked(body);
	cron_until(scratch("lockrun.yaml"), T_FALL_0030 - 3, "(twothirty|halfpast)", 2);
	second = cron_until(scratch("lockrun.yaml"), T_FALL_0130 - 3, "halfpast", 1);

	cr_assert(eq(int, lines_matching(log, "^twothirty 2026-10-25T00:30:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^halfpast 2026-10-25T00:30:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^halfpast 2026-10-25T01:30:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, file_lines(log), 3), "%s", file_peek(log));
	cr_assert(eq(int, stderr_matching(second, "^twothirty: "), 0),
	    "the second 02:30 started nothing");
	cr_assert(eq(int, stderr_matching(second, "^halfpast: lockrun: released"), 1));
}

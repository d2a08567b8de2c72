/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_away_test.c -- `lockrun cron` says what stops it, and forks nothing
 * while its lock server is away: a timer that cannot be armed (the fault
 * shim's timerfd_settime()) is an error line and exit 71, at the start or
 * later; Redis refusing connections for 20 s (its relay cut, then started
 * again on the same port) forks no run meanwhile, says one line when it
 * goes and one when it is back, few per task, and the slots still within
 * their starting_deadline then run once each. Real binary, real
 * redis-server; the scheduler's clock faked (libfaketime) so that a
 * minute's edge falls inside the outage; every run under a flock of its
 * task, so that a second copy would be seen. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"
#include "proxy.h"

TestSuite(cron_away, .init = suite_setup, .fini = suite_teardown, .timeout = 180);

/* lockrun cron -v -c cfg with the shim's timerfd_settime() failing while
 * the file flag exists. */
static pid_t
cron_timerfd_shim(const char *cfg, const char *flag)
{
	static const char *env[6];
	static char buf[3][256], knob[300];
	size_t n = 0;

	shim_env(env, buf, NULL, NULL);
	while (env[n])
		n++;
	snprintf(knob, sizeof(knob), "LOCKRUN_SHIM_TIMERFD_FAIL=%s", flag);
	env[n++] = knob;
	env[n] = NULL;
	return LR_START_ENV(env, "cron", "-v", "-c", cfg);
}

/* pid's exit status; a scheduler still there 30 s on (a guard, not a
 * measure) hangs: it is killed, and the test fails. */
static int
exit_status_of(pid_t pid)
{
	char err[16384];
	long long guard = 0;

	int hangs;

	while (alive(pid) && poll_tick(&guard))
		;
	if ((hangs = alive(pid)) != 0) {
		kill(pid, SIGKILL);
		lr_wait(pid);
	}
	cr_assert(eq(int, hangs, 0), "cron still runs 30 s after its timer could not be "
	    "armed, silent; its stderr:\n%s", lr_stderr_of(pid, err, sizeof(err)));
	return lr_wait(pid);
}

/* A task every second that appends "tick SLOT" to log. */
static const char *
ticking_config(const char *log)
{
	char body[1024];

	snprintf(body, sizeof(body), "tasks:\n  tick:\n    every: 1s\n"
	    "    command: 'echo \"tick $LOCKRUN_SLOT\" >> %s'\n", log);
	return write_config(body);
}

/* The one line that names the failure, and the status. */
static void
assert_said_and_left(pid_t pid, int status)
{
	char err[16384];

	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, status, 71), "exit status (EX_OSERR); stderr:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "timerfd_settime"), 1), "one line:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: cron: cannot arm the timer for the "
	    "next fire time: timerfd_settime: Invalid argument; stopping$"), 1), "%s", err);
}

/*
 * The timer cannot be armed from the start: cron says so and exits 71
 * at once, rather than wait for a fire time that never wakes it.
 */
Test(cron_away, timer_unarmable_at_start_is_an_error)
{
	const char *log = scratch("runs.log"), *flag = write_scratch("timerfd.fail", "");
	pid_t pid = cron_timerfd_shim(ticking_config(log), flag);

	assert_said_and_left(pid, exit_status_of(pid));
	cr_assert(eq(int, file_lines(log), 0), "a run started:\n%s", file_peek(log));
}

/*
 * A scheduler that ran its task every second finds its timer cannot be
 * armed any more: it says so once, waits for its runs, and exits 71.
 */
Test(cron_away, timer_unarmable_later_is_an_error)
{
	const char *log = scratch("runs.log"), *flag = scratch("timerfd.fail");
	pid_t pid;

	unlink(flag);
	pid = cron_timerfd_shim(ticking_config(log), flag);
	POLL_UNTIL(file_lines(log) >= 2);
	cr_assert(file_lines(log) >= 2, "the task did not run");
	write_scratch("timerfd.fail", "");
	assert_said_and_left(pid, exit_status_of(pid));
}

/* A task line of the config: NAME (with its schedule line sched), whose
 * command appends "NAME SLOT" to log under a flock of the task, or
 * "overlap NAME" when another copy holds it. */
static size_t
away_task(char *buf, size_t n, const char *name, const char *sched, const char *log)
{
	return (size_t)snprintf(buf, n, "  %s:\n    %s\n    starting_deadline: 45s\n"
	    "    command: 'flock -n %s.%s.lock sh -c ''echo \"%s $LOCKRUN_SLOT\" >> %s'' || "
	    "echo \"overlap %s\" >> %s'\n", name, sched, log, name, name, log, name, log);
}

/*
 * `every: 5s` and `* * * * *` under one scheduler, its clock 12 s before a
 * minute; once the first 5 s slot ran, Redis's relay is cut (the
 * connection breaks, new ones are refused) for 20 s, across the minute's
 * edge and four 5 s slots. Meanwhile: no run forked, one line that the
 * server is away, at most 3 lines naming each task. Then the relay
 * listens again on the same port: one line that it is back, the minute's
 * slot runs once, late but within its starting_deadline, the 5 s task
 * runs on, and no slot runs twice.
 */
Test(cron_away, refused_for_20s_forks_nothing_then_runs_the_held_slots)
{
	const char *log = scratch("runs.log"), *cfg;
	double at = (floor(fixture_real_s() / 60) + 2) * 60 - 12, cut;
	time_t edge = (time_t)at + 12;
	char body[4096], err[32768], minute[64];
	int forks, fast, min, port, after;
	struct proxy p;
	struct tm tm;
	size_t k;
	pid_t pid;

	cr_assert(eq(int, proxy_start(&p, fx.port), 0));
	port = p.port;
	k = (size_t)snprintf(body, sizeof(body), "redis:\n  url: '%s'\ndefaults:\n"
	    "  clock_tolerance: 0\ntasks:\n", p.url);
	k += away_task(body + k, sizeof(body) - k, "fast", "every: 5s", log);
	away_task(body + k, sizeof(body) - k, "minute", "schedule: '* * * * *'", log);
	cfg = write_scratch("away.yaml", body);
	gmtime_r(&edge, &tm);
	strftime(minute, sizeof(minute), "^minute %Y-%m-%dT%H:%M:%SZ$", &tm);

	pid = cron_at(cfg, at);
	POLL_UNTIL(lines_matching(log, "^fast ") >= 1 &&
	    stderr_matching(pid, "fast [^ ]+: ended, status 0") >= 1);
	cr_assert(stderr_matching(pid, "fast [^ ]+: ended, status 0") >= 1, "%s",
	    lr_stderr_of(pid, err, sizeof(err)));
	cr_assert(eq(int, lines_matching(log, "^minute "), 0),
	    "the minute's slot ran before the cut: this machine was too slow to start");

	proxy_cut(&p);
	cut = fixture_real_s();
	forks = stderr_matching(pid, ": started, pid ");
	fast = stderr_matching(pid, "(^|[^a-z_])fast([^a-z_]|$)");
	min = stderr_matching(pid, "(^|[^a-z_])minute([^a-z_]|$)");
	/* the outage itself lasts 20 s: what is measured is what happens in it */
	while (fixture_real_s() < cut + 20)
		fixture_tick(50);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, stderr_matching(pid, ": started, pid "), forks),
	    "runs forked while the server refused:\n%s", err);
	cr_assert(le(int, stderr_matching(pid, "(^|[^a-z_])fast([^a-z_]|$)") - fast, 3),
	    "lines of fast while the server refused:\n%s", err);
	cr_assert(le(int, stderr_matching(pid, "(^|[^a-z_])minute([^a-z_]|$)") - min, 3),
	    "lines of minute while the server refused:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "does not answer"), 1), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "answers again"), 0), "%s", err);
	cr_assert(eq(int, lines_matching(log, "^minute "), 0), "%s", file_peek(log));

	after = lines_matching(log, "^fast ");
	cr_assert(eq(int, proxy_start_on(&p, fx.port, port), 0));
	POLL_UNTIL(lines_matching(log, minute) == 1 && lines_matching(log, "^fast ") > after);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, lines_matching(log, minute), 1), "the minute's slot, once, once "
	    "back:\n%s\n%s", file_peek(log), err);
	cr_assert(gt(int, lines_matching(log, "^fast "), after), "fast runs on:\n%s", err);
	cron_stop(pid);
	proxy_cut(&p);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, stderr_matching(pid, "does not answer"), 1), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "answers again"), 1), "%s", err);
	cr_assert(eq(int, lines_matching(log, "^overlap "), 0), "%s", file_peek(log));
	cr_assert(eq(int, file_repeats(log), 0), "a slot ran twice:\n%s", file_peek(log));
}

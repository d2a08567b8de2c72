/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_away_test.c -- `lockrun cron` says what stops it, and forks nothing
 * while its lock server is away: a timer that cannot be armed (the fault
 * shim's timerfd_settime()) is an error line and exit 71, at the start or
 * later, and so is a clock that cannot be read; a system call it goes on after is said, once (a pipe not made
 * non-blocking, a waitpid(), pidfd_open() or sd_notify failing, output
 * its stdout refuses); Redis refusing connections for 20 s (its relay cut, then started
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

/* lockrun cron -v -c cfg under the fault shim, with the "NAME=value"
 * knob (NULL: none), its stdout to out (NULL: a file, as lr_start()'s). */
static pid_t
cron_shim(const char *cfg, const char *knob, const char *out)
{
	static const char *env[8];
	static char buf[3][256];
	size_t n = 0;

	shim_env(env, buf, NULL, NULL);
	while (env[n])
		n++;
	env[n++] = knob;
	env[n] = NULL;
	return lr_start_out(env, (const char *const[]){ "cron", "-v", "-c", cfg, NULL }, out);
}

/* lockrun cron -v -c cfg with the shim's timerfd_settime() failing while
 * the file flag exists. */
static pid_t
cron_timerfd_shim(const char *cfg, const char *flag)
{
	static char knob[300];

	snprintf(knob, sizeof(knob), "LOCKRUN_SHIM_TIMERFD_FAIL=%s", flag);
	return cron_shim(cfg, knob, NULL);
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

/*
 * A clock that cannot be read from the start (the shim's clock_gettime()
 * failing) would arm the timer at the epoch: cron says so and exits 71,
 * as for a timer that cannot be armed, and starts no run.
 */
Test(cron_away, clock_unreadable_at_start_is_an_error)
{
	const char *log = scratch("runs.log"), *flag = write_scratch("clock.fail", "");
	static char knob[300];
	char err[16384];
	pid_t pid;
	int status;

	snprintf(knob, sizeof(knob), "LOCKRUN_SHIM_CLOCK_FAIL=%s", flag);
	pid = cron_shim(ticking_config(log), knob, NULL);
	status = exit_status_of(pid);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, status, 71), "exit status (EX_OSERR); stderr:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "clock_gettime"), 1), "one line:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: cron: cannot read the clock for "
	    "the next fire time: clock_gettime: Invalid argument; stopping$"), 1), "%s", err);
	cr_assert(eq(int, file_lines(log), 0), "a run started:\n%s", file_peek(log));
}

/*
 * Nothing silent (lockrun(7), Under the scheduler). A run's read end that
 * cannot be made non-blocking (the shim's fcntl(F_SETFL, O_NONBLOCK) on a
 * pipe failing) would let a read block the loop: the run is not started,
 * its slot said missed with why; the scheduler goes on, and starts the
 * task's runs once it can.
 */
Test(cron_away, pipe_not_made_nonblocking_starts_no_run_and_says_why)
{
	const char *log = scratch("runs.log"), *flag = write_scratch("nonblock.fail", "");
	static char knob[300];
	char err[16384];
	pid_t pid;

	snprintf(knob, sizeof(knob), "LOCKRUN_SHIM_NONBLOCK_FAIL=%s", flag);
	pid = cron_shim(ticking_config(log), knob, NULL);
	POLL_UNTIL(stderr_matching(pid, "missed: no run could be started: "
	    "fcntl\\(O_NONBLOCK\\): Invalid argument$") >= 2 || !alive(pid));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, stderr_matching(pid, "^lockrun: tick [^ ]+: missed: no run could "
	    "be started: fcntl\\(O_NONBLOCK\\): Invalid argument$"), 2), "%s", err);
	cr_assert(eq(int, file_lines(log), 0), "a run started with a blocking pipe:\n%s",
	    file_peek(log));
	unlink(flag);
	POLL_UNTIL(file_lines(log) >= 1 || !alive(pid));
	cr_assert(ge(int, file_lines(log), 1), "no run once the pipes could be made "
	    "non-blocking:\n%s", lr_stderr_of(pid, err, sizeof(err)));
	cron_stop(pid);
}

/*
 * A waitpid(2) of the scheduler's failing (EINVAL, once, by the shim)
 * leaves the runs that ended unreaped until the next asks: said, one
 * warning line, and the task runs on.
 */
Test(cron_away, waitpid_error_is_said_once_and_the_runs_go_on)
{
	const char *log = scratch("runs.log"), *flag = scratch("waitpid.fail");
	static char knob[300];
	char err[16384], pidline[32];
	pid_t pid;
	int ran;

	unlink(flag);
	snprintf(knob, sizeof(knob), "LOCKRUN_SHIM_WAITPID_FAIL=%s", flag);
	pid = cron_shim(ticking_config(log), knob, NULL);
	POLL_UNTIL(stderr_matching(pid, "tick [^ ]+: ended, status 0") >= 2);
	snprintf(pidline, sizeof(pidline), "%ld\n", (long)pid);
	write_scratch("waitpid.fail", pidline);
	POLL_UNTIL(access(flag, F_OK) != 0);	/* the shim failed one */
	ran = stderr_matching(pid, "tick [^ ]+: ended, status 0");
	POLL_UNTIL(stderr_matching(pid, "tick [^ ]+: ended, status 0") >= ran + 2);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, stderr_matching(pid, "tick [^ ]+: ended, status 0"), ran + 2),
	    "the runs stopped:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "waitpid"), 1), "one line:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: cron: cannot learn which runs "
	    "ended, until the next one does: waitpid: Invalid argument$"), 1), "%s", err);
	cron_stop(pid);
}

/*
 * No pidfd for the runs' starter (the shim's pidfd_open() failing with
 * ENOSYS, as on a kernel before 5.3): said once, the runs start as
 * ever, and the scheduler still stops cleanly (the starter ends when its
 * socket closes).
 */
Test(cron_away, no_pidfd_for_the_starter_is_said_once)
{
	const char *log = scratch("runs.log");
	char err[16384];
	pid_t pid = cron_shim(ticking_config(log), "LOCKRUN_SHIM_NO_PIDFD=1", NULL);

	POLL_UNTIL(file_lines(log) >= 3);
	cron_stop(pid);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, file_lines(log), 3), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "pidfd_open"), 1), "one line:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: the runs' starter, pid [0-9]+, is "
	    "stopped by closing its socket only, not killed: pidfd_open: Function not "
	    "implemented$"), 1), "%s", err);
}

/*
 * The service manager's socket gone (NOTIFY_SOCKET names no socket) while
 * the watchdog asks for a ping every 50 ms: said once, not at every ping,
 * and the scheduler goes on.
 */
Test(cron_away, notify_socket_unreachable_is_said_once)
{
	const char *log = scratch("runs.log");
	const char *env[] = { "NOTIFY_SOCKET=/nonexistent/notify", "WATCHDOG_USEC=100000",
	    NULL };
	char err[16384];
	pid_t pid = LR_START_ENV(env, "cron", "-v", "-c", ticking_config(log));

	POLL_UNTIL(file_lines(log) >= 3);
	cron_stop(pid);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, file_lines(log), 3), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "NOTIFY_SOCKET"), 1), "one line:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: cannot tell the service manager "
	    "READY=1 on NOTIFY_SOCKET /nonexistent/notify: sendto: No such file or "
	    "directory$"), 1), "%s", err);
}

/*
 * The scheduler's stdout refuses the tasks' lines (/dev/full: ENOSPC):
 * they are counted and said, once a minute, not dropped without a word.
 */
Test(cron_away, output_refused_by_stdout_is_said_once)
{
	const char *log = scratch("runs.log");
	char body[1024], err[16384];
	pid_t pid;

	snprintf(body, sizeof(body), "tasks:\n  tick:\n    every: 1s\n"
	    "    command: 'echo said; echo \"tick $LOCKRUN_SLOT\" >> %s'\n", log);
	pid = lr_start_out(NULL, (const char *const[]){ "cron", "-v", "-c",
	    write_config(body), NULL }, "/dev/full");
	POLL_UNTIL(file_lines(log) >= 3 && stderr_matching(pid, "tick [^ ]+: ended") >= 3);
	cron_stop(pid);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, stderr_matching(pid, "tick [^ ]+: ended"), 3), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "output lost"), 1), "one line:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: 1 line of the tasks' output lost: "
	    "stdout or stderr refused them, or a task's pipe could not be read: No space "
	    "left on device$"), 1), "%s", err);
}

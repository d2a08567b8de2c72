/* SPDX-License-Identifier: BSD-2-Clause */
/* ghost_cron_test.c -- the lock server's clock is the fleet's clock for
 * slots, through `lockrun cron`: a scheduler whose clock is minutes off
 * claims no slot, says so once a minute and keeps running its other
 * tasks; three schedulers, one stepped 5 minutes ahead mid-run, run no
 * slot twice. Real binary, real redis-server, real clocks for the healthy
 * schedulers, libfaketime for the wrong one; every minute, as cron fires
 * at most that often, so each test waits for a minute's edge or two. */
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

TestSuite(ghost_cron, .init = suite_setup, .fini = suite_teardown, .timeout = 240);

/* POLL_UNTIL with a bound of 150 s rather than 30: a real clock's next
 * minute can be a minute away. The bound guards against a hang only. */
#define MINUTES_POLL_UNTIL(cond) do {					\
	long long until_ = fixture_ms() + 150000;			\
	while (!(cond) && fixture_ms() < until_)			\
		fixture_tick(5);					\
} while (0)


/* A task every minute that appends "NAME SLOT" to log. */
static size_t
task(char *buf, size_t n, const char *name, const char *log, const char *extra)
{
	return (size_t)snprintf(buf, n, "  %s:\n    schedule: '* * * * *'\n    command: "
	    "'echo \"%s $LOCKRUN_SLOT\" >> %s'\n%s", name, name, log, extra);
}

static void
stop(pid_t pid)
{
	char err[4096];

	cr_assert(eq(int, kill(pid, SIGTERM), 0));
	cr_assert(eq(int, lr_wait(pid), 0), "%s", lr_stderr_of(pid, err, sizeof(err)));
}

static int
slot_keys(void)
{
	redisReply *k = rcmd("KEYS lockrun:{s*}:slot:*");
	int n = (int)k->elements;

	freeReplyObject(k);
	return n;
}

/*
 * A scheduler 5 minutes fast: its three slot tasks claim no slot (no slot
 * key, nothing run), the clock line comes once though all three are
 * refused in the same minute (stopping waits for every run and relays
 * what each said), and its task without a slot runs on.
 */
Test(ghost_cron, a_scheduler_whose_clock_is_off_claims_no_slot_and_runs_the_rest)
{
	const char *slots = scratch("slots.log"), *plain = scratch("plain.log");
	char body[4096];
	size_t k = 0;
	double at;
	pid_t pid;

	k += (size_t)snprintf(body + k, sizeof(body) - k, "tasks:\n");
	k += task(body + k, sizeof(body) - k, "s1", slots, "");
	k += task(body + k, sizeof(body) - k, "s2", slots, "");
	k += task(body + k, sizeof(body) - k, "s3", slots, "");
	task(body + k, sizeof(body) - k, "plain", plain, "    one_server: false\n");
	/* 5 minutes fast, and 10 s before a minute of its own; a scheduler
	 * slow to start (a loaded machine) plans from the next minute, so
	 * the wait allows for one more */
	at = (double)((long long)(fixture_real_s() / 60) * 60 + 60 + 300) - 10;
	pid = cron_at(write_config(body), at);
	MINUTES_POLL_UNTIL(file_lines(plain) >= 1 && stderr_matching(pid, "clock is off") >= 1);
	cr_assert(file_lines(plain) >= 1, "the other task did not run");
	stop(pid);
	cr_assert(eq(int, file_lines(slots), 0), "a slot ran:\n%s", file_peek(slots));
	cr_assert(eq(int, slot_keys(), 0), "a slot was claimed");
	cr_assert(eq(int, stderr_matching(pid, "this server's clock is off by"), 1),
	    "the clock line, once a minute");
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: s[123] [0-9TZ:-]+: this server's "
	    "clock is off by [0-9.]+ s against the lock server; not claiming slot "), 1),
	    "the clock line, said by the scheduler");
}

/* How many times does needle occur in s? */
static int
occurrences(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/*
 * `lockrun tick` on a host 5 minutes fast: its three slot tasks claim no
 * slot, the clock line comes once for the pass (not once per task, nor
 * again in each task's end line), and its task without a slot runs.
 */
Test(ghost_cron, tick_says_the_clock_line_once_a_pass)
{
	const char *slots = scratch("tslots.log"), *plain = scratch("tplain.log");
	const char *env[5];
	char body[4096], buf[3][128];
	struct result r;
	size_t k = 0;

	k += (size_t)snprintf(body + k, sizeof(body) - k, "tasks:\n");
	k += task(body + k, sizeof(body) - k, "s1", slots, "");
	k += task(body + k, sizeof(body) - k, "s2", slots, "");
	k += task(body + k, sizeof(body) - k, "s3", slots, "");
	task(body + k, sizeof(body) - k, "plain", plain, "    one_server: false\n");
	faketime_env(env, buf, fixture_real_s() + 300);
	lr_run_env(&r, env, (const char *const[]){ "tick", "-c", write_config(body), NULL });
	cr_assert(eq(int, r.status, 75), "%s", r.err);
	cr_assert(eq(int, occurrences(r.err, "clock is off by"), 1), "once a pass:\n%s", r.err);
	cr_assert(matches(r.err, "(^|\n)lockrun: s[123] [0-9TZ:-]+: this server's clock is "
	    "off by [0-9.]+ s against the lock server; not claiming slot "), "%s", r.err);
	cr_assert(eq(int, file_lines(slots), 0), "a slot ran:\n%s", file_peek(slots));
	cr_assert(eq(int, slot_keys(), 0), "a slot was claimed");
	cr_assert(eq(int, file_lines(plain), 1), "the other task did not run: %s", r.err);
}

/* Has any line of path been written twice? */
static int
duplicates(const char *path)
{
	char *text = file_text(path), *save = NULL;
	char *lines[2048];
	int n = 0, dup = 0;

	for (char *l = strtok_r(text, "\n", &save); l && n < 2048;
	    l = strtok_r(NULL, "\n", &save)) {
		for (int i = 0; i < n; i++)
			dup += strcmp(lines[i], l) == 0;
		lines[n++] = l;
	}
	free(text);
	return dup;
}

/*
 * Three schedulers run three slot tasks; once two rounds ran, one
 * scheduler's clock steps 5 minutes ahead. It claims no slot from then
 * on, and the others run every slot once: no slot in the log twice.
 */
Test(ghost_cron, three_schedulers_one_stepped_five_minutes_run_no_slot_twice)
{
	const char *log = scratch("runs.log"), *clk = scratch("clock");
	const char *env[6];
	char body[4096], cbuf[2][256];
	size_t k = 0;
	pid_t a, b, c;
	int before;

	k += (size_t)snprintf(body + k, sizeof(body) - k, "tasks:\n");
	k += task(body + k, sizeof(body) - k, "s1", log, "");
	k += task(body + k, sizeof(body) - k, "s2", log, "");
	task(body + k, sizeof(body) - k, "s3", log, "");
	write_config(body);
	clock_file_set(clk, fixture_real_s());
	clock_file_env(env, cbuf, clk);
	a = LR_START("cron", "-v", "-c", scratch("lockrun.yaml"));
	b = LR_START("cron", "-v", "-c", scratch("lockrun.yaml"));
	c = LR_START_ENV(env, "cron", "-v", "-c", scratch("lockrun.yaml"));
	MINUTES_POLL_UNTIL(file_lines(log) >= 3);	/* one minute's slots */
	clock_file_step(clk, 300);
	before = file_lines(log);
	/* the next minute's, by the healthy two, and the stepped one saying
	 * why it claims nothing */
	MINUTES_POLL_UNTIL(file_lines(log) >= before + 3 &&
	    stderr_matching(c, "clock is off") >= 1);
	cr_assert(stderr_matching(c, "clock is off") >= 1, "the stepped clock went unseen");
	stop(a);
	stop(b);
	stop(c);
	cr_assert(eq(int, duplicates(log), 0), "a slot ran twice:\n%s", file_peek(log));
}

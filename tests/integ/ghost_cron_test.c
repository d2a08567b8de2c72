/* SPDX-License-Identifier: BSD-2-Clause */
/* ghost_cron_test.c -- the lock server's clock is the fleet's clock for
 * slots, through `lockrun cron`: a scheduler whose clock is minutes off
 * claims no slot, says so once a minute and keeps running its other
 * tasks; three schedulers, one stepped 5 minutes ahead mid-run, run no
 * slot twice. And a request that a scheduler's run gave up on, sent over
 * the scheduler's connection (lockrun(7), AT FLEET SCALE), takes nothing:
 * Redis paused across it, or the scheduler stopped with it queued. Real
 * binary, real redis-server, real clocks for the healthy schedulers,
 * libfaketime for the wrong one; every minute, as cron fires at most that
 * often, so each test waits for a minute's edge or two. */
#include <dirent.h>
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
	cron_stop(pid);
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
	cron_stop(a);
	cron_stop(b);
	cron_stop(c);
	cr_assert(eq(int, file_repeats(log), 0), "a slot ran twice:\n%s", file_peek(log));
}

/* Pause Redis and wait until /proc shows it stopped. */
static void
redis_pause(void)
{
	cr_assert(eq(int, kill(fx.pid, SIGSTOP), 0));
	POLL_UNTIL(proc_state(fx.pid) == 'T');
	cr_assert(eq(chr, proc_state(fx.pid), 'T'));
}

/* How many entries of task's history are event, by pid (0: anyone)? */
static int
events_by(const char *task, const char *event, pid_t pid)
{
	redisReply *r = rcmd("XRANGE lockrun:{%s}:history - +", task);
	char want[32];
	int n = 0;

	snprintf(want, sizeof(want), "%ld", (long)pid);
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		const redisReply *f = r->element[i]->element[1];
		int is = 0, by = pid == 0;
		for (size_t j = 0; j + 1 < f->elements; j += 2) {
			is |= strcmp(f->element[j]->str, "event") == 0 &&
			    strcmp(f->element[j + 1]->str, event) == 0;
			by |= strcmp(f->element[j]->str, "pid") == 0 &&
			    strcmp(f->element[j + 1]->str, want) == 0;
		}
		n += is && by;
	}
	freeReplyObject(r);
	return n;
}

static int
events(const char *task, const char *event)
{
	return events_by(task, event, 0);
}

/* A child of pid (the run a tick forked), or 0. */
static pid_t
child_of(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	while (d && found == 0 && (de = readdir(d)) != NULL) {
		char path[300], buf[512], *p;
		FILE *fp;
		int ppid = 0;

		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || (fp = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), fp) && (p = strrchr(buf, ')')) != NULL)
			sscanf(p + 1, " %*c %d", &ppid);
		fclose(fp);
		if (ppid == pid)
			found = (pid_t)atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Redis is paused across the acquire of a tick's run, which goes over the
 * tick's connection: the tick sends it, gets no answer within the command
 * timeout (2s), and the run gives up, withdraws (unanswered too) and ends
 * 69. 1s after the tick is gone Redis goes on (a timed SIGCONT after that
 * event is the fault, not a synchronisation) and runs what it had queued:
 * the acquire is past its deadline and takes nothing. The next tick runs
 * the task, and only it: one "ran", one slot key, one line.
 */
Test(ghost_cron, a_ticks_acquire_that_timed_out_never_takes_the_slot)
{
	const char *mark = scratch("tg.mark");
	char body[1024], err[4096];
	struct result r;
	pid_t a;
	int status;

	snprintf(body, sizeof(body), "  command_timeout: 2s\ntasks:\n  sg:\n    schedule: "
	    "'* * * * *'\n    command: 'echo \"$LOCKRUN_SLOT\" >> %s'\n", mark);
	write_config(body);
	redis_pause();
	a = LR_START("tick", "-c", scratch("lockrun.yaml"));
	status = lr_wait(a);
	lr_stderr_of(a, err, sizeof(err));
	cr_assert(eq(int, status, 69), "%s", err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command ran: %s", err);
	cr_assert(strstr(err, "the server refuses the request if it runs later") != NULL,
	    "the run's line said nothing of its request: %s", err);
	fixture_tick(1000);
	cr_assert(eq(int, kill(fx.pid, SIGCONT), 0));
	LR(&r, "tick", "-c", scratch("lockrun.yaml"));
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, file_lines(mark), 1), "%s", file_peek(mark));
	cr_assert(eq(int, events("sg", "ran"), 1), "the timed-out acquire ran too");
	cr_assert(eq(int, events("sg", "withdrawn"), 0), "the timed-out acquire took the slot");
	cr_assert(eq(int, slot_keys(), 1), "the timed-out acquire took a slot");
}

/*
 * The tick (the scheduler) is stopped while its run waits for a held lock
 * (wait: 2m): the run's next acquire queues on the socket to the tick,
 * unanswered; the holder then ends and frees the lock. The run gives up
 * on its acquire, then on its withdrawal, and ends 69. The tick goes on
 * and comes to those requests: the acquire, whose run gave up on it, must
 * take nothing (before, the tick sent it with a deadline of its own, it
 * took the free lock, and only the withdrawal behind it gave it back).
 */
Test(ghost_cron, a_request_a_ticks_run_gave_up_on_takes_nothing)
{
	const char *mark = scratch("tw.mark"), *held = scratch("tw.held");
	char body[1024], cmd[300], err[4096];
	long long until;
	pid_t holder, tick, run = 0;
	int status;

	snprintf(body, sizeof(body), "  connect_timeout: 1s\n  command_timeout: 1s\n"
	    "tasks:\n  w:\n    schedule: '* * * * *'\n    wait: 2m\n"
	    "    command: 'echo W >> %s'\n", mark);
	write_config(body);
	snprintf(cmd, sizeof(cmd), "touch %s; exec sleep 300", held);
	holder = LR_START("--redis", fx.url, "--no-overlap", "-k", "w", "--", "sh", "-c", cmd);
	POLL_UNTIL(access(held, F_OK) == 0);
	cr_assert(eq(int, access(held, F_OK), 0), "%s", lr_stderr_of(holder, err, sizeof(err)));
	tick = LR_START("tick", "-c", scratch("lockrun.yaml"));
	POLL_UNTIL(events("w", "skipped-held") >= 1);	/* its run waits */
	cr_assert(eq(int, events("w", "skipped-held"), 1), "%s",
	    lr_stderr_of(tick, err, sizeof(err)));
	POLL_UNTIL((run = child_of(tick)) > 0);
	cr_assert(gt(int, run, 0));
	cr_assert(eq(int, kill(tick, SIGSTOP), 0));
	POLL_UNTIL(proc_state(tick) == 'T');
	cr_assert(eq(int, kill(holder, SIGTERM), 0));
	lr_wait(holder);
	cr_assert(eq(int, key_exists("lockrun:{w}"), 0), "the holder left its lock");
	/* the run gives up on its acquire, then on its withdrawal: 2 x 14 s */
	until = fixture_ms() + 150000;
	while (proc_state(run) != 'Z' && proc_state(run) != '?' && fixture_ms() < until)
		fixture_tick(50);
	cr_assert(eq(chr, proc_state(run), 'Z'), "the run is still waiting");
	cr_assert(eq(int, kill(tick, SIGCONT), 0));
	status = lr_wait(tick);
	lr_stderr_of(tick, err, sizeof(err));
	cr_assert(eq(int, status, 69), "%s", err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command ran: %s", err);
	cr_assert(eq(int, events("w", "withdrawn"), 0), "the acquire its run gave up on "
	    "took the lock (and its withdrawal gave it back)");
	cr_assert(eq(int, events_by("w", "ran", run), 0), "history says the run ran");
	cr_assert(eq(int, key_exists("lockrun:{w}"), 0), "the lock is held");
	cr_assert(strstr(err, "no answer from the scheduler") != NULL, "%s", err);
}

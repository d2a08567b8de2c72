/* SPDX-License-Identifier: BSD-2-Clause */
/* ghost_test.c -- the fleet's record is what happened: an acquire that
 * lockrun gave up on (Redis paused by SIGSTOP while it waited) never takes
 * the lock or the slot when Redis goes on, and a server whose clock is
 * minutes off the lock server's claims no slot. Real binary, real
 * redis-server, clocks faked with libfaketime. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(ghost, .init = suite_setup, .fini = suite_teardown, .timeout = 120);

/* Pause Redis and wait until /proc shows it stopped. */
static void
redis_pause(void)
{
	cr_assert(eq(int, kill(fx.pid, SIGSTOP), 0));
	POLL_UNTIL(proc_state(fx.pid) == 'T');
	cr_assert(eq(chr, proc_state(fx.pid), 'T'));
}

/* Does the history of task key hold a "ran" entry by pid? */
static int
ran_by(const char *key, pid_t pid)
{
	redisReply *r = rcmd("XRANGE lockrun:{%s}:history - +", key);
	char want[32];
	int found = 0;

	snprintf(want, sizeof(want), "%ld", (long)pid);
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		const redisReply *f = r->element[i]->element[1];
		const char *event = "", *p = "";
		for (size_t j = 0; j + 1 < f->elements; j += 2) {
			if (strcmp(f->element[j]->str, "event") == 0)
				event = f->element[j + 1]->str;
			if (strcmp(f->element[j]->str, "pid") == 0)
				p = f->element[j + 1]->str;
		}
		found |= strcmp(event, "ran") == 0 && strcmp(p, want) == 0;
	}
	freeReplyObject(r);
	return found;
}

static int
slot_keys(const char *key)
{
	redisReply *k = rcmd("KEYS lockrun:{%s}:slot:*", key);
	int n = (int)k->elements;

	freeReplyObject(k);
	return n;
}

/*
 * Redis is paused across an acquire: run A (command timeout 2s) gives up
 * and exits 69; run B (5s) starts; 1s after A is gone Redis goes on (a
 * timed SIGCONT after that event is the fault, not a synchronisation).
 * Redis then runs A's queued script and B's: A's must take nothing, so B
 * runs, and the history has no "ran" by A. Four tries, each a new key.
 */
static void
paused_across_acquire(const char *mode, const char *name)
{
	const char *mark = scratch("ghost.mark");
	int said = 0;

	for (int i = 0; i < 4; i++) {
		char key[64], a_cmd[300], b_cmd[300], *text;
		char err[4096];
		pid_t a, b;
		int status, a_said;

		snprintf(key, sizeof(key), "%s-%d", name, i);
		unlink(mark);
		snprintf(a_cmd, sizeof(a_cmd), "echo A >> %s", mark);
		snprintf(b_cmd, sizeof(b_cmd), "echo B >> %s", mark);
		redis_pause();
		a = LR_START("--redis", fx.url, "--command-timeout", "2s", mode, "-k", key,
		    "--", "sh", "-c", a_cmd);
		status = lr_wait(a);
		lr_stderr_of(a, err, sizeof(err));
		cr_assert(eq(int, status, 69), "try %d: A: %s", i, err);
		cr_assert(eq(int, access(mark, F_OK), -1), "try %d: A ran", i);
		b = LR_START("--redis", fx.url, "--command-timeout", "5s", mode, "-k", key,
		    "--", "sh", "-c", b_cmd);
		a_said = strstr(err, "the server refuses the request if it runs later") != NULL;
		fixture_tick(1000);
		cr_assert(eq(int, kill(fx.pid, SIGCONT), 0));
		status = lr_wait(b);
		lr_stderr_of(b, err, sizeof(err));
		cr_assert(eq(int, status, 0), "try %d: B failed: %s", i, err);
		cr_assert(eq(int, access(mark, F_OK), 0), "try %d: B skipped: %s", i, err);
		text = file_text(mark);
		cr_assert(eq(str, text ? text : "", "B\n"), "try %d: ran: %s", i,
		    text ? text : "");
		free(text);
		cr_assert(eq(int, ran_by(key, a), 0), "try %d: history says A ran", i);
		said += a_said;
	}
	cr_assert(eq(int, said, 4), "A's line said nothing of its request");
}

Test(ghost, a_timed_out_acquire_never_takes_the_slot)
{
	paused_across_acquire("--one-server", "g1");
}

Test(ghost, a_timed_out_acquire_never_takes_the_lock)
{
	paused_across_acquire("--no-overlap", "g2");
}

/*
 * An acquire that Redis ran in time but whose answer never reached lockrun
 * (the fault shim makes lockrun deaf to it for 1.5s, past its command
 * timeout of 1s) is
 * withdrawn by the run that gave up: its key is freed, its slot too, and
 * its "ran" entry becomes "withdrawn".
 */
Test(ghost, an_unanswered_acquire_is_withdrawn)
{
	const char *mark = scratch("wd.mark");
	char cmd[300], err[4096], preload[300];
	const char *env[] = { preload, "LOCKRUN_SHIM_DEAF_ONCE=1500",
	    "ASAN_OPTIONS=verify_asan_link_order=0", NULL };
	struct result r;
	pid_t a;
	int status;

	/* Redis knows the scripts: the first answer is the acquire's, not a
	 * NOSCRIPT that a deaf lockrun would never follow with the body */
	LR(&r, "--redis", fx.url, "--one-server", "-k", "warm-wd", "--", "true");
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "echo A >> %s", mark);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", getenv("LOCKRUN_SHIM"));
	a = LR_START_ENV(env, "--redis", fx.url, "--command-timeout", "1s",
	    "--no-overlap", "--one-server", "-k", "wd", "--", "sh", "-c", cmd);
	status = lr_wait(a);
	lr_stderr_of(a, err, sizeof(err));
	cr_assert(eq(int, status, 69), "%s", err);
	cr_assert(strstr(err, "withdrew the request: it had taken the lock") != NULL,
	    "%s", err);
	cr_assert(eq(int, key_exists("lockrun:{wd}"), 0), "the lock is still held");
	cr_assert(eq(int, slot_keys("wd"), 0), "the slot is still taken");
	cr_assert(eq(int, access(mark, F_OK), -1), "the command ran");
	cr_assert(eq(int, ran_by("wd", a), 0), "history says A ran");
	LR(&r, "--redis", fx.url, "history", "wd");
	cr_assert(strstr(r.out, "withdrawn") != NULL, "history: %s", r.out);
	/* and the next run takes the slot */
	LR(&r, "--redis", fx.url, "--no-overlap", "--one-server", "-k", "wd", "--",
	    "sh", "-c", cmd);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, file_lines(mark), 1));
}

/*
 * Redis is paused while a run holds the lock: its renewals go unanswered
 * and it gives up on each (command timeout 1s), says at the lease's term
 * point that the lease is unconfirmed, and is then killed (SIGKILL: no
 * release follows). Redis stays paused 2s more (the fault) and goes on:
 * it runs the renewals it had queued, each past its deadline, so none
 * extends the lease: the key has no more than what was left of it (6s
 * from the last confirmed renewal), never a new ttl.
 */
Test(ghost, a_renewal_lockrun_gave_up_on_never_extends_the_lease)
{
	const char *mark = scratch("renew.mark");
	char cmd[300], err[4096];
	struct result r;
	long long pttl;
	pid_t a;

	/* Redis knows the renewal's script (a run renews at a third of its
	 * ttl): a queued EVALSHA would otherwise be a NOSCRIPT, not a renewal */
	LR(&r, "--redis", fx.url, "--no-overlap", "--ttl", "3s", "-k", "warm-rn", "--",
	    "sleep", "1.5");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "touch %s; exec sleep 60", mark);
	a = LR_START("--redis", fx.url, "--command-timeout", "1s", "--no-overlap",
	    "--ttl", "6s", "--kill-mode", "process", "-k", "rn", "--", "sh", "-c", cmd);
	POLL_UNTIL(access(mark, F_OK) == 0);
	cr_assert(eq(int, access(mark, F_OK), 0), "%s", lr_stderr_of(a, err, sizeof(err)));
	redis_pause();
	POLL_UNTIL(strstr(lr_stderr_of(a, err, sizeof(err)), "has not confirmed") != NULL);
	cr_assert(strstr(err, "has not confirmed") != NULL, "%s", err);
	cr_assert(eq(int, kill(a, SIGKILL), 0));
	lr_wait(a);
	fixture_tick(2000);
	cr_assert(eq(int, kill(fx.pid, SIGCONT), 0));
	pttl = key_pttl("lockrun:{rn}");
	cr_assert(lt(llong, pttl, 3000), "the key lives %lld ms more: a renewal that "
	    "lockrun gave up on extended it", pttl);
}

/* Run `echo X >> mark` with --one-server on task key, this host's clock
 * offset seconds off the lock server's (libfaketime). */
static void
run_off(struct result *r, double offset, const char *key, const char *mark)
{
	const char *env[5];
	char buf[3][128], cmd[300];

	faketime_env(env, buf, (double)time(NULL) + offset);
	snprintf(cmd, sizeof(cmd), "echo X >> %s", mark);
	lr_run_env(r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "-k", key, "--", "sh", "-c", cmd, NULL });
}

static void
claims_no_slot(double offset, const char *key)
{
	const char *mark = scratch("clock.mark");
	struct result r;

	unlink(mark);
	run_off(&r, offset, key, mark);
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	cr_assert(matches(r.err, "^lockrun: this server's clock is off by [0-9.]+ s "
	    "against the lock server; not claiming slot [0-9TZ:-]+ [^\n]*\n$"),
	    "one line: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command ran");
	cr_assert(eq(int, slot_keys(key), 0), "a slot was claimed");
}

Test(ghost, a_clock_five_minutes_fast_claims_no_slot)
{
	claims_no_slot(300, "fast");
}

Test(ghost, a_clock_five_minutes_slow_claims_no_slot)
{
	claims_no_slot(-300, "slow");
}

Test(ghost, a_clock_a_second_and_a_half_off_runs_as_before)
{
	const char *mark = scratch("near.mark");
	struct result r;

	unlink(mark);
	run_off(&r, 1.5, "near", mark);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(mark), 1));
	cr_assert(eq(int, slot_keys("near"), 1));
	unlink(mark);
	run_off(&r, -1.5, "near2", mark);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(mark), 1));
}

/* status -v and check show how far this host's clock is from the lock
 * server's, 5 minutes here (libfaketime), with the error bound. */
Test(ghost, status_and_check_show_this_hosts_offset)
{
	const char *env[5];
	char buf[3][128];
	struct result r;

	faketime_env(env, buf, (double)time(NULL) + 300);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "status", "-v", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "this host's clock is (29[5-9]|30[0-4])[0-9]{3} ms ahead of "
	    "the lock server's \\(\\+/- [0-9]+ ms\\)"), "%s", r.err);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "check", NULL });
	cr_assert(eq(int, r.status, 0), "%s%s", r.out, r.err);
	cr_assert(matches(r.out, "\nclock +this host is (29[5-9]|30[0-4])[0-9]{3} ms ahead of "
	    "the lock server \\(\\+/- [0-9]+ ms\\)\n"), "%s", r.out);
}

/* A clock minutes off does not stop no-overlap alone, which needs no
 * clock: it pays one more round trip to measure the offset. */
Test(ghost, a_clock_minutes_off_still_runs_no_overlap)
{
	const char *mark = scratch("no.mark");
	const char *env[5];
	char buf[3][128], cmd[300];
	struct result r;

	for (int sign = -1; sign <= 1; sign += 2) {
		unlink(mark);
		faketime_env(env, buf, (double)time(NULL) + sign * 300);
		snprintf(cmd, sizeof(cmd), "echo X >> %s", mark);
		lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--no-overlap",
		    "-k", "nooff", "--", "sh", "-c", cmd, NULL });
		cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
		cr_assert(eq(int, file_lines(mark), 1));
	}
}

/* The window and the clock check ride in the acquire: a run still costs
 * two round trips (acquire, release) and a skip one, with one-server and
 * no-overlap both on and this host's clock right. */
Test(ghost, a_run_still_costs_two_round_trips_and_a_skip_one)
{
	struct result r;
	redisContext *mon;
	char seen[256];

	LR(&r, "--redis", fx.url, "-k", "warm", "--", "true");	/* loads the scripts */
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "--one-server", "--every", "1d", "--no-overlap", "-k", "rt",
	    "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 2), "%s", seen);
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "--one-server", "--every", "1d", "--no-overlap", "-k", "rt",
	    "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1), "%s", seen);
}

/* How many entries of event ev the history of task key holds. */
static long
history_events(const char *key, const char *ev)
{
	redisReply *r = rcmd("XRANGE lockrun:{%s}:history - +", key);
	long n = 0;

	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		const redisReply *f = r->element[i]->element[1];
		for (size_t j = 0; j + 1 < f->elements; j += 2)
			n += strcmp(f->element[j]->str, "event") == 0 &&
			    strcmp(f->element[j + 1]->str, ev) == 0;
	}
	freeReplyObject(r);
	return n;
}

/*
 * --min-hold keeps the key for the rest of the hold after the command
 * ends, and no longer. Redis is paused as the command ends: lockrun gives
 * up on its release and exits, and Redis stays paused past the hold's end
 * (the fault). When it goes on, it runs the release it had queued, late:
 * the key must go, not be kept for what was left of the hold from then,
 * and the run's ending is recorded once, though lockrun sent its release
 * twice (again on a new connection after the first went unanswered).
 */
Test(ghost, a_late_release_never_extends_the_min_hold)
{
	struct gate g;
	struct result r;
	char err[4096];
	pid_t a;

	/* Redis knows the release script: a queued EVALSHA would otherwise be
	 * a NOSCRIPT, not a release */
	LR(&r, "--redis", fx.url, "--no-overlap", "--min-hold", "1ms", "-k", "warm-mh", "--",
	    "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	gate_open(&g, "mh");
	a = LR_START("--redis", fx.url, "--command-timeout", "1s", "--no-overlap",
	    "--min-hold", "5s", "-k", "mh", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	redis_pause();
	gate_release(&g);
	cr_assert(eq(int, lr_wait(a), 0), "%s", lr_stderr_of(a, err, sizeof(err)));
	cr_assert(strstr(lr_stderr_of(a, err, sizeof(err)), "release") != NULL,
	    "lockrun did not say its release failed: %s", err);
	fixture_tick(5000);
	cr_assert(eq(int, kill(fx.pid, SIGCONT), 0));
	POLL_UNTIL(history_events("mh", "released") > 0);
	cr_assert(gt(long, history_events("mh", "released"), 0), "the release never ran");
	cr_assert(eq(long, history_events("mh", "released"), 1), "the run's ending was "
	    "recorded %ld times (its release was sent twice)", history_events("mh", "released"));
	cr_assert(eq(llong, key_pttl("lockrun:{mh}"), -2), "a release that ran after the "
	    "hold's end kept the key %lld ms more", key_pttl("lockrun:{mh}"));
}

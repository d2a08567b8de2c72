/* SPDX-License-Identifier: BSD-2-Clause */
/* bookkeeping_test.c -- the history and the last-run hash never stand in
 * the lock's way, and say what happened once: a history key of the wrong
 * type does not stop a run; a --wait is one skipped-held entry; unlocking a
 * slot key leaves the run's ending to its release; `unlock KEY` keeps the
 * task's history settings. Real binary, real redis-server. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(bookkeeping, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* How many entries of the task's history have this event. */
static long
entries(const char *task, const char *event)
{
	redisReply *r = rcmd("XRANGE lockrun:{%s}:history - +", task);
	long n = 0;

	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		redisReply *f = r->element[i]->element[1];
		for (size_t j = 0; j + 1 < f->elements; j += 2)
			n += strcmp(f->element[j]->str, "event") == 0 &&
			    strcmp(f->element[j + 1]->str, event) == 0;
	}
	freeReplyObject(r);
	return n;
}

static void
hget(const char *key, const char *field, char *buf, size_t n)
{
	redisReply *r = rcmd("HGET %s %s", key, field);

	snprintf(buf, n, "%s", r->type == REDIS_REPLY_STRING ? r->str : "(nil)");
	freeReplyObject(r);
}

/* The scripts write the history with pcall: a history key of another
 * type is refused by Redis, but the lock is taken, the command runs and
 * the lock is released; lockrun check names the key. */
Test(bookkeeping, a_history_key_of_the_wrong_type_does_not_stop_a_run)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{typed}:history x"));
	LR(&r, "--redis", fx.url, "-k", "typed", "--one-server", "--no-overlap", "--",
	    "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
	cr_assert(eq(int, key_exists("lockrun:{typed}"), 0), "released");
	LR(&r, "check", "--redis", fx.url, "-k", "typed", "--", "true");
	cr_assert(eq(int, r.status, 69));
	cr_assert(strstr(r.err, "lockrun:{typed}:history holds a string") != NULL, "%s", r.err);
}

/* A run that waits for a held lock asks again and again; the history gets
 * one skipped-held (its first attempt), then its ran and released. */
Test(bookkeeping, a_wait_is_one_skipped_held_entry)
{
	redisContext *mon;
	pid_t waiter;

	freeReplyObject(rcmd("SET lockrun:{waited} %s PX 60000",
	    "0123456789abcdef0123456789abcdef 7 elsewhere 1 2026-01-01T00:00:00.000Z"));
	mon = monitor_start();
	waiter = LR_START("--redis", fx.url, "-k", "waited", "--wait", "50s", "--",
	    "echo", "ran");
	/* five attempts seen: it has been waiting a while */
	cr_assert(eq(long, monitor_until(mon, "^\"EVAL(SHA)?\" .*lockrun:\\{waited\\}:fence",
	    5, NULL, 0), 5));
	redisFree(mon);
	freeReplyObject(rcmd("DEL lockrun:{waited}"));
	cr_assert(eq(int, lr_wait(waiter), 0));
	cr_assert(eq(long, entries("waited", "skipped-held"), 1));
	cr_assert(eq(long, entries("waited", "ran"), 1));
	cr_assert(eq(long, entries("waited", "released"), 1));
}

/* Freeing a run's slot key does not end the run: its release still
 * records how it ended in the last-run hash. */
Test(bookkeeping, unlocking_a_slot_key_leaves_the_ending_to_the_release)
{
	char slotkey[128], v[64];
	redisReply *keys;
	struct gate g;
	pid_t job;

	gate_open(&g, "");
	job = LR_START("--redis", fx.url, "-k", "slotted", "--one-server", "--no-overlap",
	    "--", "sh", "-c", gate_sh_around(&g, "", "; exit 3"));
	gate_wait(&g);
	keys = rcmd("KEYS lockrun:{slotted}:slot:*");
	cr_assert(eq(sz, keys->elements, 1));
	snprintf(slotkey, sizeof(slotkey), "%s", keys->element[0]->str);
	freeReplyObject(keys);
	struct result r;
	LR(&r, "unlock", "--redis", fx.url, "--yes", slotkey);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	hget("lockrun:{slotted}:last", "event", v, sizeof(v));
	cr_assert(eq(str, v, "running"), "the run goes on");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(job), 3));
	hget("lockrun:{slotted}:last", "event", v, sizeof(v));
	cr_assert(eq(str, v, "released"));
	hget("lockrun:{slotted}:last", "status", v, sizeof(v));
	cr_assert(eq(str, v, "3"));
}

/* `unlock KEY` reads the task named in the key from the config, so a task
 * with history: 0 gets no history from an unlock. */
Test(bookkeeping, unlock_by_key_keeps_the_tasks_history_settings)
{
	const char *cfg = write_config("tasks:\n  quiet:\n    command: [true]\n"
	    "    history: 0\n");
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{quiet} %s PX 60000",
	    "0123456789abcdef0123456789abcdef 7 elsewhere 1 2026-01-01T00:00:00.000Z"));
	redisReply *v;

	/* a holder with a lease may be running: it is told to stop (the
	 * key becomes its tombstone); the second unlock frees it at once */
	LR(&r, "unlock", "-c", cfg, "--yes", "lockrun:{quiet}");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	v = rcmd("GET lockrun:{quiet}");
	cr_assert(v->type == REDIS_REPLY_STRING && strncmp(v->str, "unlocked:", 9) == 0);
	freeReplyObject(v);
	cr_assert(eq(int, key_exists("lockrun:{quiet}:history"), 0));
	LR(&r, "unlock", "-c", cfg, "--yes", "quiet");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{quiet}"), 0));
	cr_assert(eq(int, key_exists("lockrun:{quiet}:history"), 0));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_idle_test.c -- what an idle scheduler costs its lock server: with
 * 1,000 tasks none of which is due, a look for triggers is one command
 * (the set of triggered names), not one per task; and a trigger is still
 * found by it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define TASKS	1000

TestSuite(cron_idle, .init = suite_setup, .fini = suite_teardown, .timeout = 120);

/* TASKS tasks due once a year, on New Year's Day (the clock is June's). */
static const char *
idle_config(const char *mark)
{
	size_t cap = 128 + TASKS * 128, k;
	char *body = malloc(cap);
	const char *path;

	cr_assert(body != NULL);
	k = (size_t)snprintf(body, cap, "redis:\n  url: '%s'\ntasks:\n", fx.url);
	for (int i = 0; i < TASKS; i++)
		k += (size_t)snprintf(body + k, cap - k, "  t%04d:\n    schedule: '0 0 1 1 *'\n"
		    "    command: 'echo t%04d >> %s'\n", i, i, mark);
	path = write_scratch("idle.yaml", body);
	free(body);
	return path;
}

Test(cron_idle, an_idle_scheduler_sends_one_command_a_look)
{
	char mark[256], seen[4096] = "", last[512];
	const char *cfg;
	redisContext *mon;
	struct result r;
	long looks = 0, sent = 0;
	pid_t cron;

	snprintf(mark, sizeof(mark), "%s", scratch("ran"));
	cfg = idle_config(mark);
	mon = monitor_start();
	cron = cron_at(cfg, T_1200);
	/* its second look: the scheduler is set up (what it sends after its
	 * first, a missed-slot check per task, is a start's cost) */
	cr_assert(eq(long, monitor_until(mon, "^\"SMEMBERS\"", 2, NULL, 0), 2),
	    "not two looks in 30 s");
	redisFree(mon);

	/* every command it sends over four looks more, 20 s of its clock
	 * (read one at a time; a hundred are too many already) */
	mon = monitor_start();
	while (looks < 4 && sent < 100 && monitor_until(mon, ".", 1, last, sizeof(last)) == 1) {
		sent++;
		looks += strncmp(last, "\"SMEMBERS\"", 10) == 0;
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%.*s\n",
		    (int)strcspn(last, " "), last);
	}
	redisFree(mon);
	cr_assert(le(long, sent, 5), "%ld commands in %ld looks:\n%.300s", sent, looks, seen);
	cr_assert(eq(long, looks, 4), "%ld looks; sent %ld:\n%.300s", looks, sent, seen);

	/* a trigger is still found, by that one command */
	LR(&r, "trigger", "-c", cfg, "t0421");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	POLL_UNTIL(strcmp(file_peek(mark), "") != 0);
	cron_stop(cron);
	cr_assert(eq(str, (char *)file_peek(mark), "t0421\n"));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* status_text_test.c -- `lockrun status`'s table for people against a
 * real redis-server: it fits 100 columns with a NEXT column, -l shows
 * every column, and a run freed by `lockrun unlock` shows how it ended. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(status_text, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define ISO "[0-9-]{10}T[0-9:]{8}Z"	/* a time in the wide table */

/* A fleet's config as people name things: a long task name, schedules
 * by the minute, the hour, the day, and one under a minute. */
#define FLEET "tasks:\n" \
	"  import-products:\n    schedule: '*/5 * * * *'\n    command: 'true'\n" \
	"  refresh-search-index-eu:\n    schedule: '0 * * * *'\n    command: 'exit 3'\n" \
	"  nightly-backup:\n    schedule: '30 2 * * *'\n    command: 'true'\n" \
	"  heartbeat:\n    every: 10s\n    command: 'true'\n"

/* The longest line of s, in characters (s is ASCII here). */
static size_t
widest(const char *s)
{
	size_t w = 0;

	while (*s) {
		size_t len = strcspn(s, "\n");

		if (len > w)
			w = len;
		s += len + (s[len] == '\n');
	}
	return w;
}

Test(status_text, fits_100_columns_with_next_and_long_shows_every_column)
{
	const char *cfg = write_config(FLEET);
	struct result r;
	struct gate g;
	pid_t held;

	LR(&r, "-c", cfg, "--host", "web-prod-3", "-t", "import-products");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "-c", cfg, "--host", "web-prod-3", "-t", "refresh-search-index-eu");
	cr_assert(eq(int, r.status, 3), "%s", r.err);
	LR(&r, "pause", "-c", cfg, "heartbeat", "--reason", "load test");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	gate_open(&g, "");
	held = LR_START("-c", cfg, "--host", "batch-worker-12", "-t", "nightly-backup", "--",
	    "sh", "-c", gate_sh(&g));
	gate_wait(&g);

	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(le(sz, widest(r.out), 100), "%s", r.out);
	cr_assert(matches(r.out, "^TASK +STATE +HOLDER +LAST +EXIT +STARTED +NEXT\n"), "%s",
	    r.out);
	/* relative times: the start by the lock server's clock, the next
	 * fire time by this host's, to the second under a minute */
	cr_assert(matches(r.out, "\nimport-products +free +- +released +0 +(now|[0-9]+ s ago) +"
	    "(now|in [0-9]+ (s|min))\n"), "%s", r.out);
	cr_assert(matches(r.out, "\nrefresh-search-index-eu +free +- +released +3 +"), "%s",
	    r.out);
	cr_assert(matches(r.out, "\nnightly-backup +held +batch-worker-12 +running +- +"
	    "(now|[0-9]+ s ago) +in [0-9]+ (h|min|s)\n"), "%s", r.out);
	cr_assert(matches(r.out, "\nheartbeat +paused +- +- +- +- +(now|in [0-9]+ s)\n"), "%s",
	    r.out);

	LR(&r, "status", "-c", cfg, "-l");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "^TASK +STATE +HOLDER +SINCE +HELD +TTL +TOKEN +LAST +BY +"
	    "SLOT +STARTED +EXIT +TOOK +MISSED +RETRIES +NEXT\n"), "%s", r.out);
	cr_assert(matches(r.out, "\nnightly-backup +held +batch-worker-12:[0-9]+ +" ISO " +"
	    "[0-9]+m?s +[0-9]+s +[0-9]+ +running +batch-worker-12:[0-9]+ +" ISO " +" ISO
	    " +- +- +- +0 +" ISO "\n"), "%s", r.out);
	cr_assert(matches(r.out, "\nheartbeat +paused( +-){13} +[0-9-]{10}T[0-9:]{7}0Z\n"), "%s",
	    r.out);
	LR(&r, "status", "-c", cfg, "--long", "nightly-backup");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, " RETRIES +NEXT\nnightly-backup +held "), "%s", r.out);

	gate_release(&g);
	cr_assert(eq(int, lr_wait(held), 0));
}

/* A run freed by `lockrun unlock`: its holder finds its lock gone at the
 * next renewal and stops its command (SIGTERM: 143). Its history says
 * lost, 143; the last-run record stopped at "unlocked" (the unlock wrote
 * it before the run ended). status and the page say how it ended. */
Test(status_text, a_run_freed_by_unlock_shows_how_it_ended)
{
	const char *out = scratch("status.html");
	struct result r;
	struct gate g;
	pid_t pid;

	gate_open(&g, "");
	pid = LR_START("--redis", fx.url, "--ttl", "1s", "-k", "freed", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);
	LR(&r, "unlock", "--redis", fx.url, "--yes", "freed");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, lr_wait(pid), 143), "its command was stopped");
	LR(&r, "history", "--redis", fx.url, "-n", "1", "freed");
	cr_assert(matches(r.out, "\n[^ ]+ +[^ ]+ +[0-9]+ +lost +- +[0-9]+ +143 "), "%s", r.out);

	LR(&r, "status", "--redis", fx.url, "freed", "--html", out);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nfreed +free +- +lost +143 +"), "%s", r.out);
	cr_assert(strstr(r.out, "unlocked") == NULL, "%s", r.out);
	cr_assert(matches(file_peek(out), "data-task=\"freed\">.*<span class=\"result r-lost\">"
	    "lost \\(exit 143\\)</span>"), "%s", file_peek(out));
	cr_assert(matches(file_peek(out), "<p class=\"summary\">1 task: 1 lost</p>"), "%s",
	    file_peek(out));
	LR(&r, "status", "--redis", fx.url, "freed", "--json");
	cr_assert(matches(r.out, "\"last_run\":\\{\"event\":\"lost\",.*\"status\":143,"), "%s",
	    r.out);
}

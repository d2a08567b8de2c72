/* SPDX-License-Identifier: BSD-2-Clause */
/* status_text_test.c -- `lockrun status` for people against a real
 * redis-server: a run freed by `lockrun unlock` shows how it ended. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(status_text, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

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
	cr_assert(matches(r.out, "\nfreed +free .* lost +[^ ]+ +- +[^ ]+ +143 +"), "%s", r.out);
	cr_assert(strstr(r.out, "unlocked") == NULL, "%s", r.out);
	cr_assert(matches(file_peek(out), "data-task=\"freed\">.*<span class=\"result r-lost\">"
	    "lost \\(exit 143\\)</span>"), "%s", file_peek(out));
	cr_assert(matches(file_peek(out), "<p class=\"summary\">1 task: 1 lost</p>"), "%s",
	    file_peek(out));
	LR(&r, "status", "--redis", fx.url, "freed", "--json");
	cr_assert(matches(r.out, "\"last_run\":\\{\"event\":\"lost\",.*\"status\":143,"), "%s",
	    r.out);
}

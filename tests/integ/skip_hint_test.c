/* SPDX-License-Identifier: BSD-2-Clause */
/* skip_hint_test.c -- a skip said to a person: `lockrun -t NAME` run by
 * hand on a terminal after its slot ran says who ran it and how to run it
 * again; from cron (no terminal) it says nothing, as before. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */

TestSuite(skip_hint, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

Test(skip_hint, a_skipped_slot_on_a_terminal_says_who_and_what_next)
{
	const char *cfg = write_config_faked("tasks:\n  hello:\n    schedule: '0 * * * *'\n"
	    "    command: [\"true\"]\n"), *env[6];
	char buf[3][128];
	struct result r;

	/* one clock standing still: both runs are of the 12:00 slot */
	faketime_frozen_env(env, buf, T_1200 + 20);
	lr_run_env(&r, env, (const char *const[]){ "-c", cfg, "--host", "web3", "-t",
	    "hello", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	lr_run_env(&r, env, (const char *const[]){ "-c", cfg, "-t", "hello", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, r.err, ""), "no terminal: silent, as from cron");
	lr_run_tty(&r, env, (const char *const[]){ "-c", cfg, "-t", "hello", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: skipped: slot 2026-06-15T12:00:00Z already ran on "
	    "web3 pid [0-9]+ at 2026-06-15T12:00:20(\\.[0-9]+)?Z \\(token [0-9]+\\); to run it "
	    "again now: lockrun trigger --here hello\n$"), "%s", r.err);
	lr_run_tty(&r, env, (const char *const[]){ "-c", cfg, "-q", "-t", "hello", NULL });
	cr_assert(eq(str, r.err, ""), "-q: %s", r.err);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* mistakes_test.c -- the common mistakes, each said in one line through
 * the real binary: a mistyped option or task names the nearest, a tab in
 * the YAML says tab; and where the server's settings came from is said
 * by -v and check. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(mistakes, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

Test(mistakes, a_mistyped_option_names_the_nearest)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--one-sever", "-k", "x", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: unknown option '--one-sever' (did you mean "
	    "--one-server?)\nTry 'lockrun --help' for more information.\n"));
	cr_assert(eq(str, r.out, ""));
}

Test(mistakes, a_mistyped_task_names_the_nearest_tasks)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  import-products:\n    command: [true]\n"
	    "  import-orders:\n    command: [true]\n  backup:\n    command: [true]\n");
	char want[512];

	LR(&r, "-c", cfg, "-t", "bakup");
	cr_assert(eq(int, r.status, 64));
	snprintf(want, sizeof(want), "lockrun: -t bakup: no such task in %s (did you mean "
	    "backup?)\nTry 'lockrun --help' for more information.\n", cfg);
	cr_assert(eq(str, r.err, want));
	LR(&r, "-c", cfg, "-t", "import");
	cr_assert(eq(int, r.status, 64));
	cr_assert(strstr(r.err, "(did you mean import-products or import-orders?)") != NULL,
	    "%s", r.err);
	LR(&r, "-c", cfg, "-t", "zzz");
	cr_assert(strstr(r.err, "did you mean") == NULL, "nothing near: %s", r.err);
}

Test(mistakes, a_tab_in_the_yaml_says_tab)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  a:\n\tcommand: [true]\n");
	char want[512];

	LR(&r, "-c", cfg, "-t", "a");
	cr_assert(eq(int, r.status, 78));
	snprintf(want, sizeof(want), "lockrun: %s:5:1: a tab in the indentation: YAML indents "
	    "with spaces only (replace the tab with spaces)\n", cfg);
	cr_assert(eq(str, r.err, want));
}

/* -v and check say where the URL, the password and the prefix came from;
 * an unreachable built-in default says it is one. */
Test(mistakes, where_the_settings_came_from_is_said)
{
	struct result r;
	const char *cfg = write_config("prefix: 'app:'\n");
	char want[512];

	LR(&r, "check", "-c", cfg, "-k", "x", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	snprintf(want, sizeof(want), "\nserver      redis 127.0.0.1:%d: URL from redis.url at "
	    "%s:2:8; no password; prefix from %s\n", fx.port, cfg, cfg);
	cr_assert(strstr(r.out, want) != NULL, "%s", r.out);
	LR(&r, "-v", "--redis", fx.url, "--prefix", "p:", "-k", "x", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: URL from --url; no "
	    "password; prefix from --prefix\n"), "%s", r.err);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* status_any_test.c -- `lockrun status` of locks no task names: the runs
 * of crontab lines (`lockrun -k NAME -- ...`) are listed when the config
 * has no tasks (as the package's has none) or with --all, `status NAME`
 * takes any name with records, and `-c none` means no config. */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(status_any, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* A config of root's with every task commented out, as packaged. */
static const char *
packaged_config(void)
{
	return write_config("# tasks:\n#   backup:\n#     command: [/usr/local/bin/backup]\n");
}

/* The run of a crontab line: `lockrun -k hello -- true`. */
static void
crontab_line_ran(void)
{
	struct result r;

	LR(&r, "--url", fx.url, "-c", "none", "-k", "hello", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
}

Test(status_any, a_k_lock_is_listed_by_a_config_with_no_tasks)
{
	const char *cfg = packaged_config();
	struct result r;

	crontab_line_ran();
	LR(&r, "-c", cfg, "status");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nhello +free +"), "%s", r.out);
	LR(&r, "-c", cfg, "status", "hello");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nhello +free +.* released +"), "%s", r.out);
	LR(&r, "-c", cfg, "status", "nothing-here");
	cr_assert(eq(int, r.status, 1), "a name with no record: %s", r.err);
}

Test(status_any, all_adds_the_locks_no_task_names)
{
	const char *cfg = write_config("tasks:\n  nightly:\n    command: [\"true\"]\n");
	struct result r;

	crontab_line_ran();
	LR(&r, "-c", cfg, "status");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nnightly +free"), "%s", r.out);
	cr_assert(not(matches(r.out, "\nhello ")), "the config's tasks only: %s", r.out);
	LR(&r, "-c", cfg, "status", "--all");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nnightly +free.*\nhello +free"), "%s", r.out);
	LR(&r, "-c", cfg, "status", "hello");
	cr_assert(eq(int, r.status, 0), "any name with records: %s", r.err);
}

/* -c none: no config, also where one would be read (LOCKRUN_CONFIG) and
 * where a file could not be (writable by others: refused as root). */
Test(status_any, c_none_reads_no_config)
{
	const char *bad = write_scratch("open.yaml", "tasks: {}\n"), *env[2];
	char var[300];
	struct result r;

	cr_assert(eq(int, chmod(bad, 0666), 0));
	snprintf(var, sizeof(var), "LOCKRUN_CONFIG=%s", bad);
	env[0] = var;
	env[1] = NULL;
	crontab_line_ran();
	lr_run_env(&r, env, (const char *const[]){ "--url", fx.url, "status", NULL });
	cr_assert(eq(int, r.status, 78), "the open config is refused: %s", r.err);
	lr_run_env(&r, env, (const char *const[]){ "--url", fx.url, "-c", "none", "status",
	    NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nhello +free"), "%s", r.out);
}

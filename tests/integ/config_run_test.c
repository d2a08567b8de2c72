/* SPDX-License-Identifier: BSD-2-Clause */
/* config_run_test.c -- tasks from a config file, through the real binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(config_run, .init = suite_setup, .fini = suite_teardown, .timeout = 30);

Test(config_run, runs_a_task_with_its_env_and_cwd)
{
	struct result r;
	const char *cfg = write_config(
	    "prefix: \"t:\"\n"
	    "defaults:\n  env:\n    LEVEL: default\n    KEEP: yes\n"
	    "tasks:\n"
	    "  hello:\n"
	    "    command: 'echo \"$LEVEL $KEEP $LOCKRUN_KEY $(pwd)\"'\n"
	    "    cwd: /tmp\n"
	    "    env:\n      LEVEL: task\n");

	LR(&r, "-c", cfg, "-t", "hello");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "task yes t:{hello} /tmp\n"));
}

Test(config_run, command_after_dashes_replaces_the_tasks)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  t:\n    command: 'echo from-config'\n");

	LR(&r, "-c", cfg, "-t", "t", "--", "echo", "from", "argv");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "from argv\n"));
}

Test(config_run, command_line_wins_over_task_and_defaults)
{
	struct result r;
	const char *cfg = write_config(
	    "defaults:\n  conflict_exit: 3\n"
	    "tasks:\n  t:\n    command: [true]\n    conflict_exit: 4\n");

	freeReplyObject(rcmd("SET lockrun:{t} %s PX 30000", "x 1 h 1 t"));
	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 4), "task over defaults");
	LR(&r, "-c", cfg, "-t", "t", "-E", "5");
	cr_assert(eq(int, r.status, 5), "command line over task");
}

Test(config_run, config_found_through_environment)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  envcfg:\n    command: [echo, via-env]\n");

	setenv("LOCKRUN_CONFIG", cfg, 1);
	LR(&r, "-t", "envcfg");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "via-env\n"));
}

Test(config_run, bad_config_is_78_and_contacts_no_redis)
{
	struct result r;
	char want[512];
	const char *cfg = write_config(
	    "tasks:\n  t:\n    command: [echo, ran]\n    ttl: \"-3s\"\n");

	redisContext *mon = monitor_start();

	LR(&r, "-c", cfg, "-t", "t");
	snprintf(want, sizeof(want), "lockrun: %s:6:10: tasks.t.ttl: \"-3s\" is not a "
	    "positive duration (e.g. 500ms, 90s, 10m, 1h30m)\n", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, want));
	cr_assert(eq(str, r.out, ""));
	cr_assert(eq(long, monitor_count(mon, NULL, 0), 0));
}

Test(config_run, unknown_task_is_64)
{
	struct result r;
	char want[512];
	const char *cfg = write_config("tasks:\n  t:\n    command: [true]\n");

	LR(&r, "-c", cfg, "-t", "nope");
	snprintf(want, sizeof(want), "lockrun: -t nope: no such task in %s\n"
	    "Try 'lockrun --help' for more information.\n", cfg);
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, want));
}

Test(config_run, missing_config_file_is_78)
{
	struct result r;

	LR(&r, "-c", "/nonexistent/lockrun.yaml", "-t", "x");
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, "lockrun: /nonexistent/lockrun.yaml: "
	    "No such file or directory\n"));
}

Test(config_run, example_config_runs_a_task)
{
	struct result r;
	char path[512];

	snprintf(path, sizeof(path), "%s/../../config.example.yaml", getenv("LOCKRUN_DATA"));
	/* Redis from the command line wins over the example's URL */
	LR(&r, "-c", path, "--redis", fx.url, "-t", "import-products", "--", "echo", "ok");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ok\n"));
}

/* task_test.c -- option values from text, and merging by precedence. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "task.h"

Test(task, sets_options_by_name)
{
	struct lr_task t;
	char why[200];

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "ttl", "90s", why, sizeof(why)), 1));
	cr_assert(eq(int, task_set(&t, "one_server", "true", why, sizeof(why)), 1));
	cr_assert(eq(int, task_set(&t, "conflict_exit", "75", why, sizeof(why)), 1));
	cr_assert(eq(int, task_set(&t, "on_redis_error", "run", why, sizeof(why)), 1));
	cr_assert(eq(int, task_set(&t, "timout", "1s", why, sizeof(why)), 0), "unknown");
	cr_assert(eq(i64, t.ttl_ms, 90000));
	cr_assert(eq(int, t.one_server, 1));
	cr_assert(eq(int, t.conflict_exit, 75));
	cr_assert(eq(int, t.on_redis_error, ON_REDIS_ERROR_RUN));
	task_free(&t);
}

Test(task, explains_bad_values)
{
	struct lr_task t;
	char why[200];

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "conflict_exit", "-1", why, sizeof(why)), -1));
	cr_assert(eq(str, why, "expected an exit status from 0 to 255, got \"-1\""));
	cr_assert(eq(int, task_set(&t, "conflict_exit", "+5", why, sizeof(why)), -1));
	cr_assert(eq(int, task_set(&t, "every", "2500ms", why, sizeof(why)), -1));
	cr_assert(eq(str, why, "\"2500ms\" is not a whole number of seconds"));
	cr_assert(eq(int, task_set(&t, "no_overlap", "True", why, sizeof(why)), -1));
	cr_assert(eq(str, why, "expected true or false, got \"True\""));
	cr_assert(eq(int, t.conflict_exit, LR_UNSET), "nothing set on error");
	task_free(&t);
}

Test(task, inherit_fills_only_unset_fields)
{
	struct lr_task cli, task;
	char why[200];

	task_init(&cli);
	task_init(&task);
	task_set(&cli, "ttl", "5s", why, sizeof(why));
	task_set(&task, "ttl", "50s", why, sizeof(why));
	task_set(&task, "every", "5m", why, sizeof(why));
	task_set(&task, "cwd", "/srv", why, sizeof(why));
	cr_assert(eq(int, task_inherit(&cli, &task), 0));
	cr_assert(eq(i64, cli.ttl_ms, 5000), "the command line wins");
	cr_assert(eq(i64, cli.every_ms, 300000), "the task fills the rest");
	cr_assert(eq(str, cli.cwd, "/srv"));
	cr_assert(ne(ptr, cli.cwd, task.cwd), "a copy: each owns its strings");
	task_free(&cli);
	task_free(&task);
}

Test(task, inherit_concatenates_env_so_the_nearer_wins)
{
	struct lr_task cli, defaults;
	char why[200];

	task_init(&cli);
	task_init(&defaults);
	task_add_env(&defaults, "LEVEL", "default", why, sizeof(why));
	task_add_env(&cli, "LEVEL", "cli", why, sizeof(why));
	cr_assert(eq(int, task_inherit(&cli, &defaults), 0));
	cr_assert(eq(str, cli.env[0], "LEVEL=default"));
	cr_assert(eq(str, cli.env[1], "LEVEL=cli"), "applied last, so it wins");
	cr_assert(eq(ptr, cli.env[2], NULL));
	task_free(&cli);
	task_free(&defaults);
}

Test(task, env_names_are_checked)
{
	struct lr_task t;
	char why[200];

	task_init(&t);
	cr_assert(eq(int, task_add_env(&t, "GOOD_1", "x=y", why, sizeof(why)), 0));
	cr_assert(eq(str, t.env[0], "GOOD_1=x=y"));
	cr_assert(eq(int, task_add_env(&t, "A-B", "x", why, sizeof(why)), -1));
	cr_assert(eq(str, why, "\"A-B\" is not a valid environment variable name"));
	cr_assert(eq(int, task_add_env(&t, "", "x", why, sizeof(why)), -1));
	task_free(&t);
}

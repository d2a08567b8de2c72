/* SPDX-License-Identifier: BSD-2-Clause */
/* task_test.c -- option values from text, and merging by precedence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/err.h"
#include "core/task.h"

Test(task, sets_options_by_name)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "ttl", "90s", &err), 1));
	cr_assert(eq(int, task_set(&t, "one_server", "true", &err), 1));
	cr_assert(eq(int, task_set(&t, "conflict_exit", "75", &err), 1));
	cr_assert(eq(int, task_set(&t, "on_redis_error", "run", &err), 1));
	cr_assert(eq(int, task_set(&t, "timout", "1s", &err), 0), "unknown");
	cr_assert(eq(i64, t.ttl_ms, 90000));
	cr_assert(eq(int, t.one_server, 1));
	cr_assert(eq(int, t.conflict_exit, 75));
	cr_assert(eq(int, t.on_server_error, ON_SERVER_ERROR_RUN));
	task_free(&t);
}

Test(task, explains_bad_values)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "conflict_exit", "-1", &err), -1));
	cr_assert(eq(str, err.msg, "expected an exit status from 0 to 255, got \"-1\""));
	cr_assert(eq(int, task_set(&t, "conflict_exit", "+5", &err), -1));
	cr_assert(eq(int, task_set(&t, "every", "2500ms", &err), -1));
	cr_assert(eq(str, err.msg, "\"2500ms\" is not a whole number of seconds"));
	cr_assert(eq(int, task_set(&t, "no_overlap", "True", &err), -1));
	cr_assert(eq(str, err.msg, "expected true or false, got \"True\""));
	cr_assert(eq(int, t.conflict_exit, LR_UNSET), "nothing set on error");
	task_free(&t);
}

Test(task, inherit_fills_only_unset_fields)
{
	struct lr_task cli, task;
	struct lr_err err = { 0 };

	task_init(&cli);
	task_init(&task);
	task_set(&cli, "ttl", "5s", &err);
	task_set(&task, "ttl", "50s", &err);
	task_set(&task, "every", "5m", &err);
	task_set(&task, "cwd", "/srv", &err);
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
	struct lr_err err = { 0 };

	task_init(&cli);
	task_init(&defaults);
	task_add_env(&defaults, "LEVEL", "default", &err);
	task_add_env(&cli, "LEVEL", "cli", &err);
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
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_add_env(&t, "GOOD_1", "x=y", &err), 0));
	cr_assert(eq(str, t.env[0], "GOOD_1=x=y"));
	cr_assert(eq(int, task_add_env(&t, "A-B", "x", &err), -1));
	cr_assert(eq(str, err.msg, "\"A-B\" is not a valid environment variable name"));
	cr_assert(eq(int, task_add_env(&t, "", "x", &err), -1));
	task_free(&t);
}

Test(task, env_refuses_what_lockrun_sets_itself)
{
	static const char *const ours[] = {
		"LOCKRUN_KEY", "LOCKRUN_TOKEN", "LOCKRUN_TASK", "LOCKRUN_SLOT",
	};
	struct lr_task t;
	struct lr_err err = { 0 };
	char want[200];

	task_init(&t);
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		snprintf(want, sizeof(want), "%s is set by lockrun itself", ours[i]);
		cr_assert(eq(int, task_add_env(&t, ours[i], "forged", &err), -1),
		    "%s", ours[i]);
		cr_assert(eq(str, err.msg, want));
	}
	cr_assert(eq(ptr, t.env, NULL), "nothing added");
	task_free(&t);
}

Test(task, env_takes_other_lockrun_names)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_add_env(&t, "LOCKRUN_KEYS", "a", &err), 0));
	cr_assert(eq(int, task_add_env(&t, "LOCKRUN_CONFIG", "b", &err), 0));
	cr_assert(eq(int, task_add_env(&t, "lockrun_token", "c", &err), 0));
	cr_assert(eq(str, t.env[2], "lockrun_token=c"));
	task_free(&t);
}

Test(task, finish_defaults_to_no_overlap_and_a_short_kill_after)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	task_set(&t, "ttl", "3s", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), 0), "%s", err.msg);
	cr_assert(eq(int, t.no_overlap, 1));
	cr_assert(eq(int, t.one_server, 0));
	cr_assert(eq(int, t.renew, 1));
	cr_assert(eq(i64, t.kill_after_ms, 1000), "min(10s, ttl/3)");
	task_free(&t);
}

Test(task, finish_keeps_no_overlap_when_one_server_is_switched_off)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	task_set(&t, "one_server", "false", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), 0), "%s", err.msg);
	cr_assert(eq(int, t.no_overlap, 1), "never run with no lock by accident");
	task_free(&t);
}

Test(task, finish_refuses_bad_combinations)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	task_set(&t, "no_overlap", "false", &err);
	task_set(&t, "one_server", "false", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), -1));
	cr_assert(eq(str, err.msg, "no_overlap and one_server are both off: there is nothing "
	    "to lock"));
	task_free(&t);

	task_init(&t);
	task_set(&t, "one_server", "true", &err);
	task_set(&t, "no_overlap", "true", &err);
	task_set(&t, "every", "1m", &err);
	task_set(&t, "min_hold", "2m", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), -1));
	cr_assert(eq(str, err.msg, "min_hold 2m is longer than the slot (every 1m)"));
	task_free(&t);

	task_init(&t);
	task_set(&t, "one_server", "true", &err);
	task_set(&t, "min_hold", "10s", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), -1));
	cr_assert(eq(str, err.msg, "min_hold applies to the no-overlap lock, which is off"));
	task_free(&t);
}

Test(task, wait_may_be_zero_but_timeout_may_not)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "wait", "0", &err), 1));
	cr_assert(eq(i64, t.wait_ms, 0));
	cr_assert(eq(int, task_set(&t, "timeout", "0", &err), -1));
	cr_assert(eq(str, err.msg, "\"0\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)"));
	cr_assert(eq(int, task_set(&t, "on_lost", "panic", &err), -1));
	cr_assert(eq(str, err.msg, "expected term or ignore, got \"panic\""));
	task_free(&t);
}

Test(task, the_nearer_level_chooses_schedule_or_every)
{
	struct lr_task cli, task;
	struct lr_err err = { 0 };

	task_init(&cli);
	task_init(&task);
	task_set(&cli, "every", "5m", &err);
	task_set(&task, "schedule", "0 4 * * *", &err);
	cr_assert(eq(int, task_inherit(&cli, &task), 0));
	cr_assert(eq(ptr, cli.schedule, NULL), "--every on the command line wins");
	cr_assert(eq(i64, cli.every_ms, 300000));
	task_free(&cli);

	task_init(&cli);
	task_set(&cli, "schedule", "*/5 * * * *", &err);
	task_set(&task, "every", "1h", &err);
	cr_assert(eq(int, task_inherit(&cli, &task), 0));
	cr_assert(eq(str, cli.schedule, "*/5 * * * *"));
	cr_assert(eq(i64, cli.every_ms, LR_UNSET), "the task's every is masked");
	task_free(&cli);
	task_free(&task);
}

Test(task, schedule_and_timezone_are_checked_without_one_server)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	task_set(&t, "schedule", "garbage", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), -1));
	cr_assert(eq(int, strncmp(err.msg, "schedule \"garbage\": ", 20), 0), "%s", err.msg);
	task_free(&t);
	task_init(&t);
	task_set(&t, "timezone", "Mars/Olympus", &err);
	cr_assert(eq(int, task_finish(&t, NULL, &err), -1));
	cr_assert(eq(int, strncmp(err.msg, "timezone: unknown time zone", 27), 0), "%s", err.msg);
	task_free(&t);
}

Test(task, history_is_a_bounded_count_with_a_lifetime)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "history", "0", &err), 1));
	cr_assert(eq(int, t.history, 0));
	cr_assert(eq(int, task_set(&t, "history", "100000", &err), 1));
	cr_assert(eq(int, task_set(&t, "history", "100001", &err), -1));
	cr_assert(eq(str, err.msg, "expected a count from 0 to 100000, got \"100001\""));
	cr_assert(eq(int, task_set(&t, "history", "1e3", &err), -1));
	cr_assert(eq(int, task_set(&t, "history_ttl", "500ms", &err), -1));
	cr_assert(eq(int, task_set(&t, "history_ttl", "7d", &err), 1));
	cr_assert(eq(i64, t.history_ttl_ms, 7LL * 86400 * 1000));
	task_free(&t);
	/* unset, they take the built-in values */
	task_init(&t);
	t.no_overlap = 1;
	cr_assert(eq(int, task_finish(&t, NULL, &err), 0), "%s", err.msg);
	cr_assert(eq(int, t.history, 100));
	cr_assert(eq(i64, t.history_ttl_ms, 35LL * 86400 * 1000));
	task_free(&t);
}

/* on_server_error, and on_redis_error: its name from before, kept. */
Test(task, on_server_error_and_its_old_name)
{
	struct lr_task t;
	struct lr_err err = LR_ERR_INIT;

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "on_server_error", "run", &err), 1));
	cr_assert(eq(int, t.on_server_error, ON_SERVER_ERROR_RUN));
	cr_assert(eq(int, task_set(&t, "on_redis_error", "fail", &err), 1));
	cr_assert(eq(int, t.on_server_error, ON_SERVER_ERROR_FAIL));
	task_free(&t);
}

/* random_delay: the same task and slot always draw the same delay (every
 * server of the fleet computes it alone), in whole seconds within the
 * bound; other slots and other tasks draw others. */
Test(task, random_delay_is_the_same_for_a_slot_and_spreads_across_slots)
{
	long long first = task_random_delay("import", 1781524800, 600000);
	int differ = 0, tasks_differ = 0;

	cr_assert(eq(llong, first, task_random_delay("import", 1781524800, 600000)));
	cr_assert(eq(llong, task_random_delay("import", 1781524800, 0), 0));
	cr_assert(eq(llong, task_random_delay("import", 1781524800, 999), 0));
	for (long long slot = 1781524800; slot < 1781524800 + 100 * 60; slot += 60) {
		long long d = task_random_delay("import", slot, 600000);

		cr_assert(d >= 0 && d <= 600000 && d % 1000 == 0, "%lld", d);
		differ += d != first;
		tasks_differ += d != task_random_delay("export", slot, 600000);
	}
	cr_assert(differ > 90, "%d of 100 slots drew another delay", differ);
	cr_assert(tasks_differ > 90, "%d of 100", tasks_differ);
}

Test(task, keep_output_takes_bytes_with_units)
{
	struct lr_task t;
	struct lr_err err = { 0 };

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "keep_output", "16KiB", &err), 1));
	cr_assert(eq(int, t.keep_output, 16384));
	cr_assert(eq(int, task_set(&t, "keep_output", "256K", &err), 1));
	cr_assert(eq(int, t.keep_output, 262144));
	cr_assert(eq(int, task_set(&t, "keep_output", "0", &err), 1));
	cr_assert(eq(int, t.keep_output, 0));
	cr_assert(eq(int, task_set(&t, "keep_output", "1MiB", &err), -1), "over 256KiB");
	cr_assert(eq(str, err.msg, "expected a size from 0 to 256KiB (e.g. 4096, 16KiB), "
	    "got \"1MiB\""));
	cr_assert(eq(int, task_set(&t, "keep_output", "-1", &err), -1));
	cr_assert(eq(int, task_set(&t, "keep_output", "4kb", &err), -1));
	cr_assert(eq(int, task_set(&t, "keep_runs", "5", &err), 1));
	cr_assert(eq(int, task_set(&t, "keep_failed_runs", "7", &err), 1));
	cr_assert(eq(int, t.keep_runs, 5));
	cr_assert(eq(int, t.keep_failed_runs, 7));
	task_free(&t);
}

/* concurrency: Kubernetes' words for no_overlap, at the level that names
 * either (task_inherit()); both at one level must agree */
Test(task, concurrency_names_no_overlap)
{
	struct lr_task t, task, defaults;
	struct lr_err err = { 0 };

	task_init(&t);
	task_init(&task);
	task_init(&defaults);
	cr_assert(eq(int, task_set(&task, "concurrency", "allow", &err), 1));
	cr_assert(eq(int, task_set(&task, "one_server", "true", &err), 1));
	cr_assert(eq(int, task_set(&defaults, "no_overlap", "true", &err), 1));
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &defaults, NULL, &err), 0), "%s",
	    err.msg);
	cr_assert(eq(int, t.no_overlap, 0), "the task's allow beats the defaults' no_overlap");
	task_free(&t);
	task_free(&task);

	task_init(&t);
	task_init(&task);
	task_set(&task, "schedule", "0 * * * *", &err);
	task_set(&defaults, "concurrency", "allow", &err);	/* and no_overlap: true */
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &defaults, NULL, &err), -1),
	    "one level says both, and they disagree");
	cr_assert(eq(str, err.msg, "concurrency: allow contradicts no_overlap: true "
	    "(forbid and replace are no_overlap: true, allow is no_overlap: false; give one "
	    "of them)"));
	task_free(&t);
	task_free(&defaults);

	task_init(&t);
	task_init(&defaults);
	task_set(&defaults, "concurrency", "forbid", &err);
	task_set(&defaults, "no_overlap", "true", &err);
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &defaults, NULL, &err), 0), "%s",
	    "saying the same twice is no contradiction");
	cr_assert(eq(int, t.no_overlap, 1));
	task_free(&t);
	task_free(&task);
	task_free(&defaults);
}

/* replace keeps the no-overlap lock: it is how a run finds the copy to
 * stop, and what keeps the two apart */
Test(task, concurrency_replace_takes_the_no_overlap_lock)
{
	struct lr_task t, task, defaults;
	struct lr_err err = { 0 };

	task_init(&t);
	task_init(&task);
	task_init(&defaults);
	cr_assert(eq(int, task_set(&task, "concurrency", "replace", &err), 1));
	cr_assert(eq(int, task_set(&defaults, "no_overlap", "false", &err), 1));
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &defaults, NULL, &err), 0), "%s",
	    err.msg);
	cr_assert(eq(int, t.no_overlap, 1));
	cr_assert(eq(int, t.concurrency, CONCURRENCY_REPLACE));
	task_free(&t);
	task_set(&task, "no_overlap", "false", &err);
	task_init(&t);
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &defaults, NULL, &err), -1));
	cr_assert(eq(str, err.msg, "concurrency: replace contradicts no_overlap: false "
	    "(forbid and replace are no_overlap: true, allow is no_overlap: false; give one "
	    "of them)"));
	task_free(&t);
	task_free(&task);
	task_free(&defaults);
}

Test(task, windows_are_read_when_set)
{
	struct lr_task t, task;
	struct lr_err err = { 0 };
	const char *setting;

	task_init(&t);
	cr_assert(eq(int, task_set(&t, "between", "22:00-06:00", &err), 1));
	cr_assert(eq(str, t.between, "22:00-06:00"));
	cr_assert(eq(int, task_set(&t, "not_between", "25:00-01:00", &err), -1));
	cr_assert(eq(str, err.msg, "\"25:00-01:00\" is not HH:MM-HH:MM (e.g. 08:00-18:00)"));
	cr_assert(eq(ptr, t.not_between, NULL));
	task_free(&t);

	/* a timezone without a cron schedule has an effect now: the window's clock */
	task_init(&t);
	task_init(&task);
	task_set(&task, "timezone", "Europe/Berlin", &err);
	task_set(&task, "between", "08:00-18:00", &err);
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &task, NULL, &err), 0), "%s", err.msg);
	cr_assert(eq(ptr, (void *)task_no_effect(&task, &t, 0, &setting), NULL));
	task_free(&t);
	free(task.between);
	task.between = NULL;
	task_init(&t);
	cr_assert(eq(int, task_resolve(&t, NULL, &task, &task, NULL, &err), 0), "%s", err.msg);
	cr_assert(ne(ptr, (void *)task_no_effect(&task, &t, 0, &setting), NULL));
	cr_assert(eq(str, (char *)setting, "timezone"));
	task_free(&t);
	task_free(&task);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* config_test.c -- the config file: good files load, and every broken one
 * is refused with one exact "file:line:col: message" and EX_CONFIG. The
 * tests run in tests/data, so paths in messages are relative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "config/config.h"
#include "core/setting.h"
#include "core/where.h"

/* A backend's own setting as the config hands it over (core/setting.h):
 * its text, or NULL. */
static char *
own(const struct lr_config *c, const char *key)
{
	const struct lr_setting *s = settings_get(&c->server.own, key);

	return s ? s->value : NULL;
}

/* Load tests/data/bad/NAME.yaml; expect exactly want and status 78. */
#define BAD(name, want)							\
	Test(config_bad, name)						\
	{								\
		struct lr_config c;					\
		struct lr_err e = LR_ERR_INIT;				\
		int rc = config_load("bad/" #name ".yaml", NULL, &c, &e);	\
		config_free(&c);					\
		cr_assert(eq(int, rc, -1));				\
		cr_assert(eq(int, e.status, 78));			\
		cr_assert(eq(str, e.msg, want));			\
	}

BAD(alias,
    "bad/alias.yaml:3:14: aliases (*cmd) are not allowed in a lockrun config")
BAD(anchor,
    "bad/anchor.yaml:1:11: anchors (&d) are not allowed in a lockrun config")
BAD(billion_laughs,
    "bad/billion_laughs.yaml:1:4: anchors (&a) are not allowed in a lockrun config")
BAD(bool_yes,
    "bad/bool_yes.yaml:4:17: tasks.t.one_server: expected true or false, got \"yes\"")
BAD(between_no_minutes,
    "bad/between_no_minutes.yaml:4:14: tasks.t.between: \"8-18\" is not HH:MM-HH:MM (e.g. 08:00-18:00)")
BAD(concurrency_contradicts,
    "bad/concurrency_contradicts.yaml:5:18: tasks.t: concurrency: allow contradicts no_overlap: true "
    "(forbid and replace are no_overlap: true, allow is no_overlap: false; give one of them)")
BAD(concurrency_unknown,
    "bad/concurrency_unknown.yaml:4:18: tasks.t.concurrency: expected allow, forbid or replace, got \"parallel\"")
BAD(command_empty_list,
    "bad/command_empty_list.yaml:3:14: tasks.t.command: is an empty list")
BAD(command_mapping,
    "bad/command_mapping.yaml:3:14: tasks.t.command: expected a list of strings or a string, got a mapping")
BAD(command_missing,
    "bad/command_missing.yaml:2:3: tasks.t: no command (add command: [program, args...])")
BAD(command_nested_list,
    "bad/command_nested_list.yaml:3:21: tasks.t.command: expected a list of strings, got a list in it")
BAD(command_null,
    "bad/command_null.yaml:3:13: tasks.t.command: expected a list of strings or a string, got nothing")
BAD(complex_key,
    "bad/complex_key.yaml:1:3: mapping keys must be strings, not a list")
BAD(conflict_exit_too_big,
    "bad/conflict_exit_too_big.yaml:2:18: defaults.conflict_exit: expected an exit status from 0 to 255, got \"300\"")
BAD(conflict_exit_word,
    "bad/conflict_exit_word.yaml:2:18: defaults.conflict_exit: expected an exit status from 0 to 255, got \"skip\"")
BAD(connect_timeout_words,
    "bad/connect_timeout_words.yaml:2:20: redis.connect_timeout: \"fast\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)")
BAD(cwd_empty,
    "bad/cwd_empty.yaml:4:10: tasks.t.cwd: is empty")
BAD(defaults_with_command,
    "bad/defaults_with_command.yaml:2:3: defaults cannot have a command (give it to a task)")
BAD(duplicate_key,
    "bad/duplicate_key.yaml:5:5: duplicate key \"ttl\" (first at 4:5)")
BAD(duplicate_key_in_a_long_mapping,
    "bad/duplicate_key_in_a_long_mapping.yaml:16:7: duplicate key \"B\" (first at 6:7)")
BAD(duplicate_task,
    "bad/duplicate_task.yaml:4:3: duplicate key \"t\" (first at 2:3)")
BAD(duration_units_out_of_order,
    "bad/duration_units_out_of_order.yaml:2:8: defaults.ttl: \"30m1h\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)")
BAD(env_bad_name,
    "bad/env_bad_name.yaml:5:7: tasks.t.env: \"1BAD\" is not a valid environment variable name")
BAD(env_reserved_name,
    "bad/env_reserved_name.yaml:6:7: tasks.t.env: LOCKRUN_TOKEN is set by lockrun itself")
BAD(env_value_list,
    "bad/env_value_list.yaml:5:13: tasks.t.env.PATH: expected a string, got a list")
BAD(every_fraction,
    "bad/every_fraction.yaml:2:10: defaults.every: \"1500ms\" is not a whole number of seconds")
BAD(merge_key,
    "bad/merge_key.yaml:3:5: merge keys (<<) are not allowed in a lockrun config")
BAD(on_redis_error_unknown,
    "bad/on_redis_error_unknown.yaml:2:19: defaults.on_redis_error: expected fail or run, got \"ignore\"")
BAD(prefix_with_brace,
    "bad/prefix_with_brace.yaml:1:9: prefix: \"app{1}:\" may not contain '{' or '}' (they delimit the hash tag)")
BAD(syntax_tab_indent,
    "bad/syntax_tab_indent.yaml:2:1: a tab in the indentation: YAML indents with spaces only (replace the tab with spaces)")
BAD(syntax_unclosed_quote,
    "bad/syntax_unclosed_quote.yaml:4:1: YAML syntax error: found unexpected end of stream (while scanning a quoted scalar at 3:14)")
BAD(tag,
    "bad/tag.yaml:2:8: tags (!!str) are not allowed in a lockrun config")
BAD(task_is_string,
    "bad/task_is_string.yaml:2:11: tasks.import: expected a mapping, got a string")
BAD(task_name_with_space,
    "bad/task_name_with_space.yaml:2:3: task name \"nightly backup\" may not contain spaces or control characters")
BAD(tasks_is_list,
    "bad/tasks_is_list.yaml:2:3: tasks: expected a mapping, got a list")
BAD(top_level_list,
    "bad/top_level_list.yaml:1:1: the top level: expected a mapping, got a list")
BAD(ttl_is_list,
    "bad/ttl_is_list.yaml:2:8: defaults.ttl: expected a value, got a list")
BAD(ttl_negative,
    "bad/ttl_negative.yaml:4:10: tasks.t.ttl: \"-3s\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)")
BAD(ttl_under_a_second,
    "bad/ttl_under_a_second.yaml:2:8: defaults.ttl: \"500ms\" is shorter than 1s")
BAD(ttl_words,
    "bad/ttl_words.yaml:4:10: tasks.t.ttl: \"5 minutes\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)")
BAD(two_documents,
    "bad/two_documents.yaml:2:1: only one YAML document is allowed in a lockrun config")
BAD(tls_unknown_key,
    "bad/tls_unknown_key.yaml:3:5: unknown key \"cafile\" in redis.tls")
BAD(tls_insecure_yes,
    "bad/tls_insecure_yes.yaml:3:15: redis.tls.insecure: expected true or false")
BAD(tls_key_without_cert,
    "bad/tls_key_without_cert.yaml:3:5: redis.tls: key_file without cert_file")
BAD(tls_server_name_space,
    "bad/tls_server_name_space.yaml:3:18: redis.tls.server_name: \"redis internal\" "
    "is not a host name")
BAD(tls_not_a_map,
    "bad/tls_not_a_map.yaml:2:8: redis.tls: expected a mapping, got a string")
BAD(wait_replicas_negative,
    "bad/wait_replicas_negative.yaml:2:18: redis.wait_replicas: \"-1\" is not a number of replicas (0 to 1000; 0: do not wait)")
BAD(wait_replicas_words,
    "bad/wait_replicas_words.yaml:2:18: redis.wait_replicas: \"all\" is not a number of replicas (0 to 1000; 0: do not wait)")
BAD(wait_timeout_words,
    "bad/wait_timeout_words.yaml:3:17: redis.wait_timeout: \"soon\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)")
BAD(wait_timeout_zero,
    "bad/wait_timeout_zero.yaml:2:17: redis.wait_timeout: \"0s\" is not a positive duration (e.g. 500ms, 90s, 10m, 1h30m)")
BAD(wait_timeout_not_below_command_timeout,
    "bad/wait_timeout_not_below_command_timeout.yaml:3:17: redis.wait_timeout: 2s must be shorter than the command timeout (2s)")
BAD(wait_timeout_over_command_timeout,
    "bad/wait_timeout_over_command_timeout.yaml:2:17: redis.wait_timeout: 500ms must be shorter than the command timeout (400ms)")
BAD(unknown_redis_key,
    "bad/unknown_redis_key.yaml:2:3: unknown key \"host\" in redis")
BAD(unknown_task_key,
    "bad/unknown_task_key.yaml:4:5: unknown key \"timout\" in tasks.import (did you mean timeout?)")
BAD(unknown_top_key,
    "bad/unknown_top_key.yaml:2:1: unknown key \"redis_url\" at the top level (expected url, redis, prefix, log, listen, listen_token_file, listen_names, defaults, tasks, tasks_dir, crontab or system_crontab)")
BAD(listen_names_empty,
    "bad/listen_names_empty.yaml:2:15: listen_names: host names separated by spaces or commas")
BAD(url_bad_port,
    "bad/url_bad_port.yaml:2:8: redis.url: port must be a number from 1 to 65535")
BAD(url_sentinel_no_master,
    "bad/url_sentinel_no_master.yaml:2:8: redis.url: no master name (expected redis+sentinel://[user[:password]@]host[:port][,host[:port]...]/MASTER[/db])")
BAD(sentinel_password_file_list,
    "bad/sentinel_password_file_list.yaml:2:27: redis.sentinel_password_file: expected a string, got a list")
BAD(url_wrong_scheme,
    "bad/url_wrong_scheme.yaml:2:8: redis.url: expected redis://host[:port][/db], rediss://..., unix:///path[?db=N], redis+sentinel://..., redis+cluster://..., postgres://... or mysql://..., got \"http...\"")
BAD(kill_after_too_long,
    "bad/kill_after_too_long.yaml:4:3: tasks.t: kill_after 2s must be at most a third of ttl 3s (a lost lock must be stopped before the lease ends)")
BAD(defaults_with_shell,
    "bad/defaults_with_shell.yaml:2:3: defaults cannot have shell (give it to a task)")
BAD(not_between_empty,
    "bad/not_between_empty.yaml:2:16: defaults.not_between: \"06:00-06:00\" starts where it ends (a "
    "window of no time, or of the whole day: leave the setting out for the whole day)")
BAD(on_lost_unknown,
    "bad/on_lost_unknown.yaml:2:12: defaults.on_lost: expected term or ignore, got \"panic\"")
BAD(schedule_bad_day_name,
    "bad/schedule_bad_day_name.yaml:4:23: tasks.t.schedule: field 5 (day of week): unknown name \"fry\"")
BAD(schedule_hour_out_of_range,
    "bad/schedule_hour_out_of_range.yaml:5:20: tasks.t.schedule: field 2 (hour): 25 is out of range 0-23")
BAD(schedule_never_fires,
    "bad/schedule_never_fires.yaml:4:16: tasks.t.schedule: never fires: no month in it has that day")
BAD(timezone_unknown,
    "bad/timezone_unknown.yaml:4:15: tasks.t.timezone: unknown time zone \"Europe/Atlantis\" (no zone file /usr/share/zoneinfo/Europe/Atlantis)")
BAD(slot_tolerance_too_long,
    "bad/slot_tolerance_too_long.yaml:2:3: tasks.t: slot_tolerance 30s must be under half the slot (1m)")
BAD(hosts_at,
    "bad/hosts_at.yaml:4:19: tasks.t.hosts: host name \"a@b\" may not contain '@' (it ends a slot key's stamp)")
BAD(hosts_scalar,
    "bad/hosts_scalar.yaml:4:12: tasks.t.hosts: expected a list of host names, got a string")
BAD(when_scalar,
    "bad/when_scalar.yaml:4:11: tasks.t.when: expected a list [program, args...], got a string")
BAD(run_on_all_no_overlap,
    "bad/run_on_all_no_overlap.yaml:2:3: tasks.t: no_overlap does not go with run_on: all: its lock is one for the whole fleet, and every server runs the slot at once (a per-server no-overlap lock is not built yet)")
BAD(run_on_count,
    "bad/run_on_count.yaml:4:13: tasks.t.run_on: expected one or all, got \"2\"")

Test(config, missing_file_names_it)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("no-such.yaml", NULL, &c, &e), -1));
	cr_assert(eq(int, e.status, 78));
	cr_assert(eq(str, e.msg, "no-such.yaml: No such file or directory"));
	config_free(&c);
}

Test(config, empty_file_is_an_empty_config)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/empty.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(sz, c.ntasks, 0));
	cr_assert(eq(ptr, (void *)c.server.url, NULL));
	config_free(&c);
}

Test(config, full_file_loads_every_field)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	const struct lr_task *t, *s;

	cr_assert(eq(int, config_load("good/full.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, (char *)c.server.url, "redis://cron@10.0.0.5:6380/2"));
	cr_assert(eq(str, (char *)c.server.password_file, "/etc/lockrun/redis.pass"));
	cr_assert(eq(i64, c.server.connect_timeout_ms, 1500));
	cr_assert(eq(i64, c.server.command_timeout_ms, 3000));
	cr_assert(eq(str, c.prefix, "app:"));
	cr_assert(eq(i64, c.defaults.ttl_ms, 45000));
	cr_assert(eq(int, c.defaults.on_server_error, ON_SERVER_ERROR_RUN));
	cr_assert(eq(int, c.defaults.conflict_exit, 3));
	cr_assert(eq(str, c.defaults.env[0], "TZ=UTC"));
	cr_assert(eq(sz, c.ntasks, 2));

	t = config_task(&c, "import-products");
	cr_assert(t != NULL);
	cr_assert(eq(str, t->argv[0], "/usr/local/bin/import-products"));
	cr_assert(eq(str, t->argv[1], "--all"));
	cr_assert(eq(ptr, t->argv[2], NULL));
	cr_assert(eq(int, t->shell, 0));
	cr_assert(eq(int, t->one_server, 1));
	cr_assert(eq(int, t->no_overlap, 1));
	cr_assert(eq(i64, t->every_ms, 300000));
	cr_assert(eq(i64, t->ttl_ms, LR_UNSET), "unset: inherits the default");
	cr_assert(eq(str, t->cwd, "/srv/shop"));
	cr_assert(eq(str, t->env[0], "MODE=full"));
	cr_assert(eq(str, t->env[1], "EMPTY="));

	s = config_task(&c, "nightly-backup");
	cr_assert(s != NULL);
	cr_assert(eq(str, s->argv[0], "pg_dump shop | gzip > /backup/shop.gz"));
	cr_assert(eq(int, s->shell, 1), "a string command runs through the shell");
	cr_assert(eq(i64, s->ttl_ms, 5400000));
	cr_assert(eq(int, s->conflict_exit, 0));
	cr_assert(eq(int, s->one_server, LR_UNSET));
	cr_assert(eq(ptr, (void *)config_task(&c, "nope"), NULL));
	config_free(&c);
}

Test(config, listen_settings_load)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/listen.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, c.listen, "0.0.0.0:9090"));
	cr_assert(eq(str, c.listen_token_file, "/etc/lockrun/listen.token"));
	cr_assert(eq(str, c.listen_token_at, "good/listen.yaml:2:20: listen_token_file"));
	cr_assert(eq(str, c.listen_names, "lockrun.example.com, cron-1.example.com"));
	config_free(&c);
}

Test(config, tls_settings_load)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/tls.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, own(&c, "tls.ca_file"), "/etc/lockrun/ca.crt"));
	cr_assert(eq(str, own(&c, "tls.cert_file"), "/etc/lockrun/client.crt"));
	cr_assert(eq(str, own(&c, "tls.key_file"), "/etc/lockrun/client.key"));
	cr_assert(eq(str, own(&c, "tls.server_name"), "redis.internal"));
	cr_assert(eq(str, own(&c, "tls.insecure"), "false"));
	config_free(&c);
}

Test(config, wait_settings_load)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/wait.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, own(&c, "wait_replicas"), "2"));
	cr_assert(eq(str, own(&c, "wait_timeout"), "250ms"));
	config_free(&c);
}

/* run_on:, hosts:, host_match:, a task's or the defaults' */
Test(config, where_settings_load)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	const struct lr_task *rotate, *warm;

	cr_assert(eq(int, config_load("good/where.yaml", NULL, &c, &e), 0), "%s", e.msg);
	rotate = config_task(&c, "rotate");
	warm = config_task(&c, "warm");
	cr_assert(rotate != NULL && warm != NULL);
	cr_assert(eq(int, rotate->run_on, RUN_ON_ALL));
	cr_assert(eq(int, warm->run_on, LR_UNSET));
	cr_assert(eq(str, c.defaults.host_match, "web*"));
	cr_assert(eq(ptr, (void *)rotate->hosts, NULL));
	cr_assert(eq(str, warm->hosts[0], "db1"));
	cr_assert(eq(str, warm->hosts[1], "db2"));
	cr_assert(eq(ptr, (void *)warm->hosts[2], NULL));
	config_free(&c);
}

/* between:, not_between:, when:, concurrency:, a task's or the defaults' */
Test(config, window_and_condition_settings_load)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	const struct lr_task *nightly, *overlapping;

	cr_assert(eq(int, config_load("good/windows.yaml", NULL, &c, &e), 0), "%s", e.msg);
	nightly = config_task(&c, "nightly");
	overlapping = config_task(&c, "overlapping");
	cr_assert(nightly != NULL && overlapping != NULL);
	cr_assert(eq(str, nightly->between, "22:00-06:00"));
	cr_assert(eq(str, c.defaults.not_between, "12:00-13:00"));
	cr_assert(eq(str, nightly->when[0], "test"));
	cr_assert(eq(str, nightly->when[2], "/etc/hostname"));
	cr_assert(eq(ptr, (void *)nightly->when[3], NULL));
	cr_assert(eq(int, c.defaults.concurrency, CONCURRENCY_FORBID));
	cr_assert(eq(int, overlapping->concurrency, CONCURRENCY_ALLOW));
	cr_assert(eq(ptr, (void *)overlapping->when, NULL));
	config_free(&c);
}

Test(config, wait_settings_are_unset_when_absent)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/tls.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(ptr, own(&c, "wait_replicas"), NULL));
	cr_assert(eq(ptr, own(&c, "wait_timeout"), NULL));
	config_free(&c);
}

Test(config, explicit_shell_false_runs_a_string_directly)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/shell_false.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(int, c.tasks[0].shell, 0));
	cr_assert(eq(int, c.tasks[1].shell, 1));
	config_free(&c);
}

Test(config, example_config_loads)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("../../config.example.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(c.ntasks >= 2, "the example shows several tasks");
	cr_assert(config_task(&c, "import-products") != NULL);
	config_free(&c);
}

/* Load path reading only the task called only; expect rc, and msg when
 * it fails. */
static void
load_only(const char *path, const char *only, int rc, const char *msg)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load(path, only, &c, &e), rc), "%s", e.msg);
	if (rc != 0) {
		cr_assert(eq(int, e.status, 78));
		cr_assert(eq(str, e.msg, (char *)msg));
	}
	config_free(&c);
}

/* A mistake inside one task does not stop the runs of the others; it stops
 * its own run and lockrun check (only NULL), at its place. */
Test(config, a_broken_task_stops_only_itself)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	const struct lr_task *t;

	cr_assert(eq(int, config_load("good/one_broken_task.yaml", "also-fine", &c, &e), 0),
	    "%s", e.msg);
	cr_assert(eq(sz, c.nnames, 3), "every task is listed by name");
	cr_assert(eq(str, c.names[0], "fine"));
	cr_assert(eq(str, c.names[2], "also-fine"));
	cr_assert(eq(sz, c.ntasks, 1), "one is read");
	cr_assert(not(eq(ptr, (void *)(t = config_task(&c, "also-fine")), NULL)));
	cr_assert(eq(str, t->argv[1], "hi"));
	cr_assert(eq(i64, t->ttl_ms, 60000));
	cr_assert(eq(ptr, (void *)config_task(&c, "broken"), NULL), "listed, not read");
	cr_assert(eq(int, config_has(&c, "broken"), 1));
	cr_assert(eq(int, config_has(&c, "nope"), 0));
	cr_assert(eq(i64, c.defaults.ttl_ms, 30000), "the defaults are read");
	config_free(&c);
	load_only("good/one_broken_task.yaml", "", 0, NULL);
	load_only("good/one_broken_task.yaml", "broken", -1,
	    "good/one_broken_task.yaml:10:10: tasks.broken.ttl: \"-3s\" is not a "
	    "positive duration (e.g. 500ms, 90s, 10m, 1h30m)");
	load_only("good/one_broken_task.yaml", NULL, -1,
	    "good/one_broken_task.yaml:10:10: tasks.broken.ttl: \"-3s\" is not a "
	    "positive duration (e.g. 500ms, 90s, 10m, 1h30m)");
}

/* What guards against hostile input holds in the tasks not read, too. */
Test(config, the_whole_file_must_still_be_yaml_without_aliases)
{
	load_only("bad/syntax_in_another_task.yaml", "fine", -1,
	    "bad/syntax_in_another_task.yaml:6:8: YAML syntax error: did not find "
	    "expected ',' or ']' (while parsing a flow sequence at 5:14)");
	load_only("bad/alias_in_another_task.yaml", "fine", -1,
	    "bad/alias_in_another_task.yaml:5:14: anchors (&c) are not allowed in a "
	    "lockrun config");
	load_only("bad/deep_in_another_task.yaml", "fine", -1,
	    "bad/deep_in_another_task.yaml:35:65: nesting deeper than 32 levels");
	load_only("bad/deep_in_another_task.yaml", NULL, -1,
	    "bad/deep_in_another_task.yaml:35:65: nesting deeper than 32 levels");
	load_only("bad/duplicate_task.yaml", "x", -1,
	    "bad/duplicate_task.yaml:4:3: duplicate key \"t\" (first at 2:3)");
}

/* A file past 16 MiB is refused by name, however it is made up; one just
 * under is read. */
Test(config, a_file_past_16_mib_is_refused)
{
	char path[] = "/tmp/lockrun-big-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	char want[128];
	long size = 0;

	cr_assert(not(eq(ptr, fp, NULL)));
	fputs("tasks:\n  t:\n    command: [/bin/true]\n", fp);
	while (size < (16L << 20) - 100)	/* comments: valid YAML, nothing kept */
		size += fprintf(fp, "# %0*d\n", 77, 0);
	fflush(fp);
	load_only(path, "t", 0, NULL);
	while (size < (17L << 20))
		size += fprintf(fp, "# %0*d\n", 77, 0);
	fclose(fp);
	snprintf(want, sizeof(want), "%s: larger than 16 MiB, the most a lockrun config "
	    "may be", path);
	load_only(path, "t", -1, want);
	load_only(path, NULL, -1, want);
	unlink(path);
}

Test(config, sentinel_url_and_password_file_load)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, config_load("good/sentinel.yaml", NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, (char *)c.server.url,
	    "redis+sentinel://10.0.0.1,10.0.0.2:26380/mymaster/1"));
	cr_assert(eq(str, own(&c, "sentinel_password_file"),
	    "/etc/lockrun/sentinel.pass"));
	config_free(&c);
}

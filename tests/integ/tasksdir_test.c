/* SPDX-License-Identifier: BSD-2-Clause */
/* tasksdir_test.c -- a config's tasks_dir through the real binary: a run
 * opens its own task's file only, check, status and tick see every file,
 * a name in both places is refused with both places, a mistake inside a
 * file names that file. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(tasksdir, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* fx.dir/tasks.d/NAME (made if need be) holding body. */
static void
task_file(const char *name, const char *body)
{
	char path[512];
	FILE *fp;

	mkdir(scratch("tasks.d"), 0700);
	snprintf(path, sizeof(path), "%s/%s", scratch("tasks.d"), name);
	fp = fopen(path, "w");
	cr_assert(fp != NULL, "%s", path);
	fputs(body, fp);
	fclose(fp);
}

/* The main file: the suite's Redis, tasks_dir: tasks.d (relative: taken
 * from the config's folder, not from the test's), then body. */
static const char *
main_config(const char *body)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "tasks_dir: tasks.d\n%s", body);
	return write_config(buf);
}

Test(tasksdir, a_run_reads_only_its_file_and_check_reads_them_all)
{
	const char *cfg = main_config("");
	struct result r;

	task_file("good.yaml", "command: [echo, good]\n");
	task_file("broken.yaml", "command: [echo\nttl: 30s\n");	/* not YAML */
	LR(&r, "-c", cfg, "-t", "good");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "good\n"));
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "tasks\\.d/broken\\.yaml:2:4: YAML syntax error"), "%s",
	    r.err);
	LR(&r, "-c", cfg, "-t", "broken");
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.out, ""), "nothing ran");
}

Test(tasksdir, a_name_in_both_places_is_refused_with_both_places)
{
	const char *cfg = main_config("tasks:\n  other:\n    command: [true]\n"
	    "  twice:\n    command: [echo, main]\n");
	struct result r;

	task_file("twice.yaml", "command: [echo, file]\n");
	/* the run of either copy, check and status: each says both places */
	LR(&r, "-c", cfg, "-t", "twice");
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "lockrun\\.yaml:7:3: task \"twice\" is defined twice: "
	    "here and in .*/tasks\\.d/twice\\.yaml:1:1"), "%s", r.err);
	cr_assert(eq(str, r.out, ""), "nothing ran");
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "lockrun\\.yaml:7:3: .*tasks\\.d/twice\\.yaml:1:1"), "%s",
	    r.err);
	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "lockrun\\.yaml:7:3: .*tasks\\.d/twice\\.yaml:1:1"), "%s",
	    r.err);
	/* a task only in the main file still runs */
	LR(&r, "-c", cfg, "-t", "other");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
}

Test(tasksdir, check_and_status_see_the_folder_and_skip_what_is_not_a_task_file)
{
	const char *cfg = main_config("tasks:\n  inmain:\n    command: [true]\n");
	struct result r;

	task_file("infile.yaml", "command: [echo, infile]\n");
	/* dotfiles, backups, other suffixes, folders: not task files */
	task_file(".hidden.yaml", "command: [\n");
	task_file("infile.yaml~", "command: [\n");
	task_file("infile.yaml.bak", "command: [\n");
	task_file("README", "not yaml: [\n");
	mkdir(scratch("tasks.d/sub.yaml"), 0700);
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "ok, 2 tasks\n"), "%s", r.out);
	cr_assert(matches(r.out, "\ntask +infile +lockrun:\\{infile\\}"), "%s", r.out);
	LR(&r, "status", "-c", cfg, "--json");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "\"infile\"") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"inmain\"") != NULL, "%s", r.out);
	/* a run of the file's task: its lock and history, as any task's */
	LR(&r, "-c", cfg, "-t", "infile");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{infile}:last"), 1));
}

Test(tasksdir, a_mistake_inside_a_file_names_that_file)
{
	const char *cfg = main_config("");
	struct result r;

	task_file("slow.yaml", "command: [true]\nttl: \"-3s\"\n");
	task_file("Bad Name.yaml", "command: [true]\n");
	LR(&r, "-c", cfg, "-t", "slow");
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "tasks\\.d/slow\\.yaml:2:6: tasks\\.slow\\.ttl: \"-3s\" is "
	    "not a positive duration"), "%s", r.err);
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "tasks\\.d/Bad Name\\.yaml: task name \"Bad Name\""),
	    "%s", r.err);
	/* a name no file can hold: no such task, the folder named */
	LR(&r, "-c", cfg, "-t", "missing");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "no such task in .*lockrun\\.yaml, nor a file "
	    "missing\\.yaml in .*tasks\\.d"), "%s", r.err);
}

Test(tasksdir, tick_starts_the_folders_due_tasks)
{
	const char *log = scratch("runs.log");
	/* its clock is faked, the lock server's is not: no clock check */
	const char *cfg = main_config("defaults:\n  clock_tolerance: 0\n"
	    "tasks:\n  manual:\n    command: [true]\n");
	const char *env[6];
	char buf[3][128], body[512];
	struct result r;

	snprintf(body, sizeof(body), "schedule: '* * * * *'\n"
	    "command: 'echo \"minutely $LOCKRUN_SLOT\" >> %s'\n", log);
	task_file("minutely.yaml", body);
	snprintf(body, sizeof(body), "schedule: '0 3 * * *'\n"
	    "command: 'echo nightly >> %s'\n", log);
	task_file("nightly.yaml", body);
	faketime_frozen_env(env, buf, T_1200 + 10);
	lr_run_env(&r, env, (const char *const[]){ "tick", "-c", cfg, NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 1));
	LR(&r, "history", "-c", cfg, "minutely");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "ran"), "%s", r.out);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* tasksdir_test.c -- a config's tasks_dir and output: through
 * config_load(): which files each mode opens, the names, the places a
 * duplicate is reported at, paths taken from the config's folder. Each
 * test builds its files in a fresh temporary folder. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "config/config.h"
#include "config/files.h"

static char dir[64];

/* dir/name holding body. */
static void
put(const char *name, const char *body)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	cr_assert(fp != NULL, "%s", path);
	fputs(body, fp);
	fclose(fp);
}

static void
setup(void)
{
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/lockrun-unit.XXXXXX");
	cr_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/tasks.d", dir);
	cr_assert(eq(int, mkdir(path, 0700), 0));
	put("main.yaml", "tasks_dir: tasks.d\ntasks:\n  inmain:\n    command: [true]\n");
	put("tasks.d/b.yaml", "command: [echo, b]\noutput: logs/b.log\n");
	put("tasks.d/a.yaml", "command: [echo, a]\nschedule: '0 * * * *'\n");
	put("tasks.d/.swap.yaml", "command: [\n");
	put("tasks.d/a.yaml~", "command: [\n");
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert(eq(int, system(cmd), 0));
}

TestSuite(tasksdir, .init = setup, .fini = teardown);

static int
load(const char *only, struct lr_config *c, struct lr_err *e)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/main.yaml", dir);
	return config_load(path, only, c, e);
}

Test(tasksdir, every_file_is_read_and_named_in_order)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	char want[256];

	cr_assert(eq(int, load(NULL, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(sz, c.nnames, 3));
	cr_assert(eq(sz, c.nmain, 1));
	cr_assert(eq(str, c.names[0], "inmain"));
	cr_assert(eq(str, c.names[1], "a"));
	cr_assert(eq(str, c.names[2], "b"));
	cr_assert(config_task(&c, "a") != NULL);
	cr_assert(eq(str, config_task(&c, "a")->schedule, "0 * * * *"));
	/* output: from the main file's folder, though written in tasks.d */
	snprintf(want, sizeof(want), "%s/logs/b.log", dir);
	cr_assert(eq(str, config_task(&c, "b")->output, want));
	config_task_file(&c, "b", want, sizeof(want));
	cr_assert(eq(int, strcmp(want + strlen(want) - 15, "/tasks.d/b.yaml"), 0), "%s", want);
	config_task_file(&c, "inmain", want, sizeof(want));
	cr_assert(eq(int, strcmp(want + strlen(want) - 10, "/main.yaml"), 0), "%s", want);
	config_free(&c);
}

Test(tasksdir, a_run_opens_its_own_file_only)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	put("tasks.d/broken.yaml", "command: [\n");
	cr_assert(eq(int, load("a", &c, &e), 0), "%s", e.msg);
	cr_assert(eq(sz, c.ntasks, 1));
	cr_assert(eq(str, c.tasks[0].name, "a"));
	cr_assert(eq(int, config_has(&c, "b"), 0), "not listed");
	config_free(&c);
	cr_assert(eq(int, load("inmain", &c, &e), 0), "%s", e.msg);
	cr_assert(eq(sz, c.ntasks, 1));
	config_free(&c);
	cr_assert(eq(int, load("", &c, &e), 0), "%s", e.msg);
	cr_assert(eq(sz, c.nnames, 1), "none of the folder's names without listing");
	config_free(&c);
	cr_assert(eq(int, load("broken", &c, &e), -1));
	cr_assert(eq(int, e.status, 78));
	cr_assert(strstr(e.msg, "/tasks.d/broken.yaml:2:1: YAML syntax error") != NULL,
	    "%s", e.msg);
	config_free(&c);
}

Test(tasksdir, names_are_listed_without_opening_the_files)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	char path[128];

	put("tasks.d/broken.yaml", "command: [\n");
	snprintf(path, sizeof(path), "%s/main.yaml", dir);
	cr_assert(eq(int, config_load_names(path, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(sz, c.nnames, 4));
	cr_assert(eq(str, c.names[1], "a"));
	cr_assert(eq(str, c.names[2], "b"));
	cr_assert(eq(str, c.names[3], "broken"));
	cr_assert(eq(sz, c.ntasks, 0));
	config_free(&c);
}

Test(tasksdir, a_duplicate_names_both_places_in_every_mode)
{
	const char *only[] = { NULL, "inmain", "" };
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;
	char path[128];

	put("tasks.d/inmain.yaml", "command: [true]\n");
	snprintf(path, sizeof(path), "%s/main.yaml", dir);
	for (int i = 0; i < 3; i++) {
		int rc = i < 2 ? load(only[i], &c, &e) : config_load_names(path, &c, &e);
		cr_assert(eq(int, rc, -1), "mode %d", i);
		cr_assert(eq(int, e.status, 78));
		cr_assert(strstr(e.msg, "/main.yaml:3:3: task \"inmain\" is defined twice: here "
		    "and in ") != NULL, "%s", e.msg);
		cr_assert(strstr(e.msg, "/tasks.d/inmain.yaml:1:1 (tasks_dir)") != NULL, "%s",
		    e.msg);
		config_free(&c);
	}
}

Test(tasksdir, a_file_with_no_task_name_or_no_command_is_refused)
{
	struct lr_config c;
	struct lr_err e = LR_ERR_INIT;

	put("tasks.d/empty.yaml", "");
	cr_assert(eq(int, load(NULL, &c, &e), -1));
	cr_assert(strstr(e.msg, "/tasks.d/empty.yaml: is empty") != NULL, "%s", e.msg);
	config_free(&c);
	put("tasks.d/empty.yaml", "ttl: 30s\n");
	cr_assert(eq(int, load(NULL, &c, &e), -1));
	cr_assert(strstr(e.msg, "/tasks.d/empty.yaml:1:1: tasks.empty: no command") != NULL,
	    "%s", e.msg);
	config_free(&c);
}

Test(tasksdir, paths_are_taken_from_the_configs_folder)
{
	char out[64];

	cr_assert(eq(int, files_relative("/etc/lockrun/lockrun.yaml", "tasks.d", out,
	    sizeof(out)), 0));
	cr_assert(eq(str, out, "/etc/lockrun/tasks.d"));
	cr_assert(eq(int, files_relative("/etc/lockrun.yaml", "/srv/t", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "/srv/t"));
	cr_assert(eq(int, files_relative("lockrun.yaml", "t.d", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "t.d"));
	cr_assert(eq(int, files_relative("conf/l.yaml", "t.d", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "conf/t.d"));
	cr_assert(eq(int, files_relative("/a/l.yaml", "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789", out, sizeof(out)), -1));
}

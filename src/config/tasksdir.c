/* SPDX-License-Identifier: BSD-2-Clause */
/* tasksdir.c -- read a config's tasks_dir: NAME.yaml holds task NAME, its
 * top level the task's settings. A run opens its own task's file only,
 * so its start-up does not grow with the number of files. */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/files.h"
#include "config/options.h"
#include "config/tasksdir.h"
#include "core/keys.h"

/* Room in cfg for extra more names and tasks. */
static int
grow(struct lr_config *cfg, size_t extra)
{
	char **names = realloc(cfg->names, (cfg->nnames + extra + 1) * sizeof(*names));
	struct lr_task *tasks;

	if (names == NULL)
		return -1;
	cfg->names = names;
	if ((tasks = realloc(cfg->tasks, (cfg->ntasks + extra + 1) * sizeof(*tasks))) == NULL)
		return -1;
	cfg->tasks = tasks;
	return 0;
}

/* The key of task name in the main file's tasks: mapping, or NULL. */
static const struct yt_node *
main_key(const struct yt_node *tasks, const char *name)
{
	for (size_t i = 0; tasks && i < tasks->nkids; i += 2)
		if (tasks->kids[i]->value && strcmp(tasks->kids[i]->value, name) == 0)
			return tasks->kids[i];
	return NULL;
}

/* name is in the main file, at key k, and has a file in the folder: both
 * places. */
static int
twice(struct walk *w, const struct yt_node *k, const char *name)
{
	char file[PATH_MAX];

	files_task_path(w->cfg->tasks_dir, name, file, sizeof(file));
	return lr_errf(w->e, EX_CONFIG, "%s:%d:%d: task \"%s\" is defined twice: here "
	    "and in %s:1:1 (tasks_dir); keep one", w->path, k ? k->line : 1,
	    k ? k->col : 1, name, file);
}

/* The file of task name, read in full into the next of cfg's tasks (room
 * made by the caller); every complaint names that file. */
static int
read_file(struct walk *main, const char *name, struct lr_config *cfg)
{
	char path[PATH_MAX], section[300];
	struct walk w = { .path = path, .e = main->e, .cfg = cfg };
	struct yt_node *root;
	struct lr_task *t;
	int rc = 0;

	if (files_task_path(cfg->tasks_dir, name, path, sizeof(path)) != 0)
		return lr_errf(w.e, EX_CONFIG, "%s: the path of task %s is too long",
		    cfg->tasks_dir_at, name);
	if (files_trusted(path, w.e) != 0 || yt_load(path, NULL, &root, w.e) != 0)
		return -1;
	t = &cfg->tasks[cfg->ntasks++];
	task_init(t);
	snprintf(section, sizeof(section), "tasks.%s", name);
	if ((t->name = strdup(name)) == NULL)
		rc = lr_errf(w.e, EX_OSERR, "out of memory");
	else if (root == NULL)
		rc = lr_errf(w.e, EX_CONFIG, "%s: is empty (a task file holds the task's "
		    "settings: command: [program, args...], ...)", path);
	else if ((rc = options_parse(&w, root, section, 1, t)) == 0 && t->argv == NULL)
		rc = walk_bad(&w, root, "%s: no command (add command: [program, "
		    "args...])", section);
	if (rc == 0)
		rc = options_check(&w, root, t);
	yt_free(root);
	return rc;
}

/* Is name one of the main file's tasks? */
static int
in_main(const struct lr_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nmain; i++)
		if (strcmp(cfg->names[i], name) == 0)
			return 1;
	return 0;
}

/* `lockrun -t name`: that task's file, if there is one; one stat(2) when
 * there is none. */
static int
read_one(struct walk *w, const struct yt_node *tasks, const char *name)
{
	struct lr_config *cfg = w->cfg;
	char path[PATH_MAX];
	struct stat st;

	if (keys_name_problem(name) != NULL ||
	    files_task_path(cfg->tasks_dir, name, path, sizeof(path)) != 0)
		return 0;		/* no file can hold it */
	if (stat(path, &st) != 0 && errno == ENOENT)
		return 0;
	if (in_main(cfg, name))
		return twice(w, main_key(tasks, name), name);
	if (grow(cfg, 1) != 0)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	if (read_file(w, name, cfg) != 0)
		return -1;
	if ((cfg->names[cfg->nnames] = strdup(name)) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	cfg->nnames++;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
tasksdir_read(struct walk *w, const struct yt_node *tasks, const char *only, int list)
{
	struct lr_config *cfg = w->cfg;
	char **names;
	size_t n;
	int rc = 0;

	if (files_trusted(cfg->tasks_dir, w->e) != 0)
		return -1;
	if (only != NULL && *only != '\0')
		return read_one(w, tasks, only);
	if (only != NULL && !list)
		return 0;
	if (files_task_names(cfg->tasks_dir, cfg->tasks_dir_at, &names, &n, w->e) != 0)
		return -1;
	/* the folder's names are sorted: one search each for the main file's,
	 * which are in the order of the tasks: mapping's keys */
	for (size_t i = 0; i < cfg->nnames && rc == 0; i++)
		if (n > 0 && bsearch(&cfg->names[i], names, n, sizeof(*names), by_name) != NULL)
			rc = twice(w, tasks ? tasks->kids[2 * i] : NULL, cfg->names[i]);
	if (rc == 0 && grow(cfg, n) != 0)
		rc = lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (only == NULL)
			rc = read_file(w, names[i], cfg);
		if (rc == 0) {
			cfg->names[cfg->nnames++] = names[i];
			names[i] = NULL;
		}
	}
	files_names_free(names, n);
	return rc;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* tasksdir.h -- the tasks of a config's tasks_dir, one file each. */
#ifndef LR_CONFIG_TASKSDIR_H
#define LR_CONFIG_TASKSDIR_H

#include "config/walk.h"

/* Add the tasks of w->cfg->tasks_dir to w->cfg, after the main file's
 * (w is the main file's walk; tasks its tasks: mapping, or NULL). With
 * only NULL, every file is read in full; with only a name, that task's
 * file alone, if there is one; with only "", the files' names if list is
 * set, else nothing. A task both in the main file and in the folder is
 * an error naming both places. Returns 0, or -1 with w->e. */
int	tasksdir_read(struct walk *w, const struct yt_node *tasks, const char *only,
	    int list);

#endif

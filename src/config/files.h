/* SPDX-License-Identifier: BSD-2-Clause */
/* files.h -- the files a config names: paths taken from the config's
 * folder, and the task files of its tasks_dir. */
#ifndef LR_CONFIG_FILES_H
#define LR_CONFIG_FILES_H

#include <stddef.h>

#include "core/err.h"

/* path as seen from the folder that holds the file base: path itself if
 * absolute (or if base is in the current folder), else base's folder,
 * "/", path. Returns 0, or -1 when it does not fit in out[n]. */
int	files_relative(const char *base, const char *path, char *out, size_t n);

/* The file of task name in the folder dir: "dir/name.yaml", or
 * "dir/name.yml" when only that one is there. Returns 0, or -1 when it
 * does not fit in out[n]. */
int	files_task_path(const char *dir, const char *name, char *out, size_t n);

/* The names of the task files in dir (NAME.yaml), sorted by strcmp(3),
 * into a new array *names of *n (free with files_names_free()). Left
 * out: dotfiles, names not ending in .yaml (editor backups such as
 * x.yaml~, x.yaml.bak), folders. A NAME that is no task name is an
 * error naming its file. Returns 0, or -1 with e = EX_CONFIG ("at: dir:
 * reason" when dir cannot be read), EX_OSERR. */
int	files_task_names(const char *dir, const char *at, char ***names, size_t *n,
	    struct lr_err *e);
void	files_names_free(char **names, size_t n);

/* When lockrun runs as root, may it read path (the config, the tasks_dir,
 * a task file), a thing that says what root runs? file_trusted()'s rule,
 * for euid 0 only. Returns 0, or -1 with e = EX_CONFIG naming path, what
 * breaks the rule, and the rule; never anything read from path. */
int	files_trusted(const char *path, struct lr_err *e);

#endif

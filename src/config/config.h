/* SPDX-License-Identifier: BSD-2-Clause */
/* config.h -- the YAML configuration file. */
#ifndef LR_CONFIG_H
#define LR_CONFIG_H

#include <stddef.h>

#include "config/types.h"
#include "core/err.h"

/* An empty config: no file, nothing set. */
void	config_init(struct lr_config *cfg);

/* Read and validate path into cfg. With only NULL, every task is read
 * and checked, the tasks_dir's files too; otherwise only the task called
 * only (none for ""): the main file's others are listed in names only,
 * unread, so that a mistake inside one of them does not stop the run of
 * another, and of the tasks_dir only only's file is opened (none for ""):
 * a run's start-up does not grow with the folder. The main file must be
 * valid YAML throughout either way. A task both in the main file and in
 * the tasks_dir is an error naming both places. Returns 0, or -1 with e
 * = EX_CONFIG "path:line:col: message" (or "path: reason" when it cannot
 * be read), path the file at fault. cfg is always left safe to pass to
 * config_free(). */
int	config_load(const char *path, const char *only, struct lr_config *cfg,
	    struct lr_err *e);

/* config_load() with only "", but every task's name listed, the
 * tasks_dir's too (read from the folder; their files not opened). */
int	config_load_names(const char *path, struct lr_config *cfg, struct lr_err *e);

/* config_load() (config_load_names() with list), then the crontab
 * files given besides the config's (the command line's --crontab),
 * each marked given so that config_reload() reads it again. path NULL:
 * no YAML config, the crontabs alone. checking: for `lockrun check`,
 * what only a run can try is a note (struct lr_config's checking). */
int	config_load_with(const char *path, const char *only, int list, int checking,
	    const struct lr_crontab *crontabs, size_t n, struct lr_config *cfg,
	    struct lr_err *e);

/* Read the config old was read from again, whole, with the crontab
 * files old was given (SIGHUP). */
int	config_reload(const struct lr_config *old, struct lr_config *cfg,
	    struct lr_err *e);

/* What src says of the lock server (its path, url:, password_file,
 * timeouts, a backend's own settings, prefix:) copied into dst, as a
 * config of its own: the helpers a scheduler gives their own connection
 * (the lease channel, the looks, the page) take it from the config read
 * at start, not from the file again. Returns 0, or -1 with e; dst is
 * always safe to pass to config_free(). */
int	config_copy_server(const struct lr_config *src, struct lr_config *dst,
	    struct lr_err *e);

/* Was a config read: a YAML file, or crontab files alone? */
int	config_is_set(const struct lr_config *cfg);

/* The config's name for messages: its YAML file, else its first crontab. */
const char *config_where(const struct lr_config *cfg);

/* The file that defines task name: the main file, or its file in the
 * tasks_dir. */
void	config_task_file(const struct lr_config *cfg, const char *name, char *out,
	    size_t n);

/* Is there a task called name (read or not)? */
int	config_has(const struct lr_config *cfg, const char *name);

void	config_free(struct lr_config *cfg);

/* The task called name, if it was read; else NULL. */
const struct lr_task *config_task(const struct lr_config *cfg, const char *name);

#endif

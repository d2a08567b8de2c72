/* SPDX-License-Identifier: BSD-2-Clause */
/* config.h -- the YAML configuration file. */
#ifndef LR_CONFIG_H
#define LR_CONFIG_H

#include <stddef.h>

#include "core/err.h"
#include "core/task.h"

#define CONFIG_DEFAULT_PATH "/etc/lockrun/lockrun.yaml"

struct lr_config {
	char			*path;
	struct lr_server_opts	 server;
	char			 url_at[300];	/* "path:line:col: url" where
						 * redis.url was given */
	char			 tls_at[300];	/* "path:line:col: redis.tls" where
						 * TLS settings were given, or "" */
	char			*prefix;	/* NULL: not given */
	char			*log;		/* log: stderr|syslog|json[:FILE]; NULL */
	struct lr_task		 defaults;
	char			**names;	/* every task's name, in file order */
	size_t			 nnames;
	struct lr_task		*tasks;		/* the tasks read (config_load's only) */
	size_t			 ntasks;
};

/* An empty config: no file, nothing set. */
void	config_init(struct lr_config *cfg);

/* Read and validate path into cfg. With only NULL, every task is read
 * and checked; otherwise only the task called only (none for ""): the
 * others are listed in names only, unread, so that a mistake inside one of
 * them does not stop the run of another. The file must be valid YAML
 * throughout either way. Returns 0, or -1 with e = EX_CONFIG
 * "path:line:col: message" (or "path: reason" when it cannot be read).
 * cfg is always left safe to pass to config_free(). */
int	config_load(const char *path, const char *only, struct lr_config *cfg,
	    struct lr_err *e);

/* Is there a task called name (read or not)? */
int	config_has(const struct lr_config *cfg, const char *name);

void	config_free(struct lr_config *cfg);

/* The task called name, if it was read; else NULL. */
const struct lr_task *config_task(const struct lr_config *cfg, const char *name);

#endif

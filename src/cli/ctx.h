/* SPDX-License-Identifier: BSD-2-Clause */
/* ctx.h -- what every verb shares: the command line, the config, the
 * merged settings, the backend holding the lock. */
#ifndef LR_CTX_H
#define LR_CTX_H

#include <limits.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "config/config.h"
#include "core/keys.h"
#include "core/schedule.h"
#include "core/task.h"
#include "proc/child.h"

#define DEFAULT_URL		"redis://127.0.0.1:6379/0"
#define DEFAULT_PREFIX		"lockrun:"
#define DEFAULT_TIMEOUT_MS	LR_COMMAND_TIMEOUT_MS
#define PASSWORD_MAX		512	/* a password's bytes, and its NUL */

/* What every verb shares: the command line, the config, the task's
 * merged settings, the server and its backend. A run's own (its lock, its
 * command, its hooks) is struct lr_run (run.h). */
struct lr_ctx {
	struct lr_cli		 cli;
	struct lr_config	*cfg;		/* never NULL once ctx_init() gave 0;
						 * empty when there is no config file */
	int			 cfg_borrowed;	/* *cfg is a copy of a scheduler's:
						 * what it points to is not ours */
	int			 keep_env;	/* ctx_server() leaves the secrets in the
						 * environment: runs forked later read them */
	struct lr_task		 t;		/* the merged settings */
	struct lr_schedule	 sched;		/* and their one-server slots */
	struct lr_server_opts	 server;		/* borrows from cli and cfg, but
							 * own: a copy (ctx_own()) */
	const char		*prefix;
	char			*url_copy;	/* the URL in use, lockrun's copy */
	char			*password;	/* from a file or the environment
						 * (PASSWORD_MAX), or NULL */
	char			*sources;	/* where the URL and the password came
						 * from (ctx_server()), or NULL */
	char			*prefix_from;	/* and the prefix, or NULL */
	struct lr_backend	 be;		/* where the lock lives */
	char			*part;		/* the task read from the config, or NULL */
	char			 host[HOST_MAX + 1];	/* ctx_host(), once known */
	struct lr_sigstate	*sig;		/* the signals blocked at start, to
						 * give the command back (entry.c's) */
	/* where a run forked by tick or cron starts: entry.c's lockrun_main
	 * (given, so that the verbs need not include the file that calls them) */
	int			(*entry)(int argc, char **argv, const struct lr_config *loaded);
};

/* An empty context, with an empty config: 0, or -1 when out of memory;
 * and what a context holds let go (NULL: nothing, as free(3)). */
int	ctx_init(struct lr_ctx *x);
void	ctx_free(struct lr_ctx *x);

/* -c FILE, else $LOCKRUN_CONFIG, else the default path if it exists;
 * or loaded, when not NULL: a config read in full already (borrowed). */
int	ctx_load_config(struct lr_ctx *x, const struct lr_config *loaded,
	    struct lr_err *e);

/* Is there a task called name in the config? 0, or -1 with e = 64 "no
 * such task in FILE" and the nearest names (or "no config file"). */
int	ctx_known_task(struct lr_ctx *x, const char *name, struct lr_err *e);

/* Merge the settings of task (NULL: -t, or none) into x->t: command line
 * over task over defaults over built-in values; complete them
 * (task_finish). Returns 0, or -1 with e. */
int	ctx_merge(struct lr_ctx *x, const char *task, struct lr_err *e);

/* The URL a run uses: --url, $LOCKRUN_URL, $LOCKRUN_REDIS_URL, the
 * config's, else DEFAULT_URL. Borrowed; it may hold a password. */
const char *ctx_url(const struct lr_ctx *x);

/* The server's settings and the prefix: command line, environment,
 * config, built-in; then check the URL, read the password, set the
 * backend up (x->be), and keep URL and password out of the environment
 * the command inherits. Returns 0, or -1 with e. */
int	ctx_server(struct lr_ctx *x, struct lr_err *e);

/* The name recorded for this host: --host, else the node name (uname -n),
 * else "unknown". */
const char *ctx_host(struct lr_ctx *x);

/* Connect to the backend as configured. Returns 0, or -1 with e. */
int	ctx_connect(struct lr_ctx *x, struct lr_err *e);

#endif

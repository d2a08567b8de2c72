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

/* Everything a verb holds, so every exit path can free it. The fields
 * after `be` are the run's (run.c). */
struct lr_ctx {
	struct lr_cli		 cli;
	struct lr_config	 cfg;		/* empty when there is no config file */
	int			 cfg_borrowed;	/* cfg is a scheduler's: not ours to free */
	int			 keep_env;	/* ctx_server() leaves the secrets in the
						 * environment: runs forked later read them */
	struct lr_task		 t;		/* the merged settings */
	struct lr_server_opts	 server;		/* borrows from cli and cfg, but
							 * own: a copy (ctx_own()) */
	const char		*prefix;
	char			*url_copy;	/* the URL in use, lockrun's copy */
	char			 password[512];	/* from a file or the environment */
	char			 sources[PATH_MAX + 512];	/* where the URL and the
						 * password came from (ctx_server()) */
	char			 prefix_from[300];	/* and the prefix */
	struct lr_backend	 be;		/* where the lock lives */
	char			 name[KEY_NAME_MAX + 1];	/* the lock name */
	char			 part[KEY_NAME_MAX + 1];	/* the task read from the config */
	char			 host[HOST_MAX + 1];	/* ctx_host(), once known */
	int			 here;		/* the task runs on this host */
	char			 here_why[300];	/* why, or why not (where_here()) */
	char			**exec_argv;	/* argv for execvp, borrows t.argv */
	char			 exec_path[PATH_MAX];	/* exec_argv[0], found */
	int			 output_fd;	/* output: opened, above 2; 0: none */
	struct lr_sigstate	 sig;
	/* where a run forked by tick or cron starts: entry.c's lockrun_main
	 * (given, so that the verbs need not include the file that calls them) */
	int			(*entry)(int argc, char **argv, const struct lr_config *loaded);
	struct lr_lock		 lock;
	struct lr_schedule	 sched;		/* the one-server slots */
	long long		 acquired_at;	/* mono_ms() when the winning acquire was sent */
	long long		 wait_med_ms;	/* its renewals' answers (supervise.h), */
	long long		 wait_max_ms;	/* for the release's record; -1: none */
	int			 seen_held;	/* an acquire found the lock held by another */
	int			 attempt;	/* the command's attempt (retry.c); 0:
						 * not started */
	int			 triggered;	/* `lockrun trigger`: no slot, no-overlap,
						 * recorded as "triggered" */
	char			 trigger_take[64];	/* cron's: its take's mark
						 * but for the host (starter.h) */
	char			 slot_claim[CLAIM_NONCE_MAX];	/* the claim cron
						 * made of the slot for this run
						 * (CLAIM_VAR), or "" */
	struct lr_child_spec	 spec;		/* the command, as child.c runs it */
	struct lr_child		 child;		/* the command, or its guard */
	struct lr_vars		 vars;		/* LOCKRUN_KEY and the others */
	struct lr_creds		 creds;		/* a task's user:; uid 0: none */
	char			*start_story;	/* on_start's section of the run's
						 * story (hooks.h), or NULL */
	size_t			 start_story_len;
	struct lr_err		 cannot_start;	/* why this host cannot start the
						 * command (run_prepare()), said and
						 * recorded once the lock is held */
	int			 story_kept;	/* the release carried the run's
						 * story: a hook's may follow it */
};

/* An empty context; and what a context holds let go (NULL: nothing, as
 * free(3)). */
void	ctx_init(struct lr_ctx *x);
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

/* The run's lock name and the argv to exec (x->name, x->exec_argv,
 * x->exec_path), after chdir to the task's cwd; checks the command can be
 * run. What this host cannot start (the command not found or not
 * executable, a user: or group: unknown here, a cwd that cannot be
 * entered) is not an error of the run's but x->cannot_start, which the
 * run says and records with its story once it holds its lock, as a command
 * that vanished before its exec. Returns 0, or -1 with e. */
int	run_prepare(struct lr_ctx *x, struct lr_err *e);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* run_state.h -- what one run of a command owns (its lock, its command
 * and guard, its hooks' story), apart from what every verb shares
 * (struct lr_ctx): for run.c and the files that help it (acquire.c,
 * doubt.c, skip.c, retry.c, hookspec.c, runas.c, boot.c, mail.c). */
#ifndef LR_RUN_STATE_H
#define LR_RUN_STATE_H

#include <limits.h>

#include "backend/lock.h"
#include "cli/ctx.h"
#include "core/err.h"
#include "core/keys.h"
#include "proc/child.h"
#include "sched/starter.h"

struct lr_run {
	struct lr_ctx		*x;		/* the verb's: config, task, server */
	char			 name[KEY_NAME_MAX + 1];	/* the lock name */
	int			 here;		/* the task runs on this host */
	char			 here_why[300];	/* why, or why not (where_here()) */
	char			**exec_argv;	/* argv for execvp, borrows x->t.argv */
	char			 exec_path[PATH_MAX];	/* exec_argv[0], found */
	int			 output_fd;	/* output: opened, above 2; 0: none */
	struct lr_lock		 lock;
	long long		 acquired_at;	/* mono_ms() when the winning acquire was sent */
	long long		 wait_med_ms;	/* its renewals' answers (supervise.h), */
	long long		 wait_max_ms;	/* for the release's record; -1: none */
	int			 seen_held;	/* an acquire found the lock held by another */
	int			 replaced;	/* concurrency: replace told its holder
						 * to stop (replace.c) */
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

/* A run of x's task, empty (malloc'd): NULL with e when out of memory;
 * and what it holds let go, its guard last (NULL: nothing). */
struct lr_run	*run_new(struct lr_ctx *x, struct lr_err *e);
void		 run_free(struct lr_run *r);

/* Tell the log what this run is, as the command's LOCKRUN_ variables say:
 * the task (or lock name), the key, the fencing token (0: none yet), the
 * slot. */
void	run_log_context(const struct lr_run *r, long long token);

#endif

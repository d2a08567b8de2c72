/* SPDX-License-Identifier: BSD-2-Clause */
/* hooks.h -- on_start, on_success, on_failure: a task's commands run around
 * each run, without a shell, with the run's facts in their environment. */
#ifndef LR_HOOKS_H
#define LR_HOOKS_H

#include "proc/child.h"

/* What a hook is told of its run, as LOCKRUN_ variables. */
struct lr_hook_facts {
	const char	*task;		/* LOCKRUN_TASK: the task, or the lock name */
	const char	*key;		/* LOCKRUN_KEY */
	const char	*slot;		/* LOCKRUN_SLOT, or NULL (not one-server) */
	long long	 token;		/* LOCKRUN_TOKEN; 0: no lock held */
	int		 ended;		/* 0 for on_start: nothing below is known */
	int		 status;	/* LOCKRUN_STATUS: the run's exit status */
	long long	 duration_ms;	/* LOCKRUN_DURATION_MS */
	int		 lost;		/* LOCKRUN_LOST=1: the lock was lost */
	int		 timed_out;	/* LOCKRUN_TIMED_OUT=1: timeout stopped it */
	int		 attempt;	/* LOCKRUN_ATTEMPT: the command's last
					 * start, from 1 (retries); 0: none */
};

/* How hooks run: the task's own environment, their timeout, the grace
 * between SIGTERM and SIGKILL when it passes, and the signal state lockrun
 * was started with (the hook is given it, as the command is). */
struct lr_hook_spec {
	char *const		 *env;
	long long		  timeout_ms;
	long long		  kill_after_ms;
	const struct lr_sigstate *saved;
	int			  scheduled;	/* as struct lr_child_spec's */
	const struct lr_creds	 *creds;	/* run as; NULL: as lockrun */
	size_t			  keep;		/* the end of its output kept, as
						 * the command's (keep_output);
						 * 0: none */
};

/* Run the hook argv (NULL: there is none; nothing happens) called which
 * ("on_start", ...), in a process group of its own, and wait for it: past
 * spec->timeout_ms it is sent SIGTERM, and SIGKILL kill_after_ms later.
 * Each outcome is logged (hook-ran, or hook-failed as a warning: not
 * found, non-zero status, killed, stopped at its timeout). Its output
 * goes to lockrun's standard output and error; with story and spec->keep,
 * through lockrun (capture.h), which keeps its last spec->keep bytes as
 * the hook's section of the run's story (core/tail.h, TAIL_SECTION):
 * malloc'd into *story (NUL-terminated, as tail_text()'s), its length in
 * *story_len; *story NULL when it
 * printed nothing. Returns the hook's exit status (128+N when killed), or
 * -1 when it could not be started. The run's own status is never the
 * caller's to change. */
int	hook_run(const char *which, char *const *argv, const struct lr_hook_spec *spec,
	    const struct lr_hook_facts *facts, char **story, size_t *story_len);

/* Run argv (not NULL) as hook_run() runs a hook, but as a question (when:,
 * a condition): its answer is its status, and no status is a failure, so
 * nothing is said; its output goes to lockrun's standard output and error,
 * not kept; *stopped is set when its timeout stopped it. Returns
 * the status (128+N when killed), or -1 with e when it could not be
 * started (LR_EXIT_NOTFOUND, LR_EXIT_NOEXEC: as the command; EX_OSERR). */
int	hook_ask(const char *which, char *const *argv, const struct lr_hook_spec *spec,
	    const struct lr_hook_facts *facts, int *stopped, struct lr_err *e);

#endif

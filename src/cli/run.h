/* SPDX-License-Identifier: BSD-2-Clause */
/* run.h -- `lockrun run`: one run of a task or command under its lock
 * (run.c), for the verbs that run one (trigger --here) or check one. */
#ifndef LR_RUN_H
#define LR_RUN_H

#include "cli/ctx.h"
#include "cli/run_state.h"
#include "core/err.h"

/* The run's lock name and the argv to exec (r->name, r->exec_argv,
 * r->exec_path), after chdir to the task's cwd (x->t, merged); checks
 * the command can be run. What this host cannot start (the command not
 * found or not executable, a user: or group: unknown here, a cwd that
 * cannot be entered) is not an error of the run's but r->cannot_start,
 * which the run says and records with its story once it holds its lock,
 * as a command that vanished before its exec. Returns 0, or -1 with e. */
int	run_prepare(struct lr_run *r, struct lr_err *e);

/* Run x's task (the command line's, or -t's) once under its lock, as
 * `lockrun run` does; triggered: `lockrun trigger --here`, a run of its
 * own with no slot. Returns the exit status, or -1 with e. */
int	run_task(struct lr_ctx *x, int triggered, struct lr_err *e);

#endif

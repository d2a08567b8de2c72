/* SPDX-License-Identifier: BSD-2-Clause */
/* trigger.c -- `lockrun trigger TASK`: one run of the task now, without
 * claiming or using up a slot, under its no-overlap lock: with --here,
 * this process runs it (run.c, as a triggered run); else the trigger key
 * is written, and the first scheduler (`lockrun cron`) that looks takes
 * it and starts the run (sched/trigger.c). */
#include <stdio.h>
#include <string.h>

#include "cli/ctx.h"

int
verb_trigger(struct lr_ctx *x, struct lr_err *e)
{
	char *const *w = x->cli.cmd;
	const char *why;

	if (w == NULL || w[0] == NULL)
		return lr_errf(e, EX_USAGE, "trigger: no task named");
	if (w[1] != NULL)
		return lr_errf(e, EX_USAGE, "trigger: one task at a time, got \"%s\" and "
		    "\"%s\"", w[0], w[1]);
	if ((why = task_name_problem(w[0])) != NULL)
		return lr_errf(e, EX_USAGE, "trigger: task \"%s\" %s", w[0], why);
	x->cli.task = w[0];
	x->cli.cmd = NULL;
	x->triggered = 1;
	if (x->cli.here)
		return verb_run(x, e);
	return lr_errf(e, EX_USAGE, "trigger: only --here for now");
}

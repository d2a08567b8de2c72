/* SPDX-License-Identifier: BSD-2-Clause */
/* schedverbs.c -- `lockrun tick` and `lockrun cron`: check the command line
 * and the config, hand over to sched/. */
#include <stdio.h>
#include <string.h>

#include "cli/ctx.h"
#include "core/duration.h"
#include "sched/crond.h"
#include "sched/tick.h"

/* Both take no words and need a config: it is their crontab. */
static int
sched_check(struct lr_ctx *x, const char *verb, struct lr_err *e)
{
	if (x->cli.cmd)
		return lr_errf(e, EX_USAGE, "`lockrun %s` takes no arguments: \"%s\"", verb,
		    x->cli.cmd[0]);
	if (x->cfg.path == NULL)
		return lr_errf(e, EX_USAGE, "`lockrun %s` needs a config file (give -c "
		    "FILE, set LOCKRUN_CONFIG, or create " CONFIG_DEFAULT_PATH ")", verb);
	return 0;
}

int
verb_tick(struct lr_ctx *x, struct lr_err *e)
{
	struct sched_spawner sp = { .argv = x->cli.argv_, .saved = &x->sig,
	    .cfg = &x->cfg, .run = x->entry,
	    .own_fds_from = spawn_fd_floor() };
	int status;

	if (sched_check(x, "tick", e) != 0 || (status = tick_run(&x->cfg, &sp, real_ms(), e)) < 0)
		return -1;
	return status;
}

/* --log json (or log: json in the config): the runs' lines as records. */
static int
logs_json(const struct lr_ctx *x)
{
	const char *spec = x->cli.log ? x->cli.log : x->cfg.log;

	return spec && strncmp(spec, "json", 4) == 0 && (spec[4] == '\0' || spec[4] == ':');
}

int
verb_cron(struct lr_ctx *x, struct lr_err *e)
{
	struct sched_spawner sp = { .argv = x->cli.argv_, .saved = &x->sig,
	    .cfg = &x->cfg, .run = x->entry,
	    .own_fds_from = spawn_fd_floor() };
	struct crond_opts o = { .cfg = &x->cfg, .sp = &sp, .json = logs_json(x) };

	if (sched_check(x, "cron", e) != 0 || crond_run(&o, e) != 0)
		return -1;
	return 0;
}

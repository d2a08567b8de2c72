/* SPDX-License-Identifier: BSD-2-Clause */
/* schedverbs.c -- `lockrun tick` and `lockrun cron`: check the command line
 * and the config, hand over to sched/. */
#include <stdio.h>

#include "cli/schedverbs.h"
#include "core/duration.h"
#include "sched/tick.h"

/* Both take no words and need a config: it is their crontab. */
static int
sched_check(struct lr_ctx *x, struct lr_err *e)
{
	const char *verb = cli_verb_name(x->cli.verb);

	if (x->cli.cmd)
		return lr_errf(e, EX_USAGE, "`lockrun %s` takes no arguments: \"%s\"", verb,
		    x->cli.cmd[0]);
	if (x->cfg.path == NULL)
		return lr_errf(e, EX_USAGE, "`lockrun %s` needs a config file (give -c "
		    "FILE, set LOCKRUN_CONFIG, or create " CONFIG_DEFAULT_PATH ")", verb);
	return 0;
}

int
verb_tick(struct lr_ctx *x)
{
	struct sched_spawner sp = { .argv = x->cli.argv_, .saved = &x->sig };
	struct lr_err e = { 0, "", 0 };
	int status;

	if (sched_check(x, &e) != 0 || (status = tick_run(&x->cfg, &sp, real_ms(), &e)) < 0)
		ctx_die(x, &e);
	return status;
}

int
verb_cron(struct lr_ctx *x)
{
	struct lr_err e = { 0, "", 0 };

	if (sched_check(x, &e) == 0)
		lr_errf(&e, EX_SOFTWARE, "`lockrun cron` is not built yet");
	ctx_die(x, &e);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* schedverbs.h -- `lockrun tick` and `lockrun cron`: the config as the
 * fleet's crontab (the work is sched/'s). */
#ifndef LR_SCHEDVERBS_H
#define LR_SCHEDVERBS_H

#include "cli/ctx.h"

int	verb_tick(struct lr_ctx *x, struct lr_err *e);
int	verb_cron(struct lr_ctx *x, struct lr_err *e);

#endif

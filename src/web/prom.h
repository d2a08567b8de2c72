/* SPDX-License-Identifier: BSD-2-Clause */
/* prom.h -- the Prometheus text exposition of the fleet's tasks, and of a
 * scheduler's own workings (web_prom.c). */
#ifndef LR_WEB_PROM_H
#define LR_WEB_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "sched/crond.h"
#include "web/rows.h"

/* The rows: each family's HELP and TYPE, then a sample per task that has
 * a value. */
void	prom_tasks_print(const struct row *rows, size_t n, FILE *fp);

/* The scheduler's own families: runs in progress and the next fire time
 * per task, the start lag histogram, the config reloads and failures. */
void	prom_sched_print(const struct crond_view *v, FILE *fp);

#endif

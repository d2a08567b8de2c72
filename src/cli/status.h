/* SPDX-License-Identifier: BSD-2-Clause */
/* status.h -- what `lockrun status` read of each task, shared by its table
 * and JSON (status.c); the rows are web/rows.h's. */
#ifndef LR_STATUS_H
#define LR_STATUS_H

#include <stdio.h>

#include "cli/ctx.h"
#include "sched/due.h"
#include "sched/view.h"
#include "web/rows.h"

/* Each listed task's next fire time (status_next.c). */
struct status_next {
	struct lr_config	 full;		/* the config, read in full */
	struct sched_task	*tasks;		/* its scheduled tasks */
	struct crond_task_view	*v;		/* per name: next_ms -1 when none
						 * (no schedule, not in the config,
						 * no config); zones borrowed from
						 * tasks */
};

/* Fill nx for names[0..n), from cfg read again in full. Returns 0, or -1
 * when out of memory (nx->v NULL). status_next_free() in either case. */
int	status_next_read(struct status_next *nx, const struct lr_config *cfg,
	    const char *const *names, size_t n);
void	status_next_free(struct status_next *nx);

/* What the table shows (status_text.c). */
struct status_table {
	const struct row		*rows;
	size_t				 n;
	const struct crond_task_view	*next;		/* per row; NULL: none known */
	long long			 server_ms;	/* the lock server's clock, read
							 * with the rows: their times' */
	long long			 local_ms;	/* this host's: the fire times' */
	int				 wide;		/* -l: every column */
};

/* The table for people (lockrun(1), "Status"): a header, then a line per
 * row. Narrow by default (task, state, holder, last run, exit, when it
 * started and when the task fires next, relative), to fit 100 columns
 * while task and host names are short; wide with every column and times
 * in UTC. */
void	status_text_print(FILE *fp, const struct status_table *t);

/* "host:pid" into buf of size n, "host" without a pid, "-" with neither.
 * Returns buf. */
char	*status_text_holder(const char *host, long long pid, char *buf, size_t n);

/* Row w as one JSON object on a line (the fields are listed in
 * lockrun(7), "What status shows"); prefix names its key. */
void	status_json_print(const char *prefix, const struct row *w, FILE *fp);

/* --html FILE: the status page (web/page.h) of the tasks read (t's
 * rows, their next fire times and the clocks; their names and keys),
 * trouble first, with each one's history read now, written whole to
 * x->cli.html. Returns 0, or -1 with e. */
int	status_html(struct lr_ctx *x, const struct status_table *t,
	    const char *const *names, const struct lr_keys *keys, struct lr_err *e);

#endif

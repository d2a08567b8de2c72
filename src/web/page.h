/* SPDX-License-Identifier: BSD-2-Clause */
/* page.h -- the fleet's status page: one HTML document, its CSS inline,
 * each task's recent runs as inline SVG, no script, no outside asset. */
#ifndef LR_WEB_PAGE_H
#define LR_WEB_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include "backend/record.h"
#include "sched/crond.h"
#include "web/rows.h"
#include "web/triage.h"

/* One task's row: what the backend said (row; hist NULL: not read) and
 * what its scheduler says (sched NULL: no scheduler here). */
struct page_task {
	const char			*name;
	const struct row		*row;
	const struct lr_hist		*hist;
	const struct crond_task_view	*sched;
};

struct page {
	const char		*title;
	long long		 now_ms;	/* this host's clock: "as of", and
						 * how far the fire times are */
	long long		 server_ms;	/* the lock server's clock now, which
						 * wrote the rows' times: how long
						 * ago they are; 0: now_ms */
	int			 refresh_s;	/* the browser loads it again after
						 * this long (0: never) */
	const struct page_task	*tasks;		/* in the order shown */
	size_t			 n;
	size_t			 total;		/* the tasks in all, 0: n; past n,
						 * a line says where the others are */
	size_t			 count[NTRIAGE];	/* triage_count() of all */
	const char		*problem;	/* the backend's failure, or NULL */
	const char		*reload_error;	/* why the scheduler's last reload
						 * of its config failed, or NULL */
	long long		 reload_error_ms;	/* ...and when */
	int			 linked;	/* each run links to its page
						 * /run/NAME/ID: served by a
						 * scheduler whose backend keeps
						 * the runs' stories */
};

#define PAGE_FAILED	5	/* the failed runs a task's row lists */
#define PAGE_ROWS	1000	/* the tasks a served page shows at most */
#define PAGE_REFRESH_S	30	/* how often a browser loads it again */

/* The page, its tasks in the order given (triage_order()'s: trouble
 * first), under a line that counts their troubles (triage_summary()),
 * each task's newest PAGE_FAILED failed runs listed above its strip (with
 * linked, those and every run that ended in the strip link to the run's
 * page, html_run_href());
 * every time absolute and relative to now ("3 min ago"). Every value from
 * the config or the backend HTML-escaped and made visible: a control
 * character, C0, DEL, C1, or one that reorders or marks the direction of
 * the text (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C)
 * is shown as its code point, "<U+202E>" in a span of class "ctl"; a byte
 * that is not UTF-8 as U+FFFD. */
void	page_write(FILE *fp, const struct page *p);

#endif

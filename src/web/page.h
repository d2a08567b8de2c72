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
	long long		 now_ms;
	const struct page_task	*tasks;
	size_t			 n;
	size_t			 total;		/* the tasks in all, 0: n; past n,
						 * a line says where the others are */
	const char		*problem;	/* the backend's failure, or NULL */
};

#define PAGE_ROWS	1000	/* the tasks a served page shows at most */

/* The page, every value from the config or the backend HTML-escaped and
 * made visible: a control character, C0, DEL, C1, or one that reorders
 * or marks the direction of the text (U+202A to U+202E, U+2066 to U+2069,
 * U+200E, U+200F, U+061C) is shown as its code point, "<U+202E>" in a
 * span of class "ctl"; a byte that is not UTF-8 as U+FFFD. */
void	page_write(FILE *fp, const struct page *p);

/* The order in which the page shows rows[0..n), trouble first: a stale
 * lock, a last run that failed or lost its lock, or missed slots; then
 * the paused, the running, and the rest, each in the order given. Into
 * idx[0..n). */
void	page_order(const struct row *rows, size_t n, size_t *idx);

#endif

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
	const char		*problem;	/* the backend's failure, or NULL */
};

/* The page, every value from the config or the backend HTML-escaped and
 * made visible (a control byte or invalid UTF-8 is shown as U+FFFD). */
void	page_write(FILE *fp, const struct page *p);

#endif

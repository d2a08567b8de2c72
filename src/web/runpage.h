/* SPDX-License-Identifier: BSD-2-Clause */
/* runpage.h -- one run's page, linked from the status page's strip: its
 * story (the header and the end of its output, as its release kept them)
 * as HTML, every value escaped as the status page escapes it. */
#ifndef LR_WEB_RUNPAGE_H
#define LR_WEB_RUNPAGE_H

#include <stddef.h>
#include <stdio.h>

#include "sched/crond.h"

/* A run's story, as the backend's stories() gives it (ops.h). */
struct run_page {
	const char	*title;		/* the status page's */
	const char	*task;
	long long	 id;		/* the run's token */
	const char	*header;	/* "name value" lines; NULL: none */
	size_t		 header_len;
	const char	*output;	/* "<1|2><line>\n" each; NULL: none */
	size_t		 output_len;
};

/* The page: a link back to the status page; the header's fields in a
 * table (end_ms as an instant), the run marked failed when it did not
 * end "released" with status 0; then the output, a line each, the
 * standard error's marked. */
void	run_page_write(FILE *fp, const struct run_page *r);

/* rest, "NAME/ID" of a path "/run/NAME/ID" (its %XX decoded), as one of
 * the scheduler's tasks and a run id into *id. Returns the name (v's), or
 * NULL: no such task or not that shape (a name is never a path: only the
 * config's tasks are answered). */
const char *run_page_task(const struct crond_view *v, const char *rest, long long *id);

#endif

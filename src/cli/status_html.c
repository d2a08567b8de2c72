/* SPDX-License-Identifier: BSD-2-Clause */
/* status_html.c -- `lockrun status --html FILE`: the page `cron --listen`
 * serves at /, written once, for hosts that run only crontab lines: the
 * rows status read, trouble first, each task's history, and with a config
 * each task's next fire time, as a scheduler would compute it here and
 * now (status_next.c). It keeps the page's refresh: a file written again
 * from a crontab line and served as it is shows the latest when the
 * browser loads it again. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/status.h"
#include "core/duration.h"
#include "core/file.h"
#include "web/page.h"

#define HTML_HISTORY	40	/* the entries a task's strip shows, as served */

static int
put_page(FILE *fp, const void *p)
{
	page_write(fp, p);
	return 0;
}

/* The page into path, whole: a new file beside it, renamed over it, made
 * so that no one who can write path's folder can redirect it
 * (file_replace()). */
static int
write_page(const char *path, const struct page *p, struct lr_err *e)
{
	char refused[PATH_MAX + 64];

	if (file_replace(path, 0666, put_page, p, refused, sizeof(refused)) == 0)
		return 0;
	if (refused[0] != '\0')
		return lr_errf(e, EX_CANTCREAT, "--html %s: refused: %s", path, refused);
	return lr_errf(e, errno == EIO ? EX_IOERR : EX_CANTCREAT, "--html %s: %s", path,
	    strerror(errno));
}

int
status_html(struct lr_ctx *x, const struct status_table *t, const char *const *names,
    const struct lr_keys *keys, struct lr_err *e)
{
	size_t n = t->n;
	struct lr_hist *h = calloc(n + 1, sizeof(*h));
	struct page_task *pt = calloc(n + 1, sizeof(*pt));
	size_t *order = calloc(n + 1, sizeof(*order));
	struct page p = { .now_ms = t->local_ms, .server_ms = t->server_ms,
	    .refresh_s = PAGE_REFRESH_S, .tasks = pt, .n = n };
	char title[128];
	int rc = -1;

	if (h == NULL || pt == NULL || order == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	triage_order(t->rows, n, order);
	triage_count(t->rows, n, p.count);
	for (size_t i = 0; i < n; i++) {
		size_t k = order[i];

		if (x->be.ops->history(&x->be, &keys[k], HTML_HISTORY, &h[k], e) != 0)
			goto out;
		pt[i] = (struct page_task){ .name = names[k], .row = &t->rows[k],
		    .hist = &h[k], .sched = t->next && t->next[k].next_ms >= 0 ?
		    &t->next[k] : NULL };
	}
	snprintf(title, sizeof(title), "lockrun status from %s", ctx_host(x));
	p.title = title;
	rc = write_page(x->cli.html, &p, e);
out:
	for (size_t i = 0; h && i < n; i++)
		record_hist_free(&h[i]);
	free(h);
	free(pt);
	free(order);
	return rc;
}

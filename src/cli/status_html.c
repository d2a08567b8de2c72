/* SPDX-License-Identifier: BSD-2-Clause */
/* status_html.c -- `lockrun status --html FILE`: the page `cron --listen`
 * serves at /, written once, for hosts that run only crontab lines: the
 * rows status read, trouble first, each task's history, and with a config
 * each task's next fire time, as a scheduler would compute it here and
 * now. It keeps the page's refresh: a file written again from a crontab
 * line and served as it is shows the latest when the browser loads it
 * again. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/status.h"
#include "core/duration.h"
#include "core/file.h"
#include "core/zone.h"
#include "sched/due.h"
#include "web/page.h"

#define HTML_HISTORY	40	/* the entries a task's strip shows, as served */

/* Each task's next fire time after now, from the whole config, into
 * v[n] (zones borrowed from *tp, the scheduled tasks of the config loaded
 * into *full: the caller frees both); next_ms -1 for a task with no
 * schedule, or for all when the config cannot be read in full. */
static void
next_times(const struct lr_config *cfg, const char *const *names, size_t n,
    struct lr_config *full, struct sched_task **tp, struct crond_task_view *v)
{
	struct lr_err e = LR_ERR_INIT;
	struct sched_task *t = NULL;
	const struct sched_task **of;
	const struct lr_task *task;
	size_t nt = 0;
	time_t now = time(NULL);

	for (size_t i = 0; i < n; i++)
		v[i] = (struct crond_task_view){ .name = names[i], .tz = "", .next_ms = -1 };
	if (!config_is_set(cfg) || config_reload(cfg, full, &e) != 0 ||
	    due_tasks(full, &t, &nt, &e) != 0)
		return;
	*tp = t;
	/* each task's schedule by its place in full->tasks (config_task()'s
	 * table): linear in the number of tasks, not names times tasks */
	if ((of = calloc(full->ntasks + 1, sizeof(*of))) == NULL)
		return;
	for (size_t j = 0; j < nt; j++)
		if ((task = config_task(full, t[j].name)) != NULL)
			of[task - full->tasks] = &t[j];
	for (size_t i = 0; i < n; i++) {
		const struct sched_task *s;
		const struct lr_zone *z;
		time_t next;

		if ((task = config_task(full, names[i])) == NULL ||
		    (s = of[task - full->tasks]) == NULL ||
		    (next = schedule_next(&s->sched, now)) == (time_t)-1)
			continue;
		v[i].tz = s->sched.has_cron ? s->sched.cron.tz : "";
		v[i].next_ms = (long long)next * 1000;
		v[i].subminute = schedule_subminute(&s->sched);
		z = zone_load(v[i].tz, &e);
		v[i].next_offset_s = z ? zone_offset(z, next, NULL) : 0;
	}
	free(of);
}

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
status_html(struct lr_ctx *x, const struct row *rows, const char *const *names,
    const struct lr_keys *keys, size_t n, struct lr_err *e)
{
	struct lr_hist *h = calloc(n + 1, sizeof(*h));
	struct crond_task_view *v = calloc(n + 1, sizeof(*v));
	struct page_task *t = calloc(n + 1, sizeof(*t));
	size_t *order = calloc(n + 1, sizeof(*order));
	struct page p = { .now_ms = real_ms(), .refresh_s = PAGE_REFRESH_S, .tasks = t,
	    .n = n };
	struct lr_config full;
	struct sched_task *st = NULL;
	char title[128];
	int rc = -1;

	config_init(&full);
	if (h == NULL || v == NULL || t == NULL || order == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	next_times(&x->cfg, names, n, &full, &st, v);
	triage_order(rows, n, order);
	triage_count(rows, n, p.count);
	for (size_t i = 0; i < n; i++) {
		size_t k = order[i];

		if (x->be.ops->history(&x->be, &keys[k], HTML_HISTORY, &h[k], e) != 0)
			goto out;
		t[i] = (struct page_task){ .name = names[k], .row = &rows[k], .hist = &h[k],
		    .sched = v[k].next_ms >= 0 ? &v[k] : NULL };
	}
	snprintf(title, sizeof(title), "lockrun status from %s", ctx_host(x));
	p.title = title;
	rc = write_page(x->cli.html, &p, e);
out:
	for (size_t i = 0; h && i < n; i++)
		hist_free(&h[i]);
	free(h);
	free(v);
	free(t);
	free(order);
	free(st);
	config_free(&full);
	return rc;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* serve.c -- what `lockrun cron --listen` answers (serve.h): /metrics,
 * /healthz, /readyz and the status page.
 *
 * Two threads meet here. The scheduler's tells web_watch() its tasks and
 * counts after each change; a copy is kept under the mutex, and nothing
 * else is shared. The server's thread (mhd.c: one thread answers every
 * request, one at a time) owns the rest: its own backend connection,
 * which no other thread or process uses (opened again after a failed
 * read, at the next one), and the cache of what it read,
 * read again at most once every WEB_CACHE_MS whatever the number of
 * clients. A slow or dead backend slows the answers, never a fire time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/keys.h"
#include "sched/runs.h"
#include "web/mhd.h"
#include "web/page.h"
#include "web/prom.h"
#include "web/serve.h"

#define WEB_CACHE_MS	2000	/* read the backend at most this often */
#define WEB_HISTORY	40	/* history entries a task's strip shows */
#define WEB_REOPEN_MS	5000	/* a broken connection's next attempt */

/* What the server's thread read from the backend, and when. */
struct cache {
	long long		 at;		/* mono_ms() of the read; 0: none */
	int			 hist_read;	/* with the histories */
	int			 ok;
	char			 problem[256];	/* when not ok */
	long long		 rtt_ms;	/* the states' round trip */
	long long		 now_ms;	/* the server's clock then */
	size_t			 n;
	char			**names;
	struct lr_keys		*keys;
	struct lr_state		*states;
	struct row		*rows;
	struct lr_hist		*hist;
};

struct web {
	pthread_mutex_t		 mu;		/* guards sched and have_sched */
	struct crond_view	 sched;		/* a copy: tasks and names owned */
	int			 have_sched;
	struct web_opts		 o;
	int			 open;		/* o.be: 0 never opened, 1 open,
						 * 2 to open again */
	struct cache		 c;
	struct mhd_server	*srv;
};

static void
view_free(struct crond_view *v)
{
	for (size_t i = 0; v->tasks && i < v->ntasks; i++) {
		free((char *)v->tasks[i].name);
		free((char *)v->tasks[i].tz);
	}
	free((void *)v->tasks);
	v->tasks = NULL;
	v->ntasks = 0;
}

/* A deep copy of v into *dst (emptied first). Returns 0, or -1. */
static int
view_copy(struct crond_view *dst, const struct crond_view *v)
{
	struct crond_task_view *t = calloc(v->ntasks + 1, sizeof(*t));

	view_free(dst);
	if (t == NULL)
		return -1;
	*dst = *v;
	dst->tasks = t;
	for (size_t i = 0; i < v->ntasks; i++) {
		t[i] = v->tasks[i];
		t[i].name = strdup(v->tasks[i].name);
		t[i].tz = strdup(v->tasks[i].tz ? v->tasks[i].tz : "");
		if (t[i].name == NULL || t[i].tz == NULL) {
			dst->ntasks = i + 1;
			view_free(dst);
			return -1;
		}
	}
	return 0;
}

void
web_watch(void *arg, const struct crond_view *v)
{
	struct web *w = arg;

	pthread_mutex_lock(&w->mu);
	w->have_sched = view_copy(&w->sched, v) == 0;
	pthread_mutex_unlock(&w->mu);
}

/* The scheduler's latest view, copied into *v (the caller frees it).
 * Returns 1, or 0 when there is none yet. */
static int
sched_get(struct web *w, struct crond_view *v)
{
	int have;

	pthread_mutex_lock(&w->mu);
	have = w->have_sched && view_copy(v, &w->sched) == 0;
	pthread_mutex_unlock(&w->mu);
	return have;
}

static void
cache_clear(struct cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->states)
			state_free(&c->states[i]);
		if (c->hist)
			hist_free(&c->hist[i]);
		free(c->names[i]);
	}
	free(c->names);
	free(c->keys);
	free(c->states);
	free(c->rows);
	free(c->hist);
	*c = (struct cache){ 0 };
}

/* Read every task's state in one round trip, and with hist each task's
 * history, into w->c. On failure the connection is closed, to be opened
 * again at the next read, and c->problem says why. */
static void
cache_read(struct web *w, const struct crond_view *v, int hist)
{
	struct cache *c = &w->c;
	struct lr_backend *be = w->o.be;
	struct lr_err e = LR_ERR_INIT;
	long long t0 = mono_ms();

	cache_clear(c);
	c->at = t0;
	c->hist_read = hist;
	if ((c->names = calloc(v->ntasks + 1, sizeof(*c->names))) == NULL ||
	    (c->keys = calloc(v->ntasks + 1, sizeof(*c->keys))) == NULL ||
	    (c->states = calloc(v->ntasks + 1, sizeof(*c->states))) == NULL ||
	    (c->rows = calloc(v->ntasks + 1, sizeof(*c->rows))) == NULL ||
	    (c->hist = calloc(v->ntasks + 1, sizeof(*c->hist))) == NULL) {
		snprintf(c->problem, sizeof(c->problem), "out of memory");
		return;
	}
	for (; c->n < v->ntasks; c->n++) {
		if ((c->names[c->n] = strdup(v->tasks[c->n].name)) == NULL)
			break;
		keys_build(&c->keys[c->n], w->o.prefix, c->names[c->n], (time_t)-1, 0);
	}
	spawn_gate_enter();	/* no run forked while libpq, hiredis... run here */
	if (w->open != 1) {	/* never opened, or broken by the last read */
		if ((w->open == 0 ? be->ops->open(be, &e) :
		    be->ops->reopen(be, WEB_REOPEN_MS, &e)) != 0)
			goto fail;
		w->open = 1;
	}
	if (be->ops->states(be, c->keys, c->n, 1, c->states, &c->now_ms, &e) != 0)
		goto fail;
	c->rtt_ms = mono_ms() - t0;
	for (size_t i = 0; i < c->n; i++)
		rows_read(&c->rows[i], c->names[i], &c->states[i], c->now_ms,
		    be->ops->session, LR_UNSET);
	for (size_t i = 0; hist && i < c->n; i++)
		if (be->ops->history(be, &c->keys[i], WEB_HISTORY, &c->hist[i], &e) != 0)
			goto fail;
	spawn_gate_leave();
	c->ok = 1;
	return;
fail:
	spawn_gate_leave();
	snprintf(c->problem, sizeof(c->problem), "%s", e.msg);
	if (w->open == 1)
		w->open = 2;
	for (size_t i = 0; i < c->n; i++)	/* nothing half read is shown */
		rows_read(&c->rows[i], c->names[i], &(struct lr_state){ .ttl_ms = -1 },
		    0, 0, LR_UNSET);
	c->ok = 0;
}

/* The cache, read again when older than WEB_CACHE_MS, when it lacks the
 * histories the page wants, or when the scheduler's tasks changed. */
static void
cache_fresh(struct web *w, const struct crond_view *v, int hist)
{
	struct cache *c = &w->c;
	int same = c->n == v->ntasks;

	for (size_t i = 0; same && i < c->n; i++)
		same = strcmp(c->names[i], v->tasks[i].name) == 0;
	if (c->at == 0 || !same || mono_ms() - c->at >= WEB_CACHE_MS ||
	    (hist && !c->hist_read))
		cache_read(w, v, hist);
}

/* The body of /metrics. The tasks' families only from a read that
 * succeeded: zeros would read as counter resets. */
static void
metrics(struct web *w, const struct crond_view *v, FILE *fp)
{
	if (w->c.ok)
		prom_tasks_print(w->c.rows, w->c.n, fp);
	prom_sched_print(v, fp);
	fprintf(fp, "# HELP lockrun_scheduler_backend_up Whether the scheduler's last "
	    "read of the backend succeeded.\n# TYPE lockrun_scheduler_backend_up gauge\n"
	    "lockrun_scheduler_backend_up %d\n", w->c.ok);
	fprintf(fp, "# HELP lockrun_scheduler_backend_roundtrip_seconds How long the "
	    "scheduler's last read of every task's state took.\n"
	    "# TYPE lockrun_scheduler_backend_roundtrip_seconds gauge\n");
	if (w->c.ok)
		fprintf(fp, "lockrun_scheduler_backend_roundtrip_seconds %lld.%03lld\n",
		    w->c.rtt_ms / 1000, w->c.rtt_ms % 1000);
}

/* The status page. */
static void
status_page(struct web *w, const struct crond_view *v, FILE *fp)
{
	struct page_task *t = calloc(w->c.n + 1, sizeof(*t));
	struct page p = { .title = w->o.title, .now_ms = real_ms(), .tasks = t,
	    .n = w->c.n, .problem = w->c.ok ? NULL : w->c.problem };

	if (t == NULL)
		return;
	for (size_t i = 0; i < w->c.n; i++)
		t[i] = (struct page_task){ .name = w->c.names[i], .row = &w->c.rows[i],
		    .hist = w->c.ok ? &w->c.hist[i] : NULL, .sched = &v->tasks[i] };
	page_write(fp, &p);
	free(t);
}

static int
answer(void *arg, const char *path, char **body, size_t *len, const char **type)
{
	struct web *w = arg;
	struct crond_view v = { 0 };
	FILE *fp;
	int code = 200, have = sched_get(w, &v);

	if ((fp = open_memstream(body, len)) == NULL)
		return 500;
	if (strcmp(path, "/healthz") == 0)
		fputs("ok\n", fp);
	else if (!have && (strcmp(path, "/readyz") == 0 || strcmp(path, "/metrics") == 0 ||
	    strcmp(path, "/") == 0)) {
		code = 503;
		fputs("not ready: no config loaded yet\n", fp);
	} else if (strcmp(path, "/readyz") == 0) {
		cache_fresh(w, &v, 0);
		code = w->c.ok ? 200 : 503;
		fprintf(fp, w->c.ok ? "ready\n" : "not ready: %s\n", w->c.problem);
	} else if (strcmp(path, "/metrics") == 0) {
		cache_fresh(w, &v, 0);
		*type = "text/plain; version=0.0.4; charset=utf-8";
		metrics(w, &v, fp);
	} else if (strcmp(path, "/") == 0) {
		cache_fresh(w, &v, 1);
		*type = "text/html; charset=utf-8";
		status_page(w, &v, fp);
	} else {
		code = 404;
		fputs("not found: /, /metrics, /healthz and /readyz are\n", fp);
	}
	view_free(&v);
	if (fclose(fp) != 0) {
		free(*body);
		*body = NULL;
		return 500;
	}
	return code;
}

struct web *
web_start(const struct web_opts *o, struct lr_err *e)
{
	struct web *w = calloc(1, sizeof(*w));

	if (w == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		return NULL;
	}
	w->o = *o;
	pthread_mutex_init(&w->mu, NULL);
	if ((w->srv = mhd_start(o->listen_what, o->listen, answer, w, e)) == NULL) {
		web_stop(w);
		return NULL;
	}
	return w;
}

const char *
web_where(const struct web *w)
{
	return mhd_where(w->srv);
}

void
web_stop(struct web *w)
{
	if (w == NULL)
		return;
	mhd_stop(w->srv);		/* its thread is gone after this */
	cache_clear(&w->c);
	if (w->open != 0)
		w->o.be->ops->close(w->o.be);
	view_free(&w->sched);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

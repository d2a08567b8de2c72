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
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/keys.h"
#include "out/log.h"
#include "sched/starter.h"
#include "web/mhd.h"
#include "web/page.h"
#include "web/prom.h"
#include "web/runpage.h"
#include "web/serve.h"

#define WEB_CACHE_MS	2000	/* read the backend at most this often */
#define WEB_HISTORY	40	/* history entries a task's strip shows */
#define WEB_REOPEN_MS	5000	/* a broken connection's next attempt */
#define WEB_MMAP_MIN	(128 * 1024)	/* malloc()s from this size are mapped */
#define WEB_CHUNK	256	/* tasks read in one round trip: their keys
				 * (3 kB each) are built for it, not kept */

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
	struct lr_keys		*keys;		/* WEB_CHUNK tasks' at a time */
	struct lr_state		*states;
	struct lr_err		*bad;		/* a task's own read failed: why */
	struct row		*rows;
	struct lr_hist		*hist;		/* read for order[0..shown) and
						 * the unlocked runs only */
	unsigned char		*hist_in;	/* hist[i] read */
	size_t			*order;		/* triage_order()'s */
	size_t			 count[NTRIAGE];	/* triage_count()'s */
	size_t			 shown;
};

struct web {
	pthread_mutex_t		 mu;		/* guards sched and have_sched */
	struct crond_view	 sched;		/* a copy: tasks and names owned */
	int			 have_sched;
	struct web_opts		 o;
	int			 open;		/* o.be: 0 never opened, 1 open,
						 * 2 to open again */
	struct cache		 c;
	unsigned long long	 reads;		/* cache_read()s so far */
	unsigned long long	 changes;	/* web_watch()es so far, under mu */
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
	w->changes++;
	pthread_mutex_unlock(&w->mu);
}

/* The scheduler's latest view, copied into *v (the caller frees it), and
 * how many it told before it. Returns 1, or 0 when there is none yet. */
static int
sched_get(struct web *w, struct crond_view *v, unsigned long long *changes)
{
	int have;

	pthread_mutex_lock(&w->mu);
	have = w->have_sched && view_copy(v, &w->sched) == 0;
	*changes = w->changes;
	pthread_mutex_unlock(&w->mu);
	return have;
}

static void
cache_clear(struct cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->states)
			record_state_free(&c->states[i]);
		if (c->hist)
			record_hist_free(&c->hist[i]);
		free(c->names[i]);
	}
	free(c->names);
	free(c->keys);
	free(c->states);
	free(c->bad);
	free(c->rows);
	free(c->hist);
	free(c->hist_in);
	free(c->order);
	*c = (struct cache){ 0 };
}

/* The server's thread's connection, opened when it never was, again
 * when the last read broke it or a reply past the bounds closed it.
 * Returns 0, or -1 with e. */
static int
conn_ready(struct web *w, struct lr_err *e)
{
	struct lr_backend *be = w->o.be;

	if (w->open == 1 && be->ops->fd(be) >= 0)
		return 0;
	if ((w->open == 0 ? be->ops->open(be, e) :
	    be->ops->reopen(be, WEB_REOPEN_MS, e)) != 0)
		return -1;
	w->open = 1;
	return 0;
}

/* Task j's history into c->hist[j], once: a task whose records cannot be
 * read has its error in its row. Returns 0, or -1 with e when the server
 * failed. */
static int
hist_read(struct web *w, size_t j, struct lr_err *e)
{
	struct cache *c = &w->c;
	struct lr_backend *be = w->o.be;

	if (c->hist_in[j] || c->bad[j].status != 0)
		return 0;
	keys_build(&c->keys[0], w->o.prefix, c->names[j], (time_t)-1, 0);
	if (be->ops->fd(be) < 0 && be->ops->reopen(be, WEB_REOPEN_MS, e) != 0)
		return -1;
	if (be->ops->history(be, &c->keys[0], WEB_HISTORY, &c->hist[j], e) == 0) {
		c->hist_in[j] = 1;
		return 0;
	}
	if (e->kind != LR_ERR_DATA)
		return -1;
	c->bad[j] = *e;
	c->rows[j].error = c->bad[j].msg;
	return 0;
}

/* Read every task's state in one round trip; the history of each run
 * freed by `lockrun unlock`, for how it ended (rows_outcome()), before
 * the order is drawn; and with hist the history of each task the page
 * shows (the first PAGE_ROWS of triage_order()'s), into w->c. On failure
 * the connection is closed, to be opened again at the next read, and
 * c->problem says why. */
static void
cache_read(struct web *w, const struct crond_view *v, int hist)
{
	struct cache *c = &w->c;
	struct lr_backend *be = w->o.be;
	struct lr_err e = LR_ERR_INIT;
	long long t0 = mono_ms();

	cache_clear(c);
	w->reads++;
	c->at = t0;
	c->hist_read = hist;
	if ((c->names = calloc(v->ntasks + 1, sizeof(*c->names))) == NULL ||
	    (c->keys = calloc(WEB_CHUNK, sizeof(*c->keys))) == NULL ||
	    (c->states = calloc(v->ntasks + 1, sizeof(*c->states))) == NULL ||
	    (c->bad = calloc(v->ntasks + 1, sizeof(*c->bad))) == NULL ||
	    (c->rows = calloc(v->ntasks + 1, sizeof(*c->rows))) == NULL ||
	    (c->hist = calloc(v->ntasks + 1, sizeof(*c->hist))) == NULL ||
	    (c->hist_in = calloc(v->ntasks + 1, sizeof(*c->hist_in))) == NULL ||
	    (c->order = calloc(v->ntasks + 1, sizeof(*c->order))) == NULL) {
		snprintf(c->problem, sizeof(c->problem), "out of memory");
		return;
	}
	for (; c->n < v->ntasks; c->n++)
		if ((c->names[c->n] = strdup(v->tasks[c->n].name)) == NULL)
			break;
	starter_gate_enter();	/* no run forked while libpq, hiredis... run here */
	if (conn_ready(w, &e) != 0)
		goto fail;
	/* one task's records that cannot be read are that task's error; the
	 * others are shown, and the scheduler stays ready */
	for (size_t at = 0; at < c->n; at += WEB_CHUNK) {
		size_t k = c->n - at < WEB_CHUNK ? c->n - at : WEB_CHUNK;

		for (size_t i = 0; i < k; i++)
			keys_build(&c->keys[i], w->o.prefix, c->names[at + i], (time_t)-1, 0);
		if (rows_states(be, c->keys, k, 1, c->states + at, &c->now_ms, WEB_REOPEN_MS,
		    c->bad + at, &e) != 0)
			goto fail;
		for (size_t i = at; i < at + k; i++) {
			rows_read(&c->rows[i], c->names[i], &c->states[i], c->now_ms,
			    be->ops->session, LR_UNSET);
			if (c->bad[i].status != 0)
				c->rows[i].error = c->bad[i].msg;
		}
	}
	c->rtt_ms = mono_ms() - t0;
	for (size_t j = 0; j < c->n; j++)	/* few: an unlock is done by hand */
		if (rows_needs_history(&c->rows[j])) {
			if (hist_read(w, j, &e) != 0)
				goto fail;
			rows_outcome(&c->rows[j], &c->hist[j]);
		}
	triage_order(c->rows, c->n, c->order);
	triage_count(c->rows, c->n, c->count);
	c->shown = c->n < PAGE_ROWS ? c->n : PAGE_ROWS;
	for (size_t i = 0; hist && i < c->shown; i++)
		if (hist_read(w, c->order[i], &e) != 0)
			goto fail;
	starter_gate_leave();
	c->ok = 1;
	return;
fail:
	starter_gate_leave();
	snprintf(c->problem, sizeof(c->problem), "%s", e.msg);
	if (w->open == 1)
		w->open = 2;
	for (size_t i = 0; i < c->n; i++)	/* nothing half read is shown */
		rows_read(&c->rows[i], c->names[i], &(struct lr_state){ .ttl_ms = -1 },
		    0, 0, LR_UNSET);
	for (size_t i = 0; i < c->n; i++)
		c->order[i] = i;
	memset(c->count, 0, sizeof(c->count));
	c->shown = c->n < PAGE_ROWS ? c->n : PAGE_ROWS;
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

/* The lock server's clock now, from what it said at the read and how
 * long ago that was here (its answer came half a round trip after the
 * read began); 0 when the read failed. */
static long long
server_now(const struct cache *c)
{
	if (!c->ok || c->now_ms <= 0)
		return 0;
	return c->now_ms + mono_ms() - (c->at + c->rtt_ms / 2);
}

/* The status page: the first PAGE_ROWS tasks, trouble first, and a line
 * saying how many more there are. */
static void
status_page(struct web *w, const struct crond_view *v, FILE *fp)
{
	struct page_task *t = calloc(w->c.shown + 1, sizeof(*t));
	struct page p = { .title = w->o.title, .now_ms = real_ms(),
	    .server_ms = server_now(&w->c), .refresh_s = PAGE_REFRESH_S, .tasks = t,
	    .n = w->c.shown, .total = w->c.n, .problem = w->c.ok ? NULL : w->c.problem,
	    .reload_error = v->reload_error[0] ? v->reload_error : NULL,
	    .reload_error_ms = v->reload_error_ms,
	    .linked = w->o.be->ops->stories != NULL };

	if (t == NULL)
		return;
	memcpy(p.count, w->c.count, sizeof(p.count));
	for (size_t i = 0; i < w->c.shown; i++) {
		size_t k = w->c.order[i];
		t[i] = (struct page_task){ .name = w->c.names[k], .row = &w->c.rows[k],
		    .hist = w->c.ok ? &w->c.hist[k] : NULL, .sched = &v->tasks[k] };
	}
	page_write(fp, &p);
	free(t);
}

/* The page of run id of task name: its header and output read through
 * the server's thread's connection (one round trip, the reply bounded as
 * every reply is, rreader.h), written into fp. Returns the status: 200,
 * 404 when the run is not kept, 503 when the server failed. */
static int
run_read(struct web *w, const char *name, long long id, FILE *fp)
{
	struct lr_backend *be = w->o.be;
	struct lr_err e = LR_ERR_INIT;
	struct lr_keys k;
	char h[40], o[40];
	const char *fields[2] = { h, o };
	char *val[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	int rc;

	snprintf(h, sizeof(h), "h:%lld", id);
	snprintf(o, sizeof(o), "o:%lld", id);
	keys_build(&k, w->o.prefix, name, (time_t)-1, 0);
	starter_gate_enter();	/* no run forked while libpq, hiredis... run here */
	if ((rc = conn_ready(w, &e)) == 0 &&
	    (rc = be->ops->stories(be, &k, fields, 2, val, len, &e)) != 0)
		w->open = 2;	/* opened again at the next read */
	starter_gate_leave();
	if (rc != 0) {
		fprintf(fp, "the lock server could not be read: %s\n", e.msg);
		rc = 503;
	} else if (val[0] == NULL) {
		fprintf(fp, "not found: run %lld of this task is not kept (keep_runs:, "
		    "keep_failed_runs:, keep_output:)\n", id);
		rc = 404;
	} else {
		run_page_write(fp, &(struct run_page){ .title = w->o.title, .task = name,
		    .id = id, .header = val[0], .header_len = len[0], .output = val[1],
		    .output_len = len[1] });
		rc = 200;
	}
	free(val[0]);
	free(val[1]);
	return rc;
}

/* GET /run/NAME/ID: 404 for a task not the scheduler's or a backend that
 * keeps no stories, 503 while the bodies being sent hold much memory (a
 * run's page is not kept for the next reader). */
static int
run_page(struct web *w, const struct crond_view *v, const char *rest, int spare,
    struct mhd_body *b, FILE *fp)
{
	const char *name;
	long long id;
	int code;

	if (w->o.be->ops->stories == NULL) {
		fprintf(fp, "not found: the %s backend keeps no run stories yet\n",
		    w->o.be->ops->title);
		return 404;
	}
	if ((name = run_page_task(v, rest, &id)) == NULL) {
		fputs("not found: no such task here, or not /run/TASK/ID\n", fp);
		return 404;
	}
	if (spare) {
		fputs("busy: try again in a moment\n", fp);
		return 503;
	}
	if ((code = run_read(w, name, id, fp)) == 200)
		b->type = "text/html; charset=utf-8";
	return code;
}

/* The generation of a body built now: one per read of the backend and
 * change the scheduler told; never 0. */
static unsigned long long
generation(const struct web *w, unsigned long long changes)
{
	return (w->reads << 24 ^ changes) | 1ull << 63;
}

/* A body is built once per change and kept by mhd.c, which serves it to
 * every reader until a newer one is built; while the bodies being sent
 * hold much memory (b->spare), the kept one is served however old. */
static int
answer(void *arg, const char *path, struct mhd_body *b)
{
	struct web *w = arg;
	struct crond_view v = { 0 };
	unsigned long long changes = 0;
	FILE *fp;
	int code = 200, have, page = strcmp(path, "/") == 0,
	    prom = strcmp(path, "/metrics") == 0;

	if ((page || prom) && b->have != 0 && b->spare) {
		b->gen = b->have;
		return 200;
	}
	have = sched_get(w, &v, &changes);
	if (have && (page || prom)) {
		cache_fresh(w, &v, page);
		if (generation(w, changes) == b->have) {
			view_free(&v);
			b->gen = b->have;
			return 200;
		}
	}
	if ((fp = open_memstream(&b->body, &b->len)) == NULL) {
		view_free(&v);
		return 500;
	}
	if (strcmp(path, "/healthz") == 0)
		fputs("ok\n", fp);
	else if (!have && (strcmp(path, "/readyz") == 0 || prom || page)) {
		code = 503;
		fputs("not ready: no config loaded yet\n", fp);
	} else if (strcmp(path, "/readyz") == 0) {
		cache_fresh(w, &v, 0);
		code = w->c.ok ? 200 : 503;
		fprintf(fp, w->c.ok ? "ready\n" : "not ready: %s\n", w->c.problem);
	} else if (prom) {
		b->type = "text/plain; version=0.0.4; charset=utf-8";
		b->gen = generation(w, changes);
		metrics(w, &v, fp);
	} else if (page) {
		b->type = "text/html; charset=utf-8";
		b->gen = generation(w, changes);
		status_page(w, &v, fp);
	} else if (have && strncmp(path, "/run/", 5) == 0)
		code = run_page(w, &v, path + 5, b->spare, b, fp);
	else {
		code = 404;
		fputs("not found: /, /run/TASK/ID, /metrics, /healthz and /readyz are\n", fp);
	}
	view_free(&v);
	if (fclose(fp) != 0) {
		free(b->body);
		b->body = NULL;
		b->gen = 0;
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
	/* The cache's arrays and the bodies are large and made again every
	 * few seconds: mapped and unmapped each time rather than left in the
	 * heap, which the dynamic threshold would do after the first free
	 * (the scheduler's memory would stay at its highest). */
	mallopt(M_MMAP_THRESHOLD, WEB_MMAP_MIN);
	if ((w->srv = mhd_start(&(struct mhd_opts){ .what = o->listen_what,
	    .addr = o->listen, .fn = answer, .arg = w, .token = o->token,
	    .names = o->names }, e)) == NULL) {
		web_stop(w);
		return NULL;
	}
	if (mhd_public(w->srv) && o->token == NULL)
		lr_event(LOG_WARNING, "listening", NULL, "%s %s: other hosts can read the "
		    "status page and /metrics, which ask for no authentication "
		    "(listen_token_file: in the config sets a token)", o->listen_what,
		    o->listen);
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

/* SPDX-License-Identifier: BSD-2-Clause */
/* status.c -- `lockrun status`: which locks are held, by whom and since
 * when, how each task's last run ended and when it fires next, as a table
 * (status_text.c), JSON lines or Prometheus metrics. Every task is read
 * in one pipelined round trip; a run freed by `lockrun unlock` has its
 * history read too, for how it ended. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ctx.h"
#include "cli/status.h"
#include "core/duration.h"
#include "core/keys.h"
#include "out/log.h"
#include "web/prom.h"

#define EXIT_STALE	1		/* a lock held longer than --stale-after */
#define EXIT_UNKNOWN	1		/* a task named that nothing knows */
#define STATUS_HISTORY	20		/* entries read for an unlocked run's end */

enum status_format { FMT_TEXT, FMT_JSON, FMT_PROM };

struct status {
	struct lr_ctx		 *x;
	enum status_format	  fmt;
	const char		**names;
	size_t			  n;
	char			**owned;	/* names found with SCAN */
	size_t			  nowned;
	struct row		 *rows;
	struct lr_keys		 *keys;		/* each task's */
	struct lr_state		 *states;	/* as the backend read them */
	struct lr_err		 *bad;		/* a task's own read failed:
						 * why (rows_states()) */
	struct lr_hist		 *hist;		/* read for rows_outcome() only */
	struct status_next	  next;		/* the fire times */
	long long		  now_ms;	/* the server's clock */
	long long		  sent_ms, rtt_ms;	/* ours, around reading it */
};

static void
status_free(struct status *s)
{
	for (size_t i = 0; s->states && i < s->n; i++)
		record_state_free(&s->states[i]);
	for (size_t i = 0; s->hist && i < s->n; i++)
		record_hist_free(&s->hist[i]);
	free(s->hist);
	status_next_free(&s->next);
	free(s->states);
	free(s->bad);
	free(s->keys);
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->names);
	free(s->rows);
}

/* --- which tasks ---------------------------------------------------- */

/* --json and --format agree; set s->fmt. */
static int
choose_format(struct status *s, struct lr_err *e)
{
	const char *f = s->x->cli.format;

	if (s->x->cli.json && f != NULL && strcmp(f, "json") != 0)
		return lr_errf(e, EX_USAGE, "--json and --format %s disagree", f);
	if (s->x->cli.json || (f != NULL && strcmp(f, "json") == 0))
		s->fmt = FMT_JSON;
	else if (f != NULL && strcmp(f, "prometheus") == 0)
		s->fmt = FMT_PROM;
	else
		s->fmt = FMT_TEXT;
	return 0;
}

/* Is name already listed? (Each task once: Prometheus refuses a series
 * twice.) */
static int
listed(const struct status *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return 1;
	return 0;
}

/* The tasks named on the command line (in the config or not: any name
 * with records, as history takes), else the config's, in order; with
 * neither, none yet (they are found with SCAN). */
static int
list_tasks(struct status *s, struct lr_err *e)
{
	const struct lr_config *cfg = s->x->cfg;
	char **words = s->x->cli.cmd;
	size_t max = cfg->nnames;

	for (size_t i = 0; words && words[i]; i++)
		max++;
	if ((s->names = calloc(max + 1, sizeof(*s->names))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; words && words[i]; i++) {
		const char *why;

		if ((why = key_name_problem(words[i])) != NULL)
			return lr_errf(e, EX_USAGE, "\"%s\" %s", words[i], why);
		if (!listed(s, words[i]))
			s->names[s->n++] = words[i];
	}
	if (words && words[0])
		return 0;
	for (size_t i = 0; i < cfg->nnames; i++)	/* distinct: the file's keys */
		s->names[s->n++] = cfg->names[i];
	return 0;
}

/* Add a copy of name[0..len) to the names found with SCAN. */
static int
add_found(struct status *s, const char *name, size_t len, size_t *cap)
{
	char *copy;

	if (s->nowned == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		char **grown = realloc(s->owned, ncap * sizeof(*grown));
		if (grown == NULL)
			return -1;
		s->owned = grown;
		*cap = ncap;
	}
	if ((copy = strndup(name, len)) == NULL)
		return -1;
	s->owned[s->nowned++] = copy;
	return 0;
}

/* If key is prefix{name} (a lock), prefix{name}:last (a task that ran),
 * prefix{name}:counts (counted, or paused: Redis) or prefix{name}:pause
 * (paused: SQL), add name. Slot, fence and history keys belong to a task that shows
 * through its stable or last-run key, if it has one. */
static int
add_key(struct status *s, const char *key, size_t *cap)
{
	struct lr_key_parts kp;

	if (keys_parse(key, s->x->prefix, &kp) != 0 ||
	    (kp.kind != KEY_STABLE && kp.kind != KEY_LAST && kp.kind != KEY_COUNTS &&
	    kp.kind != KEY_PAUSE))
		return 0;
	return add_found(s, kp.name, strlen(kp.name), cap);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every task under the prefix, from the keys the backend lists; sorted
 * by name, each once. */
static int
find_tasks(struct status *s, struct lr_err *e)
{
	struct lr_backend *be = &s->x->be;
	char **keys = NULL;
	size_t nkeys = 0, cap = 0;
	const char **names;
	int rc = be->ops->keys(be, s->x->prefix, &keys, &nkeys, e);

	for (size_t i = 0; i < nkeys; i++) {
		if (rc == 0 && add_key(s, keys[i], &cap) != 0)
			rc = lr_errf(e, EX_OSERR, "out of memory");
		free(keys[i]);
	}
	free(keys);
	if (rc != 0)
		return -1;
	if (s->nowned > 1)	/* none: owned is NULL, which qsort() may not take */
		qsort(s->owned, s->nowned, sizeof(*s->owned), cmp_names);
	if ((names = realloc(s->names, (s->n + s->nowned + 1) * sizeof(*names))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	s->names = names;
	/* after the config's tasks (--all): those it does not name; alone,
	 * each once (sorted: its neighbour is enough) */
	for (size_t i = 0, config = s->n; i < s->nowned; i++)
		if (config > 0 ? !listed(s, s->owned[i]) :
		    s->n == 0 || strcmp(s->names[s->n - 1], s->owned[i]) != 0)
			s->names[s->n++] = s->owned[i];
	return 0;
}

/* Every task's state, in one round trip; each task alone when one of
 * them cannot be read (rows_states()). */
static int
fetch(struct status *s, struct lr_err *e)
{
	struct lr_backend *be = &s->x->be;

	if ((s->keys = calloc(s->n + 1, sizeof(*s->keys))) == NULL ||
	    (s->states = calloc(s->n + 1, sizeof(*s->states))) == NULL ||
	    (s->bad = calloc(s->n + 1, sizeof(*s->bad))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < s->n; i++)
		keys_build(&s->keys[i], s->x->prefix, s->names[i], (time_t)-1, 0);
	s->sent_ms = real_ms();
	if (rows_states(be, s->keys, s->n, 1, s->states, &s->now_ms,
	    s->x->server.connect_timeout_ms, s->bad, e) != 0)
		return -1;
	s->rtt_ms = real_ms() - s->sent_ms;
	return 0;
}

/* --- the verb ----------------------------------------------------------- */

/* Name each lock held longer than --stale-after; return how many. */
static int
report_stale(const struct status *s)
{
	char held[32], limit[32];
	int n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct row *w = &s->rows[i];
		char who[300];

		if (!w->stale)
			continue;
		n++;
		lr_warn("%s: held by %s for %s, longer than --stale-after %s", w->name,
		    status_text_holder(w->host, w->pid, who, sizeof(who)),
		    duration_format(w->held_ms >= 1000 ? w->held_ms / 1000 * 1000 :
		    w->held_ms, held, sizeof(held)),
		    duration_format(s->x->cli.stale_after_ms, limit, sizeof(limit)));
	}
	return n;
}

/* Each task whose records could not be read, the others shown: all but
 * the last said here, the last into e (its status the verb's). Returns
 * how many. */
static int
report_bad(const struct status *s, struct lr_err *e)
{
	const struct lr_err *last = NULL;
	int n = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->bad[i].status == 0)
			continue;
		if (last != NULL)
			lr_event(LOG_ERR, "server-error", NULL, "%s", last->msg);
		last = &s->bad[i];
		n++;
	}
	if (last != NULL)
		*e = *last;
	return n;
}

/* A task named on the command line that the config does not name and
 * that has nothing on the server (no lock, no last run, no pause) is
 * unknown: most likely mistyped. Names them all in e; returns how many. */
static int
report_unknown(const struct status *s, struct lr_err *e)
{
	char names[sizeof(e->msg) / 2] = "";
	const char *one = NULL;
	size_t n = 0, len = 0;

	if (s->x->cli.cmd == NULL)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct row *w = &s->rows[i];

		if (w->held || w->has_last || w->counted || w->paused || w->error ||
		    config_has(s->x->cfg, w->name))
			continue;
		one = w->name;
		len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len :
		    0, "%s%s", n++ ? ", " : "", w->name);
	}
	if (n == 1)
		lr_errf(e, EXIT_UNKNOWN, "%s: no such task (no config names it, and %s has "
		    "no record of it under %s{%s})", one, s->x->be.where, s->x->prefix, one);
	else if (n > 1)
		lr_errf(e, EXIT_UNKNOWN, "%s: no such tasks (no config names them, and %s "
		    "has no record of them under %s)", names, s->x->be.where, s->x->prefix);
	return (int)n;
}

/* How each run freed by `lockrun unlock` ended, from its task's history
 * (rows_outcome()): a round trip for each, and there are few. A history
 * that cannot be read leaves the row as the record says. */
static int
outcomes(struct status *s, struct lr_err *e)
{
	struct lr_backend *be = &s->x->be;

	if ((s->hist = calloc(s->n + 1, sizeof(*s->hist))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < s->n; i++) {
		struct lr_err he = LR_ERR_INIT;

		if (!rows_needs_history(&s->rows[i]))
			continue;
		if (be->ops->history(be, &s->keys[i], STATUS_HISTORY, &s->hist[i], &he) == 0)
			rows_outcome(&s->rows[i], &s->hist[i]);
		else if (he.kind != LR_ERR_DATA) {	/* the server, not the task */
			*e = he;
			return -1;
		}
	}
	return 0;
}

/* What the table and the page show, into *t: the rows, and with a
 * config, each task's next fire time. Returns t. */
static const struct status_table *
table_of(struct status *s, struct status_table *t)
{
	if (s->next.v == NULL)
		status_next_read(&s->next, s->x->cfg, s->names, s->n);
	*t = (struct status_table){ .rows = s->rows, .n = s->n, .next = s->next.v,
	    .server_ms = s->now_ms, .local_ms = real_ms(), .wide = s->x->cli.wide };
	return t;
}

/* Read every listed task in one round trip and print them. Returns 0 or
 * EXIT_STALE, or -1 with e. */
static int
status_run(struct status *s, struct lr_err *e)
{
	struct lr_ctx *x = s->x;
	struct status_table t;

	if (choose_format(s, e) != 0 || list_tasks(s, e) != 0 || ctx_server(x, e) != 0)
		return -1;
	if (ctx_connect(x, e) != 0)
		return -1;
	/* no task named: the config's, and those found under the prefix when
	 * it has none (a crontab's -k locks) or with --all */
	if (x->cli.cmd == NULL && (x->cfg->nnames == 0 || x->cli.all) && find_tasks(s, e) != 0)
		return -1;
	if ((s->rows = calloc(s->n + 1, sizeof(*s->rows))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (fetch(s, e) != 0)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		rows_read(&s->rows[i], s->names[i], &s->states[i], s->now_ms,
		    x->be.ops->session, x->cli.stale_after_ms);
		if (s->bad[i].status != 0)
			s->rows[i].error = s->bad[i].msg;
	}
	if (report_unknown(s, e) > 0 || outcomes(s, e) != 0)
		return -1;
	if (s->now_ms > 0)	/* this host's clock against the server's, with -v */
		lr_event(LOG_INFO, "clock", NULL, "this host's clock is %lld ms %s the lock "
		    "server's (+/- %lld ms)", llabs(s->now_ms - (2 * s->sent_ms + s->rtt_ms) / 2),
		    s->now_ms - (2 * s->sent_ms + s->rtt_ms) / 2 > 0 ? "behind" : "ahead of",
		    (s->rtt_ms + 1) / 2);
	if (s->fmt == FMT_TEXT)
		status_text_print(stdout, table_of(s, &t));
	else if (s->fmt == FMT_PROM)
		prom_tasks_print(s->rows, s->n, stdout);
	else
		for (size_t i = 0; i < s->n; i++)
			status_json_print(s->x->prefix, &s->rows[i], stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		return lr_errf(e, EX_IOERR, "standard output: write error");
	if (x->cli.html && status_html(x, table_of(s, &t), s->names, s->keys, e) != 0)
		return -1;
	return report_bad(s, e) > 0 ? -1 : report_stale(s) > 0 ? EXIT_STALE : 0;
}

int
verb_status(struct lr_ctx *x, struct lr_err *e)
{
	struct status s = { .x = x };
	int rc = status_run(&s, e);

	status_free(&s);
	if (rc < 0)
		return -1;
	return rc;
}

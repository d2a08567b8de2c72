/* SPDX-License-Identifier: BSD-2-Clause */
/* history.c -- `lockrun history TASK`: the task's last decisions across
 * all servers, newest first, read from its history stream in one round
 * trip and shown as a table or as JSON lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/ctx.h"
#include "core/duration.h"
#include "core/text.h"
#include "out/json.h"
#include "out/log.h"
#include "out/table.h"

#define HISTORY_COUNT	20	/* entries shown without -n */
#define EXIT_UNKNOWN	1	/* a task nothing knows */

/* The fields the scripts write (history.lua), in the table's order;
 * attempt is on the entry that ends a run whose command started, reason
 * on one that lockrun ended or could not start (the token is the run's
 * id, for `lockrun logs --run`). */
enum hist_field { F_HOST, F_PID, F_EVENT, F_SLOT, F_TOKEN, F_STATUS, F_DURATION,
	F_ATTEMPT, F_HOLDER, F_REASON, NFIELDS };
static const char *const field_names[NFIELDS] = {
	"host", "pid", "event", "slot", "token", "status", "duration_ms", "attempt",
	"holder", "reason",
};

/* One entry: when it was written (the server's clock, the same for every
 * host) and its fields, borrowed from the backend's answer; NULL where the
 * entry has none. */
struct hist_entry {
	long long	 ms;
	const char	*f[NFIELDS];
};

/* The task named on the command line: exactly one, a valid name. */
static int
task_word(const struct lr_ctx *x, const char **name, struct lr_err *e)
{
	char *const *w = x->cli.cmd;
	const char *why;

	if (w == NULL || w[0] == NULL)
		return lr_errf(e, EX_USAGE, "history: no task named");
	if (w[1] != NULL)
		return lr_errf(e, EX_USAGE, "history: one task at a time, got \"%s\" and "
		    "\"%s\"", w[0], w[1]);
	if ((why = key_name_problem(w[0])) != NULL)
		return lr_errf(e, EX_USAGE, "history: task \"%s\" %s", w[0], why);
	*name = w[0];
	return 0;
}

/* h's known fields from e; unknown ones are skipped, so a later lockrun
 * may add some. */
static void
entry_fill(struct hist_entry *h, const struct lr_hist_entry *e)
{
	memset(h, 0, sizeof(*h));
	h->ms = e->at_ms;
	for (int f = 0; f < NFIELDS; f++)
		h->f[f] = record_field_get(&e->fields, field_names[f]);
	/* a loss the keep-alive recorded says why by its event and holder */
	if (h->f[F_EVENT] && strcmp(h->f[F_EVENT], "lost") == 0 &&
	    (h->f[F_REASON] == NULL || *h->f[F_REASON] == '\0'))
		h->f[F_REASON] = h->f[F_HOLDER] && *h->f[F_HOLDER] ?
		    "lost the lock: another run holds it now" : "lost the lock";
}

/* A field that is a plain decimal number, as the scripts write them
 * (pid, status, duration_ms): 1 with *v set, else 0. */
static int
field_number(const char *s, long long *v)
{
	return s != NULL && *s != '-' && text_decimal(s, v) == 0;
}

/* A field as a JSON number, or null (absent, or not a number). */
static long long
json_number(const char *v)
{
	long long n;

	return field_number(v, &n) ? n : JSON_NULL_NUM;
}

/* One entry as one line of JSON; the token is a number, as everywhere
 * (out/json.h). */
static void
json_entry(FILE *fp, const struct hist_entry *h)
{
	char t[TEXT_ISO_MAX];
	struct lr_json j;

	json_begin(&j, fp, NULL, 0);
	json_str(&j, "time", text_iso(h->ms, TEXT_ISO_MS, t, sizeof(t)));
	json_num(&j, "time_ms", h->ms);
	json_str(&j, "host", h->f[F_HOST]);
	json_num(&j, "pid", json_number(h->f[F_PID]));
	json_str(&j, "event", h->f[F_EVENT]);
	json_str(&j, "slot", h->f[F_SLOT]);
	json_num(&j, "token", json_number(h->f[F_TOKEN]));
	json_num(&j, "status", json_number(h->f[F_STATUS]));
	json_num(&j, "duration_ms", json_number(h->f[F_DURATION]));
	json_num(&j, "attempt", json_number(h->f[F_ATTEMPT]));
	json_str(&j, "holder", h->f[F_HOLDER]);
	if (h->f[F_REASON] != NULL)	/* only where lockrun said why */
		json_str(&j, "reason", h->f[F_REASON]);
	json_end(&j);
}

/* The table's columns: the entry's time, then its fields, the duration
 * written for people. */
#define NCOLS	(1 + NFIELDS)
static const char *const col_names[NCOLS] = {
	"TIME", "HOST", "PID", "EVENT", "SLOT", "TOKEN", "STATUS", "DURATION", "ATTEMPT",
	"HOLDER", "REASON",
};

/* One row of the table: its cells, each "-" when empty. */
struct row {
	char		 time[TEXT_ISO_MAX];
	char		 dur[40];
	const char	*cell[NCOLS];
};

/* A duration for people: 850ms, 12.345s, then whole seconds (1m30s). */
static char *
dur_text(long long ms, char *buf, size_t n)
{
	if (ms < 1000)
		snprintf(buf, n, "%lldms", ms);
	else if (ms < 60000)
		snprintf(buf, n, "%lld.%03llds", ms / 1000, ms % 1000);
	else
		duration_format(ms / 1000 * 1000, buf, n);
	return buf;
}

/* The cells of h's row: its time, its fields, "-" for the empty ones. */
static void
row_fill(struct row *w, const struct hist_entry *h)
{
	long long d;

	w->cell[0] = text_iso(h->ms, TEXT_ISO_MS, w->time, sizeof(w->time));
	for (int f = 0; f < NFIELDS; f++) {
		const char *v = h->f[f];
		w->cell[1 + f] = v && *v ? v : "-";
	}
	if (field_number(h->f[F_DURATION], &d))
		w->cell[1 + F_DURATION] = dur_text(d, w->dur, sizeof(w->dur));
}

/* table_print()'s rows: those history_print() filled. */
static void
row_cells(void *arg, size_t i, const char **cell)
{
	const struct row *rows = arg;

	memcpy(cell, rows[i].cell, sizeof(rows[i].cell));
}

/* Print the entries as JSON lines or as a table. Returns 0, or -1 with
 * e. */
static int
history_print(const struct lr_ctx *x, const struct lr_hist *hist, struct lr_err *e)
{
	struct hist_entry *h;
	struct row *rows = NULL;
	int ncols = NCOLS - 1;

	if ((h = calloc(hist->n + 1, sizeof(*h))) == NULL ||
	    (!x->cli.json && (rows = calloc(hist->n + 1, sizeof(*rows))) == NULL)) {
		free(h);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	for (size_t i = 0; i < hist->n; i++) {
		entry_fill(&h[i], &hist->e[i]);
		if (rows)
			row_fill(&rows[i], &h[i]);
	}
	for (size_t i = 0; x->cli.json && i < hist->n; i++)
		json_entry(stdout, &h[i]);
	/* the reason's column only when an entry has one: most runs end
	 * by themselves, and the table stays as wide as it was */
	for (size_t i = 0; rows && i < hist->n && ncols < NCOLS; i++)
		if (h[i].f[F_REASON] != NULL && *h[i].f[F_REASON] != '\0')
			ncols = NCOLS;
	if (rows)
		table_print(stdout, col_names, ncols, hist->n, row_cells, rows);
	free(h);
	free(rows);
	return 0;
}

int
verb_history(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_hist hist = { 0, NULL };
	struct lr_keys k;
	const char *name = NULL;
	long long count = x->cli.count != LR_UNSET ? x->cli.count : HISTORY_COUNT;
	int rc;

	if (task_word(x, &name, e) != 0 || ctx_server(x, e) != 0)
		return -1;
	keys_build(&k, x->prefix, name, (time_t)-1, 60000);
	if (ctx_connect(x, e) != 0)
		return -1;
	if (x->be.ops->history(&x->be, &k, count, &hist, e) != 0) {
		record_hist_free(&hist);
		return -1;
	}
	if (hist.n == 0 && count > 0 && !(config_is_set(x->cfg) && config_has(x->cfg, name))) {
		/* no config names it and the server has nothing: mistyped, most
		 * likely; an empty table and 0 would hide that */
		lr_errf(e, EXIT_UNKNOWN, "history: %s: no such task, or it keeps no history "
		    "(%s, and %s has none under %s)", name, x->cfg->path ? "not in the config" :
		    "no config names it", x->be.where, k.hist);
		record_hist_free(&hist);
		return -1;
	}
	if (hist.n == 0)
		lr_info("no history for %s (%s is empty or gone)", name, k.hist);
	rc = history_print(x, &hist, e);
	record_hist_free(&hist);
	if (rc != 0)
		return -1;
	if (fflush(stdout) != 0) {
		lr_errf(e, EX_IOERR, "standard output: write failed");
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* status_text.c -- `lockrun status`'s table for people (status.h): a
 * narrow one that a terminal of 100 columns holds, with times relative
 * to now, and with -l every column, times in UTC. */
#include <stdio.h>
#include <string.h>

#include "cli/status.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "out/table.h"

#define CELL	300	/* a cell's buffer: a host name and a pid at most */

/* Every column; the narrow table shows some of them (narrow[]). */
enum { C_TASK, C_STATE, C_HOLDER, C_SINCE, C_HELD, C_TTL, C_TOKEN, C_LAST, C_BY,
	C_SLOT, C_STARTED, C_EXIT, C_TOOK, C_MISSED, C_RETRIES, C_NEXT, NCOLS };

static const char *const col_names[NCOLS] = {
	"TASK", "STATE", "HOLDER", "SINCE", "HELD", "TTL", "TOKEN", "LAST", "BY",
	"SLOT", "STARTED", "EXIT", "TOOK", "MISSED", "RETRIES", "NEXT",
};

/* What a person looks at first: 7 columns of at most about 10
 * characters each but the task's name and the holder's host. */
static const int narrow[] = { C_TASK, C_STATE, C_HOLDER, C_LAST, C_EXIT, C_STARTED,
	C_NEXT };
#define NNARROW	((int)(sizeof(narrow) / sizeof(narrow[0])))

/* A duration for people: whole seconds from 1s up ("2h3m4s"), else ms. */
static char *
human_ms(long long ms, char *buf, size_t n)
{
	return duration_format(ms >= 1000 ? ms / 1000 * 1000 : ms, buf, n);
}

char *
status_text_holder(const char *host, long long pid, char *buf, size_t n)
{
	if ((host == NULL || *host == '\0') && pid == ABSENT)
		snprintf(buf, n, "-");
	else if (pid == ABSENT)
		snprintf(buf, n, "%s", host);
	else
		snprintf(buf, n, "%s:%lld", host && *host ? host : "?", pid);
	return buf;
}

/* The lock's cells: its state, and who holds it, since when, for how
 * long, until when, with which token. */
static void
lock_cells(const struct row *w, char cell[NCOLS][CELL], int wide)
{
	/* an unlocked holder is stopping; a --min-hold leftover runs nothing */
	char n[32] = "";

	if (w->nplaces > 1)	/* limit: N: "held 2", the places held */
		snprintf(n, sizeof(n), " %zu", w->nplaces);
	snprintf(cell[C_STATE], CELL, "%s%s%s", w->stale ? "stale" : !w->held ?
	    (w->paused ? "paused" : "free") : w->phase == KEY_UNLOCKED ? "unlocked" :
	    w->phase == KEY_RELEASED ? "min-hold" : "held", n, w->held && w->paused ?
	    ",paused" : "");
	if (!w->held)
		return;
	if (wide)
		status_text_holder(w->host, w->pid, cell[C_HOLDER], CELL);
	else		/* the pid is for whoever goes to that host: -l */
		snprintf(cell[C_HOLDER], CELL, "%s", w->host[0] ? w->host : "?");
	if (w->since_ms != ABSENT)
		text_iso(w->since_ms, TEXT_ISO_S, cell[C_SINCE], CELL);
	if (w->held_ms != ABSENT)
		human_ms(w->held_ms, cell[C_HELD], CELL);
	if (w->ttl_ms != ABSENT)
		human_ms(w->ttl_ms, cell[C_TTL], CELL);
	else
		snprintf(cell[C_TTL], CELL, w->session ? "session" : "never");
	if (w->token != ABSENT)
		snprintf(cell[C_TOKEN], CELL, "%lld", w->token);
}

/* The last run's cells: how it ended, by whom, for which slot, when,
 * with which status, after how long. */
static void
last_cells(const struct status_table *t, const struct row *w, char cell[NCOLS][CELL])
{
	if (!w->has_last)
		return;
	if (w->l_event)
		snprintf(cell[C_LAST], CELL, "%s", w->l_event);
	status_text_holder(w->l_host, w->l_pid, cell[C_BY], CELL);
	if (w->l_slot)
		snprintf(cell[C_SLOT], CELL, "%s", w->l_slot);
	if (w->l_start != ABSENT && t->wide)
		text_iso(w->l_start, TEXT_ISO_S, cell[C_STARTED], CELL);
	else if (w->l_start != ABSENT)		/* both the server's clock */
		duration_relative(w->l_start - t->server_ms, cell[C_STARTED], CELL);
	if (w->l_status != ABSENT)
		snprintf(cell[C_EXIT], CELL, "%lld", w->l_status);
	if (w->l_duration != ABSENT)
		human_ms(w->l_duration, cell[C_TOOK], CELL);
}

/* Row i's cells, each in its own buffer. What came from the server (a
 * holder's host, an event, a slot) is made visible by table_print(). */
static void
cells_fill(const struct status_table *t, size_t i, char cell[NCOLS][CELL])
{
	const struct row *w = &t->rows[i];
	const struct crond_task_view *v = t->next ? &t->next[i] : NULL;

	for (int c = 0; c < NCOLS; c++)
		snprintf(cell[c], CELL, "-");
	snprintf(cell[C_TASK], CELL, "%s", w->name);
	if (w->error) {		/* said on stderr, and in the exit status */
		snprintf(cell[C_STATE], CELL, "error");
		return;
	}
	lock_cells(w, cell, t->wide);
	if (w->missed_slot)	/* the last slot that ran nowhere */
		snprintf(cell[C_MISSED], CELL, "%s", w->missed_slot);
	if (w->counted)		/* the counter's, over the history's life */
		snprintf(cell[C_RETRIES], CELL, "%lld", w->count[CNT_RETRIES]);
	if (v && v->next_ms >= 0 && t->wide)
		text_iso(v->next_ms, TEXT_ISO_S, cell[C_NEXT], CELL);
	else if (v && v->next_ms >= 0)	/* this host's clock computed it */
		duration_relative(v->next_ms - t->local_ms, cell[C_NEXT], CELL);
	last_cells(t, w, cell);
}

/* The table's rows, made when table_print() asks for them (twice, to
 * measure and to print) rather than kept for 1,000 tasks. */
struct text_rows {
	const struct status_table	*t;
	char				 buf[NCOLS][CELL];
};

/* Column c of the table shown: every column, or the narrow ones. */
static int
shown(const struct status_table *t, int c)
{
	return t->wide ? c : narrow[c];
}

static void
text_row(void *arg, size_t i, const char **cell)
{
	struct text_rows *r = arg;
	int ncols = r->t->wide ? NCOLS : NNARROW;

	cells_fill(r->t, i, r->buf);
	for (int c = 0; c < ncols; c++)
		cell[c] = r->buf[shown(r->t, c)];
}

/* Under the table, for each task of many places (limit: N) with more
 * than one held, a line per place: who holds it, with which token, and
 * what is left of its lease. What came from the server is made visible. */
static void
places_print(FILE *fp, const struct status_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct row *w = &t->rows[i];

		for (size_t p = 0; !w->error && w->nplaces > 1 && p < w->nplaces; p++) {
			char host[256] = "?", pid[32] = "?", token[32] = "?", d[32];
			const char *v = w->places[p];

			sscanf(v, "%*s %31s %255s %31s", token, host, pid);
			fprintf(fp, "%s: place %zu of %zu held: ", w->name, p + 1, w->nplaces);
			text_visible_put(fp, host, strlen(host));
			fputs(" pid ", fp);
			text_visible_put(fp, pid, strlen(pid));
			fputs(", token ", fp);
			text_visible_put(fp, token, strlen(token));
			fprintf(fp, ", %s left%s\n", human_ms(w->places_ttl[p], d, sizeof(d)),
			    keys_value_phase(v) == KEY_UNLOCKED ? " (unlocked, stopping)" :
			    keys_value_phase(v) == KEY_RELEASED ? " (min-hold)" : "");
		}
	}
}

/* Under the table, a line for each task whose last run failed: why, in
 * the words lockrun recorded (the first line), or its exit status, and
 * where its output is. What came from the server is made visible. */
static void
failures_print(FILE *fp, const struct status_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct row *w = &t->rows[i];

		if (w->error || !w->has_last || w->l_status == ABSENT || w->l_status == 0)
			continue;
		fprintf(fp, "%s: last run failed: ", w->name);
		if (w->l_reason)	/* its first line */
			text_visible_put(fp, w->l_reason, strcspn(w->l_reason, "\n"));
		else
			fprintf(fp, "exited %lld", w->l_status);
		fprintf(fp, " (lockrun logs %s)\n", w->name);
	}
}

void
status_text_print(FILE *fp, const struct status_table *t)
{
	struct text_rows r = { .t = t };
	const char *heads[NCOLS];
	int ncols = t->wide ? NCOLS : NNARROW;

	for (int c = 0; c < ncols; c++)
		heads[c] = col_names[shown(t, c)];
	table_print(fp, heads, ncols, t->n, text_row, &r);
	places_print(fp, t);
	failures_print(fp, t);
}

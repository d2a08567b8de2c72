/* SPDX-License-Identifier: BSD-2-Clause */
/* rows_test.c -- a task's row as readers see it (web/rows.c): how a run
 * freed by `lockrun unlock` ended, from its history. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/duration.h"
#include "web/rows.h"

#define NOW	1781524800000LL		/* 2026-06-15T12:00:00Z */

/* A task whose last run, token 7, started 5 s ago and whose record the
 * unlock ended. */
static struct row
unlocked(const char *name)
{
	struct row w;

	rows_read(&w, name, &(struct lr_state){ .ttl_ms = -1 }, NOW, 0, LR_UNSET);
	w.has_last = 1;
	w.l_event = "unlocked";
	w.l_start = NOW - 5000;
	w.l_token = 7;
	return w;
}

/* A history, newest first: what a run freed by unlock leaves. */
static void
entry(struct lr_hist_entry *e, long long at, const char *ev, const char *tok,
    const char *status, const char *dur)
{
	memset(e, 0, sizeof(*e));
	e->at_ms = at;
	record_field_add(&e->fields, "event", ev);
	record_field_add(&e->fields, "token", tok);
	record_field_add(&e->fields, "status", status);
	record_field_add(&e->fields, "duration_ms", dur);
}

Test(rows, a_run_freed_by_unlock_ends_as_its_history_says)
{
	struct lr_hist_entry e[5];
	struct lr_hist h = { .n = 5, .e = e };
	struct row w = unlocked("freed"), other;

	entry(&e[0], NOW, "skipped-held", "7", NULL, NULL);	/* the holder's token */
	entry(&e[1], NOW - 100, "lost", "7", "143", "1341");
	entry(&e[2], NOW - 900, "unlocked", "7", NULL, NULL);
	entry(&e[3], NOW - 5000, "ran", "7", NULL, NULL);
	entry(&e[4], NOW - 9000, "released", "6", "0", "10");	/* the run before */
	cr_assert(eq(int, rows_needs_history(&w), 1));
	cr_assert(eq(int, rows_outcome(&w, &h), 1));
	cr_assert(eq(str, (char *)w.l_event, "lost"));
	cr_assert(eq(i64, w.l_status, 143));
	cr_assert(eq(i64, w.l_duration, 1341));
	cr_assert(eq(i64, w.l_end, NOW - 100));
	cr_assert(eq(int, rows_needs_history(&w), 0), "told once");

	/* its holder never ended (its host went): it stays unlocked */
	other = unlocked("gone");
	h.n = 1;
	h.e = &e[2];
	cr_assert(eq(int, rows_outcome(&other, &h), 0));
	cr_assert(eq(str, (char *)other.l_event, "unlocked"));
	for (size_t i = 0; i < 5; i++)
		record_fields_free(&e[i].fields);
}

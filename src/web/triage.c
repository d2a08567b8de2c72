/* SPDX-License-Identifier: BSD-2-Clause */
/* triage.c -- which tasks want a look (triage.h): the rules in one place,
 * so that the page's order, its summary line and its marks agree. */
#include <stdio.h>
#include <string.h>

#include "web/triage.h"

static const char *const words[NTRIAGE] = {
	[TRIAGE_FAILING] = "failing", [TRIAGE_LOST] = "lost", [TRIAGE_PAUSED] = "paused",
	[TRIAGE_MISSED] = "missed", [TRIAGE_STALE] = "stale",
	[TRIAGE_UNREADABLE] = "unreadable",
};

/* Did the last run lose its lock? Lost, freed by `lockrun unlock` with
 * no end of its own found (rows_outcome()), or never recorded its end
 * while its lease ran out (rows.c's "unknown"). */
static int
last_lost(const struct row *w)
{
	const char *ev = w->l_event;

	return w->has_last && ev && (strcmp(ev, "lost") == 0 ||
	    strcmp(ev, "unlocked") == 0 || strcmp(ev, "unknown") == 0);
}

/* Did the last run end, with a status other than 0? */
static int
last_failed(const struct row *w)
{
	return w->has_last && w->l_event && strcmp(w->l_event, "running") != 0 &&
	    !last_lost(w) && w->l_status != ABSENT && w->l_status != 0;
}

/* A missed slot is trouble until a run starts after it: the counter
 * alone keeps every miss for the history's life. */
static int
missed_since(const struct row *w)
{
	return w->missed > 0 && w->missed_ms != ABSENT &&
	    (w->l_start == ABSENT || w->missed_ms > w->l_start);
}

unsigned
triage_of(const struct row *w)
{
	unsigned t = 0;

	if (w->error)		/* nothing else about it is known */
		return 1u << TRIAGE_UNREADABLE;
	if (last_failed(w))
		t |= 1u << TRIAGE_FAILING;
	if (last_lost(w))
		t |= 1u << TRIAGE_LOST;
	if (w->paused)
		t |= 1u << TRIAGE_PAUSED;
	if (missed_since(w))
		t |= 1u << TRIAGE_MISSED;
	if (w->held && w->stale)
		t |= 1u << TRIAGE_STALE;
	return t;
}

/* A row's group: 0 anything but a pause wrong, 1 paused, 2 the rest. */
static int
rank(const struct row *w)
{
	unsigned t = triage_of(w);

	return (t & ~(1u << TRIAGE_PAUSED)) != 0 ? 0 : t != 0 ? 1 : 2;
}

/* A counting sort by rank: stable, linear. */
void
triage_order(const struct row *rows, size_t n, size_t *idx)
{
	size_t k = 0;

	for (int r = 0; r <= 2; r++)
		for (size_t i = 0; i < n; i++)
			if (rank(&rows[i]) == r)
				idx[k++] = i;
}

void
triage_count(const struct row *rows, size_t n, size_t count[NTRIAGE])
{
	memset(count, 0, NTRIAGE * sizeof(count[0]));
	for (size_t i = 0; i < n; i++) {
		unsigned t = triage_of(&rows[i]);

		for (int k = 0; k < NTRIAGE; k++)
			count[k] += (t >> k) & 1u;
	}
}

char *
triage_summary(const size_t count[NTRIAGE], size_t total, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%zu task%s", total, total == 1 ? "" : "s");
	const char *sep = ": ";

	for (int k = 0; k < NTRIAGE; k++) {
		if (count[k] == 0)
			continue;
		len += (size_t)snprintf(buf + (len < n ? len : n), len < n ? n - len : 0,
		    "%s%zu %s", sep, count[k], words[k]);
		sep = ", ";
	}
	if (*sep == ':')	/* nothing counted */
		snprintf(buf + (len < n ? len : n), len < n ? n - len : 0,
		    ", none failing, lost, paused or missed");
	return buf;
}

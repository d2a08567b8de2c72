/* SPDX-License-Identifier: BSD-2-Clause */
/* rows.c -- a task's lock and last run as read from the backend's state
 * (rows.h): the holder's value and the last-run record taken apart. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "backend/lock.h"
#include "core/civil.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "web/rows.h"

/* The number in s[0..n), all digits; -1 if not. */
static int
digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "2026-06-15T12:00:00.123Z" (the fraction optional, as lock.c writes
 * the start into the stable key's value) as ms since the epoch; ABSENT if
 * s is not that. */
static long long
iso_ms(const char *s)
{
	int y, mo, d, h, mi, sec, frac = 0;

	if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':')
		return ABSENT;
	y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
	h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return ABSENT;
	s += 19;
	if (*s == '.') {
		if ((frac = digits(s + 1, 3)) < 0)
			return ABSENT;
		s += 4;
	}
	if (strcmp(s, "Z") != 0)
		return ABSENT;
	return ((civil_days(y, mo, d) * 24 + h) * 60 + mi) * 60000LL +
	    sec * 1000LL + frac;
}

/* A decimal integer, all of s; ABSENT otherwise. */
static long long
number(const char *s)
{
	long long v;

	return text_decimal(s, &v) == 0 && v != ABSENT ? v : ABSENT;
}

/* The stable key's value: "<owner id> <token> <host> <pid> <start>". A
 * value of another shape leaves what it does not say unknown. */
static void
read_holder(struct row *w, const char *value)
{
	char token[32] = "", start[64] = "";

	w->host[0] = '\0';
	w->phase = keys_value_phase(value);
	sscanf(value, "%*s %31s %255s %lld %63s", token, w->host, &w->pid, start);
	w->token = number(token);
	w->since_ms = iso_ms(start);
}

/* The last-run record, field by field. */
static void
read_last(struct row *w, const struct lr_fields *h)
{
	static const struct { const char *f; size_t off; } nums[] = {
		{ "pid", offsetof(struct row, l_pid) },
		{ "token", offsetof(struct row, l_token) },
		{ "start_ms", offsetof(struct row, l_start) },
		{ "end_ms", offsetof(struct row, l_end) },
		{ "status", offsetof(struct row, l_status) },
		{ "duration_ms", offsetof(struct row, l_duration) },
		{ "success_ms", offsetof(struct row, success_ms) },
	};

	w->has_last = h->n > 0;
	for (size_t i = 0; i < h->n; i++) {
		const char *f = h->f[i], *v = h->v[i];

		if (strcmp(f, "event") == 0)
			w->l_event = v;
		else if (strcmp(f, "host") == 0)
			w->l_host = v;
		else if (strcmp(f, "slot") == 0)
			w->l_slot = v;
		else if (strcmp(f, "reason") == 0 && *v)
			w->l_reason = v;
		for (size_t j = 0; j < sizeof(nums) / sizeof(nums[0]); j++)
			if (strcmp(f, nums[j].f) == 0)
				*(long long *)((char *)w + nums[j].off) = number(v);
	}
}

/* The pause's value (lock.h), if any: "<since> <until> <host> <user>
 * <reason>"; one of another shape is a pause by someone unknown. One
 * whose end has come by the server's clock (now_ms) is none. */
static void
read_pause(struct row *w, const char *value, long long now_ms)
{
	struct lr_pause_view v;

	if (value == NULL || (lock_pause_parse(value, &v) == 0 && v.until_ms > 0 &&
	    v.until_ms <= now_ms))
		return;
	w->paused = 1;
	w->p_since = w->p_until = ABSENT;
	w->p_reason = "";
	if (lock_pause_parse(value, &v) != 0) {
		snprintf(w->p_host, sizeof(w->p_host), "?");
		snprintf(w->p_user, sizeof(w->p_user), "?");
		return;
	}
	memcpy(w->p_host, v.host, sizeof(w->p_host));
	memcpy(w->p_user, v.user, sizeof(w->p_user));
	w->p_reason = v.reason;
	w->p_since = v.since_ms;
	w->p_until = v.until_ms > 0 ? v.until_ms : ABSENT;
}

/* A last run still "running" whose lease is gone: the stable key is free,
 * or holds another run's token. Its lockrun lost the server while the
 * command ran (its host went, or it was killed with the server silent)
 * and could not record the end; the next run of the task replaces the
 * record. Shown as "unknown" rather than running forever. A run with a
 * slot may have held no stable key (one-server alone): free says nothing
 * about it, but another holder does. With places (limit: N) the last run
 * is accounted for while any place holds its token. */
static int
run_unaccounted(const struct row *w)
{
	if (!w->has_last || w->l_event == NULL || strcmp(w->l_event, "running") != 0)
		return 0;
	for (size_t i = 0; i < w->nplaces; i++) {
		char token[32] = "";

		sscanf(w->places[i], "%*s %31s", token);
		if (w->l_token != ABSENT && number(token) == w->l_token)
			return 0;
	}
	if (w->held)
		return w->token != ABSENT && w->l_token != ABSENT && w->token != w->l_token;
	return w->l_slot == NULL;
}

/* Fill w from st, the state of task name read when the server's clock
 * said now_ms. The hold started at the last run's start (the server's
 * clock) when that run is the holder, else at the start the holder wrote
 * in the value (its own clock). */
void
rows_read(struct row *w, const char *name, const struct lr_state *r, long long now_ms,
    int session, long long stale)
{
	*w = (struct row){ .name = name, .pid = ABSENT, .token = ABSENT,
	    .since_ms = ABSENT, .held_ms = ABSENT, .ttl_ms = ABSENT, .l_pid = ABSENT,
	    .l_token = ABSENT, .l_start = ABSENT, .l_end = ABSENT, .l_status = ABSENT,
	    .l_duration = ABSENT, .success_ms = ABSENT };
	read_last(w, &r->last);
	if (r->value != NULL) {
		w->held = 1;
		read_holder(w, r->value);
		if (r->ttl_ms >= 0)
			w->ttl_ms = r->ttl_ms;
		else
			w->session = session;
		if (w->has_last && w->token != ABSENT && w->l_token == w->token &&
		    w->l_start != ABSENT)
			w->since_ms = w->l_start;
		if (w->since_ms != ABSENT)
			w->held_ms = now_ms > w->since_ms ? now_ms - w->since_ms : 0;
		w->stale = stale != LR_UNSET && w->held_ms != ABSENT && w->held_ms > stale;
	}
	w->nplaces = r->nplaces;
	w->places = r->places;
	w->places_ttl = r->places_ttl;
	if (run_unaccounted(w))
		w->l_event = "unknown";
	read_pause(w, r->paused, now_ms);
	w->missed = r->missed;
	w->missed_slot = r->missed_slot;
	w->missed_ms = r->missed_slot ? iso_ms(r->missed_slot) : ABSENT;
	w->counted = r->counted;
	memcpy(w->count, r->count, sizeof(w->count));
}

int
rows_needs_history(const struct row *w)
{
	return w->has_last && w->l_event && strcmp(w->l_event, "unlocked") == 0 &&
	    w->l_token != ABSENT;
}

int
rows_ends_run(const char *ev)
{
	return ev && (strcmp(ev, "released") == 0 || strcmp(ev, "stopped-timeout") == 0 ||
	    strcmp(ev, "killed") == 0 || strcmp(ev, "lost") == 0);
}

int
rows_outcome(struct row *w, const struct lr_hist *h)
{
	if (!rows_needs_history(w) || h == NULL)
		return 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct lr_fields *f = &h->e[i].fields;
		const char *tok = record_field_get(f, "token"), *st, *dur;

		if (tok == NULL || number(tok) != w->l_token ||
		    !rows_ends_run(record_field_get(f, "event")))
			continue;
		w->l_event = record_field_get(f, "event");
		w->l_status = (st = record_field_get(f, "status")) ? number(st) : ABSENT;
		w->l_duration = (dur = record_field_get(f, "duration_ms")) ? number(dur) : ABSENT;
		w->l_end = h->e[i].at_ms;
		return 1;
	}
	return 0;
}

int
rows_states(struct lr_backend *be, const struct lr_keys *k, size_t n, int counts,
    struct lr_state *out, long long *now_ms, long long reopen_ms, struct lr_err *bad,
    struct lr_err *e)
{
	for (size_t i = 0; i < n; i++)
		bad[i] = (struct lr_err)LR_ERR_INIT;
	if (be->ops->states(be, k, n, counts, out, now_ms, e) == 0)
		return 0;
	if (e->kind != LR_ERR_DATA || n == 0)
		return -1;
	/* one task's values: each alone, the rest as usual */
	for (size_t i = 0; i < n; i++) {
		long long at = 0;

		if (be->ops->fd(be) < 0 && be->ops->reopen(be, reopen_ms, e) != 0)
			return -1;
		if (be->ops->states(be, &k[i], 1, counts, &out[i], &at, &bad[i]) == 0) {
			*now_ms = at;
			continue;
		}
		if (bad[i].kind != LR_ERR_DATA) {
			*e = bad[i];
			return -1;
		}
		out[i] = (struct lr_state){ .ttl_ms = -1 };
	}
	return 0;
}

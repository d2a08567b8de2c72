/* SPDX-License-Identifier: BSD-2-Clause */
/* rfleet.c -- what an operator reads and asks of every task in Redis:
 * status's read of the tasks' states, and the slot claims a scheduler is
 * told of (SUBSCRIBE, once). Triggers are rtrigger.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "core/text.h"
#include "backend/redis/rconn.h"
#include "backend/redis/rfleet.h"
#include "backend/redis/rscript.h"
#include "scripts.h"

/* Queue TIME, then for each task GET and PTTL of its stable key, HGETALL
 * of its last-run hash, HMGET of its pause and missed slots (fields of
 * the counters' hash, pause.lua, missed.lua), and (counts) HGETALL of its
 * counters. */
static int
states_send(struct lr_conn *c, const struct lr_keys *k, size_t n, int counts)
{
	const char *tv[] = { "TIME" };
	int rc = rconn_append(c, 1, tv);

	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *get[] = { "GET", k[i].stable }, *pttl[] = { "PTTL", k[i].stable },
		    *hall[] = { "HGETALL", k[i].last },
		    *count[] = { "HGETALL", k[i].counts },
		    *pause[] = { "HMGET", k[i].counts, "paused", "missed", "missed_slot" };

		if (rconn_append(c, 2, get) != 0 || rconn_append(c, 2, pttl) != 0 ||
		    rconn_append(c, 2, hall) != 0 || rconn_append(c, 5, pause) != 0 ||
		    (counts && rconn_append(c, 2, count) != 0))
			rc = -1;
	}
	return rc;
}

/* The task name in a stable key, prefix{name}, for messages. */
static void
name_of(const char *stable, char *buf, size_t n)
{
	struct lr_key_parts kp;

	snprintf(buf, n, "%s", keys_parse(stable, NULL, &kp) == 0 ? kp.name : "");
}

/* The counters from HGETALL's reply r (the counts hash), into s. Fields
 * this lockrun does not know are skipped; a counter not there is 0. */
static void
counts_read(const redisReply *r, struct lr_state *s)
{
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
		long long v;
		int c;

		if (r->element[i]->type != REDIS_REPLY_STRING ||
		    r->element[i + 1]->type != REDIS_REPLY_STRING ||
		    (c = record_counter_index(r->element[i]->str)) < 0 ||
		    text_decimal(r->element[i + 1]->str, &v) != 0)
			continue;
		s->count[c] = v;
		s->counted = 1;
	}
}

/* Is r, the GET of a stable key, refused as the key is a set of places
 * (limit: N, places.lua)? */
static int
is_places(const redisReply *r)
{
	return r->type == REDIS_REPLY_ERROR && strncmp(r->str, "WRONGTYPE", 9) == 0;
}

/* One task's state from its replies: GET, PTTL, HGETALL, HMGET[, HGETALL]. */
static int
state_read(redisReply **r, int counts, struct lr_state *s)
{
	*s = (struct lr_state){ .ttl_ms = -1 };
	if (r[0]->type == REDIS_REPLY_STRING && (s->value = strdup(r[0]->str)) == NULL)
		return -1;
	if (r[1]->type == REDIS_REPLY_INTEGER && r[1]->integer >= 0 && !is_places(r[0]))
		s->ttl_ms = r[1]->integer;
	for (size_t i = 0; r[2]->type == REDIS_REPLY_ARRAY && i + 1 < r[2]->elements; i += 2)
		if (r[2]->element[i]->type == REDIS_REPLY_STRING &&
		    r[2]->element[i + 1]->type == REDIS_REPLY_STRING &&
		    record_field_add(&s->last, r[2]->element[i]->str,
		    r[2]->element[i + 1]->str) != 0)
			return -1;
	if (r[3]->type == REDIS_REPLY_ARRAY && r[3]->elements == 3) {
		redisReply **m = r[3]->element;
		if (m[0]->type == REDIS_REPLY_STRING && (s->paused = strdup(m[0]->str)) == NULL)
			return -1;
		if (m[1]->type == REDIS_REPLY_STRING)
			(void)text_decimal(m[1]->str, &s->missed);
		if (m[2]->type == REDIS_REPLY_STRING &&
		    (s->missed_slot = strdup(m[2]->str)) == NULL)
			return -1;
	}
	if (counts)
		counts_read(r[4], s);
	return 0;
}

/* A set of places from ZRANGE ... WITHSCORES, r (value, lease's end by
 * the server's clock, ...), read at now_ms into s: the places whose lease
 * has not ended, and the first held by a run (not a tombstone, not a
 * --min-hold leftover; else the first) as s->value. */
static int
places_fill(const redisReply *r, long long now_ms, struct lr_state *s)
{
	size_t n = r->type == REDIS_REPLY_ARRAY ? r->elements / 2 : 0, shown = 0;
	long long end;

	if (n == 0)
		return 0;
	if ((s->places = calloc(n, sizeof(*s->places))) == NULL ||
	    (s->places_ttl = calloc(n, sizeof(*s->places_ttl))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const redisReply *v = r->element[2 * i], *at = r->element[2 * i + 1];

		if (v->type != REDIS_REPLY_STRING || at->type != REDIS_REPLY_STRING ||
		    text_decimal(at->str, &end) != 0 || end <= now_ms)
			continue;	/* its lease ended: gone */
		if ((s->places[s->nplaces] = strdup(v->str)) == NULL)
			return -1;
		if (shown == 0 && strchr("0123456789abcdef", v->str[0]) != NULL)
			shown = s->nplaces + 1;
		s->places_ttl[s->nplaces++] = end - now_ms;
	}
	if (s->nplaces == 0)
		return 0;
	shown = shown ? shown - 1 : 0;
	s->ttl_ms = s->places_ttl[shown];
	return (s->value = strdup(s->places[shown])) == NULL ? -1 : 0;
}

/* The tasks whose stable key is a set of places (their GET, in r, refused
 * as such): each set's places, in a round trip of their own. Returns 0,
 * or -1 with e. */
static int
places_read(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k, size_t n,
    redisReply **get, size_t per, long long now_ms, struct lr_state *out, struct lr_err *e)
{
	size_t m = 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *zr[] = { "ZRANGE", k[i].stable, "0", "-1", "WITHSCORES" };

		if (is_places(get[i * per]) && (rc = rconn_append(c, 5, zr)) == 0)
			m++;
	}
	if (rc != 0)
		return rconn_fail(c, "status", e);
	/* every reply is read, the first failure kept: the connection
	 * stays in step */
	for (size_t i = 0; i < n && m > 0; i++) {
		redisReply *r;

		if (!is_places(get[i * per]))
			continue;
		m--;
		if ((r = rconn_reply(c, "status", e)) == NULL)
			return -1;
		if (rc == 0 && r->type == REDIS_REPLY_ERROR)
			rc = rconn_reply_error(b->where, r, "status", e);
		else if (rc == 0 && places_fill(r, now_ms, &out[i]) != 0)
			rc = lr_errf(e, EX_OSERR, "out of memory");
		freeReplyObject(r);
	}
	return rc;
}

/* The server's clock from TIME's reply, in ms. */
static int
server_ms(const struct lr_backend *b, const redisReply *r, long long *now_ms,
    struct lr_err *e)
{
	long long sec, usec;

	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
	    r->element[0]->type != REDIS_REPLY_STRING ||
	    r->element[1]->type != REDIS_REPLY_STRING ||
	    text_decimal(r->element[0]->str, &sec) != 0 ||
	    text_decimal(r->element[1]->str, &usec) != 0)
		return lr_errf(e, EX_UNAVAILABLE, "redis %s: TIME: unexpected reply",
		    b->where);
	*now_ms = sec * 1000 + usec / 1000;
	return 0;
}

int
rfleet_states(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k, size_t n,
    int counts, struct lr_state *out, long long *now_ms, struct lr_err *e)
{
	size_t per = counts ? 5 : 4, want = 1 + n * per, got = 0;
	redisReply **r = calloc(want, sizeof(*r));
	int rc = -1;

	if (r == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (states_send(c, k, n, counts) != 0) {
		rconn_fail(c, "status", e);
		goto out;
	}
	for (; got < want; got++) {
		char doing[KEY_NAME_MAX + 8] = "status";

		if (got > 0) {	/* a task's reply: its name in messages */
			strcpy(doing, "status ");
			name_of(k[(got - 1) / per].stable, doing + 7, sizeof(doing) - 7);
		}
		if ((r[got] = rconn_reply(c, "status", e)) == NULL) {
			if (e->kind == LR_ERR_DATA && got > 0)
				rconn_fail(c, doing, e);	/* this task's reply */
			goto out;
		}
		/* the GET of a set of places is refused: read below */
		if (r[got]->type == REDIS_REPLY_ERROR && !(got > 0 && (got - 1) % per == 0 &&
		    is_places(r[got]))) {
			rconn_reply_error(b->where, r[got], doing, e);
			got++;
			goto out;
		}
	}
	if (server_ms(b, r[0], now_ms, e) != 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (state_read(r + 1 + i * per, counts, &out[i]) != 0) {
			lr_errf(e, EX_OSERR, "out of memory");
			goto out;
		}
	rc = places_read(b, c, k, n, r + 1, per, *now_ms, out, e);
out:
	for (size_t i = 0; i < got; i++)
		freeReplyObject(r[i]);
	free(r);
	return rc;
}

/* The channel the claims under prefix are published on: as acquire.lua
 * names it, from the slot key's text before its hash tag. */
int
rfleet_watch(struct lr_backend *b, struct lr_conn *c, const char *prefix, struct lr_err *e)
{
	char chan[KEY_PREFIX_MAX + 16];
	const char *argv[] = { "SUBSCRIBE", chan };
	redisReply *r;
	int rc = 0;

	snprintf(chan, sizeof(chan), "%sclaims", prefix);
	if ((r = rconn_command(c, "subscribe", 2, argv, e)) == NULL)
		return -1;
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
	    r->element[0]->type != REDIS_REPLY_STRING ||
	    strcmp(r->element[0]->str, "subscribe") != 0)
		rc = rconn_reply_error(b->where, r, "subscribe", e);
	freeReplyObject(r);
	if (rc != 0)
		rconn_close(c);
	return rc;
}

int
rfleet_claims(struct lr_conn *c, void (*cb)(void *arg, const char *key, const char *value),
    void *arg, struct lr_err *e)
{
	redisReply *r;
	int got;

	while ((got = rconn_read(c, &r, "claims", e)) > 0) {
		char *sp;

		/* "message", the channel, "KEY VALUE" */
		if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
		    r->element[2]->type == REDIS_REPLY_STRING &&
		    (sp = strchr(r->element[2]->str, ' ')) != NULL) {
			*sp = '\0';
			cb(arg, r->element[2]->str, sp + 1);
		}
		freeReplyObject(r);
	}
	return got < 0 ? -1 : 0;
}

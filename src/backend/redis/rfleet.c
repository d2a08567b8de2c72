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

/* One task's state from its replies: GET, PTTL, HGETALL, HMGET[, HGETALL]. */
static int
state_read(redisReply **r, int counts, struct lr_state *s)
{
	*s = (struct lr_state){ .ttl_ms = -1 };
	if (r[0]->type == REDIS_REPLY_STRING && (s->value = strdup(r[0]->str)) == NULL)
		return -1;
	if (r[1]->type == REDIS_REPLY_INTEGER && r[1]->integer >= 0)
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
		if (r[got]->type == REDIS_REPLY_ERROR) {
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
	rc = 0;
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

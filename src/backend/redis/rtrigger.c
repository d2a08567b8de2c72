/* SPDX-License-Identifier: BSD-2-Clause */
/* rtrigger.c -- `lockrun trigger` in Redis (rtrigger.h).
 *
 * A trigger is a key next to the task's lock (prefix{name}:trigger), and
 * its task's name in one set for the whole prefix (prefixtriggered), so
 * that a scheduler's look is one SMEMBERS whatever its task count, and
 * it takes only the triggers named there. The verb writes the key, then
 * the name; a take that found no trigger removes the name, then
 * puts it back if a trigger key is there again. Every trigger waiting is
 * thus named: one whose name the take removed was written before the
 * removal, so the EXISTS after it sees its key (or another scheduler took
 * it), and one written after adds its name anew. Two commands, on a
 * Cluster too (the set and the key are in different slots, so no script
 * holds both). A name left with no trigger (its task in no scheduler's
 * config) lapses with the set, a day after the last trigger. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "backend/redis/rconn.h"
#include "backend/redis/rscript.h"
#include "backend/redis/rtrigger.h"
#include "scripts.h"

#define TRIGGERED_TTL	"86400000"	/* ms the set outlives its last add */

/* The set of triggered names under k's prefix, and k's name, from its
 * stable key prefix{name}. */
static void
set_of(const struct lr_keys *k, char *set, size_t n, char *name, size_t nn)
{
	const char *open = strchr(k->stable, '{');
	size_t plen = open ? (size_t)(open - k->stable) : 0;
	size_t len = open ? strcspn(open + 1, "}") : 0;

	snprintf(set, n, "%.*striggered", (int)plen, k->stable);
	snprintf(name, nn, "%.*s", (int)len, open ? open + 1 : "");
}

/* Name k's task in the set again (after SADD: 1 added, 0 there). */
static int
name_it(struct lr_conn *c, const char *set, const char *name, struct lr_err *e)
{
	const char *add[] = { "SADD", set, name }, *ttl[] = { "PEXPIRE", set, TRIGGERED_TTL };
	redisReply *r;

	if ((r = rconn_command(c, "trigger", 3, add, e)) == NULL)
		return -1;
	freeReplyObject(r);
	if ((r = rconn_command(c, "trigger", 3, ttl, e)) == NULL)
		return -1;
	freeReplyObject(r);
	return 0;
}

int
rtrigger_set(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k,
    const char *value, long long ttl_ms, struct lr_err *e)
{
	char px[24], set[KEY_MAX + 16], name[KEY_MAX];
	const char *argv[] = { "SET", k->trigger, value, "PX", px };
	redisReply *r;
	int rc = 0;

	snprintf(px, sizeof(px), "%lld", ttl_ms);
	if ((r = rconn_command(c, "trigger", 5, argv, e)) == NULL)
		return -1;
	if (r->type != REDIS_REPLY_STATUS)
		rc = rconn_reply_error(b->where, r, "trigger", e);
	freeReplyObject(r);
	set_of(k, set, sizeof(set), name, sizeof(name));
	return rc == 0 ? name_it(c, set, name, e) : rc;
}

int
rtrigger_asked(struct lr_conn *c, const char *prefix,
    void (*cb)(void *arg, const char *name), void *arg, struct lr_err *e)
{
	char set[KEY_PREFIX_MAX + 16];
	const char *argv[] = { "SMEMBERS", set };
	redisReply *r;

	snprintf(set, sizeof(set), "%striggered", prefix);
	if ((r = rconn_command(c, "triggers", 2, argv, e)) == NULL)
		return -1;
	if (r->type != REDIS_REPLY_ARRAY) {
		int rc = rconn_reply_error(c->link.where, r, "triggers", e);

		freeReplyObject(r);
		return rc;
	}
	for (size_t i = 0; i < r->elements; i++)
		if (r->element[i]->type == REDIS_REPLY_STRING)
			cb(arg, r->element[i]->str);
	freeReplyObject(r);
	return 0;
}

/* k's take was answered: its name leaves the set, and comes back when a
 * trigger key is there again (written since, or not taken: see above). */
static int
unname(struct lr_conn *c, const struct lr_keys *k, struct lr_err *e)
{
	char set[KEY_MAX + 16], name[KEY_MAX];
	const char *rem[] = { "SREM", set, name }, *ex[] = { "EXISTS", k->trigger };
	redisReply *r;
	int again;

	set_of(k, set, sizeof(set), name, sizeof(name));
	if ((r = rconn_command(c, "triggers", 3, rem, e)) == NULL)
		return -1;
	freeReplyObject(r);
	if ((r = rconn_command(c, "triggers", 2, ex, e)) == NULL)
		return -1;
	again = r->type == REDIS_REPLY_INTEGER && r->integer > 0;
	freeReplyObject(r);
	return again ? name_it(c, set, name, e) : 0;
}

/* take.lua on each task's trigger key, pipelined (rscript_calls(): a
 * key of its own each): one round trip, a key marked by one scheduler
 * only, and only while that scheduler waits for the answer (its window,
 * lock_window()). On a Cluster one at a time, as its redirects are
 * followed (pipelined, the takes redirected to another node took their
 * triggers and the answers went astray). A name leaves the set only when
 * its take found no trigger: one marked stays named, so that a look finds
 * it again once its mark's lease ends (its taker died before the run
 * started). */
int
rtrigger_take(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k, size_t n,
    const struct lr_take *tk, struct lr_lock *w, unsigned char *taken, struct lr_err *e)
{
	struct script_call *calls = calloc(n + 1, sizeof(*calls));
	long long server = 0;
	int rc = 0;

	(void)b;
	if (calls == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct script_call *sc = &calls[i];

		/* each window from its own send on a Cluster */
		if (i == 0 || c->cluster)
			lock_window(w, real_ms(), c->link.command_timeout_ms);
		snprintf(sc->how, sizeof(sc->how), "%lld %lld %lld %s", w->earliest_ms,
		    w->deadline_ms, tk->lease_ms[i], tk->id);
		rscript_call_init(sc, SCRIPT_TAKE_SHA, "1",
		    (const char *[]){ k[i].trigger, sc->how }, 2, NULL);
		if (c->cluster)
			rscript_calls(c, "triggers", SCRIPT_TAKE, sc, 1);
	}
	if (c->cluster == NULL)
		rscript_calls(c, "triggers", SCRIPT_TAKE, calls, n);
	for (size_t i = 0; i < n; i++) {
		const redisReply *r = calls[i].r;

		taken[i] = 0;
		if (r == NULL) {
			if (rc == 0)
				*e = calls[i].e;
			rc = -1;
		} else if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
		    r->element[0]->type == REDIS_REPLY_INTEGER &&
		    r->element[2]->type == REDIS_REPLY_INTEGER) {
			taken[i] = r->element[0]->integer == 1 ? 1 :
			    r->element[0]->integer == 4 ? 2 :
			    r->element[0]->integer == 3 ? 3 : 0;
			server = r->element[2]->integer;
		} else if (rc == 0)
			rc = lr_errf(e, EX_SOFTWARE, "redis %s: triggers: unexpected reply",
			    c->link.where);
		else
			rc = -1;
		freeReplyObject(calls[i].r);
	}
	free(calls);
	if (server > 0)
		lock_offset_note(w, server, real_ms());
	for (size_t i = 0; rc == 0 && i < n; i++)	/* a trigger marked stays named */
		if (taken[i] == 0)
			rc = unname(c, &k[i], e);
	return rc;
}

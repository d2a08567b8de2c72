/* SPDX-License-Identifier: BSD-2-Clause */
/* rlock.c -- the lock in Redis: acquire, renew and release the lock with
 * Lua scripts (rscript.h: EVALSHA, EVAL when Redis does not know them),
 * for one lock or many in one round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "core/text.h"
#include "backend/redis/rlock.h"
#include "backend/redis/rscript.h"
#include "scripts.h"

/* One script call, EVALSHA (rscript.h): its reply, which the caller
 * frees, or NULL with e set. */
static redisReply *
script_call(struct lr_conn *rc, const char *what, const char *sha,
    const char *body, const char *nkeys, const char **args, int nargs,
    struct lr_err *e)
{
	struct script_call c;

	rscript_call_init(&c, sha, nkeys, args, nargs, NULL);
	rscript_calls(rc, what, body, &c, 1);
	if (c.r == NULL)
		*e = c.e;
	return c.r;
}

/* The slot as the scripts record it: ISO 8601, or "-" for none. */
static const char *
slot_word(const struct lr_lock *l)
{
	return l->slot_ttl_ms && l->keys.slot_iso[0] ? l->keys.slot_iso : "-";
}

/* The AUTH or SELECT sent with the acquire was refused, yet Redis ran the
 * acquire (as "default", or in database 0, which needed no password): if
 * it took the lock, give it back at once (history: "refused", 69); a slot
 * key stays, as release never frees one. Frees r; returns -1 with e set to
 * the refusal, which stops the run: the command never runs. */
static int
undo(struct lr_conn *rc, struct lr_lock *l, redisReply *r, struct lr_err *e)
{
	struct lr_ending end = { .status = EX_UNAVAILABLE, .event = "refused" };
	int taken = r->element[0]->integer == 1;

	if (taken)
		lock_took(l, r->element[1]->integer);
	freeReplyObject(r);
	if (taken)
		rlock_release(rc, l, &end, NULL);
	return rconn_handshake_error(rc, e);
}

/* l's acquire (acquire.lua) into c, its window counted from now. */
static void
acquire_call(struct lr_conn *rc, struct lr_lock *l, struct script_call *c)
{
	const char *slot = l->slot_ttl_ms ? l->keys.slot : l->keys.stable;
	/* a triggered run a scheduler started: its trigger, which the
	 * acquire deletes (acquire.lua; in the keys' slot on a Cluster) */
	int take = l->triggered && l->take[0];
	const char *args[] = { l->keys.fence, l->keys.stable, slot, l->keys.hist,
	    l->keys.last, l->keys.counts, take ? l->keys.trigger : c->how, c->how };

	lock_window(l, real_ms(), rc->link.command_timeout_ms);
	/* many places: "L<limit> " first; limit 1 asks as it always has */
	c->word[0] = '\0';
	if (l->limit > 1)
		snprintf(c->word, sizeof(c->word), "L%d ", l->limit);
	snprintf(c->how, sizeof(c->how), "%s%s %lld %lld %lld %lld %s %d %s %lld %lld %lld %lld "
	    "%s %s %s", c->word, l->id, l->ttl_ms, l->slot_ttl_ms, l->hist_cap, l->hist_ttl_ms,
	    slot_word(l), !l->quiet_held, l->triggered ? "triggered" : "ran", l->earliest_ms,
	    l->deadline_ms, l->sent_ms, l->clock_tol_ms, l->claim[0] ? l->claim : "-",
	    take ? l->take : "-", l->owner);
	rscript_call_init(c, SCRIPT_ACQUIRE_SHA, take ? "7" : "6", args, take ? 8 : 7, l);
}

/* What c, l's acquire, was answered: 0 with *out, or -1 with e. */
static int
acquire_answer(struct lr_conn *rc, struct lr_lock *l, struct script_call *c,
    enum lock_outcome *out, struct lr_err *e)
{
	redisReply *r = c->r;
	long long code;

	if (r == NULL) {
		*e = c->e;
		/* sent, unanswered (no answer in time, the connection lost):
		 * it may yet run, or have run; an answer that broke the
		 * protocol is no server of ours, and one over the bound
		 * carried another's value (ours are small): not taken */
		l->in_doubt = lr_err_unanswered(e);
		rconn_handshake_error(rc, e);	/* the cause, when there is one */
		return -1;
	}
	if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 || r->elements > 3 ||
	    r->element[0]->type != REDIS_REPLY_INTEGER) {
		freeReplyObject(r);
		return lr_errf(e, EX_SOFTWARE, "redis %s: acquire: unexpected reply", rc->link.where);
	}
	/* the server's clock, when the answer has it: else the offset stays unknown */
	if (r->elements == 3 && r->element[2]->type == REDIS_REPLY_INTEGER)
		lock_offset_note(l, r->element[2]->integer, real_ms());
	code = r->element[0]->integer;
	if (code == 4 || code == 5) {	/* refused: nothing done */
		freeReplyObject(r);
		*out = code == 4 ? LOCK_LATE : LOCK_CLOCK_OFF;
		return 0;
	}
	if (rconn_handshake_error(rc, NULL) != 0)
		return undo(rc, l, r, e);
	if (code == 1) {
		/* a skip wrote only history: what WAIT said does not matter */
		*out = c->ok ? LOCK_ACQUIRED : LOCK_UNCONFIRMED;
		lock_took(l, r->element[1]->integer);
	} else {
		*out = code == 0 ? LOCK_HELD : code == 6 ? LOCK_PAUSED : LOCK_SLOT_TAKEN;
		snprintf(l->holder, sizeof(l->holder), "%s",
		    r->element[1]->type == REDIS_REPLY_STRING ? r->element[1]->str : "?");
	}
	freeReplyObject(r);
	return 0;
}

void
rlock_acquire_many(struct lr_conn *rc, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rcs, struct lr_err *errs)
{
	struct script_call *c = calloc(n, sizeof(*c));

	for (size_t i = 0; i < n && c == NULL; i++)
		rcs[i] = lr_errf(&errs[i], EX_OSERR, "out of memory");
	if (c == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		acquire_call(rc, l[i], &c[i]);
	rscript_calls(rc, "acquire", SCRIPT_ACQUIRE, c, n);
	for (size_t i = 0; i < n; i++)
		rcs[i] = acquire_answer(rc, l[i], &c[i], &out[i], &errs[i]);
	free(c);
}

int
rlock_acquire(struct lr_conn *rc, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	int ret;

	rlock_acquire_many(rc, &l, 1, out, &ret, e);
	return ret;
}

/* renew.lua's settings for l: "<ttl> <cap> <history ttl> <slot> <deadline>",
 * and " <limit>" for a lock of many places. */
static void
renew_how(const struct lr_lock *l, char *how, size_t n)
{
	int len = snprintf(how, n, "%lld %lld %lld %s %lld", l->ttl_ms, l->hist_cap,
	    l->hist_ttl_ms, slot_word(l), l->renew_deadline_ms);

	if (l->limit > 1 && len > 0 && (size_t)len < n)
		snprintf(how + len, n - (size_t)len, " %d", l->limit);
}

/* Queue the renewal as EVALSHA, or EVAL with the body, and write it out. */
static int
renew_write(struct lr_conn *rc, struct lr_lock *l, int eval, struct lr_err *e)
{
	char how[200];
	const char *argv[] = { eval ? "EVAL" : "EVALSHA",
	    eval ? SCRIPT_RENEW : SCRIPT_RENEW_SHA, "5", l->keys.stable, l->keys.fence,
	    l->keys.hist, l->keys.last, l->keys.counts, l->value, how };

	if (!eval)	/* EVAL after NOSCRIPT is the same request, sent again */
		lock_renew_window(l);
	renew_how(l, how, sizeof(how));
	if (rconn_append(rc, 10, argv) != 0 ||
	    (l->wait_replicas > 0 && rscript_wait_append(rc, l) != 0))
		return rconn_fail(rc, "renew", e);
	if (rconn_flush(rc, "renew", e) != 0)
		return -1;
	l->renew_eval = eval;
	return 0;
}

int
rlock_renew_send(struct lr_conn *rc, struct lr_lock *l, struct lr_err *e)
{
	l->renew_skip = l->renew_waiting = 0;	/* nothing else is in flight */
	return renew_write(rc, l, 0, e);
}

/* The renewal's own reply, {code, the server's clock}: 1 with *out set
 * (and the server's clock read again), or -1 with e. */
static int
renew_outcome(const struct lr_conn *rc, struct lr_lock *l, const redisReply *r,
    enum renew_outcome *out, struct lr_err *e)
{
	static const enum renew_outcome outcomes[] = {
		RENEW_LOST, RENEW_OK, RENEW_RETAKEN, RENEW_LOST_LATER, RENEW_LATE,
	};
	long long code;

	if (r->type == REDIS_REPLY_ERROR)
		return rscript_refused(rc, "renew", r->str, e);
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
	    r->element[0]->type != REDIS_REPLY_INTEGER ||
	    r->element[1]->type != REDIS_REPLY_INTEGER ||
	    (code = r->element[0]->integer) < 0 || code > 4)
		return lr_errf(e, EX_SOFTWARE, "redis %s: renew: unexpected reply", rc->link.where);
	lock_renew_note(l, r->element[1]->integer);
	*out = outcomes[code];
	return 1;
}

/* WAIT's reply w has come after the renewal's (held in l): the renewal's
 * answer, unless it kept the key but too few replicas acknowledged. */
static int
renew_acked(struct lr_lock *l, const redisReply *w, enum renew_outcome *out,
    struct lr_err *e)
{
	l->renew_waiting = 0;
	if (l->renew_rc < 0) {
		*e = l->renew_err;
		return -1;
	}
	*out = l->renew_out;
	if ((*out == RENEW_OK || *out == RENEW_RETAKEN) && !rscript_acked(l, w))
		*out = RENEW_UNCONFIRMED;
	return 1;
}

int
rlock_renew_recv(struct lr_conn *rc, struct lr_lock *l, enum renew_outcome *out,
    struct lr_err *e)
{
	redisReply *r = NULL;
	int rc_;

	/* with WAIT behind the renewal, read on: both replies may have come
	 * in one segment, and poll(2) would not report the second */
	for (;;) {
		if ((rc_ = rconn_read(rc, &r, "renew", e)) <= 0)
			return rc_;		/* broken, or not all of it yet */
		if (l->renew_skip > 0) {	/* WAIT behind a NOSCRIPT */
			l->renew_skip--;
			freeReplyObject(r);
			continue;
		}
		if (l->renew_waiting) {
			rc_ = renew_acked(l, r, out, e);
			freeReplyObject(r);
			return rc_;
		}
		if (r->type == REDIS_REPLY_ERROR && !l->renew_eval &&
		    strncmp(r->str, "NOSCRIPT", 8) == 0) {
			freeReplyObject(r);	/* Redis restarted: send the body */
			l->renew_skip = l->wait_replicas > 0;
			return renew_write(rc, l, 1, e);
		}
		rc_ = renew_outcome(rc, l, r, out, e);
		freeReplyObject(r);
		if (l->wait_replicas == 0)
			return rc_;
		l->renew_waiting = 1;		/* hold the answer until WAIT's */
		l->renew_rc = rc_;
		if (rc_ < 0)
			l->renew_err = *e;
		else
			l->renew_out = *out;
	}
}

int
rlock_renew_many(struct lr_conn *rc, struct lr_lock *const *l, size_t n,
    enum renew_outcome *out, int *rcs, struct lr_err *errs, struct lr_err *e)
{
	size_t argc = 3 + 7 * n;
	const char **argv = calloc(argc, sizeof(*argv));
	char (*how)[200] = calloc(n, sizeof(*how)), nkeys[24];
	redisReply *r = NULL;
	int ret = -1;

	if (argv == NULL || how == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	snprintf(nkeys, sizeof(nkeys), "%zu", 5 * n);
	argv[0] = "EVALSHA";
	argv[1] = SCRIPT_RENEW_MANY_SHA;
	argv[2] = nkeys;
	for (size_t i = 0; i < n; i++) {
		const char **k = argv + 3 + 5 * i, **a = argv + 3 + 5 * n + 2 * i;

		lock_renew_window(l[i]);	/* each carries its deadline */
		renew_how(l[i], how[i], sizeof(how[i]));
		k[0] = l[i]->keys.stable;
		k[1] = l[i]->keys.fence;
		k[2] = l[i]->keys.hist;
		k[3] = l[i]->keys.last;
		k[4] = l[i]->keys.counts;
		a[0] = l[i]->value;
		a[1] = how[i];
	}
	for (int eval = 0; eval < 2; eval++) {	/* NOSCRIPT: the body, once */
		if ((r = rconn_command(rc, "renew", (int)argc, argv, e)) == NULL)
			goto out;
		if (eval || r->type != REDIS_REPLY_ERROR || strncmp(r->str, "NOSCRIPT", 8) != 0)
			break;
		freeReplyObject(r);
		r = NULL;
		argv[0] = "EVAL";
		argv[1] = SCRIPT_RENEW_MANY;
	}
	if (r->type == REDIS_REPLY_ERROR)
		rscript_refused(rc, "renew", r->str, e);
	else if (r->type != REDIS_REPLY_ARRAY || r->elements != n)
		lr_errf(e, EX_SOFTWARE, "redis %s: renew: unexpected reply", rc->link.where);
	else {
		for (size_t i = 0; i < n; i++)
			rcs[i] = renew_outcome(rc, l[i], r->element[i], &out[i], &errs[i]);
		ret = 0;
	}
out:
	freeReplyObject(r);
	free(argv);
	free(how);
	return ret;
}

/* l's release as end says (release.lua) into c. Returns 0 when there is
 * nothing to send: no stable key, no history. */
static int
release_call(const struct lr_lock *l, const struct lr_ending *end, struct script_call *c)
{
	const char *args[] = { l->keys.stable, l->keys.hist, l->keys.last,
	    l->keys.counts, l->slot_ttl_ms ? l->keys.slot : l->keys.stable, l->keys.runs,
	    l->value, c->how, c->story, end->output ? end->output : "" };

	if (lock_end_withdrawn(end)) {	/* the token never came */
		snprintf(c->word, sizeof(c->word), "%s - %s", l->id, l->owner);
		args[6] = c->word;
	} else if (l->ttl_ms == 0 && l->hist_cap == 0)
		return 0;
	snprintf(c->how, sizeof(c->how), "%lld %d %lld %s %lld %lld %s %lld %d",
	    l->ttl_ms == 0 ? -1 : end->keep_ms > 0 ? end->keep_ms : 0, end->status,
	    end->duration_ms > 0 ? end->duration_ms : 0, end->event, l->hist_cap,
	    l->hist_ttl_ms, slot_word(l), end->keep_until_ms > 0 ? end->keep_until_ms : 0,
	    end->attempt > 0 ? end->attempt : 0);
	snprintf(c->story, sizeof(c->story), "%lld %lld %s", end->keep_runs,
	    end->keep_failed, end->reason);
	rscript_call_init(c, SCRIPT_RELEASE_SHA, "6", args, 10, NULL);
	return 1;
}

void
rlock_release_many(struct lr_conn *rc, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, int *rcs, struct lr_err *errs)
{
	struct script_call *c = calloc(n, sizeof(*c));
	size_t *of = calloc(n, sizeof(*of)), m = 0;	/* call k is l[of[k]]'s */

	for (size_t i = 0; i < n; i++)
		rcs[i] = c == NULL || of == NULL ? lr_errf(&errs[i], EX_OSERR, "out of memory") : 0;
	for (size_t i = 0; c != NULL && of != NULL && i < n; i++)
		if (release_call(l[i], &end[i], &c[m]))
			of[m++] = i;
	if (m > 0)
		rscript_calls(rc, "release", SCRIPT_RELEASE, c, m);
	for (size_t k = 0; k < m; k++) {
		size_t i = of[k];

		if (c[k].r == NULL) {
			errs[i] = c[k].e;
			rcs[i] = -1;
			continue;
		}
		rcs[i] = c[k].r->type == REDIS_REPLY_INTEGER && c[k].r->integer == 1;
		freeReplyObject(c[k].r);
	}
	free(c);
	free(of);
}

int
rlock_release(struct lr_conn *rc, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct lr_err ignored;
	int ret;

	rlock_release_many(rc, &l, end, 1, &ret, e ? e : &ignored);
	return ret;
}

int
rlock_unlock(struct lr_conn *rc, const struct lr_keys *k, const char *key,
    const char *expect, const char *who, long long hist_cap, long long hist_ttl_ms,
    char *holder, size_t n, struct lr_err *e)
{
	char how[64];
	const char *args[] = { key, k->fence, k->hist, k->last, who, how, expect };
	redisReply *r;
	long long code = -1;

	snprintf(how, sizeof(how), "%lld %lld", hist_cap, hist_ttl_ms);
	r = script_call(rc, "unlock", SCRIPT_UNLOCK_SHA, SCRIPT_UNLOCK, "4", args, 7, e);
	if (r == NULL)
		return -1;
	holder[0] = '\0';
	if (r->type == REDIS_REPLY_ARRAY && r->elements >= 1 &&
	    r->element[0]->type == REDIS_REPLY_INTEGER)
		code = r->element[0]->integer;
	if ((code == 1 || code == 2 || code == 3) && r->elements == 2 &&
	    r->element[1]->type == REDIS_REPLY_STRING)
		snprintf(holder, n, "%s", r->element[1]->str);
	else if (code != 0)
		code = lr_errf(e, EX_SOFTWARE, "redis %s: unlock: unexpected reply", rc->link.where);
	freeReplyObject(r);
	return (int)code;
}

int
rlock_pause(struct lr_conn *rc, const struct lr_keys *k, const struct lr_pause *p,
    int resume, char *buf, size_t n, struct lr_err *e)
{
	char how[400];
	const char *args[] = { k->counts, k->hist, how, p->reason };
	redisReply *r;
	long long code = -1;

	snprintf(how, sizeof(how), "%s %lld %lld %lld %lld %s %s", resume ? "resume" : "pause",
	    p->for_ms, p->until_ms, p->hist_cap, p->hist_ttl_ms, p->host, p->user);
	r = script_call(rc, resume ? "resume" : "pause", SCRIPT_PAUSE_SHA, SCRIPT_PAUSE, "2",
	    args, 4, e);
	if (r == NULL)
		return -1;
	buf[0] = '\0';
	if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
	    r->element[0]->type == REDIS_REPLY_INTEGER &&
	    r->element[1]->type == REDIS_REPLY_STRING) {
		code = r->element[0]->integer != 0;
		snprintf(buf, n, "%s", r->element[1]->str);
	} else
		code = lr_errf(e, EX_SOFTWARE, "redis %s: pause: unexpected reply", rc->link.where);
	freeReplyObject(r);
	return (int)code;
}

int
rlock_missed(struct lr_conn *rc, const struct lr_keys *k, const struct lr_missed *m,
    struct lr_err *e)
{
	char how[1000];
	const char *args[] = { m->take ? k->trigger : k->slot, k->last, k->counts, k->hist,
	    how };
	redisReply *r;
	int code;

	snprintf(how, sizeof(how), "%lld %lld %lld %s %s %lld %s%s%s", m->slot_ttl_ms,
	    m->hist_cap, m->hist_ttl_ms, m->take ? "triggered" : k->slot_iso, m->host, m->pid,
	    m->at, m->take ? " " : "", m->take ? m->take : "");
	if ((r = script_call(rc, "missed", SCRIPT_MISSED_SHA, SCRIPT_MISSED, "4", args, 5,
	    e)) == NULL)
		return -1;
	code = r->type == REDIS_REPLY_INTEGER && r->integer >= 0 && r->integer <= 2 ?
	    (int)r->integer : lr_errf(e, EX_SOFTWARE, "redis %s: missed: unexpected reply",
	    rc->link.where);
	freeReplyObject(r);
	return code;
}

/* ROLE: a replica takes no writes. Returns 0 (a problem noted in buf), or
 * -1 with e. */
static int
probe_role(struct lr_conn *rc, char *buf, size_t n, int *count, struct lr_err *e)
{
	const char *role[] = { "ROLE" };
	redisReply *r;

	if ((r = rconn_command(rc, "ROLE", 1, role, e)) == NULL)
		return -1;
	if (r->type == REDIS_REPLY_ARRAY && r->elements >= 3 &&
	    r->element[0]->type == REDIS_REPLY_STRING &&
	    strcmp(r->element[0]->str, "slave") == 0 &&
	    r->element[1]->type == REDIS_REPLY_STRING) {
		char port[24];
		snprintf(port, sizeof(port), "%lld", r->element[2]->type ==
		    REDIS_REPLY_INTEGER ? r->element[2]->integer : 0);
		text_problem(buf, n, count, "this server is a read-only replica of %s:%s; "
		    "point lockrun at the master", r->element[1]->str, port);
	}
	freeReplyObject(r);
	return 0;
}

int
rlock_probe(struct lr_conn *rc, const struct lr_keys *k, int one_server,
    char *buf, size_t n, struct lr_err *e)
{
	const char *args[] = { k->stable, one_server ? k->slot : k->stable, k->fence,
	    k->hist, k->last, k->counts };
	redisReply *r;
	int count = 0;

	buf[0] = '\0';
	/* on a cluster, ROLE is whichever node's answers; the script goes
	 * to the master that serves the keys */
	if (!rc->url->cluster && probe_role(rc, buf, n, &count, e) != 0)
		return -1;
	if ((r = script_call(rc, "check", SCRIPT_CHECK_SHA, SCRIPT_CHECK, "6", args, 6,
	    e)) == NULL)
		return -1;
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
		if (r->element[i]->type == REDIS_REPLY_STRING)
			text_problem(buf, n, &count, "%s", r->element[i]->str);
	freeReplyObject(r);
	return count;
}

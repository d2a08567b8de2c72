/* SPDX-License-Identifier: BSD-2-Clause */
/* redis.c -- the lock in Redis, behind backend.h: the scripts of
 * rlock.c for a run, and the reads of status, history and unlock (GET,
 * PTTL, HGETALL, XREVRANGE, SCAN), each in one round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "backend/redis/redis.h"
#include "backend/redis/rconn.h"
#include "backend/redis/rfleet.h"
#include "backend/redis/rclaim.h"
#include "backend/redis/rtrigger.h"
#include "backend/redis/rimpl.h"
#include "backend/redis/rlock.h"
#include "backend/redis/rsettings.h"
#include "backend/redis/rurl.h"
#include "backend/redis/sentinel.h"
#include "backend/redis/tls.h"
#include "core/text.h"

static struct lr_conn *
conn_of(const struct lr_backend *b)
{
	return &((struct redis_impl *)b->impl)->conn;
}

/* The connection names the server it reached; a sentinel or a cluster
 * redirect may change it. */
static void
sync_where(struct lr_backend *b)
{
	snprintf(b->where, sizeof(b->where), "%s", conn_of(b)->link.where);
}

static int
redis_open(struct lr_backend *b, struct lr_err *e)
{
	struct redis_impl *r = b->impl;
	int rc;

	if (rconn_is_open(&r->conn))
		return 0;
	r->conn.tls_opts = &r->set.tls;
	r->conn.sentinel_password = r->sentinel_password;
	rc = rconn_open(&r->conn, &r->url, r->password,
	    b->cfg.connect_timeout_ms, b->cfg.command_timeout_ms, e);
	sync_where(b);
	return rc;
}

static int
redis_ping(struct lr_backend *b, struct lr_err *e)
{
	return redis_open(b, e) == 0 ? rconn_ping(conn_of(b), e) : -1;
}

/* Connect with AUTH and SELECT sent together with the acquire that
 * follows (rlock_acquire() undoes an acquire they turn out not to allow). */
static int
open_for_acquire(struct lr_backend *b, struct lr_err *e)
{
	if (!rconn_is_open(conn_of(b)))
		rconn_defer(conn_of(b));
	return redis_open(b, e);
}

/* The acquires of l[0..n-1] over the connection, opened with AUTH and
 * SELECT sent with them: 0 with rc[i] as rlock_acquire() says, or -1 with
 * e when it cannot be opened. */
static int
acquire_each(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	const struct redis_impl *r = b->impl;
	struct lr_conn *c = conn_of(b);
	int demoted;

	for (size_t i = 0; i < n; i++) {
		l[i]->wait_replicas = r->set.wait_replicas;
		l[i]->wait_timeout_ms = r->set.wait_timeout_ms;
	}
	if (open_for_acquire(b, e) != 0)
		return -1;
	rlock_acquire_many(c, l, n, out, rc, err);
	/* a master that a failover has demoted refuses the script before it
	 * writes (READONLY), and the connection breaks: ask the sentinels
	 * again, once for each acquire it broke */
	demoted = c->demoted;
	for (size_t i = 0; i < n; i++)
		if (rc[i] != 0 && demoted && lr_err_broke(&err[i]))
			rc[i] = open_for_acquire(b, &err[i]) == 0 ?
			    rlock_acquire(c, l[i], &out[i], &err[i]) : -1;
	sync_where(b);
	return 0;
}

static int
redis_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	int rc;

	return acquire_each(b, &l, 1, out, &rc, e, e) == 0 ? rc : -1;
}

/* One write for them all: not on a Cluster, whose redirects are followed
 * one command at a time, nor with wait_replicas, whose WAIT behind each
 * would hold up the acquires after it past their windows. */
static int
redis_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	const struct redis_impl *r = b->impl;

	if (r->url.cluster || r->set.wait_replicas > 0)
		return 1;
	return acquire_each(b, l, n, out, rc, err, e);
}

/* renew_many.lua, one script call for them all (rlock_renew_many()), on
 * one server; not on a Cluster, whose keys are in many slots, nor with
 * wait_replicas, whose WAIT is per renewal. */
static int
redis_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
    struct lr_err *err, struct lr_err *e)
{
	struct lr_conn *c = conn_of(b);

	(void)wait_ms;	/* one script: answered within the command timeout */
	for (size_t i = 0; i < n; i++)
		if (l[i]->wait_replicas > 0)
			return 1;
	if (c->cluster)
		return 1;
	/* through Sentinel: go where the sentinels say the master is now */
	rconn_recheck_master(c, cap_ms);
	if (rconn_fd(c) < 0 && rconn_reopen(c, cap_ms, e) != 0)
		return -1;
	sync_where(b);
	return rlock_renew_many(c, l, n, out, rc, err, e);
}

static int
redis_renew_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
    long long wait_ms, struct lr_err *e)
{
	struct lr_conn *c = conn_of(b);

	/* through Sentinel: go where the sentinels say the master is now */
	rconn_recheck_master(c, cap_ms);
	if (rconn_fd(c) < 0 && rconn_reopen(c, cap_ms, e) != 0)
		return -1;
	sync_where(b);
	if (rlock_renew_send(c, l, e) != 0)
		return -1;
	c->read_by = mono_ms() + wait_ms;	/* a cluster redirect connects by then */
	return 0;
}

static int
redis_renew_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out,
    struct lr_err *e)
{
	return rlock_renew_recv(conn_of(b), l, out, e);
}

static int
redis_release(struct lr_backend *b, const struct lr_lock *l,
    const struct lr_ending *end, struct lr_err *e)
{
	return rlock_release(conn_of(b), l, end, e);
}

/* One write for them all, but on a Cluster (redirects: one at a time). */
static int
redis_release_many(struct lr_backend *b, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err, struct lr_err *e)
{
	(void)e;	/* the connection is open: each has its answer */
	if (((const struct redis_impl *)b->impl)->url.cluster)
		return 1;
	rlock_release_many(conn_of(b), l, end, n, rc, err);
	return 0;
}

static int
redis_unlock(struct lr_backend *b, const struct lr_keys *k, const char *key,
    const char *expect, const char *who, long long hist_cap, long long hist_ttl_ms,
    char *holder, size_t n, struct lr_err *e)
{
	return rlock_unlock(conn_of(b), k, key, expect, who, hist_cap, hist_ttl_ms,
	    holder, n, e);
}

static int
redis_probe(struct lr_backend *b, const struct lr_keys *k, int one_server, char *buf,
    size_t n, struct lr_err *e)
{
	return rlock_probe(conn_of(b), k, one_server, buf, n, e);
}

/* A set of places (limit: N, places.lua) at key: the place to show, the
 * first held by a run in the order the leases end (else the first), into
 * buf[n] and what is left of its lease into *ttl_ms, in one more round
 * trip (TIME and ZRANGE). Returns 1 held, 0 no place held, -1 with e. */
static int
peek_places(struct lr_backend *b, const char *key, char *buf, size_t n,
    long long *ttl_ms, struct lr_err *e)
{
	struct lr_conn *c = conn_of(b);
	const char *tv[] = { "TIME" }, *zr[] = { "ZRANGE", key, "0", "-1", "WITHSCORES" };
	redisReply *r[2] = { NULL, NULL };
	long long now, end, sec;
	int held = -1;

	if (rconn_append(c, 1, tv) != 0 || rconn_append(c, 5, zr) != 0) {
		rconn_fail(c, "unlock", e);
		goto out;
	}
	if ((r[0] = rconn_reply(c, "unlock", e)) == NULL ||
	    (r[1] = rconn_reply(c, "unlock", e)) == NULL)
		goto out;
	if (r[0]->type != REDIS_REPLY_ARRAY || r[0]->elements != 2 ||
	    r[0]->element[0]->type != REDIS_REPLY_STRING ||
	    text_decimal(r[0]->element[0]->str, &sec) != 0 || r[1]->type != REDIS_REPLY_ARRAY) {
		lr_errf(e, EX_SOFTWARE, "redis %s: unlock %s: unexpected reply", b->where, key);
		goto out;
	}
	now = sec * 1000 + atoll(r[0]->element[1]->str) / 1000;
	held = 0;
	for (size_t i = 0; i + 1 < r[1]->elements; i += 2) {
		const redisReply *v = r[1]->element[i], *at = r[1]->element[i + 1];
		int running;

		if (v->type != REDIS_REPLY_STRING || at->type != REDIS_REPLY_STRING ||
		    text_decimal(at->str, &end) != 0 || end <= now)
			continue;	/* its lease ended: gone */
		running = keys_value_phase(v->str) == KEY_RUNNING;
		if (!held || running) {	/* a run's place before the others */
			snprintf(buf, n, "%s", v->str);
			*ttl_ms = end - now;
		}
		held = 1;
		if (running)
			break;
	}
out:
	freeReplyObject(r[0]);
	freeReplyObject(r[1]);
	return held;
}

/* The key's value and what is left of its TTL, in one round trip (GET and
 * PTTL, pipelined); a set of places in one more (peek_places()). */
static int
redis_peek(struct lr_backend *b, const char *key, char *buf, size_t n,
    long long *ttl_ms, struct lr_err *e)
{
	struct lr_conn *c = conn_of(b);
	const char *get[] = { "GET", key }, *ttl[] = { "PTTL", key };
	redisReply *r[2] = { NULL, NULL };
	char doing[KEY_MAX + 16];
	int held = -1;

	snprintf(doing, sizeof(doing), "unlock %s", key);
	if (rconn_append(c, 2, get) != 0 || rconn_append(c, 2, ttl) != 0) {
		rconn_fail(c, "unlock", e);
		goto out;
	}
	if ((r[0] = rconn_reply(c, "unlock", e)) == NULL ||
	    (r[1] = rconn_reply(c, "unlock", e)) == NULL)
		goto out;
	if (r[0]->type == REDIS_REPLY_ERROR && strncmp(r[0]->str, "WRONGTYPE", 9) == 0) {
		held = peek_places(b, key, buf, n, ttl_ms, e);
		goto out;
	}
	for (int i = 0; i < 2; i++)
		if (r[i]->type == REDIS_REPLY_ERROR) {
			rconn_reply_error(b->where, r[i], doing, e);
			goto out;
		}
	if (r[0]->type == REDIS_REPLY_NIL) {
		held = 0;
		goto out;
	}
	if (r[0]->type != REDIS_REPLY_STRING || r[1]->type != REDIS_REPLY_INTEGER) {
		lr_errf(e, EX_SOFTWARE, "redis %s: %s: unexpected reply", b->where, doing);
		goto out;
	}
	snprintf(buf, n, "%s", r[0]->str);
	*ttl_ms = r[1]->integer >= 0 ? r[1]->integer : -1;
	held = 1;
out:
	freeReplyObject(r[0]);
	freeReplyObject(r[1]);
	return held;
}

/* --- status, trigger (rfleet.c) -------------------------------------- */

static int
redis_states(struct lr_backend *b, const struct lr_keys *k, size_t n, int counts,
    struct lr_state *out, long long *now_ms, struct lr_err *e)
{
	return rfleet_states(b, conn_of(b), k, n, counts, out, now_ms, e);
}

static int
redis_trigger(struct lr_backend *b, const struct lr_keys *k, const char *value,
    long long ttl_ms, struct lr_err *e)
{
	int rc = redis_open(b, e) == 0 ? rtrigger_set(b, conn_of(b), k, value, ttl_ms, e) : -1;

	sync_where(b);
	return rc;
}

static int
redis_asked(struct lr_backend *b, const char *prefix, void (*cb)(void *arg, const char *name),
    void *arg, struct lr_err *e)
{
	int rc = redis_open(b, e) == 0 ? rtrigger_asked(conn_of(b), prefix, cb, arg, e) : -1;

	sync_where(b);
	return rc;
}

static int
redis_take(struct lr_backend *b, const struct lr_keys *k, size_t n, const struct lr_take *tk,
    struct lr_lock *w, unsigned char *taken, struct lr_err *e)
{
	int rc = redis_open(b, e) == 0 ? rtrigger_take(b, conn_of(b), k, n, tk, w, taken, e) :
	    -1;

	sync_where(b);
	return rc;
}

static int
redis_watch(struct lr_backend *b, const char *prefix, struct lr_err *e)
{
	int rc = redis_open(b, e) == 0 ? rfleet_watch(b, conn_of(b), prefix, e) : -1;

	sync_where(b);
	return rc;
}

static int
redis_claims(struct lr_backend *b, void (*cb)(void *arg, const char *key, const char *value),
    void *arg, struct lr_err *e)
{
	return rfleet_claims(conn_of(b), cb, arg, e);
}

static int
keys_add(char ***keys, size_t *n, size_t *cap, const char *key)
{
	char *copy;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		char **grown = realloc(*keys, ncap * sizeof(*grown));
		if (grown == NULL)
			return -1;
		*keys = grown;
		*cap = ncap;
	}
	if ((copy = strdup(key)) == NULL)
		return -1;
	(*keys)[(*n)++] = copy;
	return 0;
}

/* SCAN for prefix*, with the prefix's glob characters escaped. SCAN sees
 * one node's keys: a cluster has to be told the names. The whole scan
 * keeps to the command timeout and to SCAN_KEYS_MAX keys (five records
 * a task: a fleet's worth of tasks many times over). */
#define SCAN_KEYS_MAX		100000
#define SCAN_KEYS_MAX_TEXT	"100,000"
static int
redis_keys(struct lr_backend *b, const char *prefix, char ***keys, size_t *n,
    struct lr_err *e)
{
	struct lr_conn *c = conn_of(b);
	char pattern[2 * KEY_PREFIX_MAX + 2], cursor[32] = "0", *p = pattern;
	size_t cap = 0;
	long long scan_by = mono_ms() + b->cfg.command_timeout_ms;

	if (((struct redis_impl *)b->impl)->url.cluster)
		return lr_errf(e, EX_USAGE, "status: on a Redis Cluster, name the tasks "
		    "(lockrun status TASK...) or give a config that lists them; lockrun "
		    "does not scan every node");
	for (const char *q = prefix; *q; q++) {
		if (strchr("*?[]\\", *q))
			*p++ = '\\';
		*p++ = *q;
	}
	*p++ = '*';
	*p = '\0';
	do {
		/* a server whose cursor never comes back to 0 would keep this
		 * loop going, and the names growing, for ever */
		if (*n >= SCAN_KEYS_MAX || mono_ms() >= scan_by)
			return lr_errf(e, EX_UNAVAILABLE, "redis %s: status: SCAN for %s did "
			    "not finish %s; name the tasks (lockrun status TASK...)", b->where,
			    pattern, *n >= SCAN_KEYS_MAX ? "within " SCAN_KEYS_MAX_TEXT " keys" :
			    "within the command timeout");
		const char *argv[] = { "SCAN", cursor, "MATCH", pattern, "COUNT", "1000" };
		redisReply *r = rconn_command(c, "SCAN", 6, argv, e);

		if (r == NULL)
			return -1;
		if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		    r->element[0]->type != REDIS_REPLY_STRING ||
		    r->element[1]->type != REDIS_REPLY_ARRAY) {
			rconn_reply_error(b->where, r, "SCAN", e);
			freeReplyObject(r);
			return -1;
		}
		snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
		for (size_t i = 0; i < r->element[1]->elements; i++) {
			redisReply *k = r->element[1]->element[i];
			if (k->type == REDIS_REPLY_STRING && keys_add(keys, n, &cap, k->str) != 0) {
				freeReplyObject(r);
				return lr_errf(e, EX_OSERR, "out of memory");
			}
		}
		freeReplyObject(r);
	} while (strcmp(cursor, "0") != 0);
	return 0;
}

/* --- history --------------------------------------------------------- */

/* One XREVRANGE element, [ "<ms>-<seq>", [field, value, ...] ], into h.
 * Returns 0, -1 when it is not shaped like a stream entry, -2 out of
 * memory. */
static int
entry_read(const redisReply *r, struct lr_hist_entry *h)
{
	const redisReply *id, *kv;
	char *end;

	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2)
		return -1;
	id = r->element[0];
	kv = r->element[1];
	if (id->type != REDIS_REPLY_STRING || kv->type != REDIS_REPLY_ARRAY ||
	    kv->elements % 2 != 0)
		return -1;
	h->at_ms = strtoll(id->str, &end, 10);
	if (end == id->str || *end != '-')
		return -1;
	for (size_t i = 0; i < kv->elements; i += 2) {
		const redisReply *f = kv->element[i], *v = kv->element[i + 1];
		if (f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
			return -1;
		if (record_field_add(&h->fields, f->str, v->str) != 0)
			return -2;
	}
	return 0;
}

/* XREVRANGE history + - COUNT n: the newest n entries, newest first. */
static int
redis_history(struct lr_backend *b, const struct lr_keys *k, long long count,
    struct lr_hist *h, struct lr_err *e)
{
	char n[24], doing[KEY_MAX + 16];
	const char *argv[] = { "XREVRANGE", k->hist, "+", "-", "COUNT", n };
	redisReply *r;
	int rc = 0;

	snprintf(n, sizeof(n), "%lld", count);
	snprintf(doing, sizeof(doing), "history %s", k->hist);
	/* an entry is an array of its id and its fields' array */
	rconn_allow_objects(conn_of(b), (size_t)count * (3 + 2 * LR_FIELDS_MAX) + 1);
	if ((r = rconn_command(conn_of(b), "history", 6, argv, e)) == NULL)
		return -1;
	if (r->type != REDIS_REPLY_ARRAY) {
		if (r->type == REDIS_REPLY_ERROR)
			rconn_reply_error(b->where, r, doing, e);
		else
			lr_errf(e, EX_SOFTWARE, "redis %s: %s: unexpected reply", b->where, doing);
		freeReplyObject(r);
		return -1;
	}
	if ((h->e = calloc(r->elements + 1, sizeof(*h->e))) == NULL)
		rc = lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; rc == 0 && i < r->elements; i++) {
		int bad = entry_read(r->element[i], &h->e[i]);

		h->n = i + 1;
		if (bad == -1)
			rc = lr_errf(e, EX_SOFTWARE, "redis %s: history: unexpected reply",
			    b->where);
		else if (bad == -2)
			rc = lr_errf(e, EX_OSERR, "out of memory");
	}
	freeReplyObject(r);
	return rc;
}

/* HMGET of the runs hash: one round trip, each value copied out. */
static int
redis_stories(struct lr_backend *b, const struct lr_keys *k, const char *const *fields,
    size_t n, char **values, size_t *lens, struct lr_err *e)
{
	const char **argv = calloc(n + 2, sizeof(*argv));
	redisReply *r;
	int rc = 0;

	if (argv == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	argv[0] = "HMGET";
	argv[1] = k->runs;
	memcpy(argv + 2, fields, n * sizeof(*fields));
	r = rconn_command(conn_of(b), "logs", (int)n + 2, argv, e);
	free(argv);
	if (r == NULL)
		return -1;
	if (r->type == REDIS_REPLY_ERROR)
		rc = rconn_reply_error(b->where, r, "logs", e);
	else if (r->type != REDIS_REPLY_ARRAY || r->elements != n)
		rc = lr_errf(e, EX_SOFTWARE, "redis %s: logs: unexpected reply", b->where);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const redisReply *v = r->element[i];

		values[i] = NULL;
		lens[i] = 0;
		if (v->type != REDIS_REPLY_STRING)
			continue;
		if ((values[i] = malloc(v->len + 1)) == NULL) {
			rc = lr_errf(e, EX_OSERR, "out of memory");
			break;
		}
		memcpy(values[i], v->str, v->len);
		values[i][v->len] = '\0';
		lens[i] = v->len;
	}
	freeReplyObject(r);
	return rc;
}

/* --- the connection --------------------------------------------------- */

static int
redis_fd(const struct lr_backend *b)
{
	return rconn_fd(conn_of(b));
}

static void
redis_close(struct lr_backend *b)
{
	rconn_close(conn_of(b));
}

static int
redis_reopen(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	int rc;

	if (conn_of(b)->url == NULL)	/* never opened (a run of a scheduler's,
					 * which records its end itself) */
		return redis_open(b, e);
	rc = rconn_reopen(conn_of(b), cap_ms, e);

	sync_where(b);
	return rc;
}

static void
redis_free(struct lr_backend *b)
{
	struct redis_impl *r = b->impl;

	if (r == NULL)
		return;
	rconn_free(&r->conn);
	explicit_bzero(r, sizeof(*r));	/* the passwords, and the URL's */
	free(r);
	b->impl = NULL;
}

/* WAIT after a renewal must answer well within the renewal's own
 * deadline (a third of the ttl), or every renewal would time out. */
static int
redis_check_task(const struct lr_backend *b, const struct lr_task *t, struct lr_err *e)
{
	return rsettings_check_task(&((const struct redis_impl *)b->impl)->set, t, e);
}

static int
redis_pause(struct lr_backend *b, const struct lr_keys *k, const struct lr_pause *p,
    int resume, char *buf, size_t n, struct lr_err *e)
{
	int rc = redis_open(b, e) == 0 ? rlock_pause(conn_of(b), k, p, resume, buf, n, e) : -1;

	sync_where(b);
	return rc;
}

/* One script call per task: their keys are in as many Cluster slots. */
static int
redis_missed(struct lr_backend *b, const struct lr_keys *k, size_t n,
    const struct lr_missed *m, unsigned char *won, struct lr_err *e)
{
	int rc = redis_open(b, e);

	for (size_t i = 0; i < n && rc == 0; i++) {
		int w = rlock_missed(conn_of(b), &k[i], &m[i], e);
		won[i] = w > 0 ? (unsigned char)w : 0;
		rc = w < 0 ? -1 : 0;
	}
	sync_where(b);
	return rc;
}

/* One script call per claim, in one round trip; not on a Cluster, whose
 * tasks' keys are in as many slots (each run's acquire decides there). */
static int
redis_claim(struct lr_backend *b, struct lr_claim *c, size_t n, struct lr_err *e)
{
	int rc = redis_open(b, e);

	if (rc == 0 && conn_of(b)->cluster)
		return 1;
	if (rc == 0)
		rc = rclaim_many(conn_of(b), c, n, e);
	sync_where(b);
	return rc;
}

static int
redis_schedulers(struct lr_backend *b, const char *prefix, const char *me,
    long long window_ms, long long cap_ms, void (*cb)(void *arg, const char *name),
    void *arg, struct lr_err *e)
{
	struct lr_link *l = &conn_of(b)->link;
	long long was;
	int rc;

	/* opened as for any request; then answered within cap_ms */
	if ((rc = redis_open(b, e)) == 0) {
		was = l->command_timeout_ms;
		rlink_set_command_timeout(l, cap_ms < was ? cap_ms : was);
		rc = rclaim_schedulers(conn_of(b), prefix, me, window_ms, cb, arg, e);
		rlink_set_command_timeout(l, was);
	}
	sync_where(b);
	return rc;
}

static const struct lr_backend_ops redis_ops = {
	.name = "redis", .title = "Redis", .session = 0,
	.open = redis_open, .ping = redis_ping, .acquire = redis_acquire,
	.renew_send = redis_renew_send, .renew_recv = redis_renew_recv,
	.renew_many = redis_renew_many, .acquire_many = redis_acquire_many,
	.release = redis_release, .release_many = redis_release_many, .unlock = redis_unlock, .peek = redis_peek,
	.states = redis_states, .keys = redis_keys, .history = redis_history,
	.stories = redis_stories,
	.probe = redis_probe, .fd = redis_fd, .close = redis_close,
	.reopen = redis_reopen, .free = redis_free, .check_task = redis_check_task,
	.pause = redis_pause, .trigger = redis_trigger, .take = redis_take, .asked = redis_asked,
	.missed = redis_missed, .watch = redis_watch, .claims = redis_claims,
	.claim = redis_claim, .schedulers = redis_schedulers,
};

/* What the URL asks for beyond the connection: the sentinels' own
 * password, and OpenSSL loaded now, so that a missing library is named
 * before anything is tried. */
static int
redis_setup(struct redis_impl *r, const struct lr_backend_cfg *cfg, struct lr_err *e)
{
	if (rurl_parse(cfg->url, &r->url, e) != 0)
		return -1;
	/* a password from a file or the environment wins over the URL's */
	snprintf(r->password, sizeof(r->password), "%s",
	    cfg->password && *cfg->password ? cfg->password : r->url.password);
	if (rsettings_read(cfg->own, cfg->command_timeout_ms, &r->set, e) != 0)
		return -1;
	/* TLS settings beside a URL that does not use them would send the
	 * password in the clear while the config reads as if it did not */
	if (r->set.tls_at && !r->url.tls)
		return setting_errf(e, r->set.tls_at, NULL, "TLS settings, but the URL in use "
		    "is not rediss:// (nothing would be encrypted); use rediss://, or remove "
		    "redis.tls");
	if (r->url.nsentinels && sentinel_password(r->set.sentinel_password_file,
	    r->sentinel_password, sizeof(r->sentinel_password), e) != 0)
		return -1;
	if (r->url.tls && tls_load(e) != 0)
		return -1;
	return 0;
}

int
redis_backend_init(struct lr_backend *b, struct lr_err *e)
{
	struct redis_impl *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	rconn_init(&r->conn);
	b->impl = r;
	if (redis_setup(r, &b->cfg, e) != 0) {
		redis_free(b);
		return -1;
	}
	b->ops = &redis_ops;
	rurl_where(&r->url, b->where, sizeof(b->where));
	return 0;
}

int
redis_check_url(const char *url, struct lr_err *e)
{
	struct lr_url u;

	return rurl_parse(url, &u, e);
}

int
redis_url_problem(const char *url, struct lr_err *e)
{
	struct lr_url u;

	return rurl_problem(url, &u, e);
}

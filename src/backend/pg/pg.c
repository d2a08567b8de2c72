/* SPDX-License-Identifier: BSD-2-Clause */
/* pg.c -- the lock in PostgreSQL: the operations of backend.h over one
 * connection (pg_conn.c), with a session advisory lock for the stable key
 * and rows for the records (pg_sql.c holds the SQL and says what each
 * statement decides).
 *
 * The stable key is a row in lockrun_keys with an expiry, the lease, and
 * pg_try_advisory_lock(key_hash64(stable key)) held by this connection's
 * session. The lease decides, as a Redis key's TTL does: a newcomer never
 * runs while the row has not expired, whatever became of the session that
 * wrote it (pg_terminate_backend(), a proxy's reset, a server restart):
 * its holder may still run, and stops its command before the lease ends
 * (it watches its connection between keep-alives: idle_read). The session
 * lock adds that the lock stays held while its session lives, and frees
 * it with the release; while a lease is held the session ends once it has
 * been idle for the ttl (idle_session_timeout, PostgreSQL 14+), so a
 * frozen holder does not keep it past its lease. The boot column records
 * the server instance, for display only.
 *
 * Round trips: every operation is one statement, sent with its values as
 * parameters (PQsendQueryParams: Parse, Bind, Describe, Execute and Sync
 * in one write, one answer): acquire, renew, release, unlock, peek,
 * states, keys, history and probe each cost one round trip. Parameters
 * rather than PQescapeLiteral: the SQL text is constant and reviewable,
 * and no value (a key, a host name) ever becomes SQL. The DDL alone is
 * several statements in one simple query; it is sent when a statement
 * that writes finds a table missing (SQLSTATE 42P01, raised while the
 * statement is parsed, before any of it ran), and that statement is sent
 * again: an uncontended run with the tables there pays nothing for them.
 *
 * Session locks are not transactional: a statement that took one and
 * then failed leaves it held after the rollback. Each statement lets the
 * lock go in its main query, after its writes; an acquire or a release
 * that the server refused part way (one task's row: a constraint, a type
 * error, a trigger's exception) is followed by a statement that lets go
 * what it may have left held (pg_sql_acquire_undo, pg_sql_release_undo),
 * and the session stays, with every other run's lock. Only a connection
 * lost, a timeout or an answer that is not PostgreSQL's (lr_err_broke())
 * closes it, which ends the session and its locks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/pg/pg.h"
#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_renew.h"
#include "backend/pg/pg_sql.h"
#include "backend/pg/pg_withdraw.h"
#include "backend/pg/pg_status.h"
#include "core/duration.h"
#include "core/text.h"

#define NUM_MAX	24	/* a long long in digits, and its NUL */
#define PG_TABLES	5	/* pg_sql_probe's rows: keys, history, last, counts,
				 * runs */

static void
num_s(char buf[NUM_MAX], long long v)
{
	snprintf(buf, NUM_MAX, "%lld", v);
}

/* host and pid of "host pid ..." (an owner, or who unlocks). */
static void
host_pid(const char *s, char host[256], char pid[32])
{
	host[0] = pid[0] = '\0';
	sscanf(s, "%255s %31s", host, pid);
}

/* The slot the history records for l: ISO 8601, or "" for none. */
static const char *
slot_iso(const struct lr_lock *l)
{
	return l->slot_ttl_ms ? l->keys.slot_iso : "";
}

/* The answer is not the shape pg_sql.c gives it. Clears res; returns -1. */
static int
unexpected(struct lr_backend *b, const char *what, PGresult *res, struct lr_err *e)
{
	pq.clear(res);
	return lr_errf(e, EX_SOFTWARE, "postgres %s: %s: unexpected answer", b->where, what);
}

/* A statement refused part way, the session in order: send undo (n
 * params), which lets go a session lock it may have left held. When that
 * is not sure, the connection is closed, which lets it go with the
 * session (the refused statement's e stands either way). */
static void
undo_lock(struct lr_backend *b, const char *what, const char *undo, int n,
    const char *const *params)
{
	struct pg *p = b->impl;
	struct lr_err ue = LR_ERR_INIT;
	PGresult *res;
	int missing = 0;

	if (p->conn == NULL)
		return;		/* closed, and the lock with it */
	if ((res = pg_conn_read(b, what, undo, n, params, &missing, &ue)) != NULL &&
	    pq.ntuples(res) == 1) {
		pq.clear(res);
		return;
	}
	if (res != NULL)
		pq.clear(res);
	pg_conn_close(b);
}

/* Connect, unless connected: the run path leaves it to acquire, the
 * verbs open first. */
static int
pg_open(struct lr_backend *b, struct lr_err *e)
{
	const struct pg *p = b->impl;

	return p->conn != NULL ? 0 : pg_conn_open(b, b->cfg.connect_timeout_ms, e);
}

static int
pg_ping(struct lr_backend *b, struct lr_err *e)
{
	PGresult *res;
	int missing = 0;

	if (pg_open(b, e) != 0 ||
	    (res = pg_conn_read(b, "ping", "SELECT 1", 0, NULL, &missing, e)) == NULL)
		return -1;
	pq.clear(res);
	return 0;
}

static int
pg_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	struct pg_lockid id;
	char ttl[NUM_MAX], slot_ttl[NUM_MAX], cap[NUM_MAX], hist_ttl[NUM_MAX], host[256],
	    pid[32], earliest[NUM_MAX], deadline[NUM_MAX], sent[NUM_MAX], tol[NUM_MAX];
	const char *params[] = { l->keys.stable, l->slot_ttl_ms ? l->keys.slot : "",
	    l->keys.fence, l->keys.hist, l->keys.last, id.id, ttl, slot_ttl, cap, hist_ttl,
	    l->id, l->owner, host, pid, slot_iso(l), l->quiet_held ? "false" : "true",
	    l->keys.counts, earliest, deadline, sent, tol, l->keys.pause,
	    l->triggered ? "triggered" : "ran", l->triggered && l->take[0] ? l->keys.trigger : "",
	    l->triggered ? l->take : "" };
	struct pg *p = b->impl;
	PGresult *res;
	long long code;

	pg_sql_lockid(l->keys.stable, &id);
	num_s(ttl, l->ttl_ms);
	num_s(slot_ttl, l->slot_ttl_ms);
	num_s(cap, l->hist_cap);
	num_s(hist_ttl, l->hist_ttl_ms);
	host_pid(l->owner, host, pid);
	if (pg_open(b, e) != 0)
		return -1;
	lock_window(l, real_ms(), b->cfg.command_timeout_ms);
	num_s(earliest, l->earliest_ms);
	num_s(deadline, l->deadline_ms);
	num_s(sent, l->sent_ms);
	num_s(tol, l->clock_tol_ms);
	p->over = 0;
	if ((res = pg_conn_write(b, "acquire", pg_sql_acquire, 25, params, e)) == NULL) {
		/* unanswered, it may have run (its answer lost): withdrawn */
		l->in_doubt = lr_err_unanswered(e);
		/* An answer past the bound came whole and was dropped: the
		 * statement ran to its end, which lets the session lock go
		 * when the run does not go ahead, and its answer carried
		 * another's value (a pause, a holder; ours is small): nothing
		 * was taken. A statement the server refused part way (this
		 * task's row) may have taken the session lock before it
		 * failed: that lock alone is let go. Either way the session,
		 * with every other run's lock, stays; a lost connection
		 * (lr_err_broke(): closed) took its locks with it. */
		if (!p->over && !lr_err_broke(e)) {
			const char *undo[] = { id.id, id.hi, id.lo, l->keys.stable };
			undo_lock(b, "acquire", pg_sql_acquire_undo, 4, undo);
		}
		return -1;
	}
	if (pq.ntuples(res) != 1 || (code = pg_conn_num(res, 0, 0, -1)) < 0 || code > 6 ||
	    code == 3) {
		unexpected(b, "acquire", res, e);
		pg_conn_close(b);	/* a session lock it may have taken goes too */
		if (e != NULL)
			e->kind = LR_ERR_PROTOCOL;	/* not the server expected */
		return -1;
	}
	lock_offset_note(l, pg_conn_num(res, 0, 5, 0), real_ms());
	if (code == 4 || code == 5) {	/* refused: nothing was written */
		*out = code == 4 ? LOCK_LATE : LOCK_CLOCK_OFF;
		pq.clear(res);
		return 0;
	}
	if (code == 1) {
		*out = LOCK_ACQUIRED;
		lock_took(l, pg_conn_num(res, 0, 1, 0));
	} else {
		*out = code == 0 ? LOCK_HELD : code == 6 ? LOCK_PAUSED : LOCK_SLOT_TAKEN;
		snprintf(l->holder, sizeof(l->holder), "%s",
		    pg_conn_cell(res, 0, 2) ? pg_conn_cell(res, 0, 2) : "?");
	}
	pq.clear(res);
	return 0;
}

/* s as valid UTF-8 into buf[n]: a byte that is not part of a valid
 * sequence becomes '?' (a text parameter must be valid in the encoding:
 * a reason naming a file in another one must not cost the release). */
static void
utf8_copy(char *buf, size_t n, const char *s)
{
	size_t o = 0, left = strlen(s);

	while (left > 0 && o + 4 < n) {
		size_t k = text_utf8_len(s, left);

		if (k == 0) {
			buf[o++] = '?';
			k = 1;
		} else {
			memcpy(buf + o, s, k);
			o += k;
		}
		s += k;
		left -= k;
	}
	buf[o] = '\0';
}

/* release.lua's event "hook" (pg_sql_story_hook). */
static int
pg_story_hook(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	char *output = pg_sql_bytea(end->output ? end->output : "", end->output_len);
	const char *params[] = { l->keys.runs, l->token_s, output };
	PGresult *res;
	int missing, n;

	if (output == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	res = pg_conn_read(b, "release", pg_sql_story_hook, 3, params, &missing, e);
	free(output);
	if (res == NULL)
		return missing ? 0 : -1;	/* no table: no story to add to */
	n = pq.ntuples(res);
	pq.clear(res);
	return n > 0;
}

/* The release, with the run's story (the reason, the output's end as
 * bytea's escape form) in the same statement: no round trip more. */
static int
pg_release(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct pg_lockid id;
	char keep[NUM_MAX], status[NUM_MAX], took[NUM_MAX], cap[NUM_MAX], hist_ttl[NUM_MAX],
	    host[256], pid[32], until[NUM_MAX], attempt[NUM_MAX], keep_ok[NUM_MAX],
	    keep_failed[NUM_MAX], reason[sizeof(end->reason) + 4];
	char *output = NULL;
	const char *params[] = { l->keys.stable, l->keys.hist, l->keys.last, id.id, id.hi,
	    id.lo, l->value, keep, status, took, end->event, cap, hist_ttl, host, pid,
	    slot_iso(l), l->token_s, l->keys.counts, until, attempt, l->keys.ended,
	    l->keys.runs, keep_ok, keep_failed, reason, "" };
	PGresult *res;
	int released;

	if (end->event && strcmp(end->event, "withdrawn") == 0)
		return pg_withdraw(b, l, end, e);
	if (end->event && strcmp(end->event, "hook") == 0)
		return pg_story_hook(b, l, end, e);
	if (l->ttl_ms == 0 && l->hist_cap == 0)
		return 0;	/* a slot row is never released: nothing to say */
	pg_sql_lockid(l->keys.stable, &id);
	num_s(keep, l->ttl_ms == 0 ? -1 : end->keep_ms > 0 ? end->keep_ms : 0);
	num_s(status, end->status);
	num_s(took, end->duration_ms > 0 ? end->duration_ms : 0);
	num_s(cap, l->hist_cap);
	num_s(hist_ttl, l->hist_ttl_ms);
	num_s(until, end->keep_until_ms > 0 ? end->keep_until_ms : 0);
	num_s(attempt, end->attempt > 0 ? end->attempt : 0);
	host_pid(l->owner, host, pid);
	num_s(keep_ok, end->keep_runs > 0 ? end->keep_runs : 0);
	num_s(keep_failed, end->keep_failed > 0 ? end->keep_failed : 0);
	utf8_copy(reason, sizeof(reason), end->reason);
	if (end->output != NULL && end->output_len > 0 &&
	    (params[25] = output = pg_sql_bytea(end->output, end->output_len)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	res = pg_conn_write(b, "release", pg_sql_release, 26, params, e);
	free(output);
	if (res == NULL) {
		/* refused part way: the run's lock goes all the same */
		if (l->ttl_ms > 0 && !lr_err_broke(e))
			undo_lock(b, "release", pg_sql_release_undo, 3, &params[3]);
		return -1;
	}
	if (pq.ntuples(res) != 1)
		return unexpected(b, "release", res, e);
	released = pg_conn_num(res, 0, 0, 0) == 1;
	pq.clear(res);
	return released;
}

/* Whether key is a stable key, prefix{name}, rather than a slot key. */
static int
is_stable(const char *key)
{
	struct lr_key_parts kp;

	return keys_parse(key, NULL, &kp) == 0 && kp.kind == KEY_STABLE;
}

static int
pg_unlock(struct lr_backend *b, const struct lr_keys *k, const char *key,
    const char *expect, const char *who, long long hist_cap, long long hist_ttl_ms,
    char *holder, size_t n, struct lr_err *e)
{
	struct pg_lockid id;
	char cap[NUM_MAX], hist_ttl[NUM_MAX], host[256], pid[32];
	const char *params[] = { key, k->fence, k->hist, k->last,
	    strcmp(key, k->stable) == 0 ? "true" : "false", id.hi, id.lo, expect, cap,
	    hist_ttl, host, pid, strcmp(key, k->slot) == 0 ? k->slot_iso : "" };
	PGresult *res;
	long long code;
	int missing;

	pg_sql_lockid(key, &id);
	num_s(cap, hist_cap);
	num_s(hist_ttl, hist_ttl_ms);
	host_pid(who, host, pid);
	holder[0] = '\0';
	res = pg_conn_read(b, "unlock", pg_sql_unlock, 13, params, &missing, e);
	if (res == NULL)
		return missing ? 0 : -1;	/* no tables: nothing to free */
	if (pq.ntuples(res) != 1 || (code = pg_conn_num(res, 0, 0, -1)) < 0 || code > 3)
		return unexpected(b, "unlock", res, e);
	if (pg_conn_cell(res, 0, 1) != NULL)
		snprintf(holder, n, "%s", pg_conn_cell(res, 0, 1));
	pq.clear(res);
	return (int)code;
}

static int
pg_peek(struct lr_backend *b, const char *key, char *buf, size_t n, long long *ttl_ms,
    struct lr_err *e)
{
	struct pg_lockid id;
	const char *params[] = { key, is_stable(key) ? "true" : "false", id.hi, id.lo };
	PGresult *res;
	int missing, held;

	pg_sql_lockid(key, &id);
	if ((res = pg_conn_read(b, "peek", pg_sql_peek, 4, params, &missing, e)) == NULL)
		return missing ? 0 : -1;
	if ((held = pq.ntuples(res) > 0)) {
		snprintf(buf, n, "%s", pg_conn_cell(res, 0, 0) ? pg_conn_cell(res, 0, 0) : "?");
		*ttl_ms = pg_conn_num(res, 0, 1, -1);
	}
	pq.clear(res);
	return held;
}

static int
pg_keys(struct lr_backend *b, const char *prefix, char ***keys, size_t *n,
    struct lr_err *e)
{
	char *pattern = pg_sql_like_prefix(prefix);
	const char *params[] = { pattern };
	PGresult *res;
	int missing, rows;

	*keys = NULL;
	*n = 0;
	if (pattern == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	res = pg_conn_read(b, "status", pg_sql_keys, 1, params, &missing, e);
	free(pattern);
	if (res == NULL)
		return missing ? 0 : -1;
	rows = pq.ntuples(res);
	if ((*keys = calloc((size_t)rows + 1, sizeof(**keys))) == NULL) {
		pq.clear(res);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	for (int r = 0; r < rows; r++)
		if (((*keys)[(*n)++] = strdup(pq.getvalue(res, r, 0))) == NULL) {
			pq.clear(res);
			return lr_errf(e, EX_OSERR, "out of memory");
		}
	pq.clear(res);
	return 0;
}

static int
pg_history(struct lr_backend *b, const struct lr_keys *k, long long count,
    struct lr_hist *h, struct lr_err *e)
{
	static const char *const f[] = { "event", "host", "pid", "slot", "token", "holder",
	    "status", "duration_ms", "attempt", "reason" };
	char limit[NUM_MAX];
	const char *params[] = { k->hist, limit };
	PGresult *res;
	int missing, rows;

	h->n = 0;
	h->e = NULL;
	num_s(limit, count > 0 ? count : 0);
	pg_conn_allow(b, (size_t)(count > 0 ? count : 0) * 1024);	/* a row: < 1 KiB */
	if ((res = pg_conn_read(b, "history", pg_sql_history, 2, params, &missing, e)) == NULL)
		return missing ? 0 : -1;
	rows = pq.ntuples(res);
	if ((h->e = calloc((size_t)rows + 1, sizeof(*h->e))) == NULL) {
		pq.clear(res);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	for (int r = 0; r < rows; r++, h->n++) {
		h->e[r].at_ms = pg_conn_num(res, r, 0, 0);
		for (int i = 0; i < 10; i++)
			if (record_field_add(&h->e[r].fields, f[i], pg_conn_cell(res, r, 1 + i)) != 0) {
				pq.clear(res);
				h->n++;		/* so record_hist_free() frees this one too */
				return lr_errf(e, EX_OSERR, "out of memory");
			}
	}
	pq.clear(res);
	return 0;
}

/* `lockrun check`, read-only: per table, whether it exists, whether this
 * user could create it, the privileges it lacks and the columns it lacks
 * (a column a later lockrun added, which a release adds, only when this
 * user does not own the table, and so could not add it: pg_sql_ddl); and,
 * on each row alike, whether the server is a standby, whether
 * transactions are read-only, the default isolation (ON CONFLICT on a
 * row committed after the snapshot needs read committed) and the schema
 * tables are created in. */
static const char pg_sql_probe[] =
	"WITH t(name, cols, added) AS (VALUES "
	"('lockrun_keys', ARRAY['k', 'v', 'expires_ms', 'boot'], '{}'::text[]), "
	"('lockrun_history', ARRAY['id', 'k', 'at_ms', 'expires_ms', 'event', 'host', 'pid', "
	"'slot', 'token', 'holder', 'status', 'duration_ms'], ARRAY['attempt', 'reason']), "
	"('lockrun_last', ARRAY['k', 'expires_ms', 'event', 'host', 'pid', 'slot', 'token', "
	"'start_ms', 'end_ms', 'status', 'duration_ms', 'success_ms'], ARRAY['reason']), "
	"('lockrun_counts', ARRAY['k', 'expires_ms', 'runs', 'skipped_held', 'skipped_slot', "
	"'failures', 'lost', 'timeouts'], ARRAY['retries']), "
	"('lockrun_runs', ARRAY['id', 'k', 'token', 'failed', 'header', 'output', 'end_ms', "
	"'expires_ms'], '{}')), "
	"o AS (SELECT t.*, to_regclass(t.name) AS oid FROM t), "
	"r AS (SELECT o.name, o.oid, o.cols || CASE WHEN NOT coalesce(pg_has_role((SELECT "
	"relowner FROM pg_class WHERE oid = o.oid), 'USAGE'), true) THEN o.added "
	"ELSE '{}' END AS cols FROM o) "
	"SELECT r.name, r.oid IS NOT NULL, "
	"coalesce(has_schema_privilege(current_schema(), 'CREATE'), false), "
	"(SELECT string_agg(p, ' ') FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p "
	"WHERE r.oid IS NOT NULL AND NOT has_table_privilege(r.oid, p)), "
	"(SELECT string_agg(c, ' ') FROM unnest(r.cols) c WHERE r.oid IS NOT NULL AND NOT EXISTS "
	"(SELECT 1 FROM pg_attribute WHERE attrelid = r.oid AND attname = c "
	"AND NOT attisdropped)), "
	"pg_is_in_recovery(), current_setting('transaction_read_only'), "
	"current_setting('default_transaction_isolation'), coalesce(current_schema(), '') FROM r";

/* The problems pg_sql_probe's row r shows about its table. */
static void
probe_table(const PGresult *res, int r, char *buf, size_t n, int *count)
{
	const char *name = pg_conn_cell(res, r, 0), *denied = pg_conn_cell(res, r, 3),
	    *lacks = pg_conn_cell(res, r, 4), *schema = pg_conn_cell(res, r, 8);
	char word[32];

	if (strcmp(pg_conn_cell(res, r, 1), "f") == 0) {
		if (strcmp(pg_conn_cell(res, r, 2), "f") == 0)
			text_problem(buf, n, count, "table %s is missing, and this user may "
			    "not create it (no CREATE on schema %s)", name,
			    *schema ? schema : "(none)");
		return;
	}
	for (const char *p = denied; p != NULL && sscanf(p, "%31s", word) == 1;
	    p = strchr(p + 1, ' '))
		text_problem(buf, n, count, "table %s: permission denied for %s", name,
		    word);
	for (const char *p = lacks; p != NULL && sscanf(p, "%31s", word) == 1;
	    p = strchr(p + 1, ' '))
		text_problem(buf, n, count, "table %s has no column %s", name, word);
}

static int
pg_probe(struct lr_backend *b, const struct lr_keys *k, int one_server, char *buf,
    size_t n, struct lr_err *e)
{
	PGresult *res;
	int missing, count = 0;
	const char *iso;

	(void)k;		/* the same tables for every key */
	(void)one_server;
	buf[0] = '\0';
	if ((res = pg_conn_read(b, "check", pg_sql_probe, 0, NULL, &missing, e)) == NULL)
		return -1;
	if (pq.ntuples(res) != PG_TABLES)
		return unexpected(b, "check", res, e);
	if (strcmp(pg_conn_cell(res, 0, 5), "t") == 0)
		text_problem(buf, n, &count, "this server is a read-only standby (in recovery); "
		    "point lockrun at the primary");
	else if (strcmp(pg_conn_cell(res, 0, 6), "on") == 0)
		text_problem(buf, n, &count, "transactions are read-only for this user "
		    "(default_transaction_read_only)");
	if (strcmp((iso = pg_conn_cell(res, 0, 7)), "read committed") != 0)
		text_problem(buf, n, &count, "default_transaction_isolation is %s: "
		    "lockrun's statements need read committed", iso);
	for (int r = 0; r < PG_TABLES; r++)
		probe_table(res, r, buf, n, &count);
	pq.clear(res);
	return count;
}

static int
pg_fd(const struct lr_backend *b)
{
	const struct pg *p = b->impl;

	return p->conn != NULL ? pq.socket(p->conn) : -1;
}

/* Between statements the server sends nothing unless something happened
 * to the session: a notice or a parameter's new value (harmless), or its
 * end -- pg_terminate_backend() or a shutdown sends a FATAL error (libpq
 * hands it to the notice processor, pg_conn.c keeps it) and closes; a
 * proxy or a firewall cutting the connection gives end of file or a
 * reset. libpq reads what came without blocking. */
static int
pg_idle_read(struct lr_backend *b, struct lr_err *e)
{
	struct pg *p = b->impl;
	struct lr_err broke = LR_ERR_INIT;
	const char *why;

	p->in_bytes = 0;	/* nothing in flight: whatever comes is unasked */
	if (p->conn != NULL && pg_conn_consume(p, &broke) == 0 &&
	    pq.status(p->conn) == CONNECTION_OK)
		return 0;
	why = p->conn == NULL ? "not connected" : p->notice[0] ? p->notice : broke.msg;
	lr_errf(e, EX_UNAVAILABLE, "postgres %s: the session ended: %.*s", b->where,
	    (int)strcspn(why, "\n"), why);
	pg_conn_close(b);
	if (e != NULL)
		e->kind = LR_ERR_TRANSPORT;
	return -1;
}

static int
pg_reopen(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	long long ms = b->cfg.connect_timeout_ms;

	if (cap_ms < 1)
		cap_ms = 1;	/* as for Redis: a try, if a hopeless one */
	return pg_conn_open(b, cap_ms < ms ? cap_ms : ms, e);
}

static void
pg_free(struct lr_backend *b)
{
	if (b->impl == NULL)
		return;
	pg_conn_close(b);
	explicit_bzero(b->impl, sizeof(struct pg));	/* as redis_free: nothing of
						 * the session left behind */
	free(b->impl);
	b->impl = NULL;
}

static const struct lr_backend_ops pg_ops = {
	.name = "postgres", .title = "PostgreSQL", .session = 1, .shares = 1,
	.open = pg_open, .ping = pg_ping, .acquire = pg_acquire,
	.renew_send = pg_renew_send, .renew_recv = pg_renew_recv, .renew_many = pg_renew_many,
	.release = pg_release, .unlock = pg_unlock, .peek = pg_peek,
	.states = pg_states, .keys = pg_keys, .history = pg_history, .probe = pg_probe,
	.stories = pg_stories,
	.fd = pg_fd, .idle_read = pg_idle_read, .close = pg_conn_close, .reopen = pg_reopen,
	.free = pg_free, .pause = pg_pause,
	.trigger = pg_trigger, .take = pg_take, .missed = pg_missed,
};

int
pg_backend_init(struct lr_backend *b, struct lr_err *e)
{
	if (pg_conn_load(e) != 0 || pg_conn_where(b, e) != 0)
		return -1;
	if ((b->impl = calloc(1, sizeof(struct pg))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	b->ops = &pg_ops;
	return 0;
}

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
 * states, keys, history and probe each cost one round trip; a
 * scheduler's acquires, renewals or releases of many runs' leases cost
 * one round trip and one transaction a batch (pg_batch.h: the
 * statements in one pipeline, pg_lock.c, pg_renew.c). Parameters
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
#include "backend/pg/pg_lock.h"
#include "backend/pg/pg_renew.h"
#include "backend/pg/pg_sql.h"
#include "backend/pg/pg_status.h"
#include "core/duration.h"
#include "core/text.h"

#define PG_TABLES	5	/* pg_sql_probe's rows: keys, history, last, counts,
				 * runs */

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
	char cap[PG_SQL_NUM_MAX], hist_ttl[PG_SQL_NUM_MAX], host[256], pid[32];
	const char *params[] = { key, k->fence, k->hist, k->last,
	    strcmp(key, k->stable) == 0 ? "true" : "false", id.hi, id.lo, expect, cap,
	    hist_ttl, host, pid, strcmp(key, k->slot) == 0 ? k->slot_iso : "" };
	PGresult *res;
	long long code;
	int missing;

	pg_sql_lockid(key, &id);
	pg_sql_num(cap, hist_cap);
	pg_sql_num(hist_ttl, hist_ttl_ms);
	pg_sql_host_pid(who, host, pid);
	holder[0] = '\0';
	res = pg_conn_read(b, "unlock", pg_sql_unlock, 13, params, &missing, e);
	if (res == NULL)
		return missing ? 0 : -1;	/* no tables: nothing to free */
	if (pq.ntuples(res) != 1 || (code = pg_conn_num(res, 0, 0, -1)) < 0 || code > 3)
		return pg_conn_unexpected(b, "unlock", res, e);
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
	char limit[PG_SQL_NUM_MAX];
	const char *params[] = { k->hist, limit };
	PGresult *res;
	int missing, rows;

	h->n = 0;
	h->e = NULL;
	pg_sql_num(limit, count > 0 ? count : 0);
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
		return pg_conn_unexpected(b, "check", res, e);
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

/* What a task asks that this backend cannot do yet: places (limit:). */
static int
pg_check_task(const struct lr_backend *b, const struct lr_task *t, struct lr_err *e)
{
	(void)b;
	return lock_one_place("PostgreSQL", t->limit, e);
}

static const struct lr_backend_ops pg_ops = {
	.name = "postgres", .title = "PostgreSQL", .session = 1, .shares = 1,
	.open = pg_open, .ping = pg_ping, .acquire = pg_acquire,
	.renew_send = pg_renew_send, .renew_recv = pg_renew_recv, .renew_many = pg_renew_many,
	.acquire_many = pg_acquire_many, .release = pg_release, .release_many = pg_release_many, .unlock = pg_unlock, .peek = pg_peek,
	.states = pg_states, .keys = pg_keys, .history = pg_history, .probe = pg_probe,
	.stories = pg_stories,
	.fd = pg_fd, .idle_read = pg_idle_read, .close = pg_conn_close, .reopen = pg_reopen,
	.free = pg_free, .pause = pg_pause, .check_task = pg_check_task,
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

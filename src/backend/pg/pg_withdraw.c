/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_withdraw.c -- an acquire that went unanswered, taken back by this
 * run's owner id (release.lua's withdraw()), in one statement. */
#include <stdio.h>
#include <string.h>

#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_withdraw.h"

/* $1 stable key, $2 slot key ("" none), $3 history, $4 last run, $5
 * counters, $6 owner id, $7 host, $8 pid, $9 slot ISO ("" none), $10
 * exit status, $11 history cap, $12 history ttl. One snapshot: the rows
 * an acquire that committed before it wrote. A statement still queued
 * (behind a row lock, a stopped backend) is past its window when it
 * runs, and writes nothing then (pg_sql_acquire). Returns one row: the
 * key rows deleted. */
const char pg_sql_withdraw[] =
	"WITH a AS (SELECT $1::text AS stable, $2::text AS slot, $3::text AS hist, "
	"$4::text AS last, $5::text AS counts, $6::text AS id, $7::text AS host, "
	"$8::text AS pid, nullif($9::text, '') AS slot_iso, $10::text AS status, "
	"$11::bigint AS cap, $12::bigint AS hist_ttl, "
	"floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now_ms), "
	"gone AS (DELETE FROM lockrun_keys t USING a WHERE t.k IN (a.stable, a.slot) "
	"AND split_part(t.v, ' ', 1) = a.id RETURNING split_part(t.v, ' ', 2) AS token), "
	"tok AS (SELECT min(token) AS token FROM gone HAVING count(*) > 0), "
	"ran AS (DELETE FROM lockrun_history t USING a, tok WHERE t.k = a.hist "
	"AND t.event IN ('ran', 'triggered') AND t.token = tok.token RETURNING 1), "
	"cw AS (UPDATE lockrun_counts t SET runs = greatest(t.runs - 1, 0) FROM a "
	"WHERE t.k = a.counts AND EXISTS (SELECT 1 FROM ran)), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot, "
	"token, status) SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, 'withdrawn', a.host, "
	"a.pid, a.slot_iso, tok.token, a.status FROM a, tok WHERE a.cap > 0), "
	"lw AS (UPDATE lockrun_last t SET event = 'withdrawn', status = a.status, "
	"end_ms = a.now_ms::text, expires_ms = a.now_ms + a.hist_ttl FROM a, tok "
	"WHERE a.cap > 0 AND t.k = a.last AND t.token = tok.token) "
	"SELECT count(*) FROM gone";

void
pg_withdraw_args(struct pg_withdraw_args *a, const struct lr_lock *l,
    const struct lr_ending *end)
{
	const char *p[PG_WITHDRAW_PARAMS] = { l->keys.stable, l->slot_ttl_ms ?
	    l->keys.slot : "", l->keys.hist, l->keys.last, l->keys.counts, l->id, a->host,
	    a->pid, l->slot_ttl_ms ? l->keys.slot_iso : "", a->status, a->cap, a->hist_ttl };

	a->host[0] = a->pid[0] = '\0';
	sscanf(l->owner, "%255s %31s", a->host, a->pid);
	snprintf(a->status, sizeof(a->status), "%d", end->status);
	snprintf(a->cap, sizeof(a->cap), "%lld", l->hist_cap);
	snprintf(a->hist_ttl, sizeof(a->hist_ttl), "%lld", l->hist_ttl_ms);
	memcpy(a->params, p, sizeof(p));
}

int
pg_withdraw_answer(struct lr_backend *b, PGresult *res, struct lr_err *e)
{
	int n = pq.ntuples(res) == 1 ? (int)pg_conn_num(res, 0, 0, -1) : -1;

	pq.clear(res);
	if (n < 0)
		return lr_errf(e, EX_SOFTWARE, "postgres %s: withdraw: unexpected answer",
		    b->where);
	return n > 0;
}

int
pg_withdraw(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct pg_withdraw_args a;
	PGresult *res;
	int missing;

	pg_withdraw_args(&a, l, end);
	res = pg_conn_read(b, "withdraw", pg_sql_withdraw, PG_WITHDRAW_PARAMS, a.params,
	    &missing, e);
	if (res == NULL)
		return missing ? 0 : -1;	/* no tables: nothing was taken */
	return pg_withdraw_answer(b, res, e);
}

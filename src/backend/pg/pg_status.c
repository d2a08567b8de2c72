/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_status.c -- what an operator reads and sets of every task in
 * PostgreSQL: status's read of the tasks' states (one statement for all
 * of them), and pause and resume (one statement each), whose row the
 * acquire reads (pg_sql.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_sql.h"
#include "backend/pg/pg_status.h"

#define NUM_MAX	24	/* a long long in digits, and its NUL */

/* The trigger row: $1 its key, $2 its value, $3 its life (ms). */
static const char pg_sql_trigger[] =
	"INSERT INTO lockrun_keys AS t (k, v, expires_ms) SELECT $1::text, $2::text, "
	"floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint + $3::bigint "
	"ON CONFLICT (k) DO UPDATE SET v = excluded.v, expires_ms = excluded.expires_ms";

/* Take the triggers of $1 (an array of trigger keys) within the window
 * [$2, $3] of the server's clock (take.lua; 0 0: none): the rows that have
 * not expired and that no take's mark holds (the fourth field of the
 * value, its lease's end, passed) are marked taken by $5 until now plus
 * $4's lease for that key (an array as $1's, in text): "<ms> <host>
 * <user> <until> <id>"; the row lives at least as long. A row another
 * session is taking is skipped, not waited for: that session takes it.
 * Outside the window nothing is written: the scheduler gave up on this
 * take (it waited in a stalled network), and the trigger stays for one
 * that is answered. The run's acquire deletes the row (pg_sql.c). Rows:
 * the server's clock, whether the window held (1, 0), and a key taken
 * (NULL: none), one row at least. */
static const char pg_sql_take[] =
	"WITH a AS (SELECT floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint "
	"AS now_ms, $2::bigint AS earliest, $3::bigint AS deadline, $5::text AS id), "
	"w AS (SELECT (a.deadline = 0 OR a.now_ms BETWEEN a.earliest AND a.deadline) AS ok "
	"FROM a), "
	"l AS (SELECT u.k, u.lease::bigint AS lease FROM unnest($1::text[], $4::text[]) "
	"AS u(k, lease)), "
	"d AS (UPDATE lockrun_keys t SET v = split_part(t.v, ' ', 1) || ' ' || "
	"split_part(t.v, ' ', 2) || ' ' || split_part(t.v, ' ', 3) || ' ' || "
	"(a.now_ms + l.lease)::text || ' ' || a.id, "
	"expires_ms = greatest(t.expires_ms, a.now_ms + l.lease) FROM a, l "
	"WHERE (SELECT ok FROM w) AND t.k = l.k AND t.k IN (SELECT x.k FROM "
	"lockrun_keys x, a WHERE x.k = ANY($1::text[]) AND x.expires_ms > a.now_ms "
	"AND coalesce(nullif(split_part(x.v, ' ', 4), '')::bigint, 0) <= a.now_ms "
	"FOR UPDATE OF x SKIP LOCKED) RETURNING t.k) "
	"SELECT a.now_ms, w.ok::int, d.k FROM a CROSS JOIN w LEFT JOIN d ON true";

/* pause.lua. $1 the pause key, $2 history, $3 pause or resume, $4 for ms,
 * $5 until ms, $6 history cap, $7 history ttl, $8 host, $9 user, $10
 * reason. The pause row's expiry is its end by the server's clock (NULL:
 * none), so it lifts itself: the acquire reads a row that has expired as
 * no pause, and the prune deletes it. Returns one row: 1 paused (or
 * resumed), 0 nothing to resume or an end already past; the value written
 * (or deleted). */
static const char pg_sql_pause[] =
	"WITH a AS (SELECT $1::text AS k, $2::text AS hist, $3::text AS mode, "
	"$4::bigint AS for_ms, $5::bigint AS until_ms, $6::bigint AS cap, "
	"$7::bigint AS hist_ttl, $8::text AS host, $9::text AS who, $10::text AS reason, "
	"floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now_ms), "
	"e AS (SELECT CASE WHEN a.for_ms > 0 THEN a.now_ms + a.for_ms "
	"WHEN a.until_ms > 0 THEN a.until_ms END AS ends FROM a), "
	"v AS (SELECT a.now_ms::text || ' ' || coalesce(e.ends, 0)::text || ' ' || a.host || "
	"' ' || a.who || ' ' || a.reason AS v, e.ends FROM a, e WHERE a.mode = 'pause' "
	"AND coalesce(e.ends > a.now_ms, true)), "
	"pw AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms) SELECT a.k, v.v, v.ends "
	"FROM a, v ON CONFLICT (k) DO UPDATE SET v = excluded.v, expires_ms = excluded.expires_ms "
	"RETURNING t.v), "
	"rw AS (DELETE FROM lockrun_keys t USING a WHERE a.mode = 'resume' AND t.k = a.k "
	"AND coalesce(t.expires_ms > a.now_ms, true) RETURNING t.v), "
	"r AS (SELECT coalesce((SELECT v FROM pw), (SELECT v FROM rw)) AS v), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, holder) "
	"SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, CASE a.mode WHEN 'pause' THEN "
	"'paused' ELSE 'resumed' END, a.host, a.who FROM a, r WHERE a.cap > 0 AND "
	"r.v IS NOT NULL) "
	"SELECT (r.v IS NOT NULL)::int, r.v FROM r";

/* missed.lua. $1 the slot key, $2 last run, $3 the missed row, $4
 * history, $5 the slot key's life (ms), $6 history cap, $7 history ttl,
 * $8 slot ISO, $9 host, $10 pid, $11 when noticed (ISO). Only for a task
 * whose last run claimed an earlier slot (ISO 8601 text sorts as time
 * does): it ran then, not a new task. The slot row is written when no
 * live row holds the slot (a run's, or another scheduler's record of it):
 * racers serialize on its primary key, and a live row is "updated" to
 * itself, so that RETURNING gives its newest value, which a racer's
 * snapshot would not show. The missed row's value is "<count> <the last
 * missed slot>", living as the history does. Returns one row: 1 recorded
 * by this statement (or by this host and pid before: a try whose answer
 * was lost, asked again), 2 by another scheduler, else 0. */
static const char pg_sql_missed[] =
	"WITH a AS (SELECT $1::text AS slot, $2::text AS last, $3::text AS missed, "
	"$4::text AS hist, $5::bigint AS slot_ttl, $6::bigint AS cap, $7::bigint AS hist_ttl, "
	"$8::text AS iso, $9::text AS host, $10::text AS pid, "
	"'missed 0 ' || $9::text || ' ' || $10::text || ' ' || $11::text AS value, "
	"floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now_ms), "
	"ok AS (SELECT 1 FROM a, lockrun_last l WHERE l.k = a.last AND l.expires_ms > a.now_ms "
	"AND l.slot COLLATE \"C\" < a.iso COLLATE \"C\"), "
	"claim AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms) SELECT a.slot, a.value, "
	"a.now_ms + a.slot_ttl FROM a, ok ON CONFLICT (k) DO UPDATE SET "
	"v = CASE WHEN t.expires_ms <= (SELECT now_ms FROM a) THEN excluded.v ELSE t.v END, "
	"expires_ms = CASE WHEN t.expires_ms <= (SELECT now_ms FROM a) "
	"THEN excluded.expires_ms ELSE t.expires_ms END RETURNING t.v), "
	"won AS (SELECT 1 FROM claim, a WHERE claim.v = a.value), "
	"mw AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms) SELECT a.missed, '1 ' || a.iso, "
	"a.now_ms + a.hist_ttl FROM a, won ON CONFLICT (k) DO UPDATE SET v = (CASE WHEN "
	"t.expires_ms > (SELECT now_ms FROM a) THEN split_part(t.v, ' ', 1)::bigint ELSE 0 END "
	"+ 1)::text || ' ' || split_part(excluded.v, ' ', 2), expires_ms = excluded.expires_ms), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot) "
	"SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, 'missed', a.host, a.pid, a.iso "
	"FROM a, won WHERE a.cap > 0) "
	"SELECT coalesce((SELECT CASE WHEN c.v = a.value THEN 1 WHEN left(c.v, 7) <> 'missed ' "
	"THEN 0 WHEN split_part(c.v, ' ', 3) = a.host AND split_part(c.v, ' ', 4) = a.pid "
	"THEN 1 ELSE 2 END FROM claim c, a), 0)";

/* missed.lua's drop of a trigger its taker gave up on. $1 the trigger
 * key, $2 the take's mark, $3 history, $4 history cap, $5 history ttl, $6
 * host, $7 pid: the row is deleted if it still holds that mark, and then
 * "missed" recorded with the slot "triggered". Returns one row: 1
 * dropped, 0 not (started, or taken again by another). */
static const char pg_sql_drop[] =
	"WITH a AS (SELECT $1::text AS k, $2::text AS take, $3::text AS hist, "
	"$4::bigint AS cap, $5::bigint AS hist_ttl, $6::text AS host, $7::text AS pid, "
	"floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now_ms), "
	"d AS (DELETE FROM lockrun_keys t USING a WHERE t.k = a.k AND "
	"split_part(t.v, ' ', 5) = a.take AND t.expires_ms > a.now_ms RETURNING 1), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot) "
	"SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, 'missed', a.host, a.pid, 'triggered' "
	"FROM a, d WHERE a.cap > 0) "
	"SELECT count(*)::int FROM d";

/* The task arrays of pg_sql_states, as array literals into lit[7]
 * (malloc'd). Returns 0, or -1 when out of memory. */
static int
states_arrays(const struct lr_keys *k, size_t n, char *lit[7])
{
	const char **v = calloc(7 * n + 1, sizeof(*v));
	struct pg_lockid *ids = calloc(n + 1, sizeof(*ids));
	int rc = 0;

	for (size_t i = 0; v != NULL && ids != NULL && i < n; i++) {
		pg_sql_lockid(k[i].stable, &ids[i]);
		v[i] = k[i].stable;
		v[n + i] = k[i].last;
		v[2 * n + i] = k[i].counts;
		v[3 * n + i] = ids[i].hi;
		v[4 * n + i] = ids[i].lo;
		v[5 * n + i] = k[i].pause;
		v[6 * n + i] = k[i].missed;
	}
	for (size_t j = 0; j < 7; j++)
		if (v == NULL || ids == NULL || (lit[j] = pg_sql_array(v + j * n, n)) == NULL)
			rc = -1;
	free(v);
	free(ids);
	return rc;
}

/* Row r of pg_sql_states into s. Returns 0, or -1 when out of memory. */
static int
state_read(const PGresult *res, int r, int counts, struct lr_state *s)
{
	static const char *const last[] = { "event", "host", "pid", "slot", "token",
	    "start_ms", "end_ms", "status", "duration_ms", "success_ms" };
	const char *v = pg_conn_cell(res, r, 2);

	if (v != NULL && (s->value = strdup(v)) == NULL)
		return -1;
	s->ttl_ms = pg_conn_num(res, r, 3, -1);
	for (int i = 0; i < 10; i++)
		if (record_field_add(&s->last, last[i], pg_conn_cell(res, r, 4 + i)) != 0)
			return -1;
	if (record_field_add(&s->last, "reason", pg_conn_cell(res, r, 16)) != 0)
		return -1;
	if ((v = pg_conn_cell(res, r, 14)) != NULL && (s->paused = strdup(v)) == NULL)
		return -1;
	if ((v = pg_conn_cell(res, r, 15)) != NULL) {	/* "<count> <slot>" */
		char slot[64];
		if (sscanf(v, "%lld %63s", &s->missed, slot) == 2 &&
		    (s->missed_slot = strdup(slot)) == NULL)
			return -1;
	}
	if (counts && pg_conn_cell(res, r, 17) && strcmp(pg_conn_cell(res, r, 17), "t") == 0) {
		s->counted = 1;
		for (int c = 0; c < NCOUNTERS; c++)
			s->count[c] = pg_conn_num(res, r, 18 + c, 0);
	}
	return 0;
}

/* The server's clock alone, when the tables are not there. */
static int
server_now(struct lr_backend *b, long long *now_ms, struct lr_err *e)
{
	PGresult *res;
	int missing;

	if ((res = pg_conn_read(b, "status", pg_sql_now, 0, NULL, &missing, e)) == NULL)
		return -1;
	*now_ms = pq.ntuples(res) == 1 ? pg_conn_num(res, 0, 0, 0) : 0;
	pq.clear(res);
	return 0;
}

int
pg_states(struct lr_backend *b, const struct lr_keys *k, size_t n, int counts,
    struct lr_state *out, long long *now_ms, struct lr_err *e)
{
	char *lit[7] = { NULL };
	const char *params[7];
	PGresult *res = NULL;
	int missing = 0, rc = -1;

	if (n == 0)		/* the clock alone (`lockrun check`) */
		return server_now(b, now_ms, e);
	for (size_t i = 0; i < n; i++)
		out[i] = (struct lr_state){ .ttl_ms = -1 };
	if (states_arrays(k, n, lit) != 0) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	for (int j = 0; j < 7; j++)
		params[j] = lit[j];
	/* the counters' table may be missing alone, in a database an older
	 * lockrun set up: then read the rest without them */
	if (counts && (res = pg_conn_read(b, "status", pg_sql_states_counts, 7, params,
	    &missing, e)) == NULL && !missing)
		goto out;
	counts = counts && res != NULL;
	if (res == NULL &&
	    (res = pg_conn_read(b, "status", pg_sql_states, 7, params, &missing, e)) == NULL) {
		rc = missing ? server_now(b, now_ms, e) : -1;	/* no tables: all free */
		goto out;
	}
	*now_ms = pq.ntuples(res) > 0 ? pg_conn_num(res, 0, 1, 0) : 0;
	rc = 0;
	for (int r = 0; r < pq.ntuples(res) && rc == 0; r++) {
		long long i = pg_conn_num(res, r, 0, 0);
		if (i >= 1 && (size_t)i <= n && state_read(res, r, counts, &out[i - 1]) != 0)
			rc = lr_errf(e, EX_OSERR, "out of memory");
	}
	pq.clear(res);
out:
	for (int j = 0; j < 7; j++)
		free(lit[j]);
	return rc;
}

int
pg_pause(struct lr_backend *b, const struct lr_keys *k, const struct lr_pause *p,
    int resume, char *buf, size_t n, struct lr_err *e)
{
	char for_ms[NUM_MAX], until_ms[NUM_MAX], cap[NUM_MAX], ttl[NUM_MAX];
	const char *params[] = { k->pause, k->hist, resume ? "resume" : "pause", for_ms,
	    until_ms, cap, ttl, p->host, p->user, p->reason };
	const struct pg *g = b->impl;
	PGresult *res;
	long long code;

	snprintf(for_ms, sizeof(for_ms), "%lld", p->for_ms);
	snprintf(until_ms, sizeof(until_ms), "%lld", p->until_ms);
	snprintf(cap, sizeof(cap), "%lld", p->hist_cap);
	snprintf(ttl, sizeof(ttl), "%lld", p->hist_ttl_ms);
	if (g->conn == NULL && pg_conn_open(b, b->cfg.connect_timeout_ms, e) != 0)
		return -1;
	if ((res = pg_conn_write(b, resume ? "resume" : "pause", pg_sql_pause, 10, params,
	    e)) == NULL)
		return -1;
	if (pq.ntuples(res) != 1 || (code = pg_conn_num(res, 0, 0, -1)) < 0 || code > 1) {
		pq.clear(res);
		return lr_errf(e, EX_SOFTWARE, "postgres %s: pause: unexpected answer",
		    b->where);
	}
	snprintf(buf, n, "%s", pg_conn_cell(res, 0, 1) ? pg_conn_cell(res, 0, 1) : "");
	pq.clear(res);
	return (int)code;
}

int
pg_trigger(struct lr_backend *b, const struct lr_keys *k, const char *value,
    long long ttl_ms, struct lr_err *e)
{
	char ttl[NUM_MAX];
	const char *params[] = { k->trigger, value, ttl };
	const struct pg *g = b->impl;
	PGresult *res;

	snprintf(ttl, sizeof(ttl), "%lld", ttl_ms);
	if (g->conn == NULL && pg_conn_open(b, b->cfg.connect_timeout_ms, e) != 0)
		return -1;
	if ((res = pg_conn_write(b, "trigger", pg_sql_trigger, 3, params, e)) == NULL)
		return -1;
	pq.clear(res);
	return 0;
}

int
pg_take(struct lr_backend *b, const struct lr_keys *k, size_t n, const struct lr_take *tk,
    struct lr_lock *w, unsigned char *taken, struct lr_err *e)
{
	const char **v = calloc(n + 1, sizeof(*v)), **lv = calloc(n + 1, sizeof(*lv));
	char (*ls)[NUM_MAX] = calloc(n + 1, sizeof(*ls));
	const struct pg *g = b->impl;
	PGresult *res = NULL;
	char *lit = NULL, *leases = NULL, earliest[NUM_MAX], deadline[NUM_MAX];
	int missing = 0, ok;

	for (size_t i = 0; v != NULL && lv != NULL && ls != NULL && i < n; i++) {
		v[i] = k[i].trigger;
		snprintf(ls[i], sizeof(ls[i]), "%lld", tk->lease_ms[i]);
		lv[i] = ls[i];
	}
	if (v != NULL && lv != NULL && ls != NULL && (lit = pg_sql_array(v, n)) != NULL)
		leases = pg_sql_array(lv, n);
	free(v);
	free(lv);
	free(ls);
	if (leases == NULL) {
		free(lit);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	memset(taken, 0, n);
	if (g->conn == NULL && pg_conn_open(b, b->cfg.connect_timeout_ms, e) != 0) {
		free(lit);
		free(leases);
		return -1;
	}
	lock_window(w, real_ms(), b->cfg.command_timeout_ms);
	snprintf(earliest, sizeof(earliest), "%lld", w->earliest_ms);
	snprintf(deadline, sizeof(deadline), "%lld", w->deadline_ms);
	res = pg_conn_read(b, "triggers", pg_sql_take, 5,
	    (const char *const[]){ lit, earliest, deadline, leases, tk->id }, &missing, e);
	free(lit);
	free(leases);
	if (res == NULL)
		return missing ? 0 : -1;	/* no tables: nothing asked */
	if (pq.ntuples(res) > 0)
		lock_offset_note(w, pg_conn_num(res, 0, 0, 0), real_ms());
	ok = pq.ntuples(res) > 0 && pg_conn_num(res, 0, 1, 0) == 1;
	for (size_t i = 0; i < n && !ok; i++)	/* outside the window: none taken */
		taken[i] = 2;
	for (int r = 0; ok && r < pq.ntuples(res); r++)
		for (size_t i = 0; !pq.getisnull(res, r, 2) && i < n; i++)
			if (strcmp(pq.getvalue(res, r, 2), k[i].trigger) == 0)
				taken[i] = 1;
	pq.clear(res);
	return 0;
}

int
pg_missed(struct lr_backend *b, const struct lr_keys *k, size_t n, const struct lr_missed *m,
    unsigned char *won, struct lr_err *e)
{
	const struct pg *g = b->impl;

	memset(won, 0, n);
	if (g->conn == NULL && pg_conn_open(b, b->cfg.connect_timeout_ms, e) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char ttl[NUM_MAX], cap[NUM_MAX], hist_ttl[NUM_MAX], pid[NUM_MAX];
		const char *params[] = { k[i].slot, k[i].last, k[i].missed, k[i].hist, ttl, cap,
		    hist_ttl, k[i].slot_iso, m[i].host, pid, m[i].at };
		PGresult *res;
		int missing;

		snprintf(ttl, sizeof(ttl), "%lld", m[i].slot_ttl_ms);
		snprintf(cap, sizeof(cap), "%lld", m[i].hist_cap);
		snprintf(hist_ttl, sizeof(hist_ttl), "%lld", m[i].hist_ttl_ms);
		snprintf(pid, sizeof(pid), "%lld", m[i].pid);
		/* no tables: no task ever ran here, none missed */
		if (m[i].take)
			res = pg_conn_read(b, "missed", pg_sql_drop, 7, (const char *const[]){
			    k[i].trigger, m[i].take, k[i].hist, cap, hist_ttl, m[i].host, pid },
			    &missing, e);
		else
			res = pg_conn_read(b, "missed", pg_sql_missed, 11, params, &missing, e);
		if (res == NULL) {
			if (missing)
				continue;
			return -1;
		}
		won[i] = pq.ntuples(res) == 1 ? (unsigned char)pg_conn_num(res, 0, 0, 0) : 0;
		pq.clear(res);
	}
	return 0;
}

/* One statement: the fields asked for, each row's value copied out (an
 * output from hex back to its bytes). A database with no lockrun_runs
 * yet keeps none. */
int
pg_stories(struct lr_backend *b, const struct lr_keys *k, const char *const *fields,
    size_t n, char **values, size_t *lens, struct lr_err *e)
{
	char *list = pg_sql_array(fields, n);
	const char *params[] = { k->runs, list };
	PGresult *res;
	int missing = 0, rc = 0;

	for (size_t i = 0; i < n; i++) {
		values[i] = NULL;
		lens[i] = 0;
	}
	if (list == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	res = pg_conn_read(b, "logs", pg_sql_stories, 2, params, &missing, e);
	free(list);
	if (res == NULL)
		return missing ? 0 : -1;
	if (pq.ntuples(res) != (int)n) {
		pq.clear(res);
		return lr_errf(e, EX_SOFTWARE, "postgres %s: logs: unexpected answer", b->where);
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *v = pg_conn_cell(res, (int)i, 1);

		if (v == NULL)
			continue;
		if ((values[i] = strdup(v)) == NULL)
			rc = lr_errf(e, EX_OSERR, "out of memory");
		else
			lens[i] = strncmp(fields[i], "o:", 2) == 0 ? pg_sql_unhex(values[i]) :
			    strlen(values[i]);
	}
	pq.clear(res);
	return rc;
}

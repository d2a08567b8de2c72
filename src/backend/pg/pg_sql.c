/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_sql.c -- the PostgreSQL backend's SQL, one statement per operation,
 * and the helpers that build its parameters; pure, libc only.
 *
 * Each statement is a chain of CTEs: the first, a, names the parameters
 * and reads the server's clock once; SELECT CTEs read the rows as the
 * statement's snapshot shows them and decide; data-modifying CTEs write,
 * each pulled in order by the CTE that reads its RETURNING rows, so the
 * order of the writes follows their data dependencies (PostgreSQL runs a
 * data-modifying CTE that nothing reads only after the main query). A
 * CTE that calls a volatile function (the advisory lock functions) is
 * computed once, however often it is read.
 *
 * Decisions that race with other sessions are taken again by the upsert
 * itself: INSERT ... ON CONFLICT DO UPDATE locks the newest version of a
 * row, committed after our snapshot or not, and evaluates its SET and
 * WHERE against that version. Two sessions that upsert rows of the same
 * task upsert the fence row first, which queues them, so they never wait
 * for each other in opposite orders. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/keys.h"
#include "backend/pg/pg_sql.h"

/* The server's clock. statement_timestamp() is fixed for a statement, so
 * every expiry a statement writes and every comparison it makes use the
 * same instant. */
#define NOW_MS	"floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint"
#define NOW_US	"floor(extract(epoch FROM statement_timestamp()) * 1000000)::bigint"
/* The clock as it reads when this is evaluated: after a wait for a row
 * lock, later than the statement's. */
#define CLOCK_MS	"floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

/* This server instance, as the boot column records it: a session lock
 * lives as long as its session and the instance's shared memory, and
 * that ends at a restart (the postmaster's start time changes) or at the
 * reinitialisation after a backend crashed (the start time stays, but
 * the statistics are discarded, which resets the bgwriter's). Numbers,
 * not timestamps as text, which would depend on the session's TimeZone.
 * It is recorded for whoever reads the table (which instance's session
 * lock backed the row); no statement decides by it: a row that has not
 * expired holds newcomers off whatever became of its session. */
#define BOOT	"extract(epoch FROM pg_postmaster_start_time())::text || ' ' || " \
	"coalesce(extract(epoch FROM pg_stat_get_bgwriter_stat_reset_time())::text, '-')"

/* A granted session lock on the bigint key (hi, lo) in this database (an
 * advisory lock belongs to one database): by any session, or by this one. */
#define LOCKED(hi, lo) \
	"EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database = " \
	"(SELECT oid FROM pg_database WHERE datname = current_database()) AND " \
	"classid = " hi " AND objid = " lo " AND objsubid = 1 AND granted"
#define LOCKED_ANY(hi, lo)	LOCKED(hi, lo) ")"
#define LOCKED_MINE(hi, lo)	LOCKED(hi, lo) " AND pid = pg_backend_pid())"

/* Two-int advisory keys ("lock", n) are apart from the bigint keys of
 * the tasks (pg_locks: objsubid 2, not 1). */
#define LR_PG_CLASS	"1819239275"
#define LR_PG_DDL	"1"
#define LR_PG_PRUNE	"2"

/* The next fencing token: one more than the last, or the server's clock
 * in microseconds when that is larger (acquire.lua). The fence row lives
 * a day after its last move. */
#define FENCE_UPSERT(from) \
	"INSERT INTO lockrun_keys AS t (k, v, expires_ms) " \
	"SELECT a.fence, a.now_us::text, a.now_ms + 86400000 FROM " from " " \
	"ON CONFLICT (k) DO UPDATE SET v = greatest(t.v::bigint + 1, excluded.v::bigint)::text, " \
	"expires_ms = excluded.expires_ms"

/* "host pid" of a holder's value "id token host pid start", or NULL. */
#define HOLDER_BY(v) \
	"CASE WHEN split_part(" v ", ' ', 4) <> '' THEN split_part(" v ", ' ', 3) || ' ' || " \
	"split_part(" v ", ' ', 4) END"
#define HOLDER_TOKEN(v)	"nullif(split_part(" v ", ' ', 2), '')"

/* Keep the newest cap entries of the history once one more was written
 * (when holds): the snapshot does not show the new one, so cap - 1 of
 * the others. Rows another session is deleting are skipped, not waited
 * for. */
#define TRIM(when) \
	"ht AS (DELETE FROM lockrun_history WHERE id IN (SELECT t.id FROM lockrun_history t, a " \
	"WHERE " when " AND t.k = a.hist ORDER BY t.id DESC " \
	"OFFSET (SELECT greatest(cap - 1, 0) FROM a) " \
	"FOR UPDATE OF t SKIP LOCKED)), "

/* The task's counters (ops.h, record.h) count the decision the statement
 * records, event ev with exit status st (SQL expressions), in the same
 * statement: no round trip of their own. The row lives as long as the
 * history, hist_ttl after its last write, so a counter never resets while
 * the task runs; an expired row starts again from 0. A lost run is
 * counted as lost, not failed; a timeout is a failure too; a slot its
 * condition skipped (skipped-condition) is neither. */
#define COUNT_ADD(c) \
	c " = CASE WHEN t.expires_ms > (SELECT now_ms FROM a) THEN t." c " ELSE 0 END + " \
	"excluded." c
#define COUNT(ev, st, from)	COUNT_MORE(ev, st, "", "", "", from)
/* ...and a release adds its run's retries (col, val, and set: the counter
 * the others' statements leave to its default, 0) */
#define COUNT_MORE(ev, st, col, val, set, from) \
	"cw AS (INSERT INTO lockrun_counts AS t (k, expires_ms, runs, skipped_held, " \
	"skipped_slot, failures, lost, timeouts" col ") SELECT a.counts, a.now_ms + " \
	"a.hist_ttl, (" ev " IN ('ran', 'triggered'))::int, (" ev " = 'skipped-held')::int, " \
	"(" ev " = 'skipped-slot')::int, " \
	"(" ev " NOT IN ('ran', 'triggered', 'skipped-held', 'skipped-slot', 'lost', " \
	"'skipped-condition') " \
	"AND coalesce(" st ", '0') <> '0')::int, (" ev " = 'lost')::int, " \
	"(" ev " = 'stopped-timeout')::int" val " FROM " from " " \
	"ON CONFLICT (k) DO UPDATE SET " COUNT_ADD("runs") ", " COUNT_ADD("skipped_held") ", " \
	COUNT_ADD("skipped_slot") ", " COUNT_ADD("failures") ", " COUNT_ADD("lost") ", " \
	COUNT_ADD("timeouts") set ", expires_ms = excluded.expires_ms), "

/* One end entry per run (release.lua's first_end()): the first statement
 * to record the end of token tok's run (from: FROM list and WHERE) writes
 * the row <ended>:<tok> (a day, or the history's ttl if shorter); one that
 * finds it live records and counts nothing (fe.yes false). */
#define ENDED(tok, from) \
	"ew AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms) SELECT a.ended || ':' || " tok \
	", 'ended', a.now_ms + least(a.hist_ttl, 86400000) FROM " from " AND coalesce(" tok \
	", '') <> '' ON CONFLICT (k) DO UPDATE SET expires_ms = excluded.expires_ms WHERE " \
	"t.expires_ms <= (SELECT now_ms FROM a) RETURNING 1), fe AS (SELECT EXISTS (SELECT 1 " \
	"FROM ew) OR coalesce(" tok ", '') = '' AS yes FROM a), "

/* Expired rows go, at most 100 of each table a statement, never one this
 * statement writes (keys, last: its own; a.counts). One session prunes at a time:
 * the gate is a transaction-level advisory lock taken without waiting.
 * The prune skips rows other sessions hold rather than wait for them;
 * with one pruner and no waiting, two statements never deadlock over each
 * other's expired rows. */
#define PRUNE(keys, last) \
	"gate AS (SELECT pg_try_advisory_xact_lock(" LR_PG_CLASS ", " LR_PG_PRUNE ") AS ok), " \
	"pk AS (DELETE FROM lockrun_keys WHERE k IN (SELECT t.k FROM lockrun_keys t, a, gate " \
	"WHERE gate.ok AND t.expires_ms < a.now_ms AND t.k NOT IN (" keys ") LIMIT 100 " \
	"FOR UPDATE OF t SKIP LOCKED)), " \
	"pl AS (DELETE FROM lockrun_last WHERE k IN (SELECT t.k FROM lockrun_last t, a, gate " \
	"WHERE gate.ok AND t.expires_ms < a.now_ms AND t.k <> " last " LIMIT 100 " \
	"FOR UPDATE OF t SKIP LOCKED)), " \
	"ph AS (DELETE FROM lockrun_history WHERE id IN (SELECT t.id FROM lockrun_history t, a, " \
	"gate WHERE gate.ok AND t.expires_ms < a.now_ms LIMIT 100 FOR UPDATE OF t SKIP LOCKED)), " \
	"pc AS (DELETE FROM lockrun_counts WHERE k IN (SELECT t.k FROM lockrun_counts t, a, gate " \
	"WHERE gate.ok AND t.expires_ms < a.now_ms AND t.k <> a.counts LIMIT 100 " \
	"FOR UPDATE OF t SKIP LOCKED)) "

/* Concurrent CREATE TABLE IF NOT EXISTS of one table can fail on the
 * catalog's unique index: the first run of ten racers on an empty
 * database would. The advisory lock queues them for the transaction.
 * k is COLLATE "C": keys are compared as bytes, and a LIKE prefix can
 * use the index. Every column the other statements read is here; a
 * DBA may create the tables beforehand from this text. A table added by a
 * later lockrun (lockrun_counts, lockrun_runs) is created the same way: the first
 * statement that writes to it finds it missing; a column added later
 * (attempt, retries, reason) by the ALTERs, when a release finds it missing
 * (undefined_column): instant, a nullable column or a constant default. */
const char pg_sql_ddl[] =
	"SELECT pg_advisory_xact_lock(" LR_PG_CLASS ", " LR_PG_DDL ");\n"
	"CREATE TABLE IF NOT EXISTS lockrun_keys (\n"
	"    k           text COLLATE \"C\" PRIMARY KEY,\n"
	"    v           text NOT NULL,\n"
	"    expires_ms  bigint,          -- the server's clock, ms; NULL: never\n"
	"    boot        varchar(64)      -- stable key: the instance whose session\n"
	");                               -- lock backs it, or 'released'\n"
	"CREATE INDEX IF NOT EXISTS lockrun_keys_expires ON lockrun_keys (expires_ms);\n"
	"CREATE TABLE IF NOT EXISTS lockrun_history (\n"
	"    id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,\n"
	"    k           text COLLATE \"C\" NOT NULL,\n"
	"    at_ms       bigint NOT NULL,\n"
	"    expires_ms  bigint NOT NULL,\n"
	"    event text, host text, pid text, slot text, token text, holder text,\n"
	"    status text, duration_ms text, attempt text, reason text\n"
	");\n"
	"ALTER TABLE lockrun_history ADD COLUMN IF NOT EXISTS attempt text;\n"
	"ALTER TABLE lockrun_history ADD COLUMN IF NOT EXISTS reason text;\n"
	"CREATE INDEX IF NOT EXISTS lockrun_history_k ON lockrun_history (k, id);\n"
	"CREATE INDEX IF NOT EXISTS lockrun_history_expires ON lockrun_history (expires_ms);\n"
	"CREATE TABLE IF NOT EXISTS lockrun_last (\n"
	"    k           text COLLATE \"C\" PRIMARY KEY,\n"
	"    expires_ms  bigint NOT NULL,\n"
	"    event text, host text, pid text, slot text, token text,\n"
	"    start_ms text, end_ms text, status text, duration_ms text, success_ms text,\n"
	"    reason text\n"
	");\n"
	"ALTER TABLE lockrun_last ADD COLUMN IF NOT EXISTS reason text;\n"
	"CREATE INDEX IF NOT EXISTS lockrun_last_expires ON lockrun_last (expires_ms);\n"
	"CREATE TABLE IF NOT EXISTS lockrun_counts (\n"
	"    k           text COLLATE \"C\" PRIMARY KEY,\n"
	"    expires_ms  bigint NOT NULL,\n"
	"    runs bigint NOT NULL, skipped_held bigint NOT NULL, skipped_slot bigint NOT NULL,\n"
	"    failures bigint NOT NULL, lost bigint NOT NULL, timeouts bigint NOT NULL,\n"
	"    retries bigint NOT NULL DEFAULT 0\n"
	");\n"
	"ALTER TABLE lockrun_counts ADD COLUMN IF NOT EXISTS\n"
	"    retries bigint NOT NULL DEFAULT 0;\n"
	"CREATE INDEX IF NOT EXISTS lockrun_counts_expires ON lockrun_counts (expires_ms);\n"
	"CREATE TABLE IF NOT EXISTS lockrun_runs (\n"
	"    id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,\n"
	"    k           text COLLATE \"C\" NOT NULL,  -- prefix{task}:runs\n"
	"    token       text NOT NULL,   -- the run's fencing token: its id\n"
	"    failed      boolean NOT NULL,\n"
	"    header      text NOT NULL,   -- \"name value\" lines\n"
	"    output      bytea NOT NULL,  -- its output's end, \"<1|2>line\\n\" each\n"
	"    end_ms      bigint NOT NULL,\n"
	"    expires_ms  bigint NOT NULL\n"
	");\n"
	"CREATE INDEX IF NOT EXISTS lockrun_runs_k ON lockrun_runs (k, failed, id);\n"
	"CREATE INDEX IF NOT EXISTS lockrun_runs_expires ON lockrun_runs (expires_ms);\n";

/* acquire.lua. $1 stable key, $2 slot key ("" when one-server is off),
 * $3 fence, $4 history, $5 last run, $6 session lock id, $7 stable ttl
 * (0: no-overlap off), $8 slot ttl (0: one-server off), $9 history cap,
 * $10 history ttl, $11 owner id, $12 "host pid start", $13 host, $14
 * pid, $15 slot ISO ("" none), $16 record a held lock, $17 counters, $18
 * earliest and $19 deadline (the client's window, lock.h: 0 0 none), $20
 * the client's clock when it sent this, $21 the clock tolerance (0: no
 * check), $22 the pause key, $23 the event a run is recorded as ("ran",
 * "triggered"), $24 the trigger key and $25 the take's mark of a triggered
 * run a scheduler started ("" "": none): an acquire that decides (1, 0
 * or 6) deletes the trigger row if it still holds that mark (take.lua,
 * acquire.lua).
 * Returns one row: code (1 acquired, 0 held, 2 slot taken, 4 outside the
 * window, 5 the clocks differ by more than the tolerance on a slot claim:
 * for 4 and 5 nothing is written; 6 paused: a pause row that has not
 * expired, "skipped-paused" recorded, nothing taken), token, holder (our
 * value when acquired; the pause's when paused), whether the session lock
 * was let go, and the server's clock (ms), for the client's offset.
 * - w: the clock check, then the window, by the statement's clock
 *   (statement_timestamp(): when the server began it, however long it
 *   waited in a socket or behind a stopped backend).
 * - took, mine: the window again by clock_timestamp(), read from the
 *   fence upsert's row (so after it, not before: a condition on a alone
 *   would be checked as a is read), since that upsert may have waited for
 *   another transaction's row lock: a request whose client gave up
 *   meanwhile writes no key, history or count.
 * - lk: the lease decides: a stable row that has not expired is a holder,
 *   whatever became of the session that wrote it (killed, cut off, gone
 *   with a restart: its command may still run until its lease ends, and
 *   is stopped before then), without asking for the session lock; else
 *   the session lock, which a live holder's session keeps.
 * - st: the stable row is written only if its newest version has expired:
 *   a run or a release with keep_ms that committed after our snapshot
 *   wins.
 * - sw: the slot row keeps its value while it lives; RETURNING shows who
 *   holds it, ours or the racer's that committed first.
 * - the session lock is let go in the main query, after the writes, when
 *   the run does not go ahead; while a lease is held the session ends
 *   after ttl without a statement (idle_session_timeout, PostgreSQL 14+),
 *   so a holder that vanished without closing its connection (a host
 *   gone, a frozen network) frees the lock as a Redis TTL would. A
 *   session that holds many runs' locks (a scheduler's) keeps the longest
 *   ttl it was given (lockrun.idle_ms), so that the renewals of a lock with
 *   a long one, a third of it apart, never leave it idle past its timeout. */
const char pg_sql_acquire[] =
	"WITH a AS (SELECT $1::text AS stable, $2::text AS slot, $3::text AS fence, "
	"$4::text AS hist, $5::text AS last, $6::bigint AS lockid, $7::bigint AS ttl, "
	"$8::bigint AS slot_ttl, $9::bigint AS cap, $10::bigint AS hist_ttl, $11::text AS id, "
	"$12::text AS owner, $13::text AS host, $14::text AS pid, nullif($15::text, '') AS slot_iso, "
	"$16::boolean AS say_held, $17::text AS counts, $18::bigint AS earliest, "
	"$19::bigint AS deadline, $20::bigint AS client, $21::bigint AS clock_tol, "
	"$22::text AS pause, $23::text AS ran, $24::text AS trig, $25::text AS take, "
	NOW_MS " AS now_ms, " NOW_US " AS now_us, " BOOT " AS boot), "
	"pz AS (SELECT t.v FROM lockrun_keys t, a WHERE t.k = a.pause AND "
	"coalesce(t.expires_ms > a.now_ms, true)), "
	"w AS (SELECT CASE WHEN a.slot_ttl > 0 AND a.clock_tol > 0 AND "
	"abs(a.now_ms - a.client) > a.clock_tol THEN 5 WHEN a.deadline > 0 AND "
	"(a.now_ms > a.deadline OR a.now_ms < a.earliest) THEN 4 "
	"WHEN EXISTS (SELECT 1 FROM pz) THEN 6 ELSE 0 END AS refused FROM a), "
	"cur AS (SELECT t.v, t.boot, t.expires_ms FROM lockrun_keys t, a WHERE t.k = a.stable), "
	"lk AS (SELECT CASE WHEN w.refused <> 0 THEN false WHEN a.ttl = 0 THEN true WHEN EXISTS (SELECT 1 FROM cur "
	"WHERE cur.expires_ms > a.now_ms) THEN false "
	"ELSE pg_try_advisory_lock(a.lockid) END AS got FROM a, w), "
	"sl AS (SELECT t.v FROM lockrun_keys t, a WHERE a.slot_ttl > 0 AND t.k = a.slot "
	"AND t.expires_ms > a.now_ms), "
	"go AS (SELECT 1 FROM lk WHERE lk.got AND NOT EXISTS (SELECT 1 FROM sl)), "
	"fence AS (" FENCE_UPSERT("a, go") " RETURNING t.v AS token), "
	"took AS (SELECT fence.token, floor(extract(epoch FROM clock_timestamp()) * 1000) "
	"AS at_ms FROM fence), "
	"mine AS (SELECT took.token, a.id || ' ' || took.token || ' ' || a.owner AS v "
	"FROM a, took WHERE a.deadline = 0 OR took.at_ms <= a.deadline), "
	"st AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms, boot) "
	"SELECT a.stable, mine.v, a.now_ms + a.ttl, a.boot FROM a, mine WHERE a.ttl > 0 "
	"ON CONFLICT (k) DO UPDATE SET v = excluded.v, expires_ms = excluded.expires_ms, "
	"boot = excluded.boot WHERE t.expires_ms <= (SELECT now_ms FROM a) RETURNING t.v), "
	"sw AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms) "
	"SELECT a.slot, mine.v, a.now_ms + a.slot_ttl FROM a, mine "
	"WHERE a.slot_ttl > 0 AND (a.ttl = 0 OR EXISTS (SELECT 1 FROM st)) "
	"ON CONFLICT (k) DO UPDATE SET "
	"v = CASE WHEN t.expires_ms <= (SELECT now_ms FROM a) THEN excluded.v ELSE t.v END, "
	"expires_ms = CASE WHEN t.expires_ms <= (SELECT now_ms FROM a) "
	"THEN excluded.expires_ms ELSE t.expires_ms END RETURNING t.v), "
	"r AS (SELECT lk.got, (SELECT v FROM cur) AS cur_v, (SELECT v FROM sl) AS sl_v, "
	"(SELECT token FROM mine) AS token, (SELECT v FROM mine) AS mine_v, "
	"(SELECT v FROM st) AS st_v, (SELECT v FROM sw) AS sw_v FROM lk), "
	"o AS (SELECT r.*, CASE WHEN w.refused <> 0 THEN w.refused WHEN NOT r.got THEN 0 "
	"WHEN r.sl_v IS NOT NULL THEN 2 WHEN r.mine_v IS NULL THEN 4 "
	"WHEN a.ttl > 0 AND r.st_v IS NULL THEN 0 "
	"WHEN a.slot_ttl > 0 AND r.sw_v IS DISTINCT FROM r.mine_v THEN 2 ELSE 1 END AS code "
	"FROM r, a, w), "
	"h AS (SELECT o.*, CASE o.code WHEN 1 THEN o.mine_v WHEN 0 THEN coalesce(o.cur_v, '?') "
	"WHEN 6 THEN (SELECT v FROM pz) "
	"ELSE coalesce(o.sl_v, o.sw_v, '?') END AS holder FROM o), "
	"tg AS (DELETE FROM lockrun_keys t USING a, h WHERE h.code IN (0, 1, 6) AND a.take <> '' "
	"AND t.k = a.trig AND split_part(t.v, ' ', 5) = a.take), "
	"ev AS (SELECT CASE h.code WHEN 1 THEN a.ran WHEN 0 THEN 'skipped-held' "
	"WHEN 6 THEN 'skipped-paused' ELSE 'skipped-slot' END AS event, "
	"CASE WHEN h.code = 1 THEN h.token WHEN h.code <> 6 THEN " HOLDER_TOKEN("h.holder")
	" END AS token, CASE WHEN h.code = 6 THEN split_part(h.holder, ' ', 3) || ' ' || "
	"split_part(h.holder, ' ', 4) WHEN h.code <> 1 THEN " HOLDER_BY("h.holder") " END AS by "
	"FROM h, a WHERE a.cap > 0 AND h.code IN (0, 1, 2, 6) AND (h.code <> 0 OR a.say_held)), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot, "
	"token, holder) SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, ev.event, a.host, a.pid, "
	"a.slot_iso, ev.token, ev.by FROM a, ev RETURNING 1), "
	TRIM("EXISTS (SELECT 1 FROM hw)")
	COUNT("ev.event", "NULL", "a, ev")
	"lw AS (INSERT INTO lockrun_last AS t (k, expires_ms, event, host, pid, slot, token, "
	"start_ms) SELECT a.last, a.now_ms + a.hist_ttl, 'running', a.host, a.pid, a.slot_iso, "
	"h.token, a.now_ms::text FROM a, h WHERE a.cap > 0 AND h.code = 1 "
	"ON CONFLICT (k) DO UPDATE SET expires_ms = excluded.expires_ms, event = excluded.event, "
	"host = excluded.host, pid = excluded.pid, slot = excluded.slot, token = excluded.token, "
	"start_ms = excluded.start_ms, end_ms = NULL, status = NULL, duration_ms = NULL, "

	"success_ms = CASE WHEN t.expires_ms > (SELECT now_ms FROM a) THEN t.success_ms END), "
	PRUNE("a.stable, a.slot, a.fence", "a.last")
	"SELECT h.code, h.token, h.holder, "
	"CASE WHEN h.code <> 1 AND a.ttl > 0 AND h.got THEN pg_advisory_unlock(a.lockid) END, "
	"CASE WHEN h.code = 1 AND a.ttl > 0 AND "
	"current_setting('server_version_num')::int >= 140000 THEN "
	"set_config('idle_session_timeout', set_config('lockrun.idle_ms', "
	"greatest(least(a.ttl, 2147483647), coalesce(nullif(current_setting("
	"'lockrun.idle_ms', true), '')::bigint, 0))::text, false), false) END, "
	"a.now_ms FROM h, a";

/* After an acquire the server refused part way, the session in order (a
 * constraint, a type error, a trigger's exception on one task's row): its
 * writes were rolled back, but a session lock is not transactional, and it
 * may have taken its key's in lk before the failing write, or kept it in
 * its main query (code 1) before a write that runs after that one failed.
 * It takes it at most once, and only when no stable row that has not
 * expired was there, which the rollback leaves as it was: so the lock is
 * let go once when this session holds it and no such row backs it; a run
 * of this session's with a live lease keeps its own. $1 the session lock
 * id, $2 its high and $3 low half, $4 the stable key. Returns one row:
 * whether a lock was let go. */
const char pg_sql_acquire_undo[] =
	"SELECT coalesce((SELECT pg_advisory_unlock($1::bigint) WHERE "
	LOCKED_MINE("$2::oid", "$3::oid") " AND NOT EXISTS (SELECT 1 FROM lockrun_keys t "
	"WHERE t.k = $4::text AND coalesce(t.expires_ms > " NOW_MS ", true))), false)";

/* After a release the server refused part way: the run is over whatever
 * became of its rows, so its session lock goes, once, if the statement
 * did not let it go before it failed. $1 the session lock id, $2 its high
 * and $3 low half. Returns one row: whether a lock was let go. */
const char pg_sql_release_undo[] =
	"SELECT coalesce((SELECT pg_advisory_unlock($1::bigint) WHERE "
	LOCKED_MINE("$2::oid", "$3::oid") "), false)";

/* renew.lua. $1 stable key, $2 fence, $3 history, $4 last run, $5
 * session lock id, $6 its high and $7 low half, $8 our value, $9 ttl,
 * $10 history cap, $11 history ttl, $12 host, $13 pid, $14 slot ISO, $15
 * our token, $16 counters, $17 the deadline (the server's clock, ms; 0
 * none): past it the client has given up on this renewal, so it changes
 * nothing -- checked by the statement's clock, and again by the clock
 * once the row is locked (the update may have waited for another
 * transaction's row lock); $18 the ended rows' prefix (ENDED: a loss
 * is recorded once per run).
 * Returns one row: code 4 past the deadline: nothing written; 1 renewed; 2 the row had gone (pruned after it
 * expired) and no later token was drawn, while this session still holds
 * the lock: ours again; 0 lost: this session no longer holds the lock
 * (a new connection), or another value is in the row; 3 lost later: the
 * row holds our tombstone, 'unlocked:' || our value (lockrun unlock), or
 * went and a later token was drawn. Then the holder ("host pid ..."
 * value, when another's). The session lock is kept: the run's release
 * lets it go (and deletes our tombstone) once the command's tree is gone.
 * Renewing stamps the row with this instance (boot, for display). Last,
 * the server's clock (ms), which the client reads again. */
const char pg_sql_renew[] =
	"WITH a AS (SELECT $1::text AS stable, $2::text AS fence, $3::text AS hist, "
	"$4::text AS last, $5::bigint AS lockid, $6::oid AS hi, $7::oid AS lo, $8::text AS value, "
	"$9::bigint AS ttl, $10::bigint AS cap, $11::bigint AS hist_ttl, $12::text AS host, "
	"$13::text AS pid, nullif($14::text, '') AS slot_iso, $15::bigint AS token, "
	"$16::text AS counts, $17::bigint AS deadline, $18::text AS ended, " NOW_MS " AS now_ms, "
	BOOT " AS boot), "
	"held AS (SELECT " LOCKED_MINE("a.hi", "a.lo") " AS ok FROM a), "
	"cur AS (SELECT t.v FROM lockrun_keys t, a WHERE t.k = a.stable), "
	"d AS (SELECT CASE WHEN a.deadline > 0 AND a.now_ms > a.deadline THEN 4 "
	"WHEN NOT held.ok THEN 0 WHEN (SELECT v FROM cur) = a.value THEN 1 "
	"WHEN (SELECT v FROM cur) = 'unlocked:' || a.value THEN 3 "
	"WHEN (SELECT v FROM cur) IS NOT NULL THEN 0 "
	"WHEN coalesce((SELECT t.v::bigint FROM lockrun_keys t WHERE t.k = a.fence), 0) > a.token "
	"THEN 3 ELSE 2 END AS code FROM held, a), "
	"ext AS (UPDATE lockrun_keys t SET expires_ms = a.now_ms + a.ttl, boot = a.boot FROM a, d "
	"WHERE d.code = 1 AND t.k = a.stable AND t.v = a.value "
	"AND (a.deadline = 0 OR " CLOCK_MS " <= a.deadline) RETURNING 1), "
	"back AS (INSERT INTO lockrun_keys (k, v, expires_ms, boot) "
	"SELECT a.stable, a.value, a.now_ms + a.ttl, a.boot FROM a, d WHERE d.code = 2 "
	"AND (a.deadline = 0 OR " CLOCK_MS " <= a.deadline) "
	"ON CONFLICT (k) DO NOTHING RETURNING 1), "
	"fw AS (INSERT INTO lockrun_keys AS t (k, v, expires_ms) "
	"SELECT a.fence, a.token::text, a.now_ms + 86400000 FROM a, d WHERE d.code = 2 "
	"ON CONFLICT (k) DO UPDATE SET v = greatest(t.v::bigint, excluded.v::bigint)::text, "
	"expires_ms = excluded.expires_ms), "
	"r AS (SELECT CASE WHEN d.code IN (1, 2) AND NOT EXISTS (SELECT 1 FROM ext) AND "
	"NOT EXISTS (SELECT 1 FROM back) AND a.deadline > 0 AND " CLOCK_MS " > a.deadline "
	"THEN 4 WHEN d.code = 1 AND NOT EXISTS (SELECT 1 FROM ext) THEN 3 "
	"WHEN d.code = 2 AND NOT EXISTS (SELECT 1 FROM back) THEN 0 ELSE d.code END AS code, "
	"(SELECT v FROM cur WHERE v <> a.value AND v <> 'unlocked:' || a.value) AS holder "
	"FROM d, a), "
	ENDED("a.token::text", "a, r WHERE a.cap > 0 AND r.code IN (0, 3)")
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot, "
	"token, holder) SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, 'lost', a.host, a.pid, "
	"a.slot_iso, a.token::text, " HOLDER_BY("r.holder") " FROM a, r, fe "
	"WHERE a.cap > 0 AND r.code IN (0, 3) AND fe.yes RETURNING 1), "
	TRIM("EXISTS (SELECT 1 FROM hw)")
	COUNT("'lost'", "NULL", "a, r, fe WHERE a.cap > 0 AND r.code IN (0, 3) AND fe.yes")
	"lw AS (UPDATE lockrun_last t SET event = 'lost', end_ms = a.now_ms::text, "
	"expires_ms = a.now_ms + a.hist_ttl FROM a, r, fe WHERE a.cap > 0 AND r.code IN (0, 3) "
	"AND fe.yes AND t.k = a.last AND t.token = a.token::text AND t.event = 'running' "
	"AND t.expires_ms > a.now_ms) "
	"SELECT r.code, r.holder, a.now_ms FROM r, a";

/* release.lua. $1 stable key, $2 history, $3 last run, $4 session lock
 * id, $5 its high and $6 low half, $7 our value, $8 keep ms (-1: no
 * stable key, 0: delete the row, more: keep it that long, boot
 * 'released', which newcomers respect as a lease, but not past $19 by the
 * server's clock when $19 is not 0: a release that ran late never
 * extends the hold), $9 exit status, $10 duration ms, $11 event, $12
 * history cap, $13 history ttl, $14 host, $15 pid, $16 slot ISO, $17 our
 * token, $18 counters, $20 the command's last attempt (0: it never
 * started; the entry's attempt, and retries counts all but the first).
 * $11 NULL: free only, record nothing (after a lost lock, whose loss the
 * keep-alive recorded); nor when this run's end is recorded already ($21
 * the ended rows' prefix, ENDED): a release sent again after its first
 * went unanswered and ran after all. $22 the runs' stories key, $23 and
 * $24 how many stories of successes and of failures the task keeps, $25
 * the reason in words ("" none: the last-run record's is cleared), $26
 * the output's end (bytea, pg_sql_bytea()): a run whose command started
 * (attempt) and that recorded its end, or was lost (the keep-alive
 * recorded that end), keeps its story in lockrun_runs,
 * a row of the header release.lua's keep_story() writes and the output,
 * and the oldest rows of its kind past the number kept go, in this same
 * statement (the snapshot does not show the new row: keep - 1 of the
 * others stay); each row lives as long as a history entry. The last-run
 * row takes the end; after a loss the keep-alive recorded ('lost'), the
 * status and reason it could not know, for status to say.
 * Returns one row: 1 when the row was ours (kept or deleted), else 0; and
 * whether the session lock was let go. Our tombstone ('unlocked:' || our
 * value, lockrun unlock's) is deleted, never kept. The row is written
 * before the lock is let go in the main query; a newcomer that takes the
 * lock before we commit waits for the row and sees the newest version (st
 * in pg_sql_acquire). After a reconnect this session holds no lock: the
 * rows are still written. */
const char pg_sql_release[] =
	"WITH a AS (SELECT $1::text AS stable, $2::text AS hist, $3::text AS last, "
	"$4::bigint AS lockid, $5::oid AS hi, $6::oid AS lo, $7::text AS value, "
	"CASE WHEN $8::bigint > 0 AND $19::bigint > 0 THEN greatest($19::bigint - " NOW_MS ", 0) "
	"ELSE $8::bigint END AS keep, $9::text AS status, $10::text AS duration, $11::text AS event, $12::bigint AS cap, "
	"$13::bigint AS hist_ttl, $14::text AS host, $15::text AS pid, "
	"nullif($16::text, '') AS slot_iso, $17::text AS token, $18::text AS counts, "
	NOW_MS " AS now_ms, $20::bigint AS attempt, $21::text AS ended, $22::text AS runs, "
	"$23::bigint AS keep_ok, $24::bigint AS keep_failed, $25::text AS reason, "
	"$26::bytea AS output), "
	"sk AS (SELECT a.event <> 'released' OR a.status <> '0' AS failed FROM a), "
	"sn AS (SELECT sk.failed, CASE WHEN sk.failed THEN a.keep_failed ELSE a.keep_ok END "
	"AS keep FROM a, sk), "
	ENDED("a.token", "a WHERE a.cap > 0 AND a.event IS NOT NULL")
	"kept AS (UPDATE lockrun_keys t SET expires_ms = a.now_ms + a.keep, boot = 'released' "
	"FROM a WHERE a.keep > 0 AND t.k = a.stable AND t.v = a.value RETURNING 1), "
	"gone AS (DELETE FROM lockrun_keys t USING a WHERE a.keep >= 0 AND t.k = a.stable "
	"AND ((a.keep = 0 AND t.v = a.value) OR t.v = 'unlocked:' || a.value) RETURNING 1), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot, token, "
	"status, duration_ms, attempt, reason) SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, "
	"a.event, a.host, a.pid, a.slot_iso, a.token, a.status, a.duration, "
	"nullif(a.attempt, 0)::text, nullif(a.reason, '') FROM a, fe WHERE a.cap > 0 AND a.event IS NOT NULL AND fe.yes RETURNING 1), "
	TRIM("EXISTS (SELECT 1 FROM hw)")
	COUNT_MORE("a.event", "a.status", ", retries", ", greatest(a.attempt - 1, 0)",
	", " COUNT_ADD("retries"), "a, fe WHERE a.cap > 0 AND a.event IS NOT NULL AND fe.yes")
	"rw AS (INSERT INTO lockrun_runs (k, token, failed, header, output, end_ms, expires_ms) "
	"SELECT a.runs, a.token, sn.failed, 'event ' || a.event || '\nhost ' || a.host || "
	"'\npid ' || a.pid || '\nslot ' || coalesce(a.slot_iso, '') || '\nattempt ' || "
	"a.attempt || '\nstatus ' || a.status || '\nduration_ms ' || a.duration || "
	"'\nend_ms ' || a.now_ms || '\nreason ' || a.reason, a.output, a.now_ms, "
	"a.now_ms + a.hist_ttl FROM a, fe, sn WHERE a.cap > 0 AND a.event IS NOT NULL AND (fe.yes "
	"OR (a.event = 'lost' AND NOT EXISTS (SELECT 1 FROM lockrun_runs t WHERE t.k = a.runs "
	"AND t.token = a.token))) AND a.attempt > 0 AND sn.keep > 0 AND coalesce(a.token, '') <> '' RETURNING 1), "
	"rt AS (DELETE FROM lockrun_runs WHERE id IN (SELECT t.id FROM lockrun_runs t, a, sn "
	"WHERE EXISTS (SELECT 1 FROM rw) AND t.k = a.runs AND t.failed = sn.failed "
	"ORDER BY t.id DESC OFFSET (SELECT greatest(keep - 1, 0) FROM sn) "
	"FOR UPDATE OF t SKIP LOCKED)), "
	"lw AS (UPDATE lockrun_last t SET event = a.event, status = a.status, "
	"reason = nullif(a.reason, ''), "
	"duration_ms = a.duration, end_ms = a.now_ms::text, success_ms = CASE WHEN "
	"a.event = 'released' AND a.status = '0' THEN a.now_ms::text ELSE t.success_ms END, "
	"expires_ms = a.now_ms + a.hist_ttl FROM a WHERE a.cap > 0 AND a.event IS NOT NULL "
	"AND t.k = a.last AND t.token = a.token AND (t.event = 'running' OR "
	"(a.event = 'lost' AND t.event = 'lost')) AND t.expires_ms > a.now_ms), "
	PRUNE("a.stable, a.ended || ':' || coalesce(a.token, '')", "a.last") ", "
	"pr AS (DELETE FROM lockrun_runs WHERE id IN (SELECT t.id FROM lockrun_runs t, a, gate "
	"WHERE gate.ok AND t.expires_ms < a.now_ms LIMIT 100 FOR UPDATE OF t SKIP LOCKED)), "
	"n AS (SELECT (SELECT count(*) FROM kept) + (SELECT count(*) FROM gone) AS n) "
	"SELECT n.n, CASE WHEN a.keep >= 0 AND " LOCKED_MINE("a.hi", "a.lo") " "
	"THEN pg_advisory_unlock(a.lockid) END FROM n, a";

/* release.lua's event "hook": $1 the stories' key, $2 the run's token,
 * $3 a hook's section of its story (bytea, pg_sql_bytea()), added to the
 * end of the output of the run's row while it is kept. One row for each
 * row changed. */
const char pg_sql_story_hook[] =
	"UPDATE lockrun_runs SET output = output || $3::bytea WHERE k = $1::text "
	"AND token = $2::text AND expires_ms > " NOW_MS " RETURNING 1";

/* unlock.lua. $1 the key to free (stable or slot key), $2 fence, $3
 * history, $4 last run, $5 whether $1 is the stable key, $6 and $7 the
 * halves of its session lock id, $8 the value the operator agreed to
 * free, $9 history cap, $10 history ttl, $11 host and $12 pid of who
 * unlocks, $13 slot ISO of a slot key ("" for the stable key).
 * Returns one row: code (1 freed, 0 free, 2 another value now, 3
 * tombstoned) and the value found. A stable key is live while its
 * session lock is held by anyone or its row has not expired; a slot key
 * while it has not expired.
 * A running holder's stable row is not deleted (a newcomer would run
 * beside its command): its value becomes the tombstone 'unlocked:' ||
 * value, keeping its expiry, which holds newcomers off as the lease did.
 * The holder's next keep-alive finds its tombstone (lost later) and stops
 * its command; its release then deletes the tombstone and lets the
 * session lock go (lockrun does not kill sessions). A row that is a
 * tombstone already, a --min-hold row (boot 'released') and a slot row
 * have no command behind them: deleted at once. Either way the fence
 * moves past the holder's token; it is locked before the key's row, in
 * the order acquire locks them. */
const char pg_sql_unlock[] =
	"WITH a AS (SELECT $1::text AS key, $2::text AS fence, $3::text AS hist, "
	"$4::text AS last, $5::boolean AS stable, $6::oid AS hi, $7::oid AS lo, "
	"$8::text AS expect, $9::bigint AS cap, $10::bigint AS hist_ttl, $11::text AS host, "
	"$12::text AS pid, nullif($13::text, '') AS slot_iso, " NOW_MS " AS now_ms, "
	NOW_US " AS now_us), "
	"used AS (SELECT a.stable AND " LOCKED_ANY("a.hi", "a.lo") " AS yes FROM a), "
	"d AS (SELECT t.v, CASE WHEN t.v IS NULL THEN 0 WHEN t.v <> a.expect THEN 2 "
	"WHEN a.stable AND t.boot IS DISTINCT FROM 'released' "
	"AND left(t.v, 9) <> 'unlocked:' THEN 3 ELSE 1 END AS code "
	"FROM a CROSS JOIN used LEFT JOIN lockrun_keys t ON t.k = a.key "
	"AND (used.yes OR coalesce(t.expires_ms > a.now_ms, true))), "
	"fence AS (" FENCE_UPSERT("a, d WHERE d.code IN (1, 3)") " RETURNING 1), "
	"gone AS (DELETE FROM lockrun_keys t USING a, d WHERE EXISTS (SELECT 1 FROM fence) "
	"AND d.code = 1 AND t.k = a.key AND t.v = a.expect RETURNING t.v), "
	"tomb AS (UPDATE lockrun_keys t SET v = 'unlocked:' || t.v FROM a, d "
	"WHERE EXISTS (SELECT 1 FROM fence) AND d.code = 3 AND t.k = a.key "
	"AND t.v = a.expect RETURNING a.expect AS v), "
	"done AS (SELECT v FROM gone UNION ALL SELECT v FROM tomb), "
	"hw AS (INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot, "
	"token, holder) SELECT a.hist, a.now_ms, a.now_ms + a.hist_ttl, 'unlocked', a.host, "
	"a.pid, a.slot_iso, " HOLDER_TOKEN("done.v") ", " HOLDER_BY("done.v") " "
	"FROM a, done WHERE a.cap > 0 RETURNING 1), "
	TRIM("EXISTS (SELECT 1 FROM hw)")
	"lw AS (UPDATE lockrun_last t SET event = 'unlocked', end_ms = a.now_ms::text, "
	"expires_ms = a.now_ms + a.hist_ttl FROM a, done WHERE a.cap > 0 AND a.stable "
	"AND t.k = a.last AND t.token = split_part(done.v, ' ', 2) AND t.event = 'running' "
	"AND t.expires_ms > a.now_ms) "
	"SELECT CASE WHEN d.code <> 1 AND d.code <> 3 THEN d.code "
	"WHEN EXISTS (SELECT 1 FROM gone) THEN 1 WHEN EXISTS (SELECT 1 FROM tomb) THEN 3 "
	"ELSE 0 END, d.v FROM d";

/* The key's holder: $1 key, $2 whether it is the stable key, $3 and $4
 * the halves of its session lock id. Returns a row (value, ttl ms: -1
 * while a session lock backs it, or for a row that never expires) when
 * held -- its session lock taken, or its row not expired -- else none. */
const char pg_sql_peek[] =
	"WITH a AS (SELECT $1::text AS key, $2::boolean AS stable, $3::oid AS hi, $4::oid AS lo, "
	NOW_MS " AS now_ms), "
	"used AS (SELECT a.stable AND " LOCKED_ANY("a.hi", "a.lo") " AS yes FROM a) "
	"SELECT CASE WHEN used.yes THEN coalesce(t.v, '?') ELSE t.v END, "
	"CASE WHEN used.yes THEN -1 ELSE coalesce(t.expires_ms - a.now_ms, -1) END "
	"FROM a CROSS JOIN used LEFT JOIN lockrun_keys t ON t.k = a.key "
	"WHERE used.yes OR (t.k IS NOT NULL AND coalesce(t.expires_ms > a.now_ms, true))";

/* Every task at once: $1 stable keys, $2 last-run keys, $3 counters
 * keys, $4 and $5 the halves of the session lock ids, $6 pause keys, $7
 * missed keys (arrays, one element per task). Returns a row per task in
 * their order (none when there are no tasks, then one row of NULLs but
 * the clock): i, now_ms, value, ttl_ms, the last-run fields (event host
 * pid slot token start_ms end_ms status duration_ms success_ms), the
 * pause's value, the missed row's value (pg_status.c); and,
 * with counts, whether the counters row is there and the counters
 * (record.h's order; retries read from the row's JSON, so that a table an
 * older lockrun created, without it, reads as 0). pg_locks is read
 * once for all. Without counts the statement does not name
 * lockrun_counts, which a database that an older lockrun set up lacks
 * until a run creates it. */
#define STATES(cols, join) \
	"WITH a AS (SELECT " NOW_MS " AS now_ms), " \
	"locks AS (SELECT classid, objid FROM pg_locks WHERE locktype = 'advisory' AND " \
	"database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND " \
	"objsubid = 1 AND granted), " \
	"u AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::oid[], $5::oid[], " \
	"$6::text[], $7::text[]) WITH ORDINALITY AS u(stable, last, counts, hi, lo, pause, " \
	"missed, i)), " \
	"s AS (SELECT u.*, EXISTS (SELECT 1 FROM locks WHERE locks.classid = u.hi " \
	"AND locks.objid = u.lo) AS used FROM u) " \
	"SELECT s.i, a.now_ms, " \
	"CASE WHEN s.used THEN coalesce(t.v, '?') " \
	"WHEN t.expires_ms > a.now_ms THEN t.v END, " \
	"CASE WHEN s.used THEN -1 WHEN t.expires_ms > a.now_ms " \
	"THEN t.expires_ms - a.now_ms END, " \
	"l.event, l.host, l.pid, l.slot, l.token, l.start_ms, l.end_ms, l.status, " \
	"l.duration_ms, l.success_ms, p.v, m.v, CASE WHEN l.event <> 'running' " \
	"THEN to_jsonb(l) ->> 'reason' END" cols " " \
	"FROM a LEFT JOIN s ON true " \
	"LEFT JOIN lockrun_keys t ON t.k = s.stable " \
	"LEFT JOIN lockrun_keys p ON p.k = s.pause AND coalesce(p.expires_ms > a.now_ms, true) " \
	"LEFT JOIN lockrun_keys m ON m.k = s.missed AND m.expires_ms > a.now_ms " \
	"LEFT JOIN lockrun_last l ON l.k = s.last AND l.expires_ms > a.now_ms " join \
	"ORDER BY s.i"
const char pg_sql_states[] = STATES("", "");
const char pg_sql_states_counts[] = STATES(", c.k IS NOT NULL, c.runs, c.skipped_held, "
	"c.skipped_slot, c.failures, c.lost, c.timeouts, (to_jsonb(c) ->> 'retries')::bigint",
	"LEFT JOIN lockrun_counts c ON c.k = s.counts AND c.expires_ms > a.now_ms ");

/* Every live row's key that matches $1 (a LIKE prefix pattern). */
const char pg_sql_keys[] =
	"SELECT k FROM lockrun_keys WHERE k LIKE $1::text AND coalesce(expires_ms > " NOW_MS
	", true) UNION SELECT k FROM lockrun_last WHERE k LIKE $1::text AND expires_ms > " NOW_MS
	" UNION SELECT k FROM lockrun_history WHERE k LIKE $1::text AND expires_ms > " NOW_MS;

/* The newest $2 entries of history $1, newest first; attempt and reason
 * read from the row's JSON: a table an older lockrun created has no such column. */
const char pg_sql_history[] =
	"SELECT at_ms, event, host, pid, slot, token, holder, status, duration_ms, "
	"to_jsonb(h) ->> 'attempt', to_jsonb(h) ->> 'reason' FROM lockrun_history h "
	"WHERE k = $1::text AND expires_ms > " NOW_MS " ORDER BY id DESC LIMIT $2::bigint";

/* `lockrun logs`: the fields $2 (an array) of the stories of runs key $1
 * (ops.h's stories, as release.lua's hash holds them), one row each in
 * their order: "ok" and "failed" the tokens kept of each, oldest first,
 * one space apart; "h:TOKEN" a run's header, "o:TOKEN" its output (in
 * hex: pg_sql_unhex()). NULL: none. */
const char pg_sql_stories[] =
	"WITH a AS (SELECT $1::text AS k, " NOW_MS " AS now_ms) "
	"SELECT f.i, CASE WHEN f.name IN ('ok', 'failed') THEN (SELECT string_agg(r.token, ' ' "
	"ORDER BY r.id) FROM lockrun_runs r WHERE r.k = a.k AND r.expires_ms > a.now_ms "
	"AND r.failed = (f.name = 'failed')) "
	"WHEN left(f.name, 2) = 'h:' THEN (SELECT r.header FROM lockrun_runs r WHERE r.k = a.k "
	"AND r.expires_ms > a.now_ms AND r.token = substr(f.name, 3) ORDER BY r.id DESC LIMIT 1) "
	"WHEN left(f.name, 2) = 'o:' THEN (SELECT encode(r.output, 'hex') FROM lockrun_runs r "
	"WHERE r.k = a.k AND r.expires_ms > a.now_ms AND r.token = substr(f.name, 3) "
	"ORDER BY r.id DESC LIMIT 1) END "
	"FROM a, unnest($2::text[]) WITH ORDINALITY AS f(name, i) ORDER BY f.i";

/* The server's clock, when the tables are not there to read. */
const char pg_sql_now[] = "SELECT " NOW_MS;

void
pg_sql_lockid(const char *key, struct pg_lockid *x)
{
	uint64_t h = key_hash64(key);

	/* two's complement: the same 64 bits, as PostgreSQL's bigint */
	snprintf(x->id, sizeof(x->id), "%lld", (long long)(int64_t)h);
	snprintf(x->hi, sizeof(x->hi), "%lu", (unsigned long)(uint32_t)(h >> 32));
	snprintf(x->lo, sizeof(x->lo), "%lu", (unsigned long)(uint32_t)h);
}

char *
pg_sql_array(const char *const *v, size_t n)
{
	size_t len = 3;
	char *buf, *p;

	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(v[i]) + 3;	/* each byte escaped, quotes, comma */
	if ((buf = p = malloc(len)) == NULL)
		return NULL;
	*p++ = '{';
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		*p++ = '"';
		for (const char *s = v[i]; *s; s++) {
			if (*s == '"' || *s == '\\')
				*p++ = '\\';
			*p++ = *s;
		}
		*p++ = '"';
	}
	*p++ = '}';
	*p = '\0';
	return buf;
}

void
pg_sql_num(char buf[PG_SQL_NUM_MAX], long long v)
{
	snprintf(buf, PG_SQL_NUM_MAX, "%lld", v);
}

void
pg_sql_host_pid(const char *s, char host[256], char pid[32])
{
	host[0] = pid[0] = '\0';
	sscanf(s, "%255s %31s", host, pid);
}

char *
pg_sql_bytea(const char *p, size_t n)
{
	char *buf, *o;

	if ((buf = o = malloc(4 * n + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\\' || c >= 0x80 || c == 0) {
			snprintf(o, 5, "\\%03o", c);
			o += 4;
		} else
			*o++ = (char)c;
	}
	*o = '\0';
	return buf;
}

size_t
pg_sql_unhex(char *s)
{
	size_t n = 0;

	for (const char *p = s; isxdigit((unsigned char)p[0]) &&
	    isxdigit((unsigned char)p[1]); p += 2) {
		char two[3] = { p[0], p[1], '\0' };

		s[n++] = (char)strtoul(two, NULL, 16);
	}
	s[n] = '\0';
	return n;
}

char *
pg_sql_like_prefix(const char *prefix)
{
	char *buf, *p;

	if ((buf = p = malloc(2 * strlen(prefix) + 2)) == NULL)
		return NULL;
	for (const char *s = prefix; *s; s++) {
		if (*s == '\\' || *s == '%' || *s == '_')
			*p++ = '\\';
		*p++ = *s;
	}
	*p++ = '%';
	*p = '\0';
	return buf;
}


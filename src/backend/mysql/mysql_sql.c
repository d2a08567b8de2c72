/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_sql.c -- the SQL text of the MySQL/MariaDB backend: the tables and
 * one multi-statement string per operation (mysql_sql.h). The scripts in
 * src/backend/redis/scripts (the Lua) are the semantics mirrored here.
 *
 * Rules the text keeps:
 * - Tables are read with SELECT ... INTO @var (INTO last, as MySQL 8
 *   wants it), a plain consistent read: SET @var := (SELECT ...) takes
 *   shared locks inside a transaction, and racers holding them deadlock
 *   on the row they all go on to write.
 *   MAX() makes a read of at most one row assign NULL when there is none
 *   (SELECT ... INTO leaves the variable alone on no row).
 * - Decisions are made in SET statements and carried in user variables;
 *   INSERT/UPDATE/DELETE only test them. A statement reads only variables
 *   that earlier statements set: MariaDB fixes a variable's type when it
 *   prepares a statement, and one still unset then reads as NULL there
 *   (SET @a := 0, @b := NOT @a leaves @b NULL on a new connection); and
 *   no variable is assigned inside another statement (MySQL 8 deprecates
 *   it). A conversion that MySQL only warns about in a SET (CAST('released'
 *   AS SIGNED)) would be an error in a data-changing statement under
 *   strict mode.
 * - Strings are compared with strings (the columns are VARBINARY, byte
 *   for byte as Redis compares): a number compared with a string column
 *   would convert every row's value, and fail on strict servers.
 * - The first statement that reads a table names all three, so a missing
 *   table (ER_NO_SUCH_TABLE) stops the string before anything is written;
 *   mysql_conn.c then creates them on a new connection and sends it again.
 * - The server stops at the first failing statement. Each operation's
 *   answer is one SELECT: the statements before it decide and take or
 *   free the lock, so an answer means all of them ran. The history, the
 *   last-run row and the cleanup come after it (BOOKKEEPING), and a
 *   failure there costs only the bookkeeping, as with history.lua's pcall
 *   (`lockrun check` names a missing privilege).
 * - Writes that belong together are one transaction, so a run costs the
 *   server a log flush for the decision and one for the bookkeeping (and
 *   one for trimming the history), not one a statement
 *   (innodb_flush_log_at_trx_commit=1). A transaction left open by an
 *   error is rolled back: mysql_conn.c sends ROLLBACK (and closes the
 *   connection only when it broke). The GET_LOCK comes before the
 *   transaction, so its snapshot is taken after the lock is ours and sees
 *   what the last holder committed; the upserts read the newest row
 *   anyway (they lock it). The renewal is one UPDATE: no transaction.
 * - GET_LOCK() counts: a session that takes a name twice must free it
 *   twice. acquire takes it once and gives it back on every path but
 *   "acquired"; on an error before the answer, mysql_sql_acquire_undo gives
 *   it back behind the ROLLBACK (@got, @rel: user variables outlive the
 *   failed statement and its transaction), and the session stays with
 *   every other run's lock; a connection that broke frees it with the
 *   session. */
#include <stddef.h>

#include "backend/mysql/mysql_sql.h"

/* k: "lockrun:{name}", "...:slot:<stamp>", "...:fence"; history, last
 * run and counters rows are keyed by "...:history", "...:last" and
 * "...:counts", as in Redis. The other text columns are what the Redis
 * stream and hashes hold. A table a later lockrun added (lockrun_counts,
 * lockrun_runs) is created as the others: a statement finds it missing; a
 * column a later lockrun added (attempt, retries, reason), by mysql_sql_upgrade's, when a
 * statement finds it missing (ER_BAD_FIELD_ERROR). */
const char mysql_sql_ddl[] =
"CREATE TABLE IF NOT EXISTS lockrun_keys (\n"
"  k          VARBINARY(400)  NOT NULL PRIMARY KEY,\n"
"  v          VARBINARY(1024) NOT NULL,\n"
"  expires_ms BIGINT          NULL,\n"
"  boot       VARCHAR(64)     NULL,\n"
"  INDEX lockrun_keys_expires (expires_ms)\n"
") ENGINE=InnoDB;\n"
"CREATE TABLE IF NOT EXISTS lockrun_history (\n"
"  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
"  k           VARBINARY(400)  NOT NULL,\n"
"  at_ms       BIGINT          NOT NULL,\n"
"  expires_ms  BIGINT          NOT NULL,\n"
"  event       VARBINARY(64)   NULL,\n"
"  host        VARBINARY(300)  NULL,\n"
"  pid         VARBINARY(32)   NULL,\n"
"  slot        VARBINARY(64)   NULL,\n"
"  token       VARBINARY(32)   NULL,\n"
"  holder      VARBINARY(340)  NULL,\n"
"  status      VARBINARY(16)   NULL,\n"
"  duration_ms VARBINARY(32)   NULL,\n"
"  attempt     VARBINARY(16)   NULL,\n"
"  reason      VARBINARY(255)  NULL,\n"
"  INDEX lockrun_history_k (k, id),\n"
"  INDEX lockrun_history_expires (expires_ms)\n"
") ENGINE=InnoDB;\n"
"CREATE TABLE IF NOT EXISTS lockrun_last (\n"
"  k           VARBINARY(400)  NOT NULL PRIMARY KEY,\n"
"  expires_ms  BIGINT          NOT NULL,\n"
"  event       VARBINARY(64)   NULL,\n"
"  host        VARBINARY(300)  NULL,\n"
"  pid         VARBINARY(32)   NULL,\n"
"  slot        VARBINARY(64)   NULL,\n"
"  token       VARBINARY(32)   NULL,\n"
"  start_ms    VARBINARY(32)   NULL,\n"
"  end_ms      VARBINARY(32)   NULL,\n"
"  status      VARBINARY(16)   NULL,\n"
"  duration_ms VARBINARY(32)   NULL,\n"
"  success_ms  VARBINARY(32)   NULL,\n"
"  reason      VARBINARY(255)  NULL,\n"
"  INDEX lockrun_last_expires (expires_ms)\n"
") ENGINE=InnoDB;\n"
"CREATE TABLE IF NOT EXISTS lockrun_counts (\n"
"  k            VARBINARY(400)  NOT NULL PRIMARY KEY,\n"
"  expires_ms   BIGINT          NOT NULL,\n"
"  runs         BIGINT          NOT NULL,\n"
"  skipped_held BIGINT          NOT NULL,\n"
"  skipped_slot BIGINT          NOT NULL,\n"
"  failures     BIGINT          NOT NULL,\n"
"  lost         BIGINT          NOT NULL,\n"
"  timeouts     BIGINT          NOT NULL,\n"
"  retries      BIGINT          NOT NULL DEFAULT 0,\n"
"  INDEX lockrun_counts_expires (expires_ms)\n"
") ENGINE=InnoDB;\n"
"CREATE TABLE IF NOT EXISTS lockrun_runs (\n"
"  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
"  k           VARBINARY(400)  NOT NULL,\n"
"  token       VARBINARY(32)   NOT NULL,\n"
"  failed      BOOLEAN         NOT NULL,\n"
"  header      BLOB            NOT NULL,\n"
"  output      LONGBLOB        NOT NULL,\n"
"  end_ms      BIGINT          NOT NULL,\n"
"  expires_ms  BIGINT          NOT NULL,\n"
"  INDEX lockrun_runs_k (k, failed, id),\n"
"  INDEX lockrun_runs_expires (expires_ms)\n"
") ENGINE=InnoDB";

/* The columns added since the tables were first created, one statement
 * each: MySQL has no ADD COLUMN IF NOT EXISTS, so a column already there
 * (ER_DUP_FIELDNAME: another client added it first) is no error
 * (mysql_conn.c). Both are instant: nullable, or a constant default. */
const char *const mysql_sql_upgrade[] = {
	"ALTER TABLE lockrun_history ADD COLUMN attempt VARBINARY(16) NULL",
	"ALTER TABLE lockrun_counts ADD COLUMN retries BIGINT NOT NULL DEFAULT 0",
	"ALTER TABLE lockrun_history ADD COLUMN reason VARBINARY(255) NULL",
	"ALTER TABLE lockrun_last ADD COLUMN reason VARBINARY(255) NULL",
	NULL
};

/* The server's start in seconds: now - Uptime. Two connections may see
 * it a second apart, so rows compare it with a tolerance of 2 s. */
const char mysql_sql_session_mariadb[] =
"SET time_zone = '+00:00', @lr_boot := UNIX_TIMESTAMP() - (SELECT VARIABLE_VALUE "
"FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME');\n";
const char mysql_sql_session_mysql[] =
"SET time_zone = '+00:00', @lr_boot := UNIX_TIMESTAMP() - (SELECT VARIABLE_VALUE "
"FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime');\n";

/* A value "id token host pid start" as history.lua's holder_of(): @htok
 * and @hby ("host pid") from @hv, NULL when it is not one (counting
 * spaces: MySQL 8's REGEXP refuses binary strings). */
#define FIELDS4 "LENGTH(@hv) - LENGTH(REPLACE(@hv, ' ', '')) >= 3"
#define HOLDER_OF \
"@htok := IF(" FIELDS4 ", SUBSTRING_INDEX(SUBSTRING_INDEX(@hv, ' ', 2), ' ', -1),\n" \
"        NULL),\n" \
"    @hby := IF(" FIELDS4 ", SUBSTRING_INDEX(SUBSTRING_INDEX(@hv, ' ', 4), ' ', -2),\n" \
"        NULL)"

/* history.lua's record(): when @rec, one entry (@event, @host, @pid,
 * @slot_iso, @htok, @hby, @status, @dur) living @hist_ttl ms; a release's
 * has its attempt too (col, val). */
#define RECORD	RECORD_MORE("", "")
#define RECORD_MORE(col, val) \
"INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, slot, token,\n" \
"    holder, status, duration_ms" col ")\n" \
"  SELECT @hist, @now, @now + @hist_ttl, @event, @host, @pid, NULLIF(@slot_iso, ''),\n" \
"    NULLIF(@htok, ''), NULLIF(@hby, ''), @status, @dur" val " FROM DUAL WHERE @rec;\n"

/* ... and at most @cap entries kept for the key. Not in a transaction
 * with the insert: its range lock would wait for another run's entry not
 * yet committed while that run waited for this one's. */
#define CAP \
"SELECT MAX(id) FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) AS n\n" \
"    FROM lockrun_history WHERE @rec AND k = @hist) AS r WHERE n > @cap INTO @cut;\n" \
"DELETE FROM lockrun_history WHERE k = @hist AND id <= @cut"

/* Marks where an operation's answer ends: what follows is the history and
 * the last-run row, bookkeeping that must never fail the lock (as
 * history.lua's pcall): mysql_conn.c takes the answer and ignores an error
 * behind it. Empty: it is for the reader. */
#define BOOKKEEPING ""

/* Opens the other tables with the first read of lockrun_keys (see the
 * rules above); its value is not used. */
#define TOUCH_TABLES \
"MAX((SELECT 1 FROM lockrun_history WHERE 1 = 0) <=> (SELECT 1 FROM lockrun_last " \
"WHERE 1 = 0) <=> (SELECT 1 FROM lockrun_counts WHERE 1 = 0))"
/* ...and the columns and the table only a release writes, so that tables
 * an older lockrun created stop it there too (ER_BAD_FIELD_ERROR,
 * ER_NO_SUCH_TABLE) */
#define TOUCH_COLUMNS \
"MAX((SELECT attempt FROM lockrun_history WHERE 1 = 0) <=> " \
"(SELECT retries FROM lockrun_counts WHERE 1 = 0) <=> " \
"(SELECT reason FROM lockrun_history WHERE 1 = 0) <=> " \
"(SELECT reason FROM lockrun_last WHERE 1 = 0) <=> " \
"(SELECT 1 FROM lockrun_runs WHERE 1 = 0))"

/* One end entry per run (release.lua's first_end()): the first to record
 * the end of @token's run writes the row <@ended>:<@token> (a day, or the
 * history's ttl if shorter); one that finds it live records and counts
 * nothing (@rec false); racers queue on its key. */
#define ENDED \
"INSERT INTO lockrun_keys (k, v, expires_ms)\n" \
"  SELECT CONCAT(@ended, ':', @token), 'ended', @now + LEAST(@hist_ttl, 86400000)\n" \
"  FROM DUAL WHERE @rec AND COALESCE(@token, '') <> ''\n" \
"  ON DUPLICATE KEY UPDATE expires_ms = IF(expires_ms <= @now,\n" \
"    @now + LEAST(@hist_ttl, 86400000), expires_ms);\n" \
"SET @rec := @rec AND (ROW_COUNT() > 0 OR COALESCE(@token, '') = '');\n"

/* The task's counters (record.h) count what RECORD records (@event,
 * @status; when @rec), in the same exchange: no round trip of their own.
 * The row lives @hist_ttl ms after its last write, as the history, so a
 * counter never resets while the task runs; an expired row starts again
 * from 0 (expires_ms is assigned last: the others read its old value). A
 * lost run is counted as lost, not failed; a timeout is a failure too; a
 * slot its condition skipped (skipped-condition) is neither.
 * Written before the last-run row, in every transaction alike. A release
 * adds its run's retries too (col, val, set); the others leave the
 * column to its default. */
#define COUNT	COUNT_MORE("", "", "")
#define COUNT_MORE(col, val, set) \
"SET @c_run := @event = 'ran', @c_held := @event = 'skipped-held',\n" \
"    @c_slot := @event = 'skipped-slot', @c_lost := @event = 'lost',\n" \
"    @c_out := @event = 'stopped-timeout',\n" \
"    @c_fail := @event NOT IN ('ran', 'skipped-held', 'skipped-slot', 'lost',\n" \
"        'skipped-condition') AND\n" \
"        COALESCE(@status, '0') <> '0';\n" \
"INSERT INTO lockrun_counts (k, expires_ms, runs, skipped_held, skipped_slot,\n" \
"    failures, lost, timeouts" col ")\n" \
"  SELECT @ckey, @now + @hist_ttl, @c_run, @c_held, @c_slot, @c_fail, @c_lost,\n" \
"    @c_out" val " FROM DUAL WHERE @rec\n" \
"  ON DUPLICATE KEY UPDATE runs = IF(expires_ms > @now, runs, 0) + @c_run,\n" \
"    skipped_held = IF(expires_ms > @now, skipped_held, 0) + @c_held,\n" \
"    skipped_slot = IF(expires_ms > @now, skipped_slot, 0) + @c_slot,\n" \
"    failures = IF(expires_ms > @now, failures, 0) + @c_fail,\n" \
"    lost = IF(expires_ms > @now, lost, 0) + @c_lost,\n" \
"    timeouts = IF(expires_ms > @now, timeouts, 0) + @c_out,\n" set \
"    expires_ms = @now + @hist_ttl;\n"

/* acquire.lua. Inputs: @stable @slot @fence @hist @last @ckey (the
 * counters) @name (the
 * session lock) @id @owner @host @pid @slot_iso @ttl @slot_ttl @cap
 * @hist_ttl @say_held @now @us @earliest @deadline (the client's window,
 * lock.h: 0 0 none) @client (its clock when it sent this) @clock_tol (0:
 * no check). Answer: (1, token) acquired, (0, holder) held, (2, holder)
 * slot taken, (4, NULL) outside the window, (5, NULL) the clocks differ
 * by more than the tolerance on a slot claim -- for 4 and 5 nothing is
 * written or recorded -- and the server's clock (ms), for the client's
 * offset.
 * 0. The clock check, then the window, by @now (the server's clock when
 *    it began the string, however long it waited in a socket); the
 *    window again after the fence upsert, which may have waited for
 *    another transaction's row lock (@late): no key is written then.
 * 1. No-overlap: the lease decides: a stable row that has not expired is
 *    a holder, whatever became of the session that wrote it (KILL, a
 *    reset, a restart: its command may still run, and is stopped before
 *    the lease ends); else GET_LOCK, which a live holder's session keeps.
 * 2. One-server: a live slot row.
 * 3. Token: max(fence + 1, now in us), drawn in the fence row's upsert
 *    and read back while the transaction holds that row.
 *    The slot row is claimed by an upsert that overwrites only an expired
 *    row: racers serialize on its primary key, and ROW_COUNT() (1 inserted,
 *    2 replaced, 0 left as it was) tells each whether it won. A racer's
 *    claim newer than this transaction's snapshot is seen by the upsert,
 *    which reads the newest row; the slot's value is read again after the
 *    commit, for the holder. */
const char mysql_sql_acquire[] =
"SET @refused := IF(@slot_ttl > 0 AND @clock_tol > 0 AND ABS(@now - @client) > @clock_tol,\n"
"    5, IF(@deadline > 0 AND (@now > @deadline OR @now < @earliest), 4, 0));\n"
"SET @got := IF(@ttl > 0 AND @refused = 0, GET_LOCK(@name, 0), NULL);\n"
"START TRANSACTION;\n"
"SELECT MAX(v), MAX(expires_ms > @now), " TOUCH_TABLES "\n"
"  FROM lockrun_keys WHERE k = @stable INTO @sv, @lease, @touch;\n"
"SET @held := @ttl > 0 AND (NOT (@got <=> 1) OR COALESCE(@lease, 0));\n"
"SELECT MAX(v) FROM lockrun_keys WHERE @slot_ttl > 0 AND NOT @held AND\n"
"    k = @slot AND (expires_ms IS NULL OR expires_ms > @now) INTO @tv;\n"
"SET @go := @refused = 0 AND NOT @held AND @tv IS NULL;\n"
"INSERT INTO lockrun_keys (k, v, expires_ms)\n"
"  SELECT @fence, @us, @now + 86400000 FROM DUAL WHERE @go\n"
"  ON DUPLICATE KEY UPDATE v = GREATEST(CAST(v AS SIGNED) + 1, @us),\n"
"    expires_ms = @now + 86400000;\n"
"SELECT MAX(v) FROM lockrun_keys WHERE @go AND k = @fence INTO @toks;\n"
"SET @late := @go AND @deadline > 0 AND " MYSQL_SQL_CLOCK_MS " > @deadline;\n"
"SET @val := CONCAT(@id, ' ', @toks, ' ', @owner);\n"
"INSERT INTO lockrun_keys (k, v, expires_ms)\n"
"  SELECT @slot, @val, @now + @slot_ttl FROM DUAL WHERE @go AND NOT @late AND @slot_ttl > 0\n"
"  ON DUPLICATE KEY UPDATE v = IF(expires_ms <= @now, @val, v),\n"
"    expires_ms = IF(expires_ms <= @now, @now + @slot_ttl, expires_ms);\n"
"SET @won := @go AND NOT @late AND (@slot_ttl = 0 OR ROW_COUNT() > 0);\n"
"INSERT INTO lockrun_keys (k, v, expires_ms, boot)\n"
"  SELECT @stable, @val, @now + @ttl, @lr_boot FROM DUAL WHERE @won AND @ttl > 0\n"
"  ON DUPLICATE KEY UPDATE v = @val, expires_ms = @now + @ttl, boot = @lr_boot;\n"
"COMMIT;\n"
"SELECT MAX(v) FROM lockrun_keys WHERE @go AND NOT @won AND k = @slot INTO @racer;\n"
"SET @rel := IF(@got = 1 AND NOT @won, RELEASE_LOCK(@name), NULL),\n"
"    @hv := IF(@won, NULL, IF(@held, COALESCE(@sv, '?'), COALESCE(@tv, @racer)));\n"/* a holder's session ends after ttl without a statement (its keep-alive
 * comes every ttl/3): a frozen or vanished holder frees the lock then, as
 * PostgreSQL's idle_session_timeout has it, not after 8 hours. A session
 * that holds many runs' locks (a scheduler's) keeps the longest ttl it
 * was given (@lr_idle_s), so that a lock with a long one, renewed a third
 * of it apart, never leaves the session idle past its timeout. */
"SET @lr_idle_s := CAST(IF(@won AND @ttl > 0, GREATEST(COALESCE(@lr_idle_s, 0),\n"
"    LEAST(GREATEST(CEIL(@ttl / 1000), 1), 31536000)), @lr_idle_s) AS UNSIGNED);\n"
"SET SESSION wait_timeout = COALESCE(@lr_idle_s, @@SESSION.wait_timeout);\n"
"SELECT IF(@refused > 0, @refused, IF(@late, 4, IF(@won, 1, IF(@held, 0, 2)))),\n"
"    IF(@won, @toks, IF(@refused > 0 OR @late, NULL, @hv)), @now;\n"
BOOKKEEPING
"START TRANSACTION;\n"
"SET @event := IF(@won, 'ran', IF(@held, 'skipped-held', 'skipped-slot')),\n"
"    @rec := @cap > 0 AND @refused = 0 AND NOT @late AND (@won OR NOT @held OR @say_held),\n"
"    @status := NULL, @dur := NULL, " HOLDER_OF ";\n"
"SET @htok := IF(@won, @toks, @htok);\n"
RECORD
COUNT
/* a new run; the last success is kept until the next (acquire.lua) */
"INSERT INTO lockrun_last (k, expires_ms, event, host, pid, slot, token, start_ms)\n"
"  SELECT @last, @now + @hist_ttl, 'running', @host, @pid, NULLIF(@slot_iso, ''),\n"
"    @toks, CAST(@now AS CHAR) FROM DUAL WHERE @won AND @cap > 0\n"
"  ON DUPLICATE KEY UPDATE success_ms = IF(expires_ms > @now, success_ms, NULL),\n"
"    event = 'running', host = @host, pid = @pid, slot = NULLIF(@slot_iso, ''),\n"
"    token = @toks, start_ms = CAST(@now AS CHAR), end_ms = NULL, status = NULL,\n"
"    duration_ms = NULL, expires_ms = @now + @hist_ttl;\n"
"COMMIT;\n"
CAP;

/* renew.lua, for a stable row backed by this session's GET_LOCK. Inputs:
 * @stable @fence @hist @last @ckey @name @val (what acquire stored) @token
 * @host @pid @slot_iso @ttl @cap @hist_ttl @now @deadline (the server's
 * clock, ms, past which the client has given up on this renewal; 0
 * none: checked by @now, and again by the clock if the update did not
 * take, as it may have waited for another transaction's row lock).
 * Answer: (code, the row's value when another's, the server's clock): 4
 * past the deadline: nothing written or recorded; 1 renewed; 0 this session no longer holds
 * the lock (lost); 2 the row had vanished (the expired-row cleanup) and
 * no later token was drawn: it is put back; 3 the row holds our tombstone
 * ('unlocked:' and our value: `lockrun unlock`) or another value, or is
 * gone with a later token drawn: lost. The session lock is kept: the
 * run's release lets it go (and deletes our tombstone) once the
 * command's tree is gone. A loss is recorded in the history and the
 * last-run row, once per run (ENDED, @ended). */
const char mysql_sql_renew[] =
"SET @mine := COALESCE(IS_USED_LOCK(@name) = CONNECTION_ID(), 0),\n"
"    @late := @deadline > 0 AND @now > @deadline;\n"
"UPDATE lockrun_keys SET expires_ms = @now + @ttl\n"
"  WHERE k = @stable AND v = @val AND @mine AND NOT @late AND\n"
"    (@deadline = 0 OR " MYSQL_SQL_CLOCK_MS " <= @deadline);\n"
"SET @ext := ROW_COUNT() > 0;\n"
"SET @late := @late OR (NOT @ext AND @deadline > 0 AND " MYSQL_SQL_CLOCK_MS " > @deadline);\n"
"SELECT MAX(v), " TOUCH_TABLES " FROM lockrun_keys WHERE k = @stable\n"
"  INTO @cur, @touch;\n"
"SELECT MAX(CAST(v AS SIGNED)) FROM lockrun_keys WHERE k = @fence INTO @last_tok;\n"
"SET @r := IF(@late, 4, IF(NOT @mine, 0, IF(@cur <=> @val, 1, IF(@cur IS NULL AND\n"
"    COALESCE(@last_tok, 0) <= CAST(@token AS SIGNED), 2, 3))));\n"
"INSERT INTO lockrun_keys (k, v, expires_ms, boot)\n"
"  SELECT @stable, @val, @now + @ttl, @lr_boot FROM DUAL WHERE @r = 2;\n"
"SET @hv := IF(@cur <=> @val OR @cur <=> CONCAT('unlocked:', @val), NULL, @cur);\n"
"SELECT @r, @hv, @now;\n"
BOOKKEEPING
"SET @event := 'lost', @status := NULL, @dur := NULL,\n"
"    @rec := @cap > 0 AND @r IN (0, 3), " HOLDER_OF ";\n"
"SET @htok := @token;\n"
ENDED
RECORD
COUNT
"UPDATE lockrun_last SET event = 'lost', end_ms = CAST(@now AS CHAR),\n"
"    expires_ms = @now + @hist_ttl\n"
"  WHERE k = @last AND token = @token AND event = 'running' AND @rec;\n"
CAP;

/* After a ROLLBACK, when mysql_sql_acquire was refused part way (one task's
 * row: a constraint, a trigger's SIGNAL): the GET_LOCK it took (@got 1),
 * unless it let it go (@rel), is released; the run does not go ahead. The
 * inputs reset @got and @rel, so a stale value is never read. */
#define ACQUIRE_UNDONE	"@got = 1 AND @rel IS NULL"
const char mysql_sql_acquire_undone[] = ACQUIRE_UNDONE;
const char mysql_sql_acquire_undo[] =
"SELECT IF(" ACQUIRE_UNDONE ", RELEASE_LOCK(@name), NULL)";

/* The same after mysql_sql_release: the run is over whatever became of its
 * rows, so its GET_LOCK goes unless the release let it go (@rel). */
#define RELEASE_UNDONE	"@ttl > 0 AND @rel IS NULL"
const char mysql_sql_release_undone[] = RELEASE_UNDONE;
const char mysql_sql_release_undo[] =
"SELECT IF(" RELEASE_UNDONE ", RELEASE_LOCK(@name), NULL)";

/* release.lua. Inputs: @stable @hist @last @ckey @name @val @token @host @pid
 * @slot_iso @ttl (0: no stable row, no session lock) @keep @until @status
 * @dur @event (NULL: record nothing, after a lost lock) @cap @hist_ttl
 * @now @attempt (the command's last attempt, NULL: it never started)
 * @retries (the attempts after its first) @runs (the stories' key)
 * @keep_ok @keep_failed (how many stories of each the task keeps) @reason
 * ('' none) @output (its end; a run whose command started keeps its
 * story in lockrun_runs, a lost one too though the keep-alive recorded
 * its end, and the oldest of its kind past the number kept
 * go in the same exchange, as the history's past its cap). The row is kept for @keep ms
 * as a lease ('released': newcomers respect it), but not past @until by
 * the server's clock when @until is not 0 (a release that ran late never
 * extends the hold), or deleted, if it is still ours; our tombstone
 * ('unlocked:' and our value) is deleted; the session lock is let go
 * either way. Answer: 1 released, 0 not ours. A release sent again, after
 * its first went unanswered and ran after all, records nothing twice, nor
 * one after a renewal recorded the loss (ENDED: @rec); but the last-run
 * row of such a loss gains the status and reason the renewal could not
 * know, for status to say. */
const char mysql_sql_release[] =
"SET @keep := IF(@keep > 0 AND @until > 0, GREATEST(@until - @now, 0), @keep);\n"
"SELECT " TOUCH_TABLES ", " TOUCH_COLUMNS " FROM lockrun_keys WHERE k = @stable\n"
"  INTO @touch, @touched;\n"
"UPDATE lockrun_keys SET boot = 'released', expires_ms = @now + @keep\n"
"  WHERE k = @stable AND v = @val AND @ttl > 0 AND @keep > 0;\n"
"SET @kept := ROW_COUNT() > 0;\n"
"DELETE FROM lockrun_keys WHERE k = @stable AND @ttl > 0 AND\n"
"    (v = @val AND @keep = 0 OR v = CONCAT('unlocked:', @val));\n"
"SET @deleted := ROW_COUNT() > 0, @rel := IF(@ttl > 0, RELEASE_LOCK(@name), NULL);\n"
"SELECT @kept OR @deleted;\n"
BOOKKEEPING
"START TRANSACTION;\n"
"SET @hby := NULL, @htok := @token, @rec := @cap > 0 AND @event IS NOT NULL;\n"
ENDED
RECORD_MORE(", attempt, reason", ", @attempt, NULLIF(@reason, '')")
COUNT_MORE(", retries", ", @retries",
"    retries = IF(expires_ms > @now, retries, 0) + @retries,\n")
"UPDATE lockrun_last SET event = @event, status = @status, duration_ms = @dur,\n"
"    end_ms = CAST(@now AS CHAR), reason = NULLIF(@reason, ''),\n"
"    success_ms = IF(@event = 'released' AND @status = '0', CAST(@now AS CHAR),\n"
"        success_ms),\n"
"    expires_ms = @now + @hist_ttl\n"
"  WHERE k = @last AND token = @token AND expires_ms > @now AND\n"
"    (event = 'running' AND @rec OR event = 'lost' AND @event = 'lost' AND @cap > 0);\n"
/* the run's story (release.lua's keep_story()) */
"SET @failed := @event <> 'released' OR @status <> '0',\n"
"    @skeep := IF(@event <> 'released' OR @status <> '0', @keep_failed, @keep_ok);\n"
"INSERT INTO lockrun_runs (k, token, failed, header, output, end_ms, expires_ms)\n"
"  SELECT @runs, @token, @failed, CONCAT('event ', @event, '\nhost ', @host,\n"
"    '\npid ', @pid, '\nslot ', COALESCE(@slot_iso, ''), '\nattempt ', @attempt,\n"
"    '\nstatus ', @status, '\nduration_ms ', @dur, '\nend_ms ', @now,\n"
"    '\nreason ', @reason), COALESCE(@output, ''), @now, @now + @hist_ttl\n"
"  FROM DUAL WHERE (@rec OR @cap > 0 AND @event = 'lost' AND NOT EXISTS (SELECT 1\n"
"    FROM lockrun_runs WHERE k = @runs AND token = @token)) AND @attempt IS NOT NULL\n"
"    AND @skeep > 0 AND COALESCE(@token, '') <> '';\n"
"SET @srec := ROW_COUNT() > 0;\n"
"COMMIT;\n"
CAP ";\n"
/* ...and the oldest of its kind past the number kept go, out of the
 * insert's transaction as CAP's */
"SELECT MAX(id) FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) AS n\n"
"    FROM lockrun_runs WHERE @srec AND k = @runs AND failed = @failed) AS r\n"
"  WHERE n > @skeep INTO @rcut;\n"
"DELETE FROM lockrun_runs WHERE k = @runs AND failed = @failed AND id <= @rcut";

/* release.lua's event "hook": a hook's section of the run's story added
 * to the end of the output of the run's row while it is kept. Inputs:
 * @now @runs @token @output. Answer: 1 added, 0 not (no such row). */
const char mysql_sql_story_hook[] =
"UPDATE lockrun_runs SET output = CONCAT(output, @output)\n"
"  WHERE k = @runs AND token = @token AND expires_ms > @now;\n"
"SELECT ROW_COUNT() > 0, NULL";

/* release.lua's withdraw(): the acquire went unanswered and may have
 * run in time (its answer lost). Inputs: @stable @slot (NULL: none)
 * @hist @last @ckey @id (the owner id) @host @pid @slot_iso @status @cap
 * @hist_ttl @now, on a new connection (the old session, and its
 * GET_LOCK, went with it). The rows that hold @id are read FOR UPDATE,
 * so an acquire still writing them is waited for; one still queued is
 * past its window when it runs, and writes nothing then. They are
 * deleted, with the "ran" entry of their token and its count, and
 * "withdrawn" is recorded. Answer: 1 when the acquire had taken effect,
 * else 0 (nothing recorded). */
const char mysql_sql_withdraw[] =
"START TRANSACTION;\n"
"SELECT MAX(SUBSTRING_INDEX(SUBSTRING_INDEX(v, ' ', 2), ' ', -1)), " TOUCH_TABLES "\n"
"  FROM lockrun_keys WHERE k IN (@stable, COALESCE(@slot, @stable)) AND\n"
"    SUBSTRING_INDEX(v, ' ', 1) = @id FOR UPDATE INTO @wtok, @touch;\n"
"DELETE FROM lockrun_keys WHERE k IN (@stable, COALESCE(@slot, @stable)) AND\n"
"    SUBSTRING_INDEX(v, ' ', 1) = @id;\n"
"SET @wd := ROW_COUNT() > 0;\n"
"SELECT MAX(id) FROM lockrun_history WHERE @wd AND k = @hist AND event = 'ran' AND\n"
"    token = @wtok INTO @ran;\n"
"DELETE FROM lockrun_history WHERE id = @ran;\n"
"UPDATE lockrun_counts SET runs = GREATEST(runs - 1, 0)\n"
"  WHERE k = @ckey AND @ran IS NOT NULL;\n"
"COMMIT;\n"
"SELECT @wd, NULL;\n"
BOOKKEEPING
"START TRANSACTION;\n"
"SET @event := 'withdrawn', @dur := NULL, @hby := NULL, @htok := @wtok,\n"
"    @rec := @cap > 0 AND @wd;\n"
RECORD
"UPDATE lockrun_last SET event = 'withdrawn', status = @status,\n"
"    end_ms = CAST(@now AS CHAR), expires_ms = @now + @hist_ttl\n"
"  WHERE k = @last AND token = @wtok AND @rec;\n"
"COMMIT;\n"
CAP;

/* unlock.lua. Inputs: @key (stable or slot key) @name (its session lock,
 * NULL for a slot key) @fence @hist @last @expect @host @pid (who
 * unlocks) @slot_iso (the slot, for a slot key) @cap @hist_ttl @now @us.
 * A row counts while it has not expired or its session lock is taken.
 * A running holder's stable row is not deleted (a newcomer would run
 * beside its command): its value becomes the tombstone 'unlocked:' and
 * the value, keeping its expiry, which holds newcomers off as the lease
 * did; the holder's next renewal finds it (3), stops its command, and its
 * release deletes the tombstone and lets the session lock go. A row that
 * is a tombstone already, a --min-hold row ('released') and a slot row
 * have no command behind them: deleted at once. The fence moves past the
 * holder's token either way. Answer: (1, value) freed, (3, value)
 * tombstoned, (0, NULL) free, (2, value) another value. */
const char mysql_sql_unlock[] =
"START TRANSACTION;\n"
"SELECT MAX(v), MAX(boot), " TOUCH_TABLES " FROM lockrun_keys\n"
"  WHERE k = @key AND (expires_ms IS NULL OR expires_ms > @now OR\n"
"    IS_USED_LOCK(@name) IS NOT NULL) INTO @cur, @cboot, @touch;\n"
"SET @code := IF(@cur IS NULL, 0, IF(@cur <> @expect, 2,\n"
"    IF(@name IS NOT NULL AND NOT (@cboot <=> 'released') AND\n"
"    LEFT(@cur, 9) <> 'unlocked:', 3, 1)));\n"
"UPDATE lockrun_keys SET v = CONCAT('unlocked:', v)\n"
"  WHERE k = @key AND v = @expect AND @code = 3;\n"
"DELETE FROM lockrun_keys WHERE k = @key AND v = @expect AND @code = 1;\n"
"INSERT INTO lockrun_keys (k, v, expires_ms)\n"
"  SELECT @fence, @us, @now + 86400000 FROM DUAL WHERE @code IN (1, 3)\n"
"  ON DUPLICATE KEY UPDATE v = GREATEST(CAST(v AS SIGNED) + 1, @us),\n"
"    expires_ms = @now + 86400000;\n"
"COMMIT;\n"
"SELECT @code, @cur;\n"
BOOKKEEPING
"START TRANSACTION;\n"
"SET @hv := @cur, @event := 'unlocked', @status := NULL, @dur := NULL,\n"
"    @rec := @cap > 0 AND @code IN (1, 3);\n"
"SET " HOLDER_OF ";\n"
RECORD
/* the run ends with its stable key, not with a slot key */
"UPDATE lockrun_last SET event = 'unlocked', end_ms = CAST(@now AS CHAR),\n"
"    expires_ms = @now + @hist_ttl\n"
"  WHERE k = @last AND token = @htok AND event = 'running' AND @rec AND\n"
"    @name IS NOT NULL;\n"
"COMMIT;\n"
CAP;

/* peek, and each task of states: the stable (or slot) row as it is, and
 * whether its session lock is taken; mysql.c decides (row_held()).
 * Inputs: @key @name (NULL: no session lock) @last @ckey @counts @now.
 * Columns: v expires_ms boot used lr_boot now, the last-run fields
 * (event host pid slot token start_ms end_ms status duration_ms
 * success_ms), and with @counts whether the counters row is there and
 * the counters (record.h's order). */
const char mysql_sql_peek[] =
"SELECT s.v, s.expires_ms, s.boot, IS_USED_LOCK(@name) IS NOT NULL, @lr_boot, @now,\n"
"    l.event, l.host, l.pid, l.slot, l.token, l.start_ms, l.end_ms, l.status,\n"
"    l.duration_ms, l.success_ms, c.k IS NOT NULL, c.runs, c.skipped_held,\n"
"    c.skipped_slot, c.failures, c.lost, c.timeouts, c.retries,\n"
"    IF(l.event <> 'running', l.reason, NULL)\n"
"  FROM (SELECT 1) AS one\n"
"  LEFT JOIN lockrun_keys AS s ON s.k = @key\n"
"  LEFT JOIN lockrun_last AS l ON l.k = @last AND l.expires_ms > @now\n"
"  LEFT JOIN lockrun_counts AS c ON c.k = @ckey AND c.expires_ms > @now AND @counts";

/* Every live key under a prefix: @pattern is a LIKE pattern with '!' as
 * its escape character. */
const char mysql_sql_keys[] =
"SELECT k FROM lockrun_keys WHERE k LIKE @pattern ESCAPE '!' AND\n"
"    (expires_ms IS NULL OR expires_ms > @now)\n"
"UNION SELECT k FROM lockrun_last WHERE k LIKE @pattern ESCAPE '!' AND\n"
"    expires_ms > @now\n"
"UNION SELECT k FROM lockrun_history WHERE k LIKE @pattern ESCAPE '!' AND\n"
"    expires_ms > @now";

/* The newest entries first; mysql.c appends LIMIT n. Input: @hist @now. */
const char mysql_sql_history[] =
"SELECT at_ms, event, host, pid, slot, token, holder, status, duration_ms, attempt,\n"
"    reason\n"
"  FROM lockrun_history WHERE k = @hist AND expires_ms > @now ORDER BY id DESC";

/* `lockrun logs`: the stories of @runs, oldest first: token, failed, and
 * the header and the output of those @want names ("h:TOKEN", "o:TOKEN",
 * comma-separated), else NULL: a list of the runs kept reads no output. */
const char mysql_sql_stories[] =
"SELECT token, failed, IF(FIND_IN_SET(CONCAT('h:', token), @want), header, NULL),\n"
"    IF(FIND_IN_SET(CONCAT('o:', token), @want), output, NULL)\n"
"  FROM lockrun_runs WHERE k = @runs AND expires_ms > @now ORDER BY id";

/* After the answer, so that a failure here (it is bookkeeping) costs
 * nothing but the cleanup. READ COMMITTED for each DELETE (SET TRANSACTION
 * applies to the next one only) takes no gap locks, so a cleanup cannot
 * deadlock with a run that revives an expired row in the same range (a
 * server logging statements, binlog_format=STATEMENT, refuses writes at
 * READ COMMITTED: there the cleanup fails, and only the cleanup). A
 * stable row deleted under a run whose renewals are late is put back by
 * its next renewal (mysql_sql_renew's 2). */
#define PRUNE \
"SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n" \
"DELETE FROM lockrun_keys WHERE expires_ms < @now ORDER BY expires_ms LIMIT 100;\n" \
"SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n" \
"DELETE FROM lockrun_history WHERE expires_ms < @now ORDER BY expires_ms LIMIT 100;\n" \
"SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n" \
"DELETE FROM lockrun_last WHERE expires_ms < @now ORDER BY expires_ms LIMIT 100;\n" \
"SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n" \
"DELETE FROM lockrun_counts WHERE expires_ms < @now ORDER BY expires_ms LIMIT 100"
const char mysql_sql_prune[] = PRUNE;
/* ...and behind a release, which alone names lockrun_runs (a database an
 * older lockrun set up has none until a release creates it) */
const char mysql_sql_release_tail[] = PRUNE ";\n"
"SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n"
"DELETE FROM lockrun_runs WHERE expires_ms < @now ORDER BY expires_ms LIMIT 100";

/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_sql.h -- the SQL text of the MySQL/MariaDB backend (mysql.c).
 * Each operation is one string of statements sent in one round trip
 * (CLIENT_MULTI_STATEMENTS); mysql.c puts a SET of its inputs in front,
 * as user variables (@stable, @ttl, ...), so the text here is constant.
 * The statements carry their decisions in user variables too; one
 * SELECT gives the answer, and what follows it is bookkeeping whose
 * failure mysql.c ignores. */
#ifndef LR_MYSQL_SQL_H
#define LR_MYSQL_SQL_H

/* The tables, created on first use; the columns added since, NULL
 * ended. */
extern const char MY_SQL_DDL[];
extern const char *const MY_SQL_UPGRADE[];

/* Once per connection: UTC for the clock expressions, and @lr_boot, when
 * this server instance started (s), which a stable row records. MariaDB
 * has the uptime in information_schema, MySQL 8 in performance_schema. */
extern const char MY_SQL_SESSION_MARIADB[];
extern const char MY_SQL_SESSION_MYSQL[];

/* The server's clock, ms and us since the epoch (in UTC, see above). */
#define MY_SQL_NOW_MS	"CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
/* The clock as it reads now, within a statement (SYSDATE(), not NOW(),
 * which is fixed when the statement began). */
#define MY_SQL_CLOCK_MS	"CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED)"
#define MY_SQL_NOW_US	"CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)"

extern const char MY_SQL_ACQUIRE[];
extern const char MY_SQL_RENEW[];
extern const char MY_SQL_RELEASE[];
/* Sent after a ROLLBACK when MY_SQL_ACQUIRE or MY_SQL_RELEASE was refused
 * part way: the GET_LOCK it left held is released. */
extern const char MY_SQL_ACQUIRE_UNDO[];
extern const char MY_SQL_RELEASE_UNDO[];
extern const char MY_SQL_WITHDRAW[];
extern const char MY_SQL_UNLOCK[];
extern const char MY_SQL_PEEK[];
extern const char MY_SQL_KEYS[];
extern const char MY_SQL_HISTORY[];
extern const char MY_SQL_STORIES[];
/* Bounded cleanup behind acquire and release: expired rows, at most 100
 * of each table a run. */
extern const char MY_SQL_PRUNE[];
extern const char MY_SQL_PRUNE_RUNS[];

#endif

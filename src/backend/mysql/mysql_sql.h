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
extern const char mysql_sql_ddl[];
extern const char *const mysql_sql_upgrade[];

/* Once per connection: UTC for the clock expressions, and @lr_boot, when
 * this server instance started (s), which a stable row records. MariaDB
 * has the uptime in information_schema, MySQL 8 in performance_schema. */
extern const char mysql_sql_session_mariadb[];
extern const char mysql_sql_session_mysql[];

/* The server's clock, ms and us since the epoch (in UTC, see above). */
#define MYSQL_SQL_NOW_MS	"CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
/* The clock as it reads now, within a statement (SYSDATE(), not NOW(),
 * which is fixed when the statement began). */
#define MYSQL_SQL_CLOCK_MS	"CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED)"
#define MYSQL_SQL_NOW_US	"CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)"

extern const char mysql_sql_acquire[];
extern const char mysql_sql_renew[];
extern const char mysql_sql_release[];
/* Sent after a ROLLBACK when mysql_sql_acquire or mysql_sql_release was refused
 * part way: the GET_LOCK it left held is released. */
extern const char mysql_sql_acquire_undo[];
extern const char mysql_sql_release_undo[];
extern const char mysql_sql_story_hook[];
/* ...their condition, for a string of many leases' (my_exec_groups()). */
extern const char mysql_sql_acquire_undone[];
extern const char mysql_sql_release_undone[];
extern const char mysql_sql_withdraw[];
extern const char mysql_sql_unlock[];
extern const char mysql_sql_peek[];
extern const char mysql_sql_keys[];
extern const char mysql_sql_history[];
extern const char mysql_sql_stories[];
/* Bounded cleanup behind acquire and release (or a batch of either):
 * expired rows, at most 100 of each table a run; the release's reaches
 * the runs' stories too. */
extern const char mysql_sql_prune[];
extern const char mysql_sql_release_tail[];

#endif

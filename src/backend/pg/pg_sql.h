/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_sql.h -- the SQL the PostgreSQL backend (pg.c) sends, and the pure
 * helpers that turn lockrun's values into its parameters; libc only. */
#ifndef LR_PG_SQL_H
#define LR_PG_SQL_H

#include <stddef.h>

/* The tables, created on first use (several statements: simple query). */
extern const char pg_sql_ddl[];

/* One statement each, sent with parameters ($1 ...); pg.c lists them. */
extern const char pg_sql_acquire[];
extern const char pg_sql_renew[];
extern const char pg_sql_release[];
extern const char pg_sql_story_hook[];
extern const char pg_sql_unlock[];
extern const char pg_sql_peek[];
extern const char pg_sql_states[];
extern const char pg_sql_states_counts[];
extern const char pg_sql_keys[];
extern const char pg_sql_history[];
extern const char pg_sql_stories[];
extern const char pg_sql_now[];

/* Sent after an acquire or a release that the server refused part way,
 * the session in order: let go the session lock it may have left held. */
extern const char pg_sql_acquire_undo[];
extern const char pg_sql_release_undo[];

/* The session lock of a stable key: key_hash64() as the signed bigint
 * pg_try_advisory_lock() takes, and its two halves as pg_locks shows them
 * (classid the high 32 bits, objid the low, both unsigned oids). */
struct pg_lockid {
	char	id[24];
	char	hi[12];
	char	lo[12];
};

void	pg_sql_lockid(const char *key, struct pg_lockid *x);

/* A parameter's text: v in digits into buf (a long long and its NUL);
 * and the host and pid of an owner or unlocker, "host pid ...". */
#define PG_SQL_NUM_MAX	24
void	pg_sql_num(char buf[PG_SQL_NUM_MAX], long long v);
void	pg_sql_host_pid(const char *s, char host[256], char pid[32]);

/* v[0..n) as a PostgreSQL array literal, {"a","b\"c"}: each element
 * quoted, with '"' and '\' escaped. Returns a malloc'd string, or NULL
 * when out of memory. */
char	*pg_sql_array(const char *const *v, size_t n);

/* p[n] as bytea's escape input: '\\', NUL and every byte past ASCII as
 * \ooo, so the parameter is ASCII whatever the client encoding and
 * whatever bytes the output holds. Returns a malloc'd string, or NULL
 * when out of memory. pg_sql_unhex: hex digits (encode(b, 'hex')) back
 * to their bytes, in place, NUL-ended; returns their number. */
char	*pg_sql_bytea(const char *p, size_t n);
size_t	 pg_sql_unhex(char *s);

/* A LIKE pattern matching every string that starts with prefix: '\', '%'
 * and '_' escaped with '\' (LIKE's default escape), then '%'. Returns a
 * malloc'd string, or NULL when out of memory. */
char	*pg_sql_like_prefix(const char *prefix);

#endif

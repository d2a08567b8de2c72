/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_conn.h -- the MySQL/MariaDB client layer under mysql.c: the
 * client library loaded with dlopen(), statements built with escaped
 * inputs, the connection, and one exchange (a string of statements sent
 * at once, every answer read). Only mysql.c and mysql_conn.c see it. */
#ifndef LR_MYSQL_CONN_H
#define LR_MYSQL_CONN_H

#include <stddef.h>

#include <mysql.h>

#include "backend/ops.h"
#include "backend/mysql/mysqlurl.h"

/* The client library's functions we call, resolved with dlsym(). */
#define MY_FUNCS(X) \
	X(init, mysql_init) X(options, mysql_options) \
	X(real_connect, mysql_real_connect) X(close, mysql_close) \
	X(errnum, mysql_errno) X(error, mysql_error) \
	X(escape, mysql_real_escape_string) X(send_query, mysql_send_query) \
	X(read_query_result, mysql_read_query_result) \
	X(store_result, mysql_store_result) X(next_result, mysql_next_result) \
	X(field_count, mysql_field_count) X(num_fields, mysql_num_fields) \
	X(fetch_row, mysql_fetch_row) X(free_result, mysql_free_result) \
	X(get_socket, mysql_get_socket) X(server_info, mysql_get_server_info) \
	X(ssl_cipher, mysql_get_ssl_cipher)

struct my_api {
	void	*lib;
#define MY_DECL(f, sym) __typeof__(sym) *f;
	MY_FUNCS(MY_DECL)
#undef MY_DECL
};

extern struct my_api my_api;

/* A backend's state (b->impl). */
struct my {
	MYSQL		*db;		/* NULL: closed */
	struct lr_mysqlurl url;
	int		 mariadb;	/* the server is MariaDB, not MySQL */
	int		 primed;	/* this connection has run the session SET */
	int		 renewing;	/* a renewal's answer is due */
	long long	 sent_ms;	/* mono_ms() when the string in flight was sent */
	int		 over;		/* its answer had a row past the bound, read
					 * to its end and dropped (LR_ERR_DATA):
					 * every statement in it ran, and the
					 * session is in order */
};

/* Statements being built: the text, and the SET of inputs in progress.
 * Start from { 0 }; free s after. Out of memory sticks (oom), and
 * my_exec() reports it. */
struct myq {
	char	*s;
	size_t	 len, cap;
	int	 oom;
	int	 vars;
};

void	myq_add(struct myq *q, const char *s);
/* Inputs: "SET @name := value, ..." -- each call adds one variable; an
 * escaped binary string (NULL: SQL NULL), a number, or an expression. */
void	myq_str(struct myq *q, MYSQL *db, const char *name, const char *v);
void	myq_strn(struct myq *q, MYSQL *db, const char *name, const char *v, size_t n);
void	myq_ll(struct myq *q, const char *name, long long v);
/* End the SET of inputs (before the statements that read them). */
void	myq_end(struct myq *q);

/* @now and @us: the server's clock (ms, us), inputs of every operation. */
void	my_clock_vars(struct myq *q);

/* The name of a stable key's session lock: the key, or for a key longer
 * than MySQL takes (64), "lockrun:" and 16 hex digits of key_hash64(). */
void	my_lock_name(const char *stable, char *buf, size_t n);

/* A number in an answer's column (NULL, or not a decimal: 0). */
long long my_num(const char *s);

/* Load the client library (once). Returns 0, or -1 with e (69). */
int	my_load(struct lr_err *e);

/* Connect within cap_ms (whole seconds, rounded up), closing any
 * connection first. Returns 0, or -1 with e as backend.h's open(). */
int	my_connect(struct lr_backend *b, long long cap_ms, struct lr_err *e);
void	my_close(struct lr_backend *b);

/* The error for an operation tried while closed (lr_err_broke(e)). */
int	my_not_connected(struct lr_backend *b, const char *what, struct lr_err *e);

/* One row of an answer; set: which result set, from 0. Non-zero stops:
 * -1 the answer is not of the shape asked for, MY_ROW_NOMEM out of
 * memory. */
typedef int (*my_row_fn)(void *arg, size_t set, MYSQL_ROW row, unsigned int nf);
#define MY_ROW_NOMEM	(-2)

#define MY_CREATE	1	/* a missing table: create the tables, send again */
#define MY_KEEP		2	/* a refusal is left as it is: no ROLLBACK, which
				 * would clear the error number the caller reads */

/* Send body, read its answers, want result sets of them, to fn. Returns
 * 0, or -1 with e. A connection that broke (lr_err_broke(e)), or an
 * answer not of the shape asked for, closes it (freeing its session
 * locks). A refusal by the server part way (one task's row: a constraint,
 * a trigger's SIGNAL, a value too long) leaves it open, with every lock
 * of its session: the transaction the string left open is rolled back
 * (but with MY_KEEP) and, with my_exec_undo(), undo is sent behind the
 * ROLLBACK: one SELECT that lets go what the string took before it failed
 * (a GET_LOCK). When those fail, the connection is closed. */
int	my_exec(struct lr_backend *b, const char *what, const struct myq *body,
	    size_t want, int flags, my_row_fn fn, void *arg, struct lr_err *e);
int	my_exec_undo(struct lr_backend *b, const char *what, const struct myq *body,
	    size_t want, int flags, const char *undo, my_row_fn fn, void *arg,
	    struct lr_err *e);

/* The same in two halves, for the renewal: send without waiting, then
 * read (which blocks only until the whole answer is in). */
int	my_send(struct lr_backend *b, const char *what, const struct myq *body,
	    struct lr_err *e);
int	my_recv(struct lr_backend *b, const char *what, size_t want, my_row_fn fn,
	    void *arg, struct lr_err *e);
/* my_recv(), the result sets read into *sets; with each, the rows after
 * one past the bound are given to fn too (each set is a lease's own:
 * mysql_batch.c). */
int	my_recv_sets(struct lr_backend *b, const char *what, size_t want, my_row_fn fn,
	    void *arg, int each, size_t *sets, struct lr_err *e);

/* The operations that only look (mysql_read.c). */
int	my_peek(struct lr_backend *b, const char *key, char *buf, size_t n,
	    long long *ttl_ms, struct lr_err *e);
int	my_states(struct lr_backend *b, const struct lr_keys *k, size_t n, int counts,
	    struct lr_state *out, long long *now_ms, struct lr_err *e);
int	my_keys(struct lr_backend *b, const char *prefix, char ***keys, size_t *n,
	    struct lr_err *e);
int	my_history(struct lr_backend *b, const struct lr_keys *k, long long count,
	    struct lr_hist *h, struct lr_err *e);
int	my_stories(struct lr_backend *b, const struct lr_keys *k, const char *const *fields,
	    size_t n, char **values, size_t *lens, struct lr_err *e);
int	my_probe(struct lr_backend *b, const struct lr_keys *k, int one_server,
	    char *buf, size_t n, struct lr_err *e);

#endif

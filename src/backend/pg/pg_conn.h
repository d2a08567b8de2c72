/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_conn.h -- the PostgreSQL backend's connection: libpq loaded with
 * dlopen(3) and a non-blocking connect (pg_conn.c), and one statement
 * sent and answered within the command timeout (pg_query.c). Only
 * backend/pg sees libpq. */
#ifndef LR_PG_CONN_H
#define LR_PG_CONN_H

#include <libpq-fe.h>

#include "backend/ops.h"

/* libpq's functions, resolved by pg_conn_load(). */
struct pg_api {
	__typeof__(PQconnectStartParams)	*connect_start;
	__typeof__(PQconnectPoll)		*connect_poll;
	__typeof__(PQconninfoParse)		*conninfo_parse;
	__typeof__(PQconninfoFree)		*conninfo_free;
	__typeof__(PQfreemem)			*freemem;
	__typeof__(PQstatus)			*status;
	__typeof__(PQsocket)			*socket;
	__typeof__(PQhost)			*host;
	__typeof__(PQport)			*port;
	__typeof__(PQerrorMessage)		*error_message;
	__typeof__(PQsetErrorVerbosity)		*set_verbosity;
	__typeof__(PQsetNoticeProcessor)	*set_notice_processor;
	__typeof__(PQsetnonblocking)		*set_nonblocking;
	__typeof__(PQfinish)			*finish;
	__typeof__(PQsendQuery)			*send_query;
	__typeof__(PQsendQueryParams)		*send_query_params;
	__typeof__(PQflush)			*flush;
	__typeof__(PQconsumeInput)		*consume_input;
	__typeof__(PQisBusy)			*is_busy;
	__typeof__(PQgetResult)			*get_result;
	__typeof__(PQresultStatus)		*result_status;
	__typeof__(PQresultErrorField)		*result_error_field;
	__typeof__(PQntuples)			*ntuples;
	__typeof__(PQgetvalue)			*getvalue;
	__typeof__(PQgetisnull)			*getisnull;
	__typeof__(PQnfields)			*nfields;
	__typeof__(PQgetlength)			*getlength;
	__typeof__(PQclear)			*clear;
	/* libpq 14+; NULL with an older one (no batch form then) */
	__typeof__(PQenterPipelineMode)		*enter_pipeline_mode;
	__typeof__(PQexitPipelineMode)		*exit_pipeline_mode;
	__typeof__(PQpipelineSync)		*pipeline_sync;
};

extern struct pg_api pq;

/* b->impl. */
struct pg {
	PGconn		*conn;		/* NULL: closed */
	PGresult	*pending;	/* a sent statement's answer, until all of it is in */
	int		 in_flight;	/* a statement was sent with pg_conn_send() */
	char		 notice[256];	/* the server's last notice, one line (an
					 * error between statements comes as one) */
	size_t		 in_bytes;	/* read for the statement in flight */
	size_t		 in_max;	/* its bound: PG_ANSWER_MAX unless raised */
	int		 over;		/* the answer went past it: read to its end
					 * (up to PG_DRAIN_MAX) and dropped, the
					 * statement failed with LR_ERR_DATA */
};

/* The most an answer may bring (libpq holds a result whole): lockrun's
 * largest, a history page or the state of many tasks, are far below it. A
 * server (or anyone in the path of a connection without TLS) sending more
 * is refused as Redis is (rreader.h), not followed until memory runs out. */
#define PG_ANSWER_MAX	(8u * 1024 * 1024)

/* An answer past the bound is one statement's, for one task's rows (a
 * pause, a holder's value grown large): it is read to its end and
 * dropped, the session kept with every lock it holds, and that statement
 * alone fails (LR_ERR_DATA). Past this, the connection is given up
 * (LR_ERR_PROTOCOL): no server of ours. */
#define PG_DRAIN_MAX	(64u * 1024 * 1024)

/* Read what has arrived for the statement in flight (PQconsumeInput),
 * counting it against p->in_max (p->over set past it). Returns 0, or -1
 * with e (EX_UNAVAILABLE, the message without the server's name): the
 * connection broke (LR_ERR_TRANSPORT) or the answer went past
 * PG_DRAIN_MAX (LR_ERR_PROTOCOL). */
int	pg_conn_consume(struct pg *p, struct lr_err *e);

/* The kind of failure SQLSTATE state is: the connection's classes (08,
 * 57P01-03) LR_ERR_TRANSPORT, authorization (28) LR_ERR_AUTH, the data's
 * (22 data exception, 23 integrity constraint, 54 program limit, such as
 * a row too big, P0 an exception a PL/pgSQL trigger or function raised on
 * the row) LR_ERR_DATA; any other LR_ERR_REFUSED. */
enum lr_err_kind pg_conn_kind(const char *state);

/* Let the next answers bring up to bytes (history -n sizes its own). */
void	pg_conn_allow(struct lr_backend *b, size_t bytes);

/* Load libpq (once). Returns 0, or -1 with e = EX_UNAVAILABLE naming the
 * Debian package. */
int	pg_conn_load(struct lr_err *e);

/* Check b->cfg.url (EX_USAGE when libpq cannot parse it) and name its
 * server in b->where. Returns 0, or -1 with e. */
int	pg_conn_where(struct lr_backend *b, struct lr_err *e);

/* Connect within cap_ms (closing any connection first). Returns 0, or -1
 * with e as backend.h's open(). */
int	pg_conn_open(struct lr_backend *b, long long cap_ms, struct lr_err *e);
void	pg_conn_close(struct lr_backend *b);

/* The connection failed, timed out or broke while doing what, for the
 * reason why: close it and fill e as a transport failure ("postgres
 * WHERE: WHAT: WHY", LR_ERR_TRANSPORT; the caller may set another kind
 * that closes, LR_ERR_TIMEOUT, LR_ERR_PROTOCOL). why must not be e's own
 * message. Returns -1. */
int	pg_conn_broken(struct lr_backend *b, const char *what, const char *why,
	    struct lr_err *e);

/* The first line of libpq's message about conn into e, as a transport
 * failure (EX_UNAVAILABLE, LR_ERR_TRANSPORT): the rest is hints, the server's LOCATION, or
 * "server closed the connection unexpectedly" after the FATAL that said
 * why. "connection lost" when libpq says nothing. */
void	pg_conn_error(const PGconn *conn, struct lr_err *e);

/* One statement with n parameters, its answer awaited within the command
 * timeout. Returns the result (PGRES_TUPLES_OK or _COMMAND_OK), which the
 * caller clears, or NULL with e: lr_err_broke(e) when the connection
 * broke or the answer did not come in time (then it is closed); else the
 * server's refusal of the statement, its kind from the SQLSTATE's class
 * (pg_conn_kind()), or LR_ERR_DATA for an answer past the bound, read
 * and dropped (p->over), the connection in order.
 * _write: a missing table is created (pg_sql_ddl) and the statement sent
 * again. _read: a missing table is no error: NULL with *missing set. */
PGresult *pg_conn_write(struct lr_backend *b, const char *what, const char *sql, int n,
	    const char *const *params, struct lr_err *e);
PGresult *pg_conn_read(struct lr_backend *b, const char *what, const char *sql, int n,
	    const char *const *params, int *missing, struct lr_err *e);

/* Without waiting for the answer: send the statement (pg_conn_send:
 * returns 0, or -1 with e), then, when the socket is readable, read what
 * has come (pg_conn_recv: 1 with *res when all of the answer is in, 0 when
 * not yet, -1 with e). A statement in flight is awaited and its answer
 * dropped before any other is sent. */
int	pg_conn_send(struct lr_backend *b, const char *what, const char *sql, int n,
	    const char *const *params, struct lr_err *e);
int	pg_conn_recv(struct lr_backend *b, const char *what, PGresult **res,
	    struct lr_err *e);

/* A statement of a pipeline: its SQL and its nparams parameters. */
struct pg_stmt {
	const char		*sql;
	int			 nparams;
	const char *const	*params;
};

/* The n statements s[i] (each returning rows) in one write and one answer
 * (libpq's pipeline mode, one Sync: one implicit transaction, so one that
 * fails undoes them all), within wait_ms or the command timeout,
 * whichever is longer. Returns 0 with res[i] each statement's rows, which
 * the caller clears (NULL: an answer past the bound, read and dropped:
 * that statement's alone, as pg_conn_write() fails it, LR_ERR_DATA); 1
 * when nothing was done and the connection is in order: this libpq has
 * no pipeline mode (*ran 0), or a statement failed and undid the rest:
 * s[0..*ran) ran (the last of them failed) before their writes were
 * undone -- a session lock one took or let go stays as it left it --
 * and the others did not run (send them one at a time to learn which
 * failed); -1 with e, the connection closed. */
int	pg_conn_pipeline(struct lr_backend *b, const char *what,
	    const struct pg_stmt *const *s, size_t n, long long wait_ms, PGresult **res,
	    size_t *ran, struct lr_err *e);

/* An answer past the bound, read to its end and dropped: e for the
 * statement what (LR_ERR_DATA: the session is in order, the statement
 * alone fails, for the rows it read, one task's). Returns -1. */
int	pg_conn_too_large(struct lr_backend *b, const char *what, struct lr_err *e);

/* The answer to what is not the shape pg_sql.c gives it: clear res, fill
 * e (EX_SOFTWARE). Returns -1. */
int	pg_conn_unexpected(struct lr_backend *b, const char *what, PGresult *res,
	    struct lr_err *e);

/* Column c of row r: NULL when SQL NULL; as a number, dflt when NULL or
 * not a decimal. */
const char *pg_conn_cell(const PGresult *res, int r, int c);
long long pg_conn_num(const PGresult *res, int r, int c, long long dflt);

#endif

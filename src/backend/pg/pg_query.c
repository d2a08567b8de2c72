/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_query.c -- the PostgreSQL backend's statements on the connection
 * pg_conn.c made: sent and answered within the command timeout, without
 * blocking, each answer bounded (PG_ANSWER_MAX); errors as pg_conn.c
 * says. */
#include <sys/ioctl.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_sql.h"
#include "core/duration.h"
#include "core/text.h"

/* Keep one result of a query's: the first error, else the last. */
static void
keep(PGresult **res, PGresult *r)
{
	if (*res != NULL && pq.result_status(*res) == PGRES_FATAL_ERROR) {
		pq.clear(r);
		return;
	}
	if (*res != NULL)
		pq.clear(*res);
	*res = r;
}

int
pg_conn_consume(struct pg *p, struct lr_err *e)
{
	int avail = 0;

	/* what is about to be read, as the kernel counts it (with TLS, the
	 * records: a little more than libpq keeps) */
	if (ioctl(pq.socket(p->conn), FIONREAD, &avail) == 0 && avail > 0)
		p->in_bytes += (size_t)avail;
	if (p->in_bytes > (p->in_max ? p->in_max : PG_ANSWER_MAX))
		p->over = 1;	/* read on to its end, then dropped: outcome() */
	if (p->in_bytes > PG_DRAIN_MAX + (p->in_max ? p->in_max : PG_ANSWER_MAX))
		return lr_errk(e, LR_ERR_PROTOCOL, EX_UNAVAILABLE, "protocol error: an answer "
		    "larger than lockrun accepts (%zu MiB)",
		    (p->in_max ? p->in_max : PG_ANSWER_MAX) >> 20);
	if (!pq.consume_input(p->conn)) {
		pg_conn_error(p->conn, e);
		return -1;
	}
	return 0;
}

/* pg_conn_broken() as a failure of kind (one that closes: ce's, else a
 * lost transport). Returns -1. */
static int
broken_as(struct lr_backend *b, const char *what, const struct lr_err *ce,
    enum lr_err_kind kind, struct lr_err *e)
{
	pg_conn_broken(b, what, ce->msg, e);
	if (e != NULL && lr_err_broke(&(struct lr_err){ .kind = kind }))
		e->kind = kind;
	return -1;
}

void
pg_conn_allow(struct lr_backend *b, size_t bytes)
{
	struct pg *p = b->impl;

	if (bytes > PG_ANSWER_MAX)
		p->in_max = bytes;
}

/* Write out what is queued, within deadline. Returns 0, or -1 with e. */
static int
send_out(struct lr_backend *b, const char *what, long long deadline, struct lr_err *e)
{
	struct pg *p = b->impl;
	struct lr_err ce;
	int f, w;

	while ((f = pq.flush(p->conn)) == 1) {
		w = mono_poll(pq.socket(p->conn), POLLOUT | POLLIN, deadline);
		if (w <= 0) {
			lr_errf(&ce, EX_UNAVAILABLE, "%s", w == 0 ? "timed out" : strerror(errno));
			return broken_as(b, what, &ce, w == 0 ? LR_ERR_TIMEOUT : LR_ERR_TRANSPORT, e);
		}
		if (pg_conn_consume(p, &ce) != 0)	/* the server may be talking */
			return broken_as(b, what, &ce, ce.kind, e);
	}
	if (f != 0) {
		pg_conn_error(p->conn, &ce);
		return pg_conn_broken(b, what, ce.msg, e);
	}
	return 0;
}

/* Wait, within deadline, until a result can be taken without blocking.
 * Returns 0, or -1 with e (closed). */
static int
ready(struct lr_backend *b, const char *what, long long deadline, struct lr_err *e)
{
	struct pg *p = b->impl;
	struct lr_err ce;
	int w;

	while (pq.is_busy(p->conn)) {
		if ((w = mono_poll(pq.socket(p->conn), POLLIN, deadline)) <= 0 ||
		    pg_conn_consume(p, &ce) != 0) {
			if (w <= 0)
				lr_errk(&ce, w == 0 ? LR_ERR_TIMEOUT : LR_ERR_TRANSPORT,
				    EX_UNAVAILABLE, "%s", w == 0 ?
				    "no answer in time" : strerror(errno));
			return broken_as(b, what, &ce, ce.kind, e);
		}
	}
	return 0;
}

/* Read the answer to what was sent, within deadline: *res is its result
 * (see keep()). Returns 0, or -1 with e (closed). */
static int
collect(struct lr_backend *b, const char *what, long long deadline, PGresult **res,
    struct lr_err *e)
{
	struct pg *p = b->impl;
	PGresult *r;

	*res = NULL;
	for (;;) {
		if (ready(b, what, deadline, e) != 0) {
			if (*res != NULL)
				pq.clear(*res);
			*res = NULL;
			return -1;
		}
		if ((r = pq.get_result(p->conn)) == NULL)
			return 0;
		keep(res, r);
	}
}

/* The bytes of a result's values. libpq reads a message whole before
 * lockrun sees any of it, so pg_conn_consume() counts only what arrives in
 * many messages; a single long row is refused here, once it is in. */
static size_t
answer_size(const PGresult *res)
{
	size_t n = 0;

	for (int r = 0; r < pq.ntuples(res); r++)
		for (int c = 0; c < pq.nfields(res); c++)
			n += (size_t)pq.getlength(res, r, c);
	return n;
}

/* The bound of an answer, now. */
static size_t
bound(const struct pg *p)
{
	return p->in_max ? p->in_max : PG_ANSWER_MAX;
}

/* An answer past the bound, read to its end: the session is in order,
 * this statement alone fails, for the rows it read (one task's). */
int
pg_conn_too_large(struct lr_backend *b, const char *what, struct lr_err *e)
{
	return lr_errk(e, LR_ERR_DATA, EX_UNAVAILABLE, "postgres %s: %s: an answer larger "
	    "than lockrun accepts (%zu MiB; a value of this task's grown too large?)",
	    b->where, what, bound(b->impl) >> 20);
}

int
pg_conn_unexpected(struct lr_backend *b, const char *what, PGresult *res, struct lr_err *e)
{
	pq.clear(res);
	return lr_errf(e, EX_SOFTWARE, "postgres %s: %s: unexpected answer", b->where, what);
}

/* A query's result: 0 for rows or success; else -1 with e -- a broken
 * connection (closed, transport), or the server's refusal, its SQLSTATE
 * into state[6]. */
static int
outcome(struct lr_backend *b, const char *what, const PGresult *res, char state[6],
    struct lr_err *e)
{
	struct pg *p = b->impl;
	const char *code = NULL, *msg = NULL;
	struct lr_err why;	/* the reason, before the server's name */

	state[0] = '\0';
	p->notice[0] = '\0';	/* the statement's own notices are no news later */
	if (p->over || (res != NULL && pq.result_status(res) == PGRES_TUPLES_OK &&
	    answer_size(res) > bound(p))) {
		p->over = 1;
		return pg_conn_too_large(b, what, e);
	}
	if (res != NULL && (pq.result_status(res) == PGRES_TUPLES_OK ||
	    pq.result_status(res) == PGRES_COMMAND_OK))
		return 0;
	if (res != NULL) {
		code = pq.result_error_field(res, PG_DIAG_SQLSTATE);
		msg = pq.result_error_field(res, PG_DIAG_MESSAGE_PRIMARY);
	}
	snprintf(state, 6, "%s", code ? code : "");
	if (msg != NULL)
		text_one_line(why.msg, sizeof(why.msg), msg);
	else
		pg_conn_error(p->conn, &why);
	if (pq.status(p->conn) == CONNECTION_BAD)
		return pg_conn_broken(b, what, why.msg, e);
	return lr_errk(e, code ? pg_conn_kind(code) : LR_ERR_REFUSED, EX_UNAVAILABLE,
	    "postgres %s: %s: %s", b->where, what, why.msg);
}

/* A statement still in flight (a renewal, when the command ended
 * meanwhile) before another is sent: read its answer and drop it. */
static int
settle(struct lr_backend *b, const char *what, long long deadline, struct lr_err *e)
{
	struct pg *p = b->impl;
	PGresult *r;

	if (!p->in_flight)
		return 0;
	p->in_flight = 0;
	if (p->pending != NULL)
		pq.clear(p->pending);
	p->pending = NULL;
	if (collect(b, what, deadline, &r, e) != 0)
		return -1;
	if (r != NULL)
		pq.clear(r);
	return 0;
}

/* Send sql (n < 0: several statements, no parameters) and write it out
 * by deadline. Returns 0, or -1 with e. */
static int
start(struct lr_backend *b, const char *what, const char *sql, int n,
    const char *const *params, long long deadline, struct lr_err *e)
{
	struct pg *p = b->impl;
	struct lr_err ce;
	int sent;

	if (p->conn == NULL) {
		lr_errf(e, EX_UNAVAILABLE, "postgres %s: %s: not connected", b->where, what);
		if (e != NULL)
			e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
	if (settle(b, what, deadline, e) != 0)
		return -1;
	p->in_bytes = 0;
	p->over = 0;
	sent = n < 0 ? pq.send_query(p->conn, sql) :
	    pq.send_query_params(p->conn, sql, n, NULL, params, NULL, NULL, 0);
	if (!sent) {
		pg_conn_error(p->conn, &ce);
		return pg_conn_broken(b, what, ce.msg, e);
	}
	return send_out(b, what, deadline, e);
}

/* Send sql and wait for its answer within the command timeout. Returns
 * the result, which the caller clears, or NULL with e and the SQLSTATE
 * of a refusal in state. */
static PGresult *
run(struct lr_backend *b, const char *what, const char *sql, int n,
    const char *const *params, char state[6], struct lr_err *e)
{
	long long deadline = mono_ms() + b->cfg.command_timeout_ms;
	PGresult *res;

	state[0] = '\0';
	if (start(b, what, sql, n, params, deadline, e) != 0 ||
	    collect(b, what, deadline, &res, e) != 0)
		return NULL;
	if (outcome(b, what, res, state, e) != 0) {
		if (res != NULL)
			pq.clear(res);
		return NULL;
	}
	return res;
}

int
pg_conn_send(struct lr_backend *b, const char *what, const char *sql, int n,
    const char *const *params, struct lr_err *e)
{
	struct pg *p = b->impl;

	if (start(b, what, sql, n, params, mono_ms() + b->cfg.command_timeout_ms, e) != 0)
		return -1;
	p->in_flight = 1;
	return 0;
}

int
pg_conn_recv(struct lr_backend *b, const char *what, PGresult **res, struct lr_err *e)
{
	struct pg *p = b->impl;
	char state[6];
	struct lr_err ce;
	PGresult *r;

	*res = NULL;
	if (p->conn == NULL || !p->in_flight)
		return lr_errf(e, EX_SOFTWARE, "postgres %s: %s: nothing sent", b->where, what);
	if (pg_conn_consume(p, &ce) != 0)
		return broken_as(b, what, &ce, ce.kind, e);
	while (!pq.is_busy(p->conn)) {
		if ((r = pq.get_result(p->conn)) != NULL) {
			keep(&p->pending, r);
			continue;
		}
		p->in_flight = 0;	/* all of it is in */
		*res = p->pending;
		p->pending = NULL;
		if (outcome(b, what, *res, state, e) == 0)
			return 1;
		if (*res != NULL)
			pq.clear(*res);
		*res = NULL;
		return -1;
	}
	return 0;
}

/* run() for a statement that writes: when it finds a table missing, or a
 * column (a table an older lockrun created), create the tables and add the
 * columns (pg_sql_ddl), and send it once more. */
PGresult *
pg_conn_write(struct lr_backend *b, const char *what, const char *sql, int n,
    const char *const *params, struct lr_err *e)
{
	char state[6];
	PGresult *res = run(b, what, sql, n, params, state, e);

	/* undefined_table, undefined_column */
	if (res == NULL && (strcmp(state, "42P01") == 0 || strcmp(state, "42703") == 0)) {
		if ((res = run(b, "create tables", pg_sql_ddl, -1, NULL, state, e)) == NULL)
			return NULL;
		pq.clear(res);
		res = run(b, what, sql, n, params, state, e);
	}
	return res;
}

/* run() for a statement that reads: a missing table is no error, it
 * holds nothing (*missing set, NULL returned, e untouched). */
PGresult *
pg_conn_read(struct lr_backend *b, const char *what, const char *sql, int n,
    const char *const *params, int *missing, struct lr_err *e)
{
	struct lr_err mine = LR_ERR_INIT;
	char state[6];
	PGresult *res = run(b, what, sql, n, params, state, &mine);

	*missing = res == NULL && strcmp(state, "42P01") == 0;
	if (res == NULL && !*missing && e != NULL)
		*e = mine;
	return res;
}

/* Queue the n statements and the Sync, and write them out. */
static int
pipeline_send(struct lr_backend *b, const char *what, const struct pg_stmt *const *s,
    size_t n, long long deadline, struct lr_err *e)
{
	struct pg *p = b->impl;
	struct lr_err ce;
	int ok = pq.enter_pipeline_mode(p->conn);

	for (size_t i = 0; ok && i < n; i++)
		ok = pq.send_query_params(p->conn, s[i]->sql, s[i]->nparams, NULL,
		    s[i]->params, NULL, NULL, 0);
	if (!ok || !pq.pipeline_sync(p->conn)) {
		pg_conn_error(p->conn, &ce);
		return pg_conn_broken(b, what, ce.msg, e);
	}
	return send_out(b, what, deadline, e);
}

/* Read each statement's results, a NULL after each, then the Sync's,
 * within deadline, and leave pipeline mode. Returns 0, or -1 with e
 * (closed). */
static int
pipeline_read(struct lr_backend *b, const char *what, size_t n, long long deadline,
    PGresult **res, struct lr_err *e)
{
	struct pg *p = b->impl;
	size_t at = 0;	/* the statement whose results come */
	struct lr_err ce;
	PGresult *r;

	for (;;) {
		if (ready(b, what, deadline, e) != 0)
			return -1;
		if ((r = pq.get_result(p->conn)) == NULL) {
			at++;
			continue;
		}
		if (pq.result_status(r) == PGRES_PIPELINE_SYNC) {
			pq.clear(r);
			break;
		}
		if (at < n)
			keep(&res[at], r);
		else
			pq.clear(r);
	}
	if (pq.exit_pipeline_mode(p->conn))
		return 0;
	pg_conn_error(p->conn, &ce);
	return pg_conn_broken(b, what, ce.msg, e);
}

/* After the pipeline's answer: 0 when every statement gave rows (an
 * answer past the bound is dropped, its res NULL); else 1 with *ran, the
 * statements up to the one that failed (those after it are aborted). */
static int
pipeline_outcome(const struct pg *p, size_t n, PGresult **res, size_t *ran)
{
	for (size_t i = 0; i < n; i++) {
		if (res[i] != NULL && pq.result_status(res[i]) == PGRES_TUPLES_OK)
			continue;
		*ran = i + 1;
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (answer_size(res[i]) > bound(p)) {
			pq.clear(res[i]);
			res[i] = NULL;
		}
	return 0;
}

int
pg_conn_pipeline(struct lr_backend *b, const char *what, const struct pg_stmt *const *s,
    size_t n, long long wait_ms, PGresult **res, size_t *ran, struct lr_err *e)
{
	struct pg *p = b->impl;
	long long deadline = mono_ms() + (wait_ms > b->cfg.command_timeout_ms ? wait_ms :
	    b->cfg.command_timeout_ms);
	int rc = -1;

	*ran = 0;
	for (size_t i = 0; i < n; i++)
		res[i] = NULL;
	if (pq.pipeline_sync == NULL)
		return 1;
	if (p->conn == NULL)
		return lr_errk(e, LR_ERR_TRANSPORT, EX_UNAVAILABLE, "postgres %s: %s: not "
		    "connected", b->where, what);
	if (settle(b, what, deadline, e) != 0)
		return -1;
	p->in_bytes = 0;
	p->over = 0;
	/* the bound holds each statement's answer: the stream's is that
	 * of PG_DRAIN_MAX alone (pg_conn_consume()) */
	if (pipeline_send(b, what, s, n, deadline, e) == 0 &&
	    pipeline_read(b, what, n, deadline, res, e) == 0 &&
	    (rc = pipeline_outcome(p, n, res, ran)) == 0) {
		p->over = 0;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (res[i] != NULL)
			pq.clear(res[i]);
		res[i] = NULL;
	}
	p->over = 0;
	return rc;
}

/* Row r, column c of res: NULL when SQL NULL. */
const char *
pg_conn_cell(const PGresult *res, int r, int c)
{
	return pq.getisnull(res, r, c) ? NULL : pq.getvalue(res, r, c);
}

/* The same as a number, or dflt when NULL. */
long long
pg_conn_num(const PGresult *res, int r, int c, long long dflt)
{
	const char *s = pg_conn_cell(res, r, c);
	long long v;

	return s && text_decimal(s, &v) == 0 ? v : dflt;
}

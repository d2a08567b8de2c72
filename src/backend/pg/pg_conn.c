/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_conn.c -- the PostgreSQL backend's connection: libpq loaded with
 * dlopen(3) at pg_backend_init() time (lockrun does not link it, so a
 * host without libpq5 runs Redis and MySQL all the same), a
 * non-blocking connect, and statements sent and answered within the
 * command timeout.
 *
 * Errors: no answer, a broken connection or a timeout are EX_UNAVAILABLE
 * with e->transport set, and the connection is closed (a statement
 * abandoned mid-way may still take or hold a session lock; the session
 * ends with the connection, and its locks with it). A refusal by the
 * server (a bad password, no privilege, a read-only standby) is
 * EX_UNAVAILABLE without it; a database that does not exist is
 * EX_CONFIG. Messages are one line; libpq's never hold the password. */
#include <sys/types.h>

#include <sys/ioctl.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "backend/backend.h"
#include "core/duration.h"
#include "backend/notes.h"
#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_sql.h"
#include "backend/pg/pgurl.h"
#include "core/url.h"
#include "core/text.h"

#define LIBPQ		NOTES_PQ
#define UNIX_DEFAULT	"/var/run/postgresql"	/* Debian's libpq, without a host */

struct pg_api pq;

#define SYM(f, name)	{ name, offsetof(struct pg_api, f) }
static const struct {
	const char	*name;
	size_t		 off;
} syms[] = {
	SYM(connect_start, "PQconnectStartParams"), SYM(connect_poll, "PQconnectPoll"),
	SYM(conninfo_parse, "PQconninfoParse"), SYM(conninfo_free, "PQconninfoFree"),
	SYM(freemem, "PQfreemem"),
	SYM(status, "PQstatus"), SYM(socket, "PQsocket"), SYM(host, "PQhost"),
	SYM(port, "PQport"), SYM(error_message, "PQerrorMessage"),
	SYM(set_verbosity, "PQsetErrorVerbosity"),
	SYM(set_notice_processor, "PQsetNoticeProcessor"),
	SYM(set_nonblocking, "PQsetnonblocking"), SYM(finish, "PQfinish"),
	SYM(send_query, "PQsendQuery"), SYM(send_query_params, "PQsendQueryParams"),
	SYM(flush, "PQflush"), SYM(consume_input, "PQconsumeInput"),
	SYM(is_busy, "PQisBusy"), SYM(get_result, "PQgetResult"),
	SYM(result_status, "PQresultStatus"), SYM(result_error_field, "PQresultErrorField"),
	SYM(ntuples, "PQntuples"), SYM(getvalue, "PQgetvalue"),
	SYM(getisnull, "PQgetisnull"), SYM(clear, "PQclear"),
	SYM(nfields, "PQnfields"), SYM(getlength, "PQgetlength"),
};

/* Load libpq once; it stays loaded. */
int
pg_conn_load(struct lr_err *e)
{
	static int loaded;
	void *h, *f;

	if (loaded)
		return 0;
	if ((h = dlopen(LIBPQ, RTLD_NOW | RTLD_LOCAL)) == NULL)
		return lr_errf(e, EX_UNAVAILABLE, "postgres://: cannot load " LIBPQ " (Debian: "
		    "apt-get install libpq5): %s", dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if ((f = dlsym(h, syms[i].name)) == NULL) {
			lr_errf(e, EX_UNAVAILABLE, "postgres://: cannot load " LIBPQ
			    " (Debian: apt-get install libpq5): %s", dlerror());
			dlclose(h);
			return -1;
		}
		memcpy((char *)&pq + syms[i].off, &f, sizeof(f));
	}
	loaded = 1;
	return 0;
}

/* "host:port" or "unix:/dir" for messages. */
static void
where_set(struct lr_backend *b, const char *host, const char *port)
{
	if (host == NULL || *host == '\0')
		host = UNIX_DEFAULT;
	if (port == NULL || *port == '\0')
		port = "5432";
	if (*host == '/' || *host == '@')
		snprintf(b->where, sizeof(b->where), "unix:%s", host);
	else
		snprintf(b->where, sizeof(b->where), "%s:%s", host, port);
}

/* libpq parses the URL itself; here only to refuse a malformed one before
 * any connection, and to name the server in messages. libpq quotes the
 * part it could not parse, which may be the password: with one in the
 * URL, the message ends before the quote. */
int
pg_conn_where(struct lr_backend *b, struct lr_err *e)
{
	const char *host = NULL, *port = NULL;
	PQconninfoOption *o;
	char *why = NULL, line[300];

	if ((o = pq.conninfo_parse(b->cfg.url, &why)) == NULL) {
		text_one_line(line, sizeof(line), why ? why : "out of memory");
		if (why != NULL)
			pq.freemem(why);
		if (url_has_password(b->cfg.url)) {
			line[strcspn(line, "\"")] = '\0';
			text_one_line(line, sizeof(line), line);
			if (line[0] != '\0' && line[strlen(line) - 1] == ':')
				line[strlen(line) - 1] = '\0';
		}
		return lr_errf(e, EX_USAGE, "postgres URL: %s", line);
	}
	for (PQconninfoOption *p = o; p->keyword != NULL; p++) {
		if (pgurl_problem(p->keyword, p->val, line, sizeof(line)) != NULL) {
			pq.conninfo_free(o);
			return lr_errf(e, EX_USAGE, "postgres URL: %s", text_visible(line));
		}
		if (strcmp(p->keyword, "host") == 0 && p->val && *p->val)
			host = p->val;
		else if (strcmp(p->keyword, "hostaddr") == 0 && p->val && *p->val && !host)
			host = p->val;
		else if (strcmp(p->keyword, "port") == 0)
			port = p->val;
	}
	where_set(b, host, port);
	pq.conninfo_free(o);
	return 0;
}

/* libpq prints a notice (a WARNING, "relation already exists, skipping")
 * on stderr by default; lockrun's stderr is its own. The last one is kept:
 * an error the server sends between statements (the FATAL that ends a
 * session) comes this way, and says why the session ended. */
static void
quiet(void *arg, const char *message)
{
	struct pg *p = arg;
	char line[256];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(message, "\n"), message);
	text_one_line(p->notice, sizeof(p->notice), line);
}

void
pg_conn_close(struct lr_backend *b)
{
	struct pg *p = b->impl;

	if (p->pending != NULL)
		pq.clear(p->pending);
	p->pending = NULL;
	p->in_flight = 0;
	if (p->conn != NULL)
		pq.finish(p->conn);
	p->conn = NULL;
}

/* The connection failed, timed out or broke: close it and fill e as a
 * transport failure. Returns -1. */
static int
broken(struct lr_backend *b, const char *what, const char *why, struct lr_err *e)
{
	lr_errf(e, EX_UNAVAILABLE, "postgres %s: %s: %s", b->where, what, why);
	pg_conn_close(b);
	if (e != NULL)
		e->transport = 1;
	return -1;
}

/* The first line of libpq's message about the connection into why[n]:
 * the rest is hints, the server's LOCATION, or "server closed the
 * connection unexpectedly" after the FATAL that said why. */
static void
conn_error(const PGconn *conn, char *why, size_t n)
{
	const char *msg = pq.error_message(conn);
	char line[512];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(msg, "\n"), msg);
	text_one_line(why, n, line);
	if (*why == '\0')
		snprintf(why, n, "connection lost");
}

/* Why connecting failed, into why[n], without libpq's "connection to
 * server at ..., port ... failed: " (b->where says which server); the
 * SQLSTATE of the server's refusal ("FATAL:  28P01: ...", verbose) into
 * state[6] and out of why, "" when the server did not answer. */
static void
conn_message(const PGconn *conn, char state[6], char *why, size_t n)
{
	const char *at;
	char *s;

	state[0] = '\0';
	conn_error(conn, why, n);
	if ((at = strstr(why, " failed: ")) != NULL &&
	    strncmp(why, "connection to server", 20) == 0)
		memmove(why, at + 9, strlen(at + 9) + 1);
	if ((s = strstr(why, "FATAL: ")) != NULL &&
	    strspn(s + 7, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5 && s[12] == ':') {
		memcpy(state, s + 7, 5);
		state[5] = '\0';
		memmove(s + 7, s + 14, strlen(s + 14) + 1);
	}
	/* the severity says nothing the exit status does not */
	if ((s = strstr(why, "FATAL: ")) != NULL)
		memmove(s, s + 7, strlen(s + 7) + 1);
}

/* Connecting failed: close, and say why with the status the error rules
 * give it. Returns -1. */
static int
connect_failed(struct lr_backend *b, struct lr_err *e)
{
	struct pg *p = b->impl;
	char state[6], why[400];

	conn_message(p->conn, state, why, sizeof(why));
	if (strcmp(state, "3D000") == 0) {	/* invalid_catalog_name */
		pg_conn_close(b);
		return lr_errf(e, EX_CONFIG, "postgres %s: connect: %s", b->where, why);
	}
	/* no answer at all, or one that says the server cannot serve now
	 * (starting up, shutting down, too many connections): unreachable */
	if (state[0] == '\0' || strncmp(state, "57P", 3) == 0 || strcmp(state, "53300") == 0)
		return broken(b, "connect", why, e);
	pg_conn_close(b);
	return lr_errf(e, EX_UNAVAILABLE, "postgres %s: connect: %s", b->where, why);
}

/* Start a connection with the URL, the password and lockrun's name. */
static PGconn *
connect_start(struct lr_backend *b, long long cap_ms)
{
	char secs[24];
	const char *kw[5], *val[5];
	int n = 0;

	/* before the URL, so that its application_name wins; after it, so
	 * that they win over the URL's */
	kw[n] = "application_name", val[n++] = "lockrun";
	kw[n] = "dbname", val[n++] = b->cfg.url;
	if (b->cfg.password != NULL && *b->cfg.password != '\0')
		kw[n] = "password", val[n++] = b->cfg.password;
	snprintf(secs, sizeof(secs), "%lld", cap_ms > 0 ? (cap_ms + 999) / 1000 : 1);
	kw[n] = "connect_timeout", val[n++] = secs;
	kw[n] = NULL, val[n] = NULL;
	return pq.connect_start(kw, val, 1);
}

/* Connect within cap_ms, without blocking past it (but for the name
 * lookup, which libpq makes before it returns). Returns 0, or -1 with e. */
int
pg_conn_open(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	struct pg *p = b->impl;
	long long deadline = mono_ms() + cap_ms;
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	int w, fd;

	pg_conn_close(b);
	if ((p->conn = connect_start(b, cap_ms)) == NULL)
		return lr_errf(e, EX_OSERR, "postgres %s: connect: out of memory", b->where);
	p->notice[0] = '\0';
	pq.set_notice_processor(p->conn, quiet, p);
	pq.set_verbosity(p->conn, PQERRORS_VERBOSE);	/* the SQLSTATE, for connect_failed */
	while (pq.status(p->conn) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
	    st != PGRES_POLLING_FAILED) {
		w = mono_poll(pq.socket(p->conn),
		    st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
		if (w <= 0)
			return broken(b, "connect", w == 0 ? "timed out" : strerror(errno), e);
		st = pq.connect_poll(p->conn);
	}
	if (st != PGRES_POLLING_OK || pq.status(p->conn) != CONNECTION_OK)
		return connect_failed(b, e);
	pq.set_verbosity(p->conn, PQERRORS_DEFAULT);
	where_set(b, pq.host(p->conn), pq.port(p->conn));
	/* the command lockrun runs must not inherit the session: the
	 * session lock would live as long as the command */
	fd = pq.socket(p->conn);
	if (fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) != 0 ||
	    pq.set_nonblocking(p->conn, 1) != 0)
		return broken(b, "connect", strerror(errno), e);
	return 0;
}

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
pg_conn_consume(struct pg *p, char *why, size_t n)
{
	int avail = 0;

	/* what is about to be read, as the kernel counts it (with TLS, the
	 * records: a little more than libpq keeps) */
	if (ioctl(pq.socket(p->conn), FIONREAD, &avail) == 0 && avail > 0)
		p->in_bytes += (size_t)avail;
	if (p->in_bytes > (p->in_max ? p->in_max : PG_ANSWER_MAX)) {
		snprintf(why, n, "protocol error: an answer larger than lockrun accepts "
		    "(%zu MiB)", (p->in_max ? p->in_max : PG_ANSWER_MAX) >> 20);
		return 0;
	}
	if (!pq.consume_input(p->conn)) {
		conn_error(p->conn, why, n);
		return 0;
	}
	return 1;
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
	char why[300];
	int f, w;

	while ((f = pq.flush(p->conn)) == 1) {
		w = mono_poll(pq.socket(p->conn), POLLOUT | POLLIN, deadline);
		if (w <= 0)
			return broken(b, what, w == 0 ? "timed out" : strerror(errno), e);
		if (!pg_conn_consume(p, why, sizeof(why)))	/* the server may be talking */
			return broken(b, what, why, e);
	}
	if (f != 0) {
		conn_error(p->conn, why, sizeof(why));
		return broken(b, what, why, e);
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
	char why[300];
	PGresult *r;
	int w;

	*res = NULL;
	for (;;) {
		while (pq.is_busy(p->conn)) {
			if ((w = mono_poll(pq.socket(p->conn), POLLIN, deadline)) <= 0 ||
			    !pg_conn_consume(p, why, sizeof(why))) {
				if (w <= 0)
					snprintf(why, sizeof(why), "%s", w == 0 ? "no answer in time" :
					    strerror(errno));
				if (*res != NULL)
					pq.clear(*res);
				*res = NULL;
				return broken(b, what, why, e);
			}
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

/* A query's result: 0 for rows or success; else -1 with e -- a broken
 * connection (closed, transport), or the server's refusal, its SQLSTATE
 * into state[6]. */
static int
outcome(struct lr_backend *b, const char *what, const PGresult *res, char state[6],
    struct lr_err *e)
{
	struct pg *p = b->impl;
	const char *code = NULL, *msg = NULL;
	char why[400];

	state[0] = '\0';
	p->notice[0] = '\0';	/* the statement's own notices are no news later */
	if (res != NULL && pq.result_status(res) == PGRES_TUPLES_OK &&
	    answer_size(res) > (p->in_max ? p->in_max : PG_ANSWER_MAX)) {
		snprintf(why, sizeof(why), "protocol error: an answer larger than lockrun "
		    "accepts (%zu MiB)", (p->in_max ? p->in_max : PG_ANSWER_MAX) >> 20);
		return broken(b, what, why, e);
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
		text_one_line(why, sizeof(why), msg);
	else
		conn_error(p->conn, why, sizeof(why));
	if (pq.status(p->conn) == CONNECTION_BAD)
		return broken(b, what, why, e);
	return lr_errf(e, EX_UNAVAILABLE, "postgres %s: %s: %s", b->where, what, why);
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
	char why[300];
	int sent;

	if (p->conn == NULL) {
		lr_errf(e, EX_UNAVAILABLE, "postgres %s: %s: not connected", b->where, what);
		if (e != NULL)
			e->transport = 1;
		return -1;
	}
	if (settle(b, what, deadline, e) != 0)
		return -1;
	p->in_bytes = 0;
	sent = n < 0 ? pq.send_query(p->conn, sql) :
	    pq.send_query_params(p->conn, sql, n, NULL, params, NULL, NULL, 0);
	if (!sent) {
		conn_error(p->conn, why, sizeof(why));
		return broken(b, what, why, e);
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
	char state[6], why[300];
	PGresult *r;

	*res = NULL;
	if (p->conn == NULL || !p->in_flight)
		return lr_errf(e, EX_SOFTWARE, "postgres %s: %s: nothing sent", b->where, what);
	if (!pg_conn_consume(p, why, sizeof(why)))
		return broken(b, what, why, e);
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

/* run() for a statement that writes: when it finds a table missing,
 * create the tables and send it once more. */
PGresult *
pg_conn_write(struct lr_backend *b, const char *what, const char *sql, int n,
    const char *const *params, struct lr_err *e)
{
	char state[6];
	PGresult *res = run(b, what, sql, n, params, state, e);

	if (res == NULL && strcmp(state, "42P01") == 0) {	/* undefined_table */
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
	struct lr_err mine = { 0, "", 0 };
	char state[6];
	PGresult *res = run(b, what, sql, n, params, state, &mine);

	*missing = res == NULL && strcmp(state, "42P01") == 0;
	if (res == NULL && !*missing && e != NULL)
		*e = mine;
	return res;
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

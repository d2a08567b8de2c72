/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_conn.c -- the PostgreSQL backend's connection: libpq loaded with
 * dlopen(3) at pg_backend_init() time (lockrun does not link it, so a
 * host without libpq5 runs Redis and MySQL all the same) and a
 * non-blocking connect; pg_query.c sends the statements on it.
 *
 * Errors: no answer, a broken connection or a timeout are EX_UNAVAILABLE
 * with lr_err_broke(e), and the connection is closed (a statement
 * abandoned mid-way may still take or hold a session lock; the session
 * ends with the connection, and its locks with it). A refusal by the
 * server (a bad password, no privilege, a read-only standby) is
 * EX_UNAVAILABLE without it; a database that does not exist is
 * EX_CONFIG. Messages are one line; libpq's never hold the password. */
#include <sys/types.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "backend/ops.h"
#include "core/duration.h"
#include "backend/notes.h"
#include "backend/pg/pg_conn.h"
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
	/* optional: the batch forms need them */
	pq.enter_pipeline_mode = (__typeof__(pq.enter_pipeline_mode))dlsym(h,
	    "PQenterPipelineMode");
	pq.exit_pipeline_mode = (__typeof__(pq.exit_pipeline_mode))dlsym(h,
	    "PQexitPipelineMode");
	pq.pipeline_sync = (__typeof__(pq.pipeline_sync))dlsym(h, "PQpipelineSync");
	if (!pq.enter_pipeline_mode || !pq.exit_pipeline_mode)
		pq.pipeline_sync = NULL;
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
		if (pgurl_check(p->keyword, p->val, e) != 0) {
			pq.conninfo_free(o);
			text_visible(e->msg);
			return -1;
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

enum lr_err_kind
pg_conn_kind(const char *state)
{
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0)
		return LR_ERR_TRANSPORT;	/* connection; shutdown, crash */
	if (strncmp(state, "28", 2) == 0)
		return LR_ERR_AUTH;
	if (strncmp(state, "22", 2) == 0 || strncmp(state, "23", 2) == 0 ||
	    strncmp(state, "54", 2) == 0 || strncmp(state, "P0", 2) == 0)
		return LR_ERR_DATA;	/* P0: a trigger's RAISE, on this row */
	return LR_ERR_REFUSED;
}

int
pg_conn_broken(struct lr_backend *b, const char *what, const char *why, struct lr_err *e)
{
	lr_errf(e, EX_UNAVAILABLE, "postgres %s: %s: %s", b->where, what, why);
	pg_conn_close(b);
	if (e != NULL)
		e->kind = LR_ERR_TRANSPORT;
	return -1;
}

void
pg_conn_error(const PGconn *conn, struct lr_err *e)
{
	const char *msg = pq.error_message(conn);
	char line[512];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(msg, "\n"), msg);
	text_one_line(line, sizeof(line), line);
	lr_errf(e, EX_UNAVAILABLE, "%s", line[0] ? line : "connection lost");
	e->kind = LR_ERR_TRANSPORT;
}

/* Why connecting failed, into e (as pg_conn_error()), without libpq's
 * "connection to server at ..., port ... failed: " (b->where says which
 * server); the SQLSTATE of the server's refusal ("FATAL:  28P01: ...",
 * verbose) into state[6] and out of the message, "" when the server did
 * not answer.
 * The one place a kind is read out of a message: libpq keeps no PGresult
 * for a connection that failed (PQresultErrorField() has nothing to read),
 * only PQerrorMessage(), where PQERRORS_VERBOSE puts the server's
 * SQLSTATE, a code of five characters, after the severity. That code is
 * read, as from a PGresult; never the words around it. A message without
 * one (libpq's own: no server answered) is the transport's. */
static void
conn_message(const PGconn *conn, char state[6], struct lr_err *e)
{
	char *why = e->msg;
	const char *at;
	char *s;

	state[0] = '\0';
	pg_conn_error(conn, e);
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
	char state[6];
	struct lr_err ce;
	const char *why = ce.msg;

	conn_message(p->conn, state, &ce);
	if (strcmp(state, "3D000") == 0) {	/* invalid_catalog_name */
		pg_conn_close(b);
		return lr_errf(e, EX_CONFIG, "postgres %s: connect: %s", b->where, why);
	}
	/* no answer at all, or one that says the server cannot serve now
	 * (starting up, shutting down, too many connections): unreachable */
	if (state[0] == '\0' || strncmp(state, "57P", 3) == 0 || strcmp(state, "53300") == 0)
		return pg_conn_broken(b, "connect", why, e);
	pg_conn_close(b);
	return lr_errk(e, pg_conn_kind(state) == LR_ERR_AUTH ? LR_ERR_AUTH : LR_ERR_REFUSED,
	    EX_UNAVAILABLE, "postgres %s: connect: %s", b->where, why);
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
			return pg_conn_broken(b, "connect", w == 0 ? "timed out" :
			    strerror(errno), e);
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
		return pg_conn_broken(b, "connect", strerror(errno), e);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* err.h -- how modules report a failure: a sysexits status, one line,
 * and what kind of failure it is. */
#ifndef LR_ERR_H
#define LR_ERR_H

#include <sysexits.h>

#define LR_EXIT_TIMEOUT  124	/* --timeout expired, as timeout(1) */
#define LR_EXIT_NOEXEC   126	/* command found but not executable */
#define LR_EXIT_NOTFOUND 127	/* command not found */

/* What failed, set by the code that saw it (a backend, from the socket's
 * error, the client library's error number, the SQLSTATE, the reply's
 * type), never found again in the message's words: a caller decides on
 * it, whether to drop a connection, withdraw a request, retry, say where
 * a setting came from.
 *
 * The first three leave the connection closed, since nothing more can be
 * read on it in order: callers close it (lr_err_broke()). A scheduler's
 * shared connection or session, and with it every lock it holds, goes
 * for those alone; any other kind fails the one request it answered. */
enum lr_err_kind {
	LR_ERR_NONE = 0,	/* not the server's: a usage or config error,
				 * the system, lockrun's own */
	LR_ERR_TRANSPORT,	/* the server could not be reached, or the
				 * connection broke: a request sent may or may
				 * not have run */
	LR_ERR_TIMEOUT,		/* no answer within the deadline (closed): a
				 * request sent may yet run */
	LR_ERR_PROTOCOL,	/* an answer lockrun cannot read as the
				 * protocol's, or too large to read to its end:
				 * not the server expected; closed */
	LR_ERR_REFUSED,		/* the server answered no, for a reason not of
				 * this request's data: read-only, out of
				 * memory, no permission, busy, not the server
				 * or schema expected */
	LR_ERR_AUTH,		/* the server refused lockrun's credentials */
	LR_ERR_DATA,		/* this request failed for its own data: a row
				 * or value over the bound, malformed, a
				 * constraint or type error; the connection
				 * is in order and serves the other requests */
};

struct lr_err {
	int	status;		/* exit status main() should use */
	char	msg[512];	/* one line, no "lockrun: " prefix, no newline */
	enum lr_err_kind kind;	/* LR_ERR_NONE unless a server's */
};

/* An empty error: struct lr_err e = LR_ERR_INIT; */
#define LR_ERR_INIT	{ 0, "", LR_ERR_NONE }

/* Fill e (if not NULL) and return -1, so callers can write
 * `return lr_errf(e, EX_CONFIG, "...")`. Clears e->kind (LR_ERR_NONE):
 * the caller sets it after, when the failure is a server's. */
int	lr_errf(struct lr_err *e, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* lr_errf() with kind set. */
int	lr_errk(struct lr_err *e, enum lr_err_kind kind, int status, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

/* The connection that e came over is lost (transport, timeout, protocol):
 * it is closed, and what it carried with it (a session's locks). */
static inline int
lr_err_broke(const struct lr_err *e)
{
	return e->kind == LR_ERR_TRANSPORT || e->kind == LR_ERR_TIMEOUT ||
	    e->kind == LR_ERR_PROTOCOL;
}

/* A request sent over it may have run, its answer lost: in doubt. */
static inline int
lr_err_unanswered(const struct lr_err *e)
{
	return e->kind == LR_ERR_TRANSPORT || e->kind == LR_ERR_TIMEOUT;
}

#endif

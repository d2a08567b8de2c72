/* SPDX-License-Identifier: BSD-2-Clause */
/* rlink.c -- one connection to one Redis server (rlink.h). */
#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "backend/redis/rerr.h"
#include "backend/redis/rlink.h"
#include "backend/redis/rreader.h"
#include "backend/redis/tls.h"

void
rlink_init(struct lr_link *l)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

/* e, marked as a failure to reach Redis. Returns -1. */
static int
unreachable(struct lr_err *e)
{
	if (e)
		e->kind = LR_ERR_TRANSPORT;
	return -1;
}

/* Close l for why, a failure of that kind. Returns -1. */
static int
break_as(struct lr_link *l, enum lr_err_kind kind, const char *why)
{
	if (why != l->why)
		snprintf(l->why, sizeof(l->why), "%s", why);
	l->why_kind = kind;
	rlink_close(l);
	return -1;
}

int
rlink_break(struct lr_link *l, const char *why)
{
	return break_as(l, why == l->timeout_why ? LR_ERR_TIMEOUT : LR_ERR_TRANSPORT, why);
}

int
rlink_fail(const struct lr_link *l, const char *doing, struct lr_err *e)
{
	lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: %s", l->where, doing,
	    l->why[0] ? l->why : "connection lost");
	if (e != NULL)
		e->kind = l->why[0] && l->why_kind ? l->why_kind : LR_ERR_TRANSPORT;
	return -1;
}

/* One read or write on the transport, without blocking. Returns the bytes
 * moved (0 only for end of file on a read), or -1 with *want set to the
 * poll event to wait for (errno EAGAIN), or -1 with l->why set. */
static ssize_t
io_read(struct lr_link *l, char *buf, size_t n, short *want)
{
	struct lr_err te;
	ssize_t got;

	if (l->tls) {
		if ((got = tls_read(l->tls, buf, n, want, &te)) < 0 && *want == 0)
			snprintf(l->why, sizeof(l->why), "%.*s", (int)sizeof(l->why) - 1,
			    te.msg);
		return got;
	}
	while ((got = recv(l->fd, buf, n, 0)) < 0 && errno == EINTR)
		;
	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		*want = POLLIN;
	else if (got < 0)
		snprintf(l->why, sizeof(l->why), "%s", strerror(errno));
	return got;
}

static ssize_t
io_write(struct lr_link *l, const char *buf, size_t n, short *want)
{
	struct lr_err te;
	ssize_t put;

	if (l->tls) {
		if ((put = tls_write(l->tls, buf, n, want, &te)) < 0 && *want == 0)
			snprintf(l->why, sizeof(l->why), "%.*s", (int)sizeof(l->why) - 1,
			    te.msg);
		return put;
	}
	while ((put = send(l->fd, buf, n, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		*want = POLLOUT;
	else if (put < 0)
		snprintf(l->why, sizeof(l->why), "%s", strerror(errno));
	return put;
}

int
rlink_append_raw(struct lr_link *l, const char *cmd, size_t len)
{
	if (l->fd < 0)
		return -1;
	if (l->outlen + len > l->outcap) {
		size_t cap = (l->outlen + len) * 2;
		char *p = realloc(l->out, cap);
		if (p == NULL)
			return rlink_break(l, "out of memory");
		l->out = p;
		l->outcap = cap;
	}
	memcpy(l->out + l->outlen, cmd, len);
	l->outlen += len;
	return 0;
}

int
rlink_append(struct lr_link *l, int argc, const char **argv)
{
	char *cmd = NULL;
	int len, rc;

	if (l->fd < 0)
		return -1;
	if ((len = redisFormatCommandArgv(&cmd, argc, argv, NULL)) < 0)
		return rlink_break(l, "out of memory");
	rc = rlink_append_raw(l, cmd, (size_t)len);
	redisFreeCommand(cmd);
	return rc;
}

/* Write what is queued, by deadline. Returns 0, or -1 with the link
 * closed and l->why set. */
static int
flush_by(struct lr_link *l, long long deadline)
{
	size_t done = 0;

	while (done < l->outlen) {
		short want = 0;
		ssize_t put = io_write(l, l->out + done, l->outlen - done, &want);
		int ready;

		if (put > 0) {
			done += (size_t)put;
			continue;
		}
		if (want == 0)
			return rlink_break(l, l->why[0] ? l->why : "connection lost");
		if ((ready = mono_poll(l->fd, want, deadline)) <= 0)
			return rlink_break(l, ready == 0 ? l->timeout_why : strerror(errno));
	}
	l->outlen = 0;
	return 0;
}

int
rlink_flush(struct lr_link *l, const char *doing, struct lr_err *e)
{
	if (l->fd < 0 || flush_by(l, mono_ms() + l->command_timeout_ms) != 0)
		return rlink_fail(l, doing, e);
	return 0;
}

/* A reply went past what lockrun accepts (rreader.h): close, since the
 * rest of it cannot be skipped, but as a failure of this request's data
 * (a task's value grown too large), not of the server: Redis holds no
 * session, and the next request opens the link again. Returns -1. */
static int
refused(struct lr_link *l)
{
	char why[200];

	snprintf(why, sizeof(why), "a reply larger than lockrun accepts (%d objects "
	    "or %d KiB)", RREADER_OBJECTS_MAX, RREADER_BYTES_MAX / 1024);
	return break_as(l, LR_ERR_DATA, why);
}

/* Feed the reader whatever can be read now, up to READ_BURST bytes, so
 * that the caller parses between feeds. Returns 1 when something was
 * read, 0 when nothing is there yet (*want says what to wait for), -1
 * with the link closed. */
#define READ_BURST	(256 * 1024)
static int
read_some(struct lr_link *l, short *want)
{
	char buf[16384];
	size_t fed = 0;

	for (;;) {
		ssize_t got = io_read(l, buf, sizeof(buf), want);

		if (got <= 0 && (fed || *want))	/* parse what came first */
			return fed > 0;
		if (got == 0)
			return rlink_break(l, "connection closed by the server");
		if (got < 0)
			return rlink_break(l, l->why);
		if (l->nhead < sizeof(l->head)) {
			size_t keep = sizeof(l->head) - l->nhead;

			keep = (size_t)got < keep ? (size_t)got : keep;
			memcpy(l->head + l->nhead, buf, keep);
			l->nhead += keep;
		}
		if (redisReaderFeed(l->reader, buf, (size_t)got) != REDIS_OK)
			return rlink_break(l, "out of memory");
		if (rreader_check(l->reader, &l->bounds) != 0)
			return refused(l);
		fed += (size_t)got;
		/* drained (TLS reads on until it would block: what OpenSSL
		 * holds would not wake poll), or enough to parse first */
		if (((size_t)got < sizeof(buf) && !l->tls) || fed >= READ_BURST)
			return 1;
	}
}

/* Check the answer to AUTH (is_auth) or SELECT: 0, or -1 with e. */
static int
handshake_check(const struct lr_link *l, const redisReply *r, int is_auth,
    struct lr_err *e)
{
	const struct rlink_setup *s = &l->setup;
	struct lr_err why;

	if (r->type != REDIS_REPLY_ERROR)
		return 0;
	rerr_classify(r->str, &why);
	if (is_auth)
		return lr_errk(e, LR_ERR_AUTH, EX_UNAVAILABLE, "redis %s: authentication "
		    "refused%s%s%s: %s", l->where, *s->password ? "" : " (user ", *s->password ? "" : s->user,
		    *s->password ? "" : " given without a password)", why.msg);
	return lr_errf(e, EX_CONFIG, "redis %s: SELECT %d refused: %s", l->where, s->db,
	    why.msg);
}

/* A deferred AUTH or SELECT answered with r: note a refusal for
 * rlink_handshake_error(), the first only. */
static void
deferred_answer(struct lr_link *l, const redisReply *r)
{
	int is_auth = l->pending_auth;

	l->pending--;
	l->pending_auth = 0;
	if (!l->hs_failed && handshake_check(l, r, is_auth, &l->hs_err) != 0)
		l->hs_failed = 1;
}

/* The stream is not RESP: say what the server sent instead, its first
 * bytes made visible ("HTTP/1.1 400 Bad Request": a web server's port,
 * not Redis's). */
static int
not_resp(struct lr_link *l)
{
	char seen[4 * sizeof(l->head) + 1] = "", why[sizeof(l->why)];
	size_t n = 0;

	/* hiredis drops its buffer on a protocol error: our copy of the
	 * connection's first bytes says what kind of server this is */
	for (size_t i = 0; i < l->nhead && i < 24; i++) {
		unsigned char c = (unsigned char)l->head[i];

		n += (size_t)snprintf(seen + n, sizeof(seen) - n, c < 0x20 || c >= 0x7f ?
		    "\\x%02x" : "%c", c);
	}
	snprintf(why, sizeof(why), "the server does not answer as Redis does (it began "
	    "\"%s\"): is this the port of another service?", seen);
	return break_as(l, LR_ERR_PROTOCOL, why);
}

/* A complete reply from the reader, the deferred handshake's taken out:
 * 1 with *r set, 0 when there is none yet, -1 (link closed) when the
 * stream is not RESP. */
static int
take_reply(struct lr_link *l, redisReply **r)
{
	for (;;) {
		void *reply = NULL;

		if (l->reader == NULL)
			return -1;
		if (redisReaderGetReply(l->reader, &reply) != REDIS_OK)
			return l->bounds.refused ? refused(l) : not_resp(l);
		if (reply == NULL)
			return 0;
		rreader_taken(&l->bounds);
		if (l->pending == 0) {
			*r = reply;
			return 1;
		}
		deferred_answer(l, reply);
		freeReplyObject(reply);
	}
}

/* Write what is queued and wait for the next reply, by deadline. Returns
 * 1 with *r set, or -1 with the link closed. */
static int
reply_by(struct lr_link *l, long long deadline, redisReply **rp)
{
	redisReply *r = NULL;
	int got = -1;

	if (l->fd >= 0 && flush_by(l, deadline) == 0)
		while ((got = take_reply(l, &r)) == 0) {
			short want = 0;
			int n = read_some(l, &want), ready;

			if (n < 0) {
				got = -1;
				break;
			}
			/* a reply that keeps arriving is held to the
			 * deadline too, not only a silent server */
			if (n > 0 && mono_ms() < deadline)
				continue;
			ready = n > 0 ? 0 : mono_poll(l->fd, want, deadline);
			if (ready <= 0) {
				rlink_break(l, ready == 0 ? l->timeout_why : strerror(errno));
				got = -1;
				break;
			}
		}
	*rp = r;
	return got;
}

redisReply *
rlink_reply(struct lr_link *l, const char *doing, struct lr_err *e)
{
	redisReply *r = NULL;

	if (reply_by(l, mono_ms() + l->command_timeout_ms, &r) <= 0) {
		rlink_fail(l, doing, e);
		return NULL;
	}
	return r;
}

redisReply *
rlink_command(struct lr_link *l, const char *doing, int argc, const char **argv,
    struct lr_err *e)
{
	if (rlink_append(l, argc, argv) != 0) {
		rlink_fail(l, doing, e);
		return NULL;
	}
	return rlink_reply(l, doing, e);
}

int
rlink_read(struct lr_link *l, redisReply **r, const char *doing, struct lr_err *e)
{
	short want = 0;
	int got = -1;

	/* read and parse in turns until a reply is whole or nothing more
	 * has arrived: the bounds end a reply that never ends */
	if (l->fd >= 0)
		while ((got = take_reply(l, r)) == 0) {
			int n = read_some(l, &want);
			if (n <= 0) {
				got = n < 0 ? -1 : 0;
				break;
			}
		}
	return got < 0 ? rlink_fail(l, doing, e) : got;
}

/* Send AUTH and/or SELECT as one pipeline and check both replies, or with
 * l->defer, only queue them (rlink_defer()). A user named without a
 * password still authenticates, with an empty password (enough for a
 * "nopass" ACL user), rather than going on as "default". */
static int
handshake(struct lr_link *l, struct lr_err *e)
{
	const struct rlink_setup *s = &l->setup;
	char db[16];
	const char *auth[3] = { "AUTH", s->user, s->password };
	const char *sel[2] = { "SELECT", db };
	int nauth = *s->user ? 3 : *s->password ? 2 : 0, n, rc = 0;

	if (nauth == 2)
		auth[1] = s->password;
	snprintf(db, sizeof(db), "%d", s->db);
	if ((nauth && rlink_append(l, nauth, auth) != 0) ||
	    (s->db != 0 && rlink_append(l, 2, sel) != 0))
		return rlink_fail(l, "connect", e);
	n = (nauth != 0) + (s->db != 0);
	l->hs_failed = 0;
	if (l->defer) {
		l->defer = 0;
		l->pending = n;
		l->pending_auth = nauth != 0;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int is_auth = nauth && i == 0;
		redisReply *r = rlink_reply(l, is_auth ? "AUTH" : "SELECT", e);

		if (r == NULL)
			return -1;
		if (rc == 0)
			rc = handshake_check(l, r, is_auth, e);
		freeReplyObject(r);
	}
	return rc;
}

void
rlink_defer(struct lr_link *l)
{
	l->defer = 1;
}

int
rlink_handshake_error(const struct lr_link *l, struct lr_err *e)
{
	if (!l->hs_failed)
		return 0;
	if (e)
		*e = l->hs_err;
	return -1;
}

int
rlink_lookup(const char *host, int port, struct lr_addr *a)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_INET }, *ai;
	char p[16];
	int rv;

	snprintf(p, sizeof(p), "%d", port);
	if ((rv = getaddrinfo(host, p, &hints, &ai)) != 0) {
		hints.ai_family = AF_INET6;
		rv = getaddrinfo(host, p, &hints, &ai);
	}
	if (rv != 0)
		return rv;
	memcpy(&a->ss, ai->ai_addr, ai->ai_addrlen);
	a->len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int
rlink_dial(struct lr_link *l, const struct lr_addr *a, long long ms, struct lr_err *e)
{
	int family = a->ss.ss_family, fd, err = 0, one = 1;
	socklen_t len = sizeof(err);
	char d[32];

	l->why[0] = '\0';
	if ((fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		err = errno;
	else if (connect(fd, (const struct sockaddr *)&a->ss, a->len) == -1) {
		err = errno;
		if (err == EINPROGRESS) {
			int n = mono_poll(fd, POLLOUT, mono_ms() + (ms < 1 ? 1 : ms));
			err = n == 0 ? ETIMEDOUT : n < 0 ? errno :
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ? errno : err;
		}
	}
	if (err != 0) {
		if (fd >= 0)
			close(fd);
		if (err == ETIMEDOUT)
			return lr_errk(e, LR_ERR_TIMEOUT, EX_UNAVAILABLE, "redis %s: cannot "
			    "connect: no answer within %s", l->where,
			    duration_format(ms, d, sizeof(d)));
		lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot connect: %s", l->where,
		    strerror(err));
		return unreachable(e);
	}
	if (family != AF_UNIX)		/* requests are small: send them at once */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	l->fd = fd;
	return 0;
}

/* The TLS handshake on the new socket, within ms. A bad certificate or
 * a refused handshake is Redis being unavailable (69); a setting lockrun
 * cannot use (an unreadable CA file, a key that does not match) is 78. */
static int
start_tls(struct lr_link *l, long long ms, struct lr_err *e)
{
	static const struct lr_tls_opts none;
	const struct rlink_setup *s = &l->setup;
	struct lr_err te = LR_ERR_INIT;

	l->tls = tls_open(l->fd, s->tls_host, s->tls_opts ? s->tls_opts : &none,
	    mono_ms() + (ms > 0 ? ms : 1), &te);
	if (l->tls != NULL)
		return 0;
	rlink_close(l);
	lr_errf(e, te.status, "redis %s: %s", l->where, te.msg);
	return lr_err_broke(&te) ? unreachable(e) : -1;
}

int
rlink_ready(struct lr_link *l, long long ms, struct lr_err *e)
{
	if (l->setup.tls && start_tls(l, ms, e) != 0)
		return -1;
	l->outlen = l->nhead = 0;
	if ((l->reader = rreader_new(&l->bounds)) == NULL) {
		rlink_break(l, "out of memory");
		return rlink_fail(l, "connect", e);
	}
	if (handshake(l, e) != 0) {
		rlink_close(l);
		return -1;
	}
	return 0;
}

int
rlink_connect(struct lr_link *l, const struct lr_addr *a, long long ms, struct lr_err *e)
{
	long long by = mono_ms() + ms;

	if (rlink_dial(l, a, ms, e) != 0)
		return -1;
	/* the TLS handshake is part of connecting: what is left of its time */
	return rlink_ready(l, by - mono_ms(), e);
}

void
rlink_set_command_timeout(struct lr_link *l, long long ms)
{
	char d[32];

	l->command_timeout_ms = ms;
	snprintf(l->timeout_why, sizeof(l->timeout_why), "no answer within %s",
	    duration_format(ms, d, sizeof(d)));
}

long long
rlink_cap(struct lr_link *l, long long cap_ms, struct rlink_timeouts *saved)
{
	saved->connect_ms = l->connect_timeout_ms;
	saved->command_ms = l->command_timeout_ms;
	cap_ms /= 2;		/* connect, then AUTH/SELECT: both within the cap */
	if (cap_ms < 1)
		cap_ms = 1;
	rlink_set_command_timeout(l, saved->command_ms < cap_ms ? saved->command_ms : cap_ms);
	return saved->connect_ms < cap_ms ? saved->connect_ms : cap_ms;
}

void
rlink_uncap(struct lr_link *l, const struct rlink_timeouts *saved)
{
	l->connect_timeout_ms = saved->connect_ms;
	rlink_set_command_timeout(l, saved->command_ms);
}

void
rlink_allow_objects(struct lr_link *l, size_t n)
{
	if (n > RREADER_OBJECTS_MAX)
		l->bounds.max_objects = n;
}

int
rlink_is_open(const struct lr_link *l)
{
	return l->fd >= 0;
}

void
rlink_close(struct lr_link *l)
{
	if (l->tls)
		tls_free(l->tls);
	l->tls = NULL;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->reader)
		redisReaderFree(l->reader);
	l->reader = NULL;
	l->outlen = 0;
	l->pending = l->pending_auth = 0;
}

void
rlink_free(struct lr_link *l)
{
	rlink_close(l);
	free(l->out);
	l->out = NULL;
	l->outcap = 0;
}

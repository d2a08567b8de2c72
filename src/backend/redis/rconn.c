/* SPDX-License-Identifier: BSD-2-Clause */
/* rconn.c -- connect to Redis and make the connection ready for commands. */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "core/file.h"
#include "backend/redis/rcluster.h"
#include "backend/redis/rconn.h"
#include "backend/redis/rerr.h"
#include "backend/redis/rreader.h"
#include "backend/redis/sentinel.h"
#include "backend/redis/tls.h"

/* The first line of path into buf. */
int
rconn_read_secret(const char *path, const char *what, char *buf, size_t n,
    struct lr_err *e)
{
	const char *kind;
	char why[64];
	FILE *fp = file_open_regular(path, &kind);
	int err;

	struct stat st;

	if (fp == NULL)
		return lr_errf(e, EX_CONFIG, "%s %s: %s", what, path,
		    file_why(kind, why, sizeof(why)));
	if (fstat(fileno(fp), &st) == 0 && (st.st_mode & S_IRWXO) != 0) {
		fclose(fp);
		return lr_errf(e, EX_CONFIG, "%s %s is open to other users "
		    "(mode %04o); chmod o-rwx it", what, path, (unsigned)(st.st_mode & 07777));
	}
	if (fgets(buf, (int)n, fp) == NULL)
		buf[0] = '\0';
	err = ferror(fp);
	fclose(fp);
	if (err)
		return lr_errf(e, EX_CONFIG, "%s %s: cannot be read", what, path);
	if (strlen(buf) == n - 1 && buf[n - 2] != '\n')
		return lr_errf(e, EX_CONFIG, "%s %s: the password is longer "
		    "than %zu bytes", what, path, n - 2);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int
rconn_env_secret(const char *name, char *buf, size_t n, struct lr_err *e)
{
	const char *env = getenv(name);

	if (env == NULL || *env == '\0')
		return 0;
	if (strlen(env) >= n)
		return lr_errf(e, EX_CONFIG, "%s is longer than %zu bytes", name, n - 1);
	snprintf(buf, n, "%s", env);
	return 1;
}

int
rconn_password(const char *cli_file, const char *cfg_file, const struct lr_url *u,
    char *buf, size_t n, struct lr_err *e)
{
	int env;

	buf[0] = '\0';
	if (cli_file)
		return rconn_read_secret(cli_file, "password_file", buf, n, e);
	if ((env = rconn_env_secret("LOCKRUN_REDIS_PASSWORD", buf, n, e)) != 0)
		return env < 0 ? -1 : 0;
	if (cfg_file)
		return rconn_read_secret(cfg_file, "password_file", buf, n, e);
	snprintf(buf, n, "%s", u->password);
	return 0;
}

/* e, marked as a failure to reach Redis. Returns -1. */
static int
unreachable(struct lr_err *e)
{
	if (e)
		e->transport = 1;
	return -1;
}

/* Note why the connection broke, close it, and return -1. */
static int
broken(struct lr_conn *rc, const char *why)
{
	if (why != rc->why)
		snprintf(rc->why, sizeof(rc->why), "%s", why);
	rconn_close(rc);
	return -1;
}

int
rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: %s", rc->where, doing,
	    rc->why[0] ? rc->why : "connection lost");
	return unreachable(e);
}

/* One read or write on the transport, without blocking. Returns the bytes
 * moved (0 only for end of file on a read), or -1 with *want set to the
 * poll event to wait for (errno EAGAIN), or -1 with rc->why set. */
static ssize_t
io_read(struct lr_conn *rc, char *buf, size_t n, short *want)
{
	ssize_t got;

	if (rc->tls)
		return tls_read(rc->tls, buf, n, want, rc->why, sizeof(rc->why));
	while ((got = recv(rc->fd, buf, n, 0)) < 0 && errno == EINTR)
		;
	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		*want = POLLIN;
	else if (got < 0)
		snprintf(rc->why, sizeof(rc->why), "%s", strerror(errno));
	return got;
}

static ssize_t
io_write(struct lr_conn *rc, const char *buf, size_t n, short *want)
{
	ssize_t put;

	if (rc->tls)
		return tls_write(rc->tls, buf, n, want, rc->why, sizeof(rc->why));
	while ((put = send(rc->fd, buf, n, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		*want = POLLOUT;
	else if (put < 0)
		snprintf(rc->why, sizeof(rc->why), "%s", strerror(errno));
	return put;
}

/* Put cmd[0..len) in the output buffer (and the cluster's log). */
static int
queue(struct lr_conn *rc, const char *cmd, size_t len)
{
	if (rc->outlen + len > rc->outcap) {
		size_t cap = (rc->outlen + len) * 2;
		char *p = realloc(rc->out, cap);
		if (p == NULL)
			return broken(rc, "out of memory");
		rc->out = p;
		rc->outcap = cap;
	}
	if (rc->cluster && rcluster_sent(rc, cmd, len) != 0)
		return broken(rc, "out of memory");
	memcpy(rc->out + rc->outlen, cmd, len);
	rc->outlen += len;
	return 0;
}

int
rconn_append_raw(struct lr_conn *rc, const char *cmd, size_t len)
{
	if (rc->fd < 0)
		return -1;
	/* on the node an ASK named, the slot is not its own yet: ASKING
	 * (pipelined, no round trip) lets it serve the command */
	if (rcluster_ask_there(rc) &&
	    queue(rc, rcluster_asking_cmd, strlen(rcluster_asking_cmd)) != 0)
		return -1;
	return queue(rc, cmd, len);
}

int
rconn_append(struct lr_conn *rc, int argc, const char **argv)
{
	char *cmd = NULL;
	int len, rc_;

	if (rc->fd < 0)
		return -1;
	if ((len = redisFormatCommandArgv(&cmd, argc, argv, NULL)) < 0)
		return broken(rc, "out of memory");
	rc_ = rconn_append_raw(rc, cmd, (size_t)len);
	redisFreeCommand(cmd);
	return rc_;
}

/* Write what is queued, by deadline. Returns 0, or -1 with the
 * connection closed and rc->why set. */
static int
flush_by(struct lr_conn *rc, long long deadline)
{
	size_t done = 0;

	while (done < rc->outlen) {
		short want = 0;
		ssize_t put = io_write(rc, rc->out + done, rc->outlen - done, &want);
		int ready;

		if (put > 0) {
			done += (size_t)put;
			continue;
		}
		if (want == 0)
			return broken(rc, rc->why[0] ? rc->why : "connection lost");
		if ((ready = mono_poll(rc->fd, want, deadline)) <= 0)
			return broken(rc, ready == 0 ? rc->timeout_why : strerror(errno));
	}
	rc->outlen = 0;
	return 0;
}

int
rconn_flush(struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	if (rc->fd < 0 || flush_by(rc, mono_ms() + rc->command_timeout_ms) != 0)
		return rconn_fail(rc, doing, e);
	return 0;
}

/* A reply went past what lockrun accepts (rreader.h): close. Returns -1. */
static int
refused(struct lr_conn *rc)
{
	char why[200];

	snprintf(why, sizeof(why), "protocol error: a reply larger than lockrun "
	    "accepts (%d objects or %d KiB)", RREADER_OBJECTS_MAX, RREADER_BYTES_MAX / 1024);
	return broken(rc, why);
}

/* Feed the reader whatever can be read now, up to READ_BURST bytes, so
 * that the caller parses between feeds. Returns 1 when something was
 * read, 0 when nothing is there yet (*want says what to wait for), -1
 * with the connection closed. */
#define READ_BURST	(256 * 1024)
static int
read_some(struct lr_conn *rc, short *want)
{
	char buf[16384];
	size_t fed = 0;

	for (;;) {
		ssize_t got = io_read(rc, buf, sizeof(buf), want);

		if (got <= 0 && (fed || *want))	/* parse what came first */
			return fed > 0;
		if (got == 0)
			return broken(rc, "connection closed by the server");
		if (got < 0)
			return broken(rc, rc->why);
		if (redisReaderFeed(rc->reader, buf, (size_t)got) != REDIS_OK)
			return broken(rc, "out of memory");
		if (rreader_check(rc->reader, &rc->bounds) != 0)
			return refused(rc);
		fed += (size_t)got;
		/* drained (TLS reads on until it would block: what OpenSSL
		 * holds would not wake poll), or enough to parse first */
		if (((size_t)got < sizeof(buf) && !rc->tls) || fed >= READ_BURST)
			return 1;
	}
}

/* A complete reply from the reader: 1 with *r set, 0 when there is none
 * yet, -1 (connection closed) when the stream is not RESP. */
static int
take_reply(struct lr_conn *rc, redisReply **r)
{
	void *reply = NULL;

	if (rc->reader == NULL)
		return -1;
	if (redisReaderGetReply(rc->reader, &reply) != REDIS_OK)
		return rc->bounds.refused ? refused(rc) :
		    broken(rc, "protocol error in the reply");
	if (reply)
		rreader_taken(&rc->bounds);
	if (reply && rc->url && rc->url->nsentinels && sentinel_demoted(reply)) {
		/* the master we found is a replica now: what the sentinels
		 * say next is where to go, so this connection is done */
		freeReplyObject(reply);
		broken(rc, "no longer the master (READONLY): a failover moved it");
		rc->demoted = 1;
		return -1;
	}
	*r = reply;
	return reply != NULL;
}

static int handshake_check(const struct lr_conn *rc, const redisReply *r, int is_auth,
    struct lr_err *e);

/* Write what is queued and wait for the next reply, by deadline. Returns
 * 1 with *r set, or -1 with the connection closed. */
static int
reply_by(struct lr_conn *rc, long long deadline, redisReply **rp)
{
	redisReply *r = NULL;
	int got = -1;

	if (rc->fd >= 0 && flush_by(rc, deadline) == 0)
		while ((got = take_reply(rc, &r)) == 0) {
			short want = 0;
			int n = read_some(rc, &want), ready;

			if (n < 0) {
				got = -1;
				break;
			}
			/* a reply that keeps arriving is held to the
			 * deadline too, not only a silent server */
			if (n > 0 && mono_ms() < deadline)
				continue;
			ready = n > 0 ? 0 : mono_poll(rc->fd, want, deadline);
			if (ready <= 0) {
				broken(rc, ready == 0 ? rc->timeout_why : strerror(errno));
				got = -1;
				break;
			}
		}
	*rp = r;
	return got;
}

redisReply *
rconn_reply(struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	redisReply *r = NULL;
	int followed;

	for (;;) {
		if (reply_by(rc, mono_ms() + rc->command_timeout_ms, &r) <= 0) {
			rconn_fail(rc, doing, e);
			return NULL;
		}
		if (rc->cluster != NULL && (followed = rcluster_reply(rc, &r, 0, e)) != 0) {
			if (followed < 0)
				return NULL;
			continue;
		}
		if (rc->pending > 0) {		/* a deferred AUTH/SELECT */
			int is_auth = rc->pending_auth;

			rc->pending--;
			rc->pending_auth = 0;
			if (!rc->hs_failed && handshake_check(rc, r, is_auth, &rc->hs_err) != 0)
				rc->hs_failed = 1;
			freeReplyObject(r);
			continue;
		}
		return r;
	}
}

redisReply *
rconn_command(struct lr_conn *rc, const char *doing, int argc, const char **argv,
    struct lr_err *e)
{
	if (rconn_append(rc, argc, argv) != 0) {
		rconn_fail(rc, doing, e);
		return NULL;
	}
	return rconn_reply(rc, doing, e);
}

int
rconn_read(struct lr_conn *rc, redisReply **r, const char *doing, struct lr_err *e)
{
	for (;;) {
		short want = 0;
		int got = -1, followed;

		/* read and parse in turns until a reply is whole or nothing
		 * more has arrived: the bounds end a reply that never ends */
		if (rc->fd >= 0)
			while ((got = take_reply(rc, r)) == 0) {
				int n = read_some(rc, &want);
				if (n <= 0) {
					got = n < 0 ? -1 : 0;
					break;
				}
			}
		if (got < 0)
			return rconn_fail(rc, doing, e);
		if (got == 0 || rc->cluster == NULL ||
		    (followed = rcluster_reply(rc, r, rc->read_by, e)) == 0)
			return got;
		if (followed != 2)	/* sent again elsewhere, or failed */
			return followed > 0 ? 0 : -1;
		/* ASKING's answer: the command's may have come with it */
	}
}

/* Check the answer to AUTH (is_auth) or SELECT: 0, or -1 with e. */
static int
handshake_check(const struct lr_conn *rc, const redisReply *r, int is_auth,
    struct lr_err *e)
{
	const struct lr_url *u = rc->url;
	const char *password = rc->password;
	char why[400];

	if (r->type != REDIS_REPLY_ERROR)
		return 0;
	rerr_classify(r->str, why, sizeof(why));
	if (is_auth)
		return lr_errf(e, EX_UNAVAILABLE, "redis %s: authentication refused%s%s%s: %s",
		    rc->where, *password ? "" : " (user ", *password ? "" : u->user,
		    *password ? "" : " given without a password)", why);
	return lr_errf(e, EX_CONFIG, "redis %s: SELECT %d refused: %s", rc->where, u->db,
	    why);
}

/* Send AUTH and/or SELECT as one pipeline and check both replies, or with
 * rc->defer, only queue them (rconn_defer()). A user named without a
 * password still authenticates, with an empty password (enough for a
 * "nopass" ACL user), rather than going on as "default". */
static int
handshake(struct lr_conn *rc, const struct lr_url *u, const char *password,
    struct lr_err *e)
{
	char db[16];
	const char *auth[3] = { "AUTH", u->user, password };
	const char *sel[2] = { "SELECT", db };
	int nauth = *u->user ? 3 : *password ? 2 : 0, n, rc_ = 0;

	if (nauth == 2)
		auth[1] = password;
	snprintf(db, sizeof(db), "%d", u->db);
	if ((nauth && rconn_append(rc, nauth, auth) != 0) ||
	    (u->db != 0 && rconn_append(rc, 2, sel) != 0))
		return rconn_fail(rc, "connect", e);
	n = (nauth != 0) + (u->db != 0);
	rc->hs_failed = 0;
	if (rc->defer) {
		rc->defer = 0;
		rc->pending = n;
		rc->pending_auth = nauth != 0;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int is_auth = nauth && i == 0;
		redisReply *r = rconn_reply(rc, is_auth ? "AUTH" : "SELECT", e);

		if (r == NULL)
			return -1;
		if (rc_ == 0)
			rc_ = handshake_check(rc, r, is_auth, e);
		freeReplyObject(r);
	}
	return rc_;
}

void
rconn_defer(struct lr_conn *rc)
{
	rc->defer = 1;
}

int
rconn_handshake_error(const struct lr_conn *rc, struct lr_err *e)
{
	if (!rc->hs_failed)
		return 0;
	if (e)
		*e = rc->hs_err;
	return -1;
}

/* Fill rc->addr from the URL: a unix socket path, or the host's first
 * IPv4 address, else its first IPv6 one (hiredis's order). */
static int
resolve(struct lr_conn *rc, struct lr_err *e)
{
	const struct lr_url *u = rc->url;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_INET }, *ai;
	char port[16];
	int rv;

	if (u->is_unix) {
		struct sockaddr_un *sun = (struct sockaddr_un *)&rc->addr;
		sun->sun_family = AF_UNIX;
		snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", u->path);
		rc->addrlen = sizeof(*sun);
		return 0;
	}
	snprintf(port, sizeof(port), "%d", u->port);
	if ((rv = getaddrinfo(u->host, port, &hints, &ai)) != 0) {
		hints.ai_family = AF_INET6;
		rv = getaddrinfo(u->host, port, &hints, &ai);
	}
	if (rv != 0) {
		lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot resolve %s: %s", rc->where,
		    u->host, gai_strerror(rv));
		return unreachable(e);
	}
	memcpy(&rc->addr, ai->ai_addr, ai->ai_addrlen);
	rc->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* A connected, non-blocking, close-on-exec socket to rc->addr within ms. */
int
rconn_dial(struct lr_conn *rc, long long ms, struct lr_err *e)
{
	int family = rc->addr.ss_family, fd, err = 0, one = 1;
	socklen_t len = sizeof(err);
	char d[32];

	if ((fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		err = errno;
	else if (connect(fd, (struct sockaddr *)&rc->addr, rc->addrlen) == -1) {
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
			lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot connect: no answer within %s",
			    rc->where, duration_format(ms, d, sizeof(d)));
		else
			lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot connect: %s", rc->where,
			    strerror(err));
		return unreachable(e);
	}
	if (family != AF_UNIX)		/* requests are small: send them at once */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* The TLS handshake on the new socket, within ms. A bad certificate or
 * a refused handshake is Redis being unavailable (69); a setting lockrun
 * cannot use (an unreadable CA file, a key that does not match) is 78. */
static int
start_tls(struct lr_conn *rc, long long ms, struct lr_err *e)
{
	static const struct lr_tls_opts none;
	char why[300];
	int config;

	rc->tls = tls_open(rc->fd, rc->url->host, rc->tls_opts ? rc->tls_opts : &none,
	    mono_ms() + (ms > 0 ? ms : 1), why, sizeof(why), &config);
	if (rc->tls != NULL)
		return 0;
	rconn_close(rc);
	lr_errf(e, config ? EX_CONFIG : EX_UNAVAILABLE, "redis %s: %s", rc->where, why);
	return config ? -1 : unreachable(e);
}

int
rconn_attach(struct lr_conn *rc, long long connect_ms, struct lr_err *e)
{
	long long connect_by = mono_ms() + connect_ms;

	rc->fd = rc->url->cluster ? rcluster_dial(rc, connect_ms, e) :
	    rconn_dial(rc, connect_ms, e);
	if (rc->fd < 0)
		return -1;
	/* the TLS handshake is part of connecting: what is left of its time */
	if (rc->url->tls && start_tls(rc, connect_by - mono_ms(), e) != 0)
		return -1;
	rc->outlen = 0;
	if ((rc->reader = rreader_new(&rc->bounds)) == NULL) {
		broken(rc, "out of memory");
		return rconn_fail(rc, "connect", e);
	}
	if (handshake(rc, rc->url, rc->password, e) != 0) {
		rconn_close(rc);
		return -1;
	}
	return 0;
}

void
rconn_set_command_timeout(struct lr_conn *rc, long long ms)
{
	char d[32];

	rc->command_timeout_ms = ms;
	snprintf(rc->timeout_why, sizeof(rc->timeout_why), "no answer within %s",
	    duration_format(ms, d, sizeof(d)));
}

int
rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
    long long connect_ms, long long command_ms, struct lr_err *e)
{
	rurl_where(u, rc->where, sizeof(rc->where));
	if (rc->url != u)
		rc->addrlen = 0;
	rc->url = u;
	rc->password = password;
	rc->connect_timeout_ms = connect_ms;
	rconn_set_command_timeout(rc, command_ms);
	rc->why[0] = '\0';
	rc->demoted = 0;
	if (u->nsentinels)	/* where the master is now: ask, every time */
		return sentinel_connect(rc, connect_ms, e);
	/* a cluster's seeds are resolved by rcluster_dial() */
	if (!u->cluster && rc->addrlen == 0 && resolve(rc, e) != 0)
		return -1;
	return rconn_attach(rc, connect_ms, e);
}

int
rconn_reopen(struct lr_conn *rc, long long cap_ms, struct lr_err *e)
{
	long long connect_ms = rc->connect_timeout_ms, command_ms = rc->command_timeout_ms;
	int rc_;

	rconn_close(rc);
	cap_ms /= 2;		/* connect, then AUTH/SELECT: both within the cap */
	if (cap_ms < 1)
		cap_ms = 1;
	rc_ = rconn_open(rc, rc->url, rc->password, connect_ms < cap_ms ? connect_ms : cap_ms,
	    command_ms < cap_ms ? command_ms : cap_ms, e);
	/* the capped timeouts were for this handshake only */
	rc->connect_timeout_ms = connect_ms;
	rconn_set_command_timeout(rc, command_ms);
	return rc_;
}

int
rconn_ping(struct lr_conn *rc, struct lr_err *e)
{
	const char *argv[] = { "PING" };
	redisReply *r = rconn_command(rc, "PING", 1, argv, e);
	int rc_ = 0;

	if (r == NULL)
		return -1;
	if (r->type == REDIS_REPLY_ERROR) {
		char why[400];
		rerr_classify(r->str, why, sizeof(why));
		rc_ = lr_errf(e, EX_UNAVAILABLE, "redis %s: PING: %s", rc->where, why);
	}
	freeReplyObject(r);
	return rc_;
}

void
rconn_init(struct lr_conn *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->fd = -1;
}

int
rconn_fd(const struct lr_conn *rc)
{
	return rc->fd;
}

void
rconn_allow_objects(struct lr_conn *rc, size_t n)
{
	if (n > RREADER_OBJECTS_MAX)
		rc->bounds.max_objects = n;
}

int
rconn_is_open(const struct lr_conn *rc)
{
	return rc->fd >= 0;
}

void
rconn_close(struct lr_conn *rc)
{
	if (rc->tls)
		tls_free(rc->tls);
	rc->tls = NULL;
	if (rc->fd >= 0)
		close(rc->fd);
	rc->fd = -1;
	if (rc->reader)
		redisReaderFree(rc->reader);
	rc->reader = NULL;
	rc->outlen = 0;
	rc->pending = rc->pending_auth = 0;
	rcluster_closed(rc);
}

void
rconn_free(struct lr_conn *rc)
{
	rconn_close(rc);
	sentinel_free(rc->sentinel);
	rc->sentinel = NULL;
	free(rc->out);
	rc->out = NULL;
	rc->outcap = 0;
	rcluster_free(rc->cluster);
	rc->cluster = NULL;
}

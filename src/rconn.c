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
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "duration.h"
#include "rconn.h"
#include "rerr.h"

/* The first line of path into buf. */
static int
read_password_file(const char *path, char *buf, size_t n, struct lr_err *e)
{
	FILE *fp = fopen(path, "r");
	int err;

	struct stat st;

	if (fp == NULL)
		return lr_errf(e, EX_CONFIG, "password_file %s: %s", path, strerror(errno));
	if (fstat(fileno(fp), &st) == 0 && (st.st_mode & S_IRWXO) != 0) {
		fclose(fp);
		return lr_errf(e, EX_CONFIG, "password_file %s is open to other users "
		    "(mode %04o); chmod o-rwx it", path, (unsigned)(st.st_mode & 07777));
	}
	if (fgets(buf, (int)n, fp) == NULL)
		buf[0] = '\0';
	err = ferror(fp);
	fclose(fp);
	if (err)
		return lr_errf(e, EX_CONFIG, "password_file %s: cannot be read", path);
	if (strlen(buf) == n - 1 && buf[n - 2] != '\n')
		return lr_errf(e, EX_CONFIG, "password_file %s: the password is longer "
		    "than %zu bytes", path, n - 2);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int
rconn_password(const char *cli_file, const char *cfg_file, const struct lr_url *u,
    char *buf, size_t n, struct lr_err *e)
{
	const char *env = getenv("LOCKRUN_REDIS_PASSWORD");

	buf[0] = '\0';
	if (cli_file)
		return read_password_file(cli_file, buf, n, e);
	if (env && *env) {
		if (strlen(env) >= n)
			return lr_errf(e, EX_CONFIG, "LOCKRUN_REDIS_PASSWORD is longer than "
			    "%zu bytes", n - 1);
		snprintf(buf, n, "%s", env);
		return 0;
	}
	if (cfg_file)
		return read_password_file(cfg_file, buf, n, e);
	snprintf(buf, n, "%s", u->password);
	return 0;
}

static struct timeval
tv_of(long long ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	return tv;
}

/* e, marked as a failure to reach Redis. Returns -1. */
static int
unreachable(struct lr_err *e)
{
	if (e)
		e->transport = 1;
	return -1;
}

int
rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	char d[32];
	const char *why = rc->c ? rc->c->errstr : "cannot allocate a context";

	/* hiredis reports a read that hit SO_RCVTIMEO as EAGAIN's text */
	if (rc->c && rc->c->err == REDIS_ERR_IO &&
	    strstr(why, "temporarily unavailable") != NULL)
		lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: no answer within %s",
		    rc->where, doing, duration_format(rc->command_timeout_ms, d, sizeof(d)));
	else
		lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: %s", rc->where, doing,
		    why[0] ? why : "connection lost");
	return unreachable(e);
}

/* Send AUTH and/or SELECT as one pipeline and check both replies. A user
 * named without a password still authenticates, with an empty password
 * (enough for a "nopass" ACL user), rather than going on as "default". */
static int
handshake(struct lr_conn *rc, const struct lr_url *u, const char *password,
    struct lr_err *e)
{
	char db[16];
	const char *auth[3] = { "AUTH", u->user, password };
	const char *sel[2] = { "SELECT", db };
	int nauth = *u->user ? 3 : *password ? 2 : 0, n = 0, rc_ = 0;

	if (nauth == 2)
		auth[1] = password;
	snprintf(db, sizeof(db), "%d", u->db);
	if (nauth && redisAppendCommandArgv(rc->c, nauth, auth, NULL) == REDIS_OK)
		n++;
	if (u->db != 0 && redisAppendCommandArgv(rc->c, 2, sel, NULL) == REDIS_OK)
		n++;
	for (int i = 0; i < n; i++) {
		redisReply *r = NULL;
		int is_auth = nauth && i == 0;

		if (redisGetReply(rc->c, (void **)&r) != REDIS_OK)
			return rconn_fail(rc, is_auth ? "AUTH" : "SELECT", e);
		if (r->type == REDIS_REPLY_ERROR && rc_ == 0) {
			char why[400];
			rerr_classify(r->str, why, sizeof(why));
			rc_ = is_auth ?
			    lr_errf(e, EX_UNAVAILABLE, "redis %s: authentication refused%s%s%s: %s",
				rc->where, *password ? "" : " (user ", *password ? "" : u->user,
				*password ? "" : " given without a password)", why) :
			    lr_errf(e, EX_CONFIG, "redis %s: SELECT %d refused: %s",
				rc->where, u->db, why);
		}
		freeReplyObject(r);
	}
	return rc_;
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

/* A connected, blocking, close-on-exec socket to rc->addr within ms. */
static int
dial(struct lr_conn *rc, long long ms, struct lr_err *e)
{
	int family = rc->addr.ss_family, fd, err = 0, one = 1;
	struct pollfd pfd;
	socklen_t len = sizeof(err);
	char d[32];

	if ((fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		err = errno;
	else if (connect(fd, (struct sockaddr *)&rc->addr, rc->addrlen) == -1) {
		err = errno;
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (err == EINPROGRESS) {
			int n = poll(&pfd, 1, (int)(ms < 1 ? 1 : ms));
			err = n == 0 ? ETIMEDOUT : n < 0 ? errno :
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ? errno : err;
		}
	}
	if (err == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1)
		err = errno;
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

int
rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
    long long connect_ms, long long command_ms, struct lr_err *e)
{
	int fd;

	rurl_where(u, rc->where, sizeof(rc->where));
	if (rc->url != u)
		rc->addrlen = 0;
	rc->url = u;
	rc->password = password;
	rc->connect_timeout_ms = connect_ms;
	rc->command_timeout_ms = command_ms;
	if (rc->addrlen == 0 && resolve(rc, e) != 0)
		return -1;
	if ((fd = dial(rc, connect_ms, e)) < 0)
		return -1;
	if ((rc->c = redisConnectFd(fd)) == NULL) {
		close(fd);
		return rconn_fail(rc, "cannot connect", e);
	}
	if (redisSetTimeout(rc->c, tv_of(command_ms)) != REDIS_OK) {
		rconn_fail(rc, "cannot set timeouts", e);
		rconn_close(rc);
		return -1;
	}
	if (handshake(rc, u, password, e) != 0) {
		rconn_close(rc);
		return -1;
	}
	return 0;
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
	rc->command_timeout_ms = command_ms;
	if (rc_ == 0 && redisSetTimeout(rc->c, tv_of(command_ms)) != REDIS_OK) {
		rconn_fail(rc, "cannot set timeouts", e);
		rconn_close(rc);
		return -1;
	}
	return rc_;
}

int
rconn_ping(struct lr_conn *rc, struct lr_err *e)
{
	redisReply *r = redisCommand(rc->c, "PING");
	int rc_ = 0;

	if (r == NULL)
		return rconn_fail(rc, "PING", e);
	if (r->type == REDIS_REPLY_ERROR) {
		char why[400];
		rerr_classify(r->str, why, sizeof(why));
		rc_ = lr_errf(e, EX_UNAVAILABLE, "redis %s: PING: %s", rc->where, why);
	}
	freeReplyObject(r);
	return rc_;
}

int
rconn_fd(const struct lr_conn *rc)
{
	return rc->c ? rc->c->fd : -1;
}

void
rconn_close(struct lr_conn *rc)
{
	if (rc->c)
		redisFree(rc->c);
	rc->c = NULL;
}

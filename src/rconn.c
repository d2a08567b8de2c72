/* rconn.c -- connect to Redis and make the connection ready for commands. */
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "duration.h"
#include "rconn.h"

/* The first line of path into buf. */
static int
read_password_file(const char *path, char *buf, size_t n, struct lr_err *e)
{
	FILE *fp = fopen(path, "r");
	int err;

	if (fp == NULL)
		return lr_errf(e, EX_CONFIG, "password_file %s: %s", path, strerror(errno));
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

int
rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	char d[32];
	const char *why = rc->c ? rc->c->errstr : "cannot allocate a context";

	/* hiredis reports a read that hit SO_RCVTIMEO as EAGAIN's text */
	if (rc->c && rc->c->err == REDIS_ERR_IO &&
	    strstr(why, "temporarily unavailable") != NULL)
		return lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: no answer within %s",
		    rc->where, doing, duration_format(rc->command_timeout_ms, d, sizeof(d)));
	return lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: %s", rc->where, doing,
	    why[0] ? why : "connection lost");
}

/* Send AUTH and/or SELECT as one pipeline and check both replies. */
static int
handshake(struct lr_conn *rc, const struct lr_url *u, const char *password,
    struct lr_err *e)
{
	char db[16];
	const char *auth[3] = { "AUTH", u->user, password };
	const char *sel[2] = { "SELECT", db };
	int nauth = *password ? (*u->user ? 3 : 2) : 0, n = 0, rc_ = 0;

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
		if (r->type == REDIS_REPLY_ERROR && rc_ == 0)
			rc_ = is_auth ?
			    lr_errf(e, EX_UNAVAILABLE, "redis %s: authentication refused: %s",
				rc->where, r->str) :
			    lr_errf(e, EX_CONFIG, "redis %s: SELECT %d refused: %s",
				rc->where, u->db, r->str);
		freeReplyObject(r);
	}
	return rc_;
}

int
rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
    long long connect_ms, long long command_ms, struct lr_err *e)
{
	int flags;

	rurl_where(u, rc->where, sizeof(rc->where));
	rc->url = u;
	rc->password = password;
	rc->connect_timeout_ms = connect_ms;
	rc->command_timeout_ms = command_ms;
	rc->c = u->is_unix ?
	    redisConnectUnixWithTimeout(u->path, tv_of(connect_ms)) :
	    redisConnectWithTimeout(u->host, u->port, tv_of(connect_ms));
	if (rc->c == NULL || rc->c->err) {
		rconn_fail(rc, "cannot connect", e);
		rconn_close(rc);
		return -1;
	}
	/* the command must not inherit the lock's connection */
	if ((flags = fcntl(rc->c->fd, F_GETFD)) != -1)
		fcntl(rc->c->fd, F_SETFD, flags | FD_CLOEXEC);
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
	if (r->type == REDIS_REPLY_ERROR)
		rc_ = lr_errf(e, EX_UNAVAILABLE, "redis %s: PING refused: %s", rc->where, r->str);
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

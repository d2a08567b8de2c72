/* SPDX-License-Identifier: BSD-2-Clause */
/* sentinel.c -- ask Redis Sentinel where the master is, connect there and
 * make sure it is one. The sentinels are spoken to on links too (rlink.h),
 * each plain, with the sentinels' password. */
#include <sys/socket.h>

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "out/log.h"
#include "backend/redis/rlink.h"
#include "core/file.h"
#include "backend/redis/rurl.h"
#include "backend/redis/sentinel.h"

#define SHARE_MIN_MS	250	/* a sentinel's share of the connect timeout, at least */
#define ROUND_PAUSE_MS	100	/* between two rounds of asking */

struct lr_sentinel {
	const struct lr_url *master_url;	/* the redis+sentinel:// URL */
	const char	*password;		/* the sentinels' */
	struct lr_url	url[RURL_SENTINELS_MAX];	/* each sentinel */
	struct lr_addr	addr[RURL_SENTINELS_MAX];	/* resolved when first asked */
	struct lr_link	conn[RURL_SENTINELS_MAX];	/* kept open once asked */
	int		last;		/* the sentinel that answered last */
	char		host[256];	/* the master it gave, "" before */
	int		port;
};

/* What one round of asking found, for the message when nothing worked. */
struct round {
	char	why[512];	/* "A: reason; B: reason" */
	int	asked;		/* sentinels asked */
	int	answered;	/* ... that answered at all */
	int	gave;		/* ... with an address */
};


static long long
min2(long long a, long long b)
{
	return a < b ? a : b;
}

int
sentinel_demoted(const struct redisReply *r)
{
	return r->type == REDIS_REPLY_ERROR && strncmp(r->str, "READONLY", 8) == 0;
}

int
sentinel_password(const char *cfg_file, char *buf, size_t n, struct lr_err *e)
{
	int env;

	buf[0] = '\0';
	if ((env = file_env_secret("LOCKRUN_SENTINEL_PASSWORD", buf, n, e)) != 0)
		return env < 0 ? -1 : 0;
	if (cfg_file)
		return file_read_secret(cfg_file, "sentinel_password_file", buf, n, e);
	return 0;
}

struct lr_sentinel *
sentinel_new(const struct lr_url *u, const char *password)
{
	struct lr_sentinel *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->master_url = u;
	s->password = password;
	for (int i = 0; i < RURL_SENTINELS_MAX; i++)
		rlink_init(&s->conn[i]);
	for (int i = 0; i < u->nsentinels; i++) {
		snprintf(s->url[i].host, sizeof(s->url[i].host), "%s", u->sentinel[i].host);
		s->url[i].port = u->sentinel[i].port;
	}
	return s;
}

void
sentinel_free(struct lr_sentinel *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < RURL_SENTINELS_MAX; i++)
		rlink_free(&s->conn[i]);
	free(s);
}

/* Add "what: why" to the round's reasons; a message from rlink loses its
 * "redis " in front. */
static void
note(struct round *r, const char *what, const char *why)
{
	size_t len = strlen(r->why);

	if (strncmp(why, "redis ", 6) == 0)
		why += 6;
	if (strncmp(why, what, strlen(what)) == 0 && why[strlen(what)] == ':')
		what = "";	/* the message names it already */
	if (len < sizeof(r->why))
		snprintf(r->why + len, sizeof(r->why) - len, "%s%s%s%s", len ? "; " : "",
		    what, *what ? ": " : "", why);
}

/* Connect to sentinel i within ms: its name is resolved once, as the
 * master's is for a redis:// URL. Returns 0, or -1 with e. */
static int
sentinel_open(struct lr_sentinel *s, int i, long long ms, struct lr_err *e)
{
	struct lr_link *c = &s->conn[i];
	int rv;

	rurl_where(&s->url[i], c->where, sizeof(c->where));
	c->setup = (struct rlink_setup){ .tls_host = "", .user = "",
	    .password = s->password ? s->password : "" };
	c->connect_timeout_ms = ms;
	rlink_set_command_timeout(c, ms);
	if (s->addr[i].len == 0 &&
	    (rv = rlink_lookup(s->url[i].host, s->url[i].port, &s->addr[i])) != 0) {
		lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot resolve %s: %s", c->where,
		    s->url[i].host, gai_strerror(rv));
		e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
	return rlink_connect(c, &s->addr[i], ms, e);
}

/* One try at asking sentinel i: 1 with host and *port, 0 when it does not
 * know the master, -1 with why. */
static int
ask_once(struct lr_sentinel *s, int i, long long ms, char *host, size_t hn, int *port,
    struct lr_err *why)
{
	const char *argv[] = { "SENTINEL", "get-master-addr-by-name",
	    s->master_url->master };
	struct lr_link *c = &s->conn[i];
	redisReply *r;
	int rc = -1;

	if (!rlink_is_open(c) && sentinel_open(s, i, ms, why) != 0)
		return -1;
	rlink_set_command_timeout(c, ms);
	if ((r = rlink_command(c, "SENTINEL get-master-addr-by-name", 3, argv, why)) == NULL)
		return -1;
	if (r->type == REDIS_REPLY_NIL)
		rc = 0;
	else if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
	    r->element[0]->type == REDIS_REPLY_STRING &&
	    r->element[1]->type == REDIS_REPLY_STRING &&
	    (*port = atoi(r->element[1]->str)) > 0 && *port < 65536) {
		snprintf(host, hn, "%s", r->element[0]->str);
		rc = 1;
	} else
		lr_errf(why, EX_UNAVAILABLE, "%s", r->type == REDIS_REPLY_ERROR ? r->str :
		    "unexpected reply to SENTINEL get-master-addr-by-name");
	freeReplyObject(r);
	if (rc < 0)
		rlink_close(c);
	return rc;
}

/* Ask sentinel i within ms; a connection kept from before that broke
 * meanwhile (the sentinel restarted) gets one fresh try. */
static int
ask(struct lr_sentinel *s, int i, long long ms, char *host, size_t hn, int *port,
    struct lr_err *why)
{
	int was_open = rlink_is_open(&s->conn[i]);
	int got = ask_once(s, i, ms, host, hn, port, why);

	if (got < 0 && was_open)
		got = ask_once(s, i, ms, host, hn, port, why);
	return got;
}

/* Point a (and l->where) at host:port, as a sentinel gave it (an address,
 * normally; a name only with the sentinels' announce-hostnames, and then
 * resolved). */
static int
point_at(struct lr_link *l, struct lr_addr *a, const char *host, int port,
    struct lr_err *why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *ai;
	char p[16];
	int rv;

	snprintf(p, sizeof(p), "%d", port);
	if ((rv = getaddrinfo(host, p, &hints, &ai)) == EAI_NONAME) {
		hints.ai_flags = AI_NUMERICSERV;
		rv = getaddrinfo(host, p, &hints, &ai);
	}
	if (rv != 0)
		return lr_errf(why, EX_UNAVAILABLE, "cannot resolve %s: %s", host,
		    gai_strerror(rv));
	memcpy(&a->ss, ai->ai_addr, ai->ai_addrlen);
	a->len = ai->ai_addrlen;
	freeaddrinfo(ai);
	snprintf(l->where, sizeof(l->where), strchr(host, ':') ? "[%s]:%d" : "%s:%d",
	    host, port);
	return 0;
}

/* After AUTH/SELECT: is rc a master? 1 yes, 0 no (why says what it is),
 * -1 when it did not answer (why says so). */
static int
is_master(struct lr_link *l, struct lr_err *why)
{
	const char *argv[] = { "ROLE" };
	redisReply *r = rlink_command(l, "ROLE", 1, argv, why);
	int yes;

	if (r == NULL)
		return -1;
	yes = r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
	    r->element[0]->type == REDIS_REPLY_STRING &&
	    strcmp(r->element[0]->str, "master") == 0;
	if (!yes)
		lr_errf(why, EX_UNAVAILABLE, "%s is not a master (ROLE: %s)", l->where,
		    r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
		    r->element[0]->type == REDIS_REPLY_STRING ? r->element[0]->str :
		    r->type == REDIS_REPLY_ERROR ? r->str : "?");
	freeReplyObject(r);
	return yes;
}

/* Connect to the master sentinel i gave, within ms, and check its role.
 * Returns 1 connected to a master, 0 not (noted in rd), -1 with e when
 * the master refused lockrun (AUTH, SELECT): asking on would not help. */
static int
try_master(struct lr_link *l, const char *host, int port, long long ms,
    const char *sname, struct round *rd, struct lr_err *e)
{
	char what[600];
	struct lr_err why;
	struct lr_addr a;
	int role;

	snprintf(what, sizeof(what), "%s gave %s:%d", sname, host, port);
	if (point_at(l, &a, host, port, &why) != 0) {
		note(rd, what, why.msg);
		return 0;
	}
	if (rlink_connect(l, &a, ms, e) != 0) {
		const char *m = e->msg;
		size_t wl = strlen(l->where);

		if (!lr_err_broke(e))
			return -1;
		/* "redis H:P: cannot connect: ..." after "S gave H:P" */
		if (strncmp(m, "redis ", 6) == 0 && strncmp(m + 6, l->where, wl) == 0 &&
		    strncmp(m + 6 + wl, ": ", 2) == 0)
			m += 6 + wl + 2;
		note(rd, what, m);
		return 0;
	}
	if ((role = is_master(l, &why)) != 1) {
		rlink_close(l);
		note(rd, what, why.msg);
		return 0;
	}
	return 1;
}

/* The master is found: say so when it moved since the last time. */
static void
found(struct lr_sentinel *s, int i, const struct lr_link *l, const char *host, int port)
{
	if (s->host[0] && (strcmp(s->host, host) != 0 || s->port != port))
		lr_event(LOG_WARNING, "master-moved", NULL, "redis+sentinel %s: the "
		    "sentinels name %s as the master now (it was %s:%d)",
		    s->master_url->master, l->where, s->host, s->port);
	snprintf(s->host, sizeof(s->host), "%s", host);
	s->port = port;
	s->last = i;
}

/* One round: each sentinel in order. Returns 1 connected, 0 not (rd says
 * why), -1 with e (the master refused). */
static int
one_round(struct lr_sentinel *s, struct lr_link *l, long long deadline, long long share,
    struct round *rd, struct lr_err *e)
{
	const struct lr_url *u = s->master_url;

	for (int i = 0; i < u->nsentinels; i++) {
		char host[256], sname[300];
		struct lr_err why;
		long long left = deadline - mono_ms();
		int port = 0, got, rv;

		if (left <= 0)
			break;
		rurl_where(&s->url[i], sname, sizeof(sname));
		rd->asked++;
		got = ask(s, i, min2(share, left), host, sizeof(host), &port, &why);
		if (got < 0) {
			note(rd, sname, why.msg);
			continue;
		}
		rd->answered++;
		if (got == 0) {
			note(rd, sname, "does not know it");
			continue;
		}
		rd->gave++;
		left = deadline - mono_ms();
		if ((rv = try_master(l, host, port, left > 0 ? left : 1, sname, rd, e)) != 0) {
			if (rv > 0)
				found(s, i, l, host, port);
			return rv;
		}
	}
	return 0;
}

int
sentinel_connect(struct lr_sentinel *s, struct lr_link *l, long long connect_ms,
    struct lr_err *e)
{
	const struct lr_url *u = s->master_url;
	long long deadline = mono_ms() + connect_ms;
	long long share = connect_ms / u->nsentinels;
	struct round rd, next;
	int rv;

	if (share < min2(connect_ms, SHARE_MIN_MS))
		share = min2(connect_ms, SHARE_MIN_MS);
	memset(&rd, 0, sizeof(rd));
	for (;;) {
		long long left;

		memset(&next, 0, sizeof(next));
		if ((rv = one_round(s, l, deadline, share, &next, e)) != 0)
			return rv > 0 ? 0 : -1;
		/* the message tells the last round that asked every sentinel
		 * asked before: one the deadline cut short says less */
		if (next.asked >= rd.asked)
			rd = next;
		/* a failover under way: the sentinels may soon say more */
		if (next.gave == 0 || (left = deadline - mono_ms()) <= 0)
			break;
		struct timespec ts = { 0, min2(left, ROUND_PAUSE_MS) * 1000000 };
		nanosleep(&ts, NULL);
	}
	snprintf(l->where, sizeof(l->where), "sentinel:%s", u->master);
	if (rd.why[0] == '\0') {
		char d[32];
		snprintf(rd.why, sizeof(rd.why), "none asked: %s was too short",
		    duration_format(connect_ms, d, sizeof(d)));
	}
	if (rd.answered == 0) {
		lr_errf(e, EX_UNAVAILABLE, "redis+sentinel %s: no sentinel answered (%s)",
		    u->master, rd.why);
		e->kind = LR_ERR_TRANSPORT;
	} else if (rd.gave == 0)
		lr_errf(e, EX_UNAVAILABLE, "redis+sentinel %s: the sentinels do not know "
		    "master %s (%s)", u->master, u->master, rd.why);
	else {
		lr_errf(e, EX_UNAVAILABLE, "redis+sentinel %s: no master found (%s)",
		    u->master, rd.why);
		e->kind = LR_ERR_TRANSPORT;
	}
	return -1;
}

int
sentinel_recheck(struct lr_sentinel *s, struct lr_link *l, long long cap_ms)
{
	char host[256];
	struct lr_err why;
	int port = 0, i;
	long long ms;

	if (s == NULL || !rlink_is_open(l))
		return 0;
	i = s->last;
	ms = min2(l->connect_timeout_ms, cap_ms / 2);
	if (ms < 1)
		return 0;	/* no time to ask: renew where we are */
	if (ask(s, i, ms, host, sizeof(host), &port, &why) != 1) {
		s->last = (i + 1) % s->master_url->nsentinels;	/* ask another next time */
		return 0;
	}
	if (strcmp(host, s->host) == 0 && port == s->port)
		return 0;
	rlink_close(l);
	return 1;
}

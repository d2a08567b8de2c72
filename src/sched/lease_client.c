/* SPDX-License-Identifier: BSD-2-Clause */
/* lease_client.c -- the run's side of the scheduler's connection: acquire,
 * renew and release as requests over the socket pair, answered in order
 * (lease_wire.h). A request that gets no answer in time, or a scheduler
 * that is gone (end of file), is a transport error, as a server that
 * stops answering is: the renewal loop treats it so, and the lease runs
 * out unconfirmed. A reply to an earlier request (a renewal given up on)
 * is told apart by its sequence number and dropped. */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/tail.h"
#include "out/log.h"
#include "sched/lease_client.h"
#include "sched/lease_wire.h"
#include "sched/outcome.h"

static int		 given_fd = -1;
static int		 told_fd = -1;	/* the same, kept for outcomes */
static const char	*given_url;

struct proxy {
	struct lr_backend	 inner;		/* the run's own, for the end only */
	int			 sock;
	int			 closed;	/* close() called: reopen() first */
	int			 dead;		/* the scheduler is gone */
	int			 use_inner;	/* the run's own connection, opened
						 * to record its end */
	unsigned		 seq;		/* the last request's */
	unsigned		 pending;	/* the renewal in flight's, or 0 */
	long long		 answer_ms;	/* a request's answer comes by then */
};

static struct lr_backend_ops proxy_ops;

void
lease_client_set(int fd, const char *url)
{
	given_fd = told_fd = fd;
	given_url = url;
}

/* Not answered, and never waited for: a scheduler stopped or gone leaves
 * the message unread, and the run goes on as it would. sendmsg(2), not
 * the requests' send(2), which the tests' shim watches for a key's name
 * in a request. */
void
lease_client_tell(int kind, long long value, const char *why)
{
	struct outcome_msg m;
	char buf[OUTCOME_WIRE_MAX];
	struct iovec iov = { buf, 0 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (told_fd < 0)
		return;
	outcome_msg_set(&m, kind, why);
	if (kind == OUTCOME_RAN)
		m.token = value;
	else if (kind == OUTCOME_EXITED)
		m.status = (int)value;
	if ((iov.iov_len = outcome_encode(&m, buf, sizeof(buf))) == 0)
		return;
	while (sendmsg(told_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == -1 && errno == EINTR)
		;
}

void
lease_client_log(const char *record, size_t len)
{
	int op = LEASE_LOG;
	struct iovec iov[2] = { { &op, sizeof(op) }, { (void *)record, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (told_fd < 0 || len > LOG_RECORD_MAX)
		return;
	while (sendmsg(told_fd, &mh, MSG_NOSIGNAL) == -1 && errno == EINTR)
		;
}

static struct proxy *
P(const struct lr_backend *b)
{
	return b->impl;
}

/* The scheduler is gone. Not a server out of reach (kind LR_ERR_NONE): a
 * run does not go on without a lock (on_redis_error: run) for it, and a
 * renewal is tried again until the lease runs out unconfirmed. */
static int
gone(struct proxy *p, struct lr_err *e)
{
	p->dead = 1;
	return lr_errf(e, EX_UNAVAILABLE, "%s %s: the scheduler's connection is gone "
	    "(lockrun cron or tick ended)", p->inner.ops->name, p->inner.where);
}

/* Send q, and after it the tail[n] of a release's output, in one
 * message. */
static int
req_send(struct proxy *p, struct lease_req *q, const char *tail, size_t n,
    struct lr_err *e)
{
	struct iovec iov[2] = { { q, sizeof(*q) }, { (void *)tail, n } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = n > 0 ? 2 : 1 };
	ssize_t sent;

	if (p->dead)
		return gone(p, e);
	q->seq = ++p->seq ? p->seq : ++p->seq;	/* never 0: "none" */
	/* send(2) when nothing follows: what the tests' shim watches */
	while ((sent = n > 0 ? sendmsg(p->sock, &m, MSG_NOSIGNAL) :
	    send(p->sock, q, sizeof(*q), MSG_NOSIGNAL)) == -1 && errno == EINTR)
		;
	if (sent != (ssize_t)(sizeof(*q) + n))
		return gone(p, e);
	return 0;
}

/* Read one reply without waiting. 1 with *r, 0 none yet, -1 with e. */
static int
rep_read(struct proxy *p, struct lease_rep *r, struct lr_err *e)
{
	ssize_t n;

	while ((n = recv(p->sock, r, sizeof(*r), MSG_DONTWAIT)) == -1 && errno == EINTR)
		;
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n != (ssize_t)sizeof(*r))
		return gone(p, e);
	return 1;
}

/* Send q and wait for its answer. Returns 0 with *r, or -1 with e, and
 * *sent set when q went out (the scheduler may have run it). */
static int
call(struct proxy *p, struct lease_req *q, const char *tail, size_t n, struct lease_rep *r,
    int *sent, struct lr_err *e)
{
	long long until;
	int rc;

	*sent = 0;
	if (req_send(p, q, tail, n, e) != 0)
		return -1;
	*sent = 1;
	until = mono_ms() + p->answer_ms;
	for (;;) {
		struct pollfd pfd = { .fd = p->sock, .events = POLLIN };
		long long left = until - mono_ms();

		if ((rc = rep_read(p, r, e)) < 0)
			return -1;
		if (rc == 1 && r->seq == q->seq)
			return 0;
		if (rc == 1)
			continue;	/* an older request's: given up on */
		if (left <= 0) {
			char d[32];
			/* as a server's silence, not asked again (run.c,
			 * acquire_settled(): the scheduler's socket stays
			 * open); not the server out of reach either */
			return lr_errf(e, EX_UNAVAILABLE, "%s %s: no answer from the "
			    "scheduler within %s", p->inner.ops->name, p->inner.where,
			    duration_human(p->answer_ms, d, sizeof(d)));
		}
		if (poll(&pfd, 1, (int)(left < 1000000 ? left : 1000000)) == -1 && errno != EINTR)
			return gone(p, e);
	}
}

static int
proxy_open(struct lr_backend *b, struct lr_err *e)
{
	struct proxy *p = P(b);

	if (p->use_inner)
		return p->inner.ops->open(&p->inner, e);
	return p->dead ? gone(p, e) : 0;
}

static int
proxy_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	struct proxy *p = P(b);
	struct lease_req q = { .op = LEASE_ACQUIRE, .lock = *l };
	struct lease_rep r;
	int sent;

	p->closed = 0;
	/* however long it waits for its turn, the server refuses it once we
	 * have given up on it (lock_window()) */
	q.lock.asker_until_mono = mono_ms() + p->answer_ms;
	if (call(p, &q, NULL, 0, &r, &sent, e) != 0) {
		/* the scheduler may have taken it before it went: run.c
		 * withdraws it, over the run's own connection then */
		l->in_doubt = sent;
		return -1;
	}
	*l = r.lock;
	l->asker_until_mono = 0;
	if (r.rc < 0) {
		*e = r.e;
		return -1;
	}
	*out = (enum lock_outcome)r.out;
	return r.rc;
}

/* A renewal is never sent over the run's own connection: once the
 * scheduler is gone, the lease runs out unconfirmed. */
static int
proxy_renew_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
    long long wait_ms, struct lr_err *e)
{
	struct proxy *p = P(b);
	struct lease_req q = { .op = LEASE_RENEW, .cap_ms = cap_ms, .wait_ms = wait_ms,
	    .lock = *l };

	p->closed = 0;
	/* the renewal's deadline counts from now, not from when the
	 * scheduler sends it (lock_renew_window()) */
	q.lock.asker_until_mono = mono_ms() + wait_ms;
	if (req_send(p, &q, NULL, 0, e) != 0)
		return -1;
	p->pending = q.seq;
	return 0;
}

static int
proxy_renew_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out,
    struct lr_err *e)
{
	struct proxy *p = P(b);
	struct lease_rep r;
	int rc;

	while ((rc = rep_read(p, &r, e)) == 1 && r.seq != p->pending)
		;		/* an older request's */
	if (rc <= 0)
		return rc;
	p->pending = 0;
	*l = r.lock;
	l->asker_until_mono = 0;
	if (r.rc < 0)
		*e = r.e;
	else
		*out = (enum renew_outcome)r.out;
	return r.rc;
}

/* The output out[len]'s last whole lines up to LEASE_OUTPUT_MAX, into
 * *n; when the cut falls within a hook's section (core/tail.h), the line
 * naming it goes first, in *copy (malloc'd, the caller's to free), so
 * that its lines stay the hook's. Returns where they start. */
static const char *
output_cut(const char *out, size_t len, size_t *n, char **copy)
{
	const char *tail, *cut, *sec = NULL;
	size_t seclen = 0;

	*copy = NULL;
	*n = len;
	if (len <= LEASE_OUTPUT_MAX)
		return out;
	/* room for a section's line: a mark and a hook's name */
	cut = memchr(out + len - LEASE_OUTPUT_MAX + 64, '\n', LEASE_OUTPUT_MAX - 64);
	*n = cut ? (size_t)(out + len - cut - 1) : 0;
	tail = out + len - *n;
	for (const char *p = out, *nl; p < tail && (nl = memchr(p, '\n',
	    (size_t)(tail - p))) != NULL; p = nl + 1)
		if (*p == TAIL_SECTION) {
			sec = p;
			seclen = (size_t)(nl - p) + 1;
		}
	if (sec == NULL || seclen > 64 || (*n > 0 && *tail == TAIL_SECTION) ||
	    (*copy = malloc(seclen + *n)) == NULL)
		return tail;
	memcpy(*copy, sec, seclen);
	memcpy(*copy + seclen, tail, *n);
	*n += seclen;
	return *copy;
}

static int
proxy_release(struct lr_backend *b, const struct lr_lock *l,
    const struct lr_ending *end, struct lr_err *e)
{
	struct proxy *p = P(b);
	struct lease_req q = { .op = LEASE_RELEASE, .lock = *l };
	struct lease_rep r;
	const char *tail = NULL;
	char *copy = NULL;
	size_t n = 0;
	int sent, rc;

	if (p->use_inner)
		return p->inner.ops->release(&p->inner, l, end, e);
	q.end = *end;
	q.end.event = NULL;
	/* a pointer means nothing in the scheduler: the reason goes (an
	 * array), the output's end after the structure, its last whole
	 * lines up to LEASE_OUTPUT_MAX (lockrun(7), "A RUN'S STORY") */
	if (end->output && end->output_len > 0)
		tail = output_cut(end->output, end->output_len, &n, &copy);
	q.end.output = NULL;
	q.end.output_len = n;
	if ((q.has_event = end->event != NULL))
		snprintf(q.event, sizeof(q.event), "%s", end->event);
	rc = call(p, &q, tail, n, &r, &sent, e);
	free(copy);
	if (rc != 0)
		return -1;
	if (r.rc < 0)
		*e = r.e;
	return r.rc;
}

static int
proxy_fd(const struct lr_backend *b)
{
	const struct proxy *p = P(b);

	if (p->use_inner)
		return p->inner.ops->fd(&p->inner);
	return p->closed || p->dead ? -1 : p->sock;
}

static void
proxy_close(struct lr_backend *b)
{
	struct proxy *p = P(b);

	p->closed = 1;
	p->pending = 0;
	if (p->use_inner)
		p->inner.ops->close(&p->inner);
}

/* Closed: go on with the scheduler if it is there; else, to record the
 * end, the run's own connection. */
static int
proxy_reopen(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	struct proxy *p = P(b);

	if (!p->dead && !p->use_inner) {
		p->closed = 0;
		return 0;
	}
	p->use_inner = 1;
	return p->inner.ops->reopen(&p->inner, cap_ms, e);
}

/* What a run does not ask the scheduler: over its own connection. */
static int
proxy_ping(struct lr_backend *b, struct lr_err *e)
{
	return P(b)->inner.ops->ping(&P(b)->inner, e);
}

/* The run's own connection, opened when it is not: for what does not go
 * over the scheduler's socket (a run of concurrency: replace stopping the
 * copy still running, cli/replace.c, a rare request). Returns 0, or -1
 * with e. */
static int
inner_open(struct proxy *p, struct lr_err *e)
{
	if (p->inner.ops->fd(&p->inner) >= 0)
		return 0;
	return p->inner.ops->reopen(&p->inner, p->inner.cfg.connect_timeout_ms, e);
}

static int
proxy_unlock(struct lr_backend *b, const struct lr_keys *k, const char *key,
    const char *expect, const char *who, long long hist_cap, long long hist_ttl_ms,
    char *holder, size_t n, struct lr_err *e)
{
	if (inner_open(P(b), e) != 0)
		return -1;
	return P(b)->inner.ops->unlock(&P(b)->inner, k, key, expect, who, hist_cap,
	    hist_ttl_ms, holder, n, e);
}

static int
proxy_peek(struct lr_backend *b, const char *key, char *buf, size_t n, long long *ttl_ms,
    struct lr_err *e)
{
	if (inner_open(P(b), e) != 0)
		return -1;
	return P(b)->inner.ops->peek(&P(b)->inner, key, buf, n, ttl_ms, e);
}

static int
proxy_states(struct lr_backend *b, const struct lr_keys *k, size_t n, int counts,
    struct lr_state *out, long long *now_ms, struct lr_err *e)
{
	return P(b)->inner.ops->states(&P(b)->inner, k, n, counts, out, now_ms, e);
}

static int
proxy_keys(struct lr_backend *b, const char *prefix, char ***keys, size_t *n,
    struct lr_err *e)
{
	return P(b)->inner.ops->keys(&P(b)->inner, prefix, keys, n, e);
}

static int
proxy_history(struct lr_backend *b, const struct lr_keys *k, long long count,
    struct lr_hist *h, struct lr_err *e)
{
	return P(b)->inner.ops->history(&P(b)->inner, k, count, h, e);
}

static int
proxy_probe(struct lr_backend *b, const struct lr_keys *k, int one_server, char *buf,
    size_t n, struct lr_err *e)
{
	return P(b)->inner.ops->probe(&P(b)->inner, k, one_server, buf, n, e);
}

static int
proxy_check_task(const struct lr_backend *b, const struct lr_task *t, struct lr_err *e)
{
	return P(b)->inner.ops->check_task(&P(b)->inner, t, e);
}

static void
proxy_free(struct lr_backend *b)
{
	struct proxy *p = P(b);

	p->inner.ops->free(&p->inner);
	free(p);
	b->impl = NULL;
}

int
lease_client_wrap(struct lr_backend *b, struct lr_err *e)
{
	struct proxy *p;

	if (given_fd < 0 || given_url == NULL || (b->ops->session && !b->ops->shares) ||
	    strcmp(b->cfg.url, given_url) != 0)
		return 0;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	p->inner = *b;
	p->sock = given_fd;
	/* the scheduler serves its runs in turn, each request within its
	 * connect and command timeouts: room for a queue of them */
	p->answer_ms = 2 * (b->cfg.connect_timeout_ms + b->cfg.command_timeout_ms) + 10000;
	proxy_ops = *b->ops;
	proxy_ops.open = proxy_open;
	proxy_ops.ping = proxy_ping;
	proxy_ops.acquire = proxy_acquire;
	proxy_ops.renew_send = proxy_renew_send;
	proxy_ops.renew_recv = proxy_renew_recv;
	proxy_ops.release = proxy_release;
	proxy_ops.unlock = proxy_unlock;
	proxy_ops.peek = proxy_peek;
	proxy_ops.states = proxy_states;
	proxy_ops.keys = proxy_keys;
	proxy_ops.history = proxy_history;
	proxy_ops.probe = proxy_probe;
	proxy_ops.fd = proxy_fd;
	proxy_ops.idle_read = NULL;
	proxy_ops.close = proxy_close;
	proxy_ops.reopen = proxy_reopen;
	proxy_ops.check_task = b->ops->check_task ? proxy_check_task : NULL;
	proxy_ops.free = proxy_free;
	/* what a run never asks for: the batch forms, the operator's and the
	 * scheduler's own operations (none goes over the scheduler's socket) */
	proxy_ops.renew_many = NULL;
	proxy_ops.acquire_many = NULL;
	proxy_ops.release_many = NULL;
	proxy_ops.pause = NULL;
	proxy_ops.trigger = NULL;
	proxy_ops.take = NULL;
	proxy_ops.missed = NULL;
	proxy_ops.watch = NULL;
	proxy_ops.claims = NULL;
	b->ops = &proxy_ops;
	b->impl = p;
	given_fd = -1;
	return 1;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* leases.c -- run the runs' lock requests over the scheduler's
 * connection and answer them (lease_wire.h). The requests that came in
 * one turn of the scheduler's loop, read from every run's socket
 * (leases_collect()), go in batches (leases_flush()): the releases in one
 * exchange, then the acquires in one, then the renewals. A request that
 * breaks the connection closes it, and the next one opens it again: an
 * acquire opens it itself, a release or a renewal first (the Redis
 * backend keeps its lock across a new connection; on PostgreSQL and
 * MySQL, whose locks are their session's, the one session holds every
 * run's, and a renewal over a new session finds its lock gone). The connection is the scheduler's
 * alone: each batch is run to its answers before the next, so the stream
 * is always in step. Between the requests, a run's outcome messages
 * (outcome.h) are read as they come and learnt, never answered.
 *
 * The table: the lease each run holds, and when the request that the
 * server last confirmed for it was sent. A run asking to renew is
 * answered from it when a batch has renewed its lease since its last
 * answer (and no more than a third of its TTL ago): the answer carries
 * that batch's instant, from which the run counts its lease
 * (lr_lock.renew_sent_ms). Else a batch goes now, of every lease past a
 * sixth of its TTL: leases taken at nearby times share one round trip. */
#include <sys/socket.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/batch.h"
#include "core/duration.h"
#include "out/log.h"
#include "sched/lease_wire.h"
#include "sched/leases.h"
#include "sched/outcome.h"
#include "sched/report.h"

struct held {
	int		fd;		/* the run's socket */
	struct lr_lock	*lock;		/* as the run last sent it (7 KB: allocated
					 * once a lease, the table's array stays
					 * small to grow) */
	long long	confirmed;	/* mono ms: the confirmed request's send */
	long long	asked;		/* mono ms: its run's last request */
	int		renewed;	/* confirmed by a renewal, not the acquire */
	int		told;		/* 1 + the renew_outcome to tell it, or 0 */
};

/* A request read, and its answer. */
struct asked {
	int			fd;	/* the run's socket */
	struct lease_req	q;
	char			*output;	/* a release's output's end, or NULL */
	struct lease_rep	r;
};

static struct held *
held_find(struct leases *ls, int fd)
{
	for (size_t i = 0; i < ls->n; i++)
		if (ls->v[i].fd == fd)
			return &ls->v[i];
	return NULL;
}

static void
held_drop(struct leases *ls, int fd)
{
	struct held *h = held_find(ls, fd);

	if (h) {
		free(h->lock);
		*h = ls->v[--ls->n];
	}
}

/* A lease taken: into the table (no room: its run renews one at a time). */
static void
held_add(struct leases *ls, int fd, const struct lr_lock *l, long long sent)
{
	struct lr_lock *copy;

	held_drop(ls, fd);
	if (ls->n == ls->cap) {
		size_t cap = ls->cap ? 2 * ls->cap : 16;
		struct held *v = realloc(ls->v, cap * sizeof(*v));
		if (v == NULL)
			return;
		ls->v = v;
		ls->cap = cap;
	}
	if ((copy = malloc(sizeof(*copy))) == NULL)
		return;
	*copy = *l;
	copy->asker_until_mono = 0;
	ls->v[ls->n++] = (struct held){ .fd = fd, .lock = copy, .confirmed = sent,
	    .asked = sent };
}

/* The server answered one of the n requests that rc[] tells of: note
 * when (leases.h's answered_ms). */
static void
heard(struct leases *ls, const int *rc, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rc[i] >= 0) {
			ls->answered_ms = mono_ms();
			return;
		}
}

/* How long to wait for the answer to a batch of the n leases who[]: the
 * asker's wait_ms; on a session backend, while the first of them lasts,
 * if longer. A session closed for a slow answer loses every lease it
 * holds, so a server that needs longer for 300 renewals than for one (a
 * busy machine) is waited for while waiting can still keep them, as a
 * run waits for its own (proc/supervise.c). */
static long long
batch_wait(const struct leases *ls, struct held *const *who, size_t n, long long now,
    long long wait_ms)
{
	long long wait = wait_ms;

	if (!ls->be->ops->session)
		return wait_ms;
	for (size_t i = 0; i < n; i++) {
		long long left = who[i]->confirmed + who[i]->lock->ttl_ms - now;
		if (i == 0 || left < wait)
			wait = left;
	}
	return wait > wait_ms ? wait : wait_ms;
}

/* Renew h's lease and every lease past a sixth of its TTL, in one batch;
 * h's answer into r. Not a lease whose run has not asked for half its
 * TTL: a run that is stopped, wedged or gone keeps no lease alive (its
 * guard stops its tree by the kill point it was last told, which is
 * before the lease ends; the lease then ends, and newcomers run). */
static void
batch(struct leases *ls, struct held *h, long long cap_ms, long long wait_ms,
    struct lease_rep *r)
{
	size_t n = 0, mine = 0;
	long long now = mono_ms(), sent;
	struct lr_lock **l = calloc(ls->n, sizeof(*l));
	struct held **who = calloc(ls->n, sizeof(*who));
	enum renew_outcome *out = calloc(ls->n, sizeof(*out));
	int *rc = calloc(ls->n, sizeof(*rc));
	struct lr_err *err = calloc(ls->n, sizeof(*err));

	if (!l || !who || !out || !rc || !err) {
		r->rc = lr_errf(&r->e, EX_OSERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ls->n; i++) {
		struct held *x = &ls->v[i];
		if (x != h && (x->told || now - x->confirmed < x->lock->ttl_ms / 6 ||
		    now - x->asked >= x->lock->ttl_ms / 2))
			continue;
		if (x == h)
			mine = n;
		else	/* the scheduler waits for it: its run asked long ago */
			x->lock->asker_until_mono = 0;
		who[n] = x;
		l[n++] = x->lock;
	}
	sent = mono_ms();
	backend_renew_many(ls->be, l, n, cap_ms, batch_wait(ls, who, n, sent, wait_ms), out,
	    rc, err);
	heard(ls, rc, n);
	for (size_t i = 0; i < n; i++) {
		if (rc[i] != 1)
			continue;	/* its run asks again, and hears it then */
		if (out[i] == RENEW_OK || out[i] == RENEW_RETAKEN) {
			who[i]->confirmed = sent;
			who[i]->renewed = 1;
		} else if (out[i] == RENEW_LOST || out[i] == RENEW_LOST_LATER)
			who[i]->told = 1 + (int)out[i];
	}
	r->rc = rc[mine];
	r->out = (int)out[mine];
	r->e = err[mine];
	r->lock = *h->lock;
	if (rc[mine] == 1 && (out[mine] == RENEW_OK || out[mine] == RENEW_RETAKEN))
		r->lock.renew_sent_ms = sent;
	h->told = 0;	/* told now */
out:
	free(l);
	free(who);
	free(out);
	free(rc);
	free(err);
}

static void
renew(struct leases *ls, int fd, const struct lease_req *q, struct lease_rep *r)
{
	struct held *h = held_find(ls, fd);
	long long now = mono_ms();

	if (h == NULL) {	/* not in the table: one renewal, its own */
		struct lr_lock *l = &r->lock;
		enum renew_outcome out = RENEW_LOST;

		l->renew_sent_ms = 0;	/* its run counts from its own ask */
		backend_renew_many(ls->be, &l, 1, q->cap_ms, q->wait_ms, &out, &r->rc, &r->e);
		heard(ls, &r->rc, 1);
		r->out = (int)out;
		return;
	}
	*h->lock = q->lock;
	h->asked = now;
	if (h->told) {		/* a batch found it lost */
		r->rc = 1;
		r->out = h->told - 1;
		h->told = 0;
		return;
	}
	if (h->renewed && h->confirmed > q->lock.renew_sent_ms &&
	    now - h->confirmed < h->lock->ttl_ms / 3) {
		r->rc = 1;
		r->out = RENEW_OK;
		r->lock.renew_sent_ms = h->confirmed;
		return;
	}
	batch(ls, h, q->cap_ms, q->wait_ms, r);
}

/* A request its run gave up on while it queued, or an acquire whose
 * slot's next fire time passed meanwhile: the server would refuse it
 * (lock_window()), so it is not sent. Returns 1 then, with r set; the run
 * finds its slot passed (lock_slot_passed()) and records it missed. */
static int
given_up(const struct leases *ls, const struct asked *a, struct lease_rep *r)
{
	const struct lr_backend *be = ls->be;

	if (a->q.op == LEASE_ACQUIRE && lock_slot_passed(&a->q.lock, real_ms())) {
		r->rc = lr_errf(&r->e, EX_UNAVAILABLE, "%s %s: the slot's next fire time "
		    "passed while the acquire waited in the scheduler: not sent",
		    be->ops->name, be->where);
		return 1;
	}
	if (a->q.op == LEASE_RELEASE || a->q.lock.asker_until_mono <= 0 ||
	    mono_ms() < a->q.lock.asker_until_mono)
		return 0;
	r->rc = lr_errf(&r->e, EX_UNAVAILABLE, "%s %s: no answer from the scheduler in "
	    "time", be->ops->name, be->where);
	return 1;
}

/* Send each asked request of op its answer (LEASE_RENEW: and those of
 * an op unknown). */
static void
answer(struct leases *ls, int op)
{
	for (size_t i = 0; i < ls->nq; i++) {
		struct asked *a = &ls->q[i];

		if (a->q.op != op && (op != LEASE_RENEW || a->q.op == LEASE_ACQUIRE ||
		    a->q.op == LEASE_RELEASE))
			continue;
		a->r.seq = a->q.seq;
		/* a run gone meanwhile reads nothing: that is no matter here;
		 * else the run waits for an answer that never comes: said */
		if (send(a->fd, &a->r, sizeof(a->r), MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
		    errno != EPIPE && errno != ECONNRESET && errno != ENOTCONN)
			report_fault(&ls->said, errno, "cron: cannot answer a run's lock "
			    "request (it gives up on it at its timeout): send");
	}
}

/* The releases asked, in one batch (backend_release_many()). */
static void
releases(struct leases *ls, struct asked **v, const struct lr_lock **l,
    struct lr_ending *end, int *rc, struct lr_err *err)
{
	size_t n = 0;

	for (size_t i = 0; i < ls->nq; i++) {
		struct asked *a = &ls->q[i];

		if (a->q.op != LEASE_RELEASE)
			continue;
		held_drop(ls, a->fd);
		end[n] = a->q.end;
		end[n].event = a->q.has_event ? a->q.event : NULL;
		end[n].output = a->output;
		end[n].output_len = a->output ? a->q.end.output_len : 0;
		l[n] = &a->r.lock;
		v[n++] = a;
	}
	backend_release_many(ls->be, l, end, n, ls->connect_timeout_ms, rc, err);
	heard(ls, rc, n);
	for (size_t k = 0; k < n; k++) {
		v[k]->r.rc = rc[k];
		v[k]->r.e = err[k];
	}
}

/* The acquires asked, but those given up on, in one batch
 * (backend_acquire_many()); a lease taken goes into the table. */
static void
acquires(struct leases *ls, struct asked **v, struct lr_lock **l, enum lock_outcome *out,
    int *rc, struct lr_err *err)
{
	size_t n = 0;
	long long sent;

	for (size_t i = 0; i < ls->nq; i++) {
		struct asked *a = &ls->q[i];

		if (a->q.op != LEASE_ACQUIRE || given_up(ls, a, &a->r))
			continue;
		a->r.lock.renew_sent_ms = 0;
		l[n] = &a->r.lock;
		v[n++] = a;
	}
	sent = mono_ms();
	backend_acquire_many(ls->be, l, n, out, rc, err);
	heard(ls, rc, n);
	for (size_t k = 0; k < n; k++) {
		struct asked *a = v[k];

		a->r.rc = rc[k];
		a->r.out = (int)out[k];
		a->r.e = err[k];
		if (rc[k] == 0 && out[k] == LOCK_ACQUIRED && a->r.lock.ttl_ms > 0)
			held_add(ls, a->fd, &a->r.lock, sent);
	}
}

/* One request from fd into q, and what follows it into out (a buffer of
 * len - sizeof(*q) bytes, or NULL when len is the request alone): the
 * bytes received, or -1. A request whose length is not that is gone. */
static ssize_t
recv_request(int fd, struct lease_req *q, char *out, size_t len)
{
	struct iovec iov[2] = { { q, sizeof(*q) }, { out, out ? len - sizeof(*q) : 0 } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = out ? 2 : 1 };
	ssize_t n;

	while ((n = recvmsg(fd, &m, MSG_DONTWAIT)) == -1 && errno == EINTR)
		;
	if (n >= 0 && (m.msg_flags & MSG_TRUNC))
		return -1;	/* longer than a request may be */
	return n;
}

/* A run's socket closed (its run and guard are gone), its lease forgotten. */
static void
hangup(struct leases *ls, int *fd)
{
	if (ls)
		held_drop(ls, *fd);
	close(*fd);
	*fd = -1;
}

/* The request of len bytes at the head of *fd into the queue, a
 * release's output after it. Returns 1 when read (or *fd closed), 0 when
 * it waits in the socket (out of memory). */
static int
request(struct leases *ls, int *fd, ssize_t len)
{
	struct asked *a;
	ssize_t n;

	if (ls->nq == LEASES_ASKED_MAX)
		return 0;	/* the next flush's */
	if (ls->nq == ls->capq) {
		size_t cap = ls->capq ? 2 * ls->capq : 16;
		struct asked *q = realloc(ls->q, cap * sizeof(*q));
		if (q == NULL)
			return 0;
		ls->q = q;
		ls->capq = cap;
	}
	a = &ls->q[ls->nq];
	a->output = NULL;
	if (len > (ssize_t)sizeof(a->q) && len <= (ssize_t)(sizeof(a->q) + LEASE_OUTPUT_MAX) &&
	    (a->output = malloc((size_t)len - sizeof(a->q) + 1)) == NULL)
		return 0;
	n = recv_request(*fd, &a->q, a->output, (size_t)len);
	if (n != (ssize_t)sizeof(a->q) + (ssize_t)(a->output ? a->q.end.output_len : 0)) {
		free(a->output);
		hangup(ls, fd);		/* no one is left on the other end */
		return 1;
	}
	if (a->output)		/* a string, as the run's own was */
		a->output[a->q.end.output_len] = '\0';
	memset(&a->r, 0, sizeof(a->r));
	a->r.lock = a->q.lock;
	a->fd = *fd;
	ls->nq++;
	return 1;
}

/* A message that is no request, of n bytes at the head of fd: an
 * outcome, learnt into o (NULL: dropped), or a record of the run's log,
 * passed on. One that does not decode is dropped (both ends are this
 * program). */
static void
unanswered(int fd, int op, ssize_t n, struct run_outcome *o)
{
	static char buf[sizeof(int) + LOG_RECORD_MAX];
	struct outcome_msg m;

	if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) != n)
		return;
	if (op == LEASE_LOG)
		log_relay(buf + sizeof(int), (size_t)n - sizeof(int));
	else if (o != NULL && outcome_decode(buf, (size_t)n, &m) == 0)
		outcome_apply(o, &m);
}

int
leases_collect(struct leases *ls, int *fd, struct run_outcome *o)
{
	int op, got = 0;
	ssize_t n;

	for (;; got = 1) {	/* each message's length (MSG_TRUNC) and op */
		op = -1;
		while ((n = recv(*fd, &op, sizeof(op), MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC)) ==
		    -1 && errno == EINTR)
			;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return got;
		if (n < (ssize_t)sizeof(op) || (op != LEASE_OUTCOME && op != LEASE_LOG))
			break;
		unanswered(*fd, op, n, o);	/* and on: a request may follow */
	}
	if (n <= 0) {
		hangup(ls, fd);
		return 1;
	}
	if (ls == NULL) {	/* a request with no connection to run it: dropped */
		(void)recv(*fd, &op, sizeof(op), MSG_DONTWAIT);
		return 1;
	}
	return request(ls, fd, n) || got;
}

/* A session the server ended while no request was in flight (PostgreSQL's
 * idle_session_timeout, pg_terminate_backend(); MySQL's wait_timeout,
 * KILL) is found now and closed,
 * so that this batch opens a new one rather than fail on it. Every lock
 * it held went with it: the renewals over the new one say so. */
static void
session_check(struct lr_backend *be)
{
	struct lr_err e = LR_ERR_INIT;

	if (be->ops->idle_read && be->ops->fd(be) >= 0)
		(void)be->ops->idle_read(be, &e);
}

void
leases_flush(struct leases *ls)
{
	size_t n = ls ? ls->nq : 0;
	struct asked **v;
	struct lr_lock **l;
	struct lr_ending *end;
	enum lock_outcome *out;
	int *rc;
	struct lr_err *err;

	if (n == 0)
		return;
	session_check(ls->be);
	v = calloc(n, sizeof(*v));
	l = calloc(n, sizeof(*l));
	end = calloc(n, sizeof(*end));
	out = calloc(n, sizeof(*out));
	rc = calloc(n, sizeof(*rc));
	err = calloc(n, sizeof(*err));
	if (!v || !l || !end || !out || !rc || !err) {
		for (size_t i = 0; i < n; i++)	/* its run asks again, or gives up */
			ls->q[i].r.rc = lr_errf(&ls->q[i].r.e, EX_OSERR, "out of memory");
		n = 0;
	}
	/* a run that ended first: its lease is not renewed, and a newcomer
	 * of its task in the same turn finds its key free */
	if (n > 0)
		releases(ls, v, (const struct lr_lock **)l, end, rc, err);
	answer(ls, LEASE_RELEASE);
	if (n > 0)
		acquires(ls, v, l, out, rc, err);
	answer(ls, LEASE_ACQUIRE);
	for (size_t i = 0; i < n; i++) {
		struct asked *a = &ls->q[i];

		if (a->q.op == LEASE_RENEW && !given_up(ls, a, &a->r))
			renew(ls, a->fd, &a->q, &a->r);
		else if (a->q.op != LEASE_ACQUIRE && a->q.op != LEASE_RELEASE &&
		    a->q.op != LEASE_RENEW)
			a->r.rc = lr_errf(&a->r.e, EX_SOFTWARE, "lease request %d: unknown", a->q.op);
	}
	answer(ls, LEASE_RENEW);
	for (size_t i = 0; i < ls->nq; i++)
		free(ls->q[i].output);
	ls->nq = 0;
	free(v);
	free(l);
	free(end);
	free(out);
	free(rc);
	free(err);
}

void
leases_free(struct leases *ls)
{
	for (size_t i = 0; i < ls->nq; i++)
		free(ls->q[i].output);
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i].lock);
	free(ls->v);
	free(ls->q);
	ls->v = NULL;
	ls->q = NULL;
	ls->n = ls->cap = ls->nq = ls->capq = 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* leases.c -- run a run's lock request over the scheduler's connection
 * and answer it (lease_wire.h). A request that breaks the connection
 * closes it, and the next one opens it again: an acquire opens it itself,
 * a release or a renewal first (the Redis backend keeps its lock across a
 * new connection; a backend whose lock is its session is not served
 * here). The connection is the scheduler's alone: requests are run one at
 * a time, each to its answer, so the stream is always in step.
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
#include "sched/lease_wire.h"
#include "sched/leases.h"

struct held {
	int		fd;		/* the run's socket */
	struct lr_lock	lock;		/* as the run last sent it */
	long long	confirmed;	/* mono ms: the confirmed request's send */
	long long	asked;		/* mono ms: its run's last request */
	int		renewed;	/* confirmed by a renewal, not the acquire */
	int		told;		/* 1 + the renew_outcome to tell it, or 0 */
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

	if (h)
		*h = ls->v[--ls->n];
}

/* A lease taken: into the table (no room: its run renews one at a time). */
static void
held_add(struct leases *ls, int fd, const struct lr_lock *l, long long sent)
{
	if (ls->n == ls->cap) {
		size_t cap = ls->cap ? 2 * ls->cap : 16;
		struct held *v = realloc(ls->v, cap * sizeof(*v));
		if (v == NULL)
			return;
		ls->v = v;
		ls->cap = cap;
	}
	held_drop(ls, fd);
	ls->v[ls->n++] = (struct held){ .fd = fd, .lock = *l, .confirmed = sent,
	    .asked = sent };
	ls->v[ls->n - 1].lock.asker_until_mono = 0;
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
		if (x != h && (x->told || now - x->confirmed < x->lock.ttl_ms / 6 ||
		    now - x->asked >= x->lock.ttl_ms / 2))
			continue;
		if (x == h)
			mine = n;
		else	/* the scheduler waits for it: its run asked long ago */
			x->lock.asker_until_mono = 0;
		who[n] = x;
		l[n++] = &x->lock;
	}
	sent = mono_ms();
	backend_renew_many(ls->be, l, n, cap_ms, wait_ms, out, rc, err);
	ls->batches++;
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
	r->lock = h->lock;
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

		backend_renew_many(ls->be, &l, 1, q->cap_ms, q->wait_ms, &out, &r->rc, &r->e);
		r->out = (int)out;
		return;
	}
	h->lock = q->lock;
	h->asked = now;
	if (h->told) {		/* a batch found it lost */
		r->rc = 1;
		r->out = h->told - 1;
		h->told = 0;
		return;
	}
	if (h->renewed && h->confirmed > q->lock.renew_sent_ms &&
	    now - h->confirmed < h->lock.ttl_ms / 3) {
		r->rc = 1;
		r->out = RENEW_OK;
		r->lock.renew_sent_ms = h->confirmed;
		return;
	}
	batch(ls, h, q->cap_ms, q->wait_ms, r);
}

/* A transport failure poisons the stream: close it, a new one next time. */
static int
failed(struct leases *ls, int rc, const struct lr_err *e)
{
	if (rc < 0 && e->transport)
		ls->be->ops->close(ls->be);
	return rc;
}

static void
run_request(struct leases *ls, int fd, struct lease_req *q, struct lease_rep *r)
{
	struct lr_backend *be = ls->be;
	enum lock_outcome lo = LOCK_HELD;
	long long sent;

	r->lock = q->lock;
	if (q->op != LEASE_RELEASE && q->lock.asker_until_mono > 0 &&
	    mono_ms() >= q->lock.asker_until_mono) {
		/* its run gave up on it while it queued: the server would
		 * refuse it (lock_window()), so it is not sent */
		r->rc = lr_errf(&r->e, EX_UNAVAILABLE, "%s %s: no answer from the "
		    "scheduler in time", be->ops->name, be->where);
		return;
	}
	switch (q->op) {
	case LEASE_ACQUIRE:
		sent = mono_ms();
		r->lock.renew_sent_ms = 0;
		r->rc = failed(ls, be->ops->acquire(be, &r->lock, &lo, &r->e), &r->e);
		r->out = (int)lo;
		if (r->rc == 0 && lo == LOCK_ACQUIRED && r->lock.ttl_ms > 0)
			held_add(ls, fd, &r->lock, sent);
		break;
	case LEASE_RENEW:
		renew(ls, fd, q, r);
		break;
	case LEASE_RELEASE:
		held_drop(ls, fd);
		q->end.event = q->has_event ? q->event : NULL;
		r->rc = be->ops->fd(be) >= 0 ? 0 :
		    be->ops->reopen(be, ls->connect_timeout_ms, &r->e);
		if (r->rc == 0)
			r->rc = failed(ls, be->ops->release(be, &r->lock, &q->end, &r->e), &r->e);
		break;
	default:
		r->rc = lr_errf(&r->e, EX_SOFTWARE, "lease request %d: unknown", q->op);
	}
}

void
leases_serve(struct leases *ls, int *fd)
{
	for (;;) {
		struct lease_req q;
		struct lease_rep r;
		ssize_t n;

		while ((n = recv(*fd, &q, sizeof(q), MSG_DONTWAIT)) == -1 && errno == EINTR)
			;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n != (ssize_t)sizeof(q)) {
			held_drop(ls, *fd);	/* no one is left on the other end */
			close(*fd);
			*fd = -1;
			return;
		}
		memset(&r, 0, sizeof(r));
		r.seq = q.seq;
		run_request(ls, *fd, &q, &r);
		ls->served++;
		/* a run gone meanwhile reads nothing: that is no matter here */
		(void)!send(*fd, &r, sizeof(r), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

void
leases_free(struct leases *ls)
{
	free(ls->v);
	ls->v = NULL;
	ls->n = ls->cap = 0;
}

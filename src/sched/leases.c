/* SPDX-License-Identifier: BSD-2-Clause */
/* leases.c -- run a run's lock request over the scheduler's connection
 * and answer it (lease_wire.h). A request that breaks the connection
 * closes it, and the next one opens it again: an acquire opens it itself,
 * a release or a renewal first (the Redis backend keeps its lock across a
 * new connection; a backend whose lock is its session is not served
 * here). The connection is the scheduler's alone: requests are run one at
 * a time, each to its answer, so the stream is always in step. */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "core/duration.h"
#include "sched/lease_wire.h"
#include "sched/leases.h"

/* A transport failure poisons the stream: close it, a new one next time. */
static int
failed(struct leases *ls, int rc, const struct lr_err *e)
{
	if (rc < 0 && e->transport)
		ls->be->ops->close(ls->be);
	return rc;
}

static int
ensure_open(struct leases *ls, long long cap_ms, struct lr_err *e)
{
	if (ls->be->ops->fd(ls->be) >= 0)
		return 0;
	return ls->be->ops->reopen(ls->be, cap_ms, e);
}

/* The renewal sent, then its answer read as it comes, until wait_ms. */
static int
renew(struct leases *ls, struct lr_lock *l, long long cap_ms, long long wait_ms,
    enum renew_outcome *out, struct lr_err *e)
{
	struct lr_backend *be = ls->be;
	long long until;
	int rc;

	if (be->ops->renew_send(be, l, cap_ms, wait_ms, e) != 0)
		return failed(ls, -1, e);
	until = mono_ms() + wait_ms;
	for (;;) {
		struct pollfd pfd = { .fd = be->ops->fd(be), .events = POLLIN };
		long long left = until - mono_ms();
		char d[32];

		if (left <= 0) {
			lr_errf(e, EX_UNAVAILABLE, "%s %s: renew: no answer within %s",
			    be->ops->name, be->where, duration_human(wait_ms, d, sizeof(d)));
			e->transport = 1;
			return failed(ls, -1, e);
		}
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return failed(ls, -1, e);
		if (!(pfd.revents & (POLLIN | POLLERR | POLLHUP)))
			continue;
		if ((rc = be->ops->renew_recv(be, l, out, e)) != 0)
			return failed(ls, rc, e);
	}
}

static void
run_request(struct leases *ls, struct lease_req *q, struct lease_rep *r)
{
	struct lr_backend *be = ls->be;
	enum lock_outcome lo = LOCK_HELD;
	enum renew_outcome ro = RENEW_LOST;

	r->lock = q->lock;
	switch (q->op) {
	case LEASE_ACQUIRE:
		r->rc = failed(ls, be->ops->acquire(be, &r->lock, &lo, &r->e), &r->e);
		r->out = (int)lo;
		break;
	case LEASE_RENEW:
		if ((r->rc = ensure_open(ls, q->cap_ms, &r->e)) == 0)
			r->rc = renew(ls, &r->lock, q->cap_ms, q->wait_ms, &ro, &r->e);
		r->out = (int)ro;
		break;
	case LEASE_RELEASE:
		q->end.event = q->has_event ? q->event : NULL;
		if ((r->rc = ensure_open(ls, ls->connect_timeout_ms, &r->e)) == 0)
			r->rc = failed(ls, be->ops->release(be, &r->lock, &q->end, &r->e), &r->e);
		break;
	default:
		r->rc = lr_errf(&r->e, EX_SOFTWARE, "lease request %d: unknown", q->op);
	}
}

int
leases_serve(struct leases *ls, int fd)
{
	for (;;) {
		struct lease_req q;
		struct lease_rep r;
		ssize_t n;

		while ((n = recv(fd, &q, sizeof(q), MSG_DONTWAIT)) == -1 && errno == EINTR)
			;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n != (ssize_t)sizeof(q))
			return -1;	/* end of file: no one is left on the other end */
		memset(&r, 0, sizeof(r));
		r.seq = q.seq;
		run_request(ls, &q, &r);
		ls->served++;
		/* a run gone meanwhile reads nothing: that is no matter here */
		(void)!send(fd, &r, sizeof(r), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

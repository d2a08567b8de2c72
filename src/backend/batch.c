/* SPDX-License-Identifier: BSD-2-Clause */
/* batch.c -- many leases over one connection (batch.h). */
#include <errno.h>
#include <poll.h>

#include "backend/batch.h"
#include "core/duration.h"

/* One renewal, sent, then its answer read as it comes, until wait_ms. */
static int
renew_one(struct lr_backend *b, struct lr_lock *l, long long cap_ms, long long wait_ms,
    enum renew_outcome *out, struct lr_err *e)
{
	long long until;
	int rc;

	if (b->ops->renew_send(b, l, cap_ms, wait_ms, e) != 0)
		return -1;
	until = mono_ms() + wait_ms;
	for (;;) {
		struct pollfd pfd = { .fd = b->ops->fd(b), .events = POLLIN };
		long long left = until - mono_ms();
		char d[32];

		if (left <= 0) {
			return lr_errk(e, LR_ERR_TIMEOUT, EX_UNAVAILABLE, "%s %s: renew: no "
			    "answer within %s", b->ops->name, b->where,
			    duration_human(wait_ms, d, sizeof(d)));
		}
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return lr_errf(e, EX_OSERR, "poll: %s", "failed");
		if ((pfd.revents & (POLLIN | POLLERR | POLLHUP)) &&
		    (rc = b->ops->renew_recv(b, l, out, e)) != 0)
			return rc;
	}
}

/* n requests failed as e. */
static void
failed_all(int *rc, struct lr_err *err, size_t n, const struct lr_err *e)
{
	for (size_t i = 0; i < n; i++) {
		rc[i] = -1;
		err[i] = *e;
	}
}

/* What a batch form returned (got; NO_BATCH when there is none), with e
 * when it failed as a whole: 1 when the n requests are answered (rc[i],
 * err[i]), a connection that broke under them closed, for the next call
 * to open; 0 when they are still to make, one at a time. */
#define NO_BATCH	1
static int
batched(struct lr_backend *b, int got, const struct lr_err *e, int *rc,
    struct lr_err *err, size_t n)
{
	if (got > 0)
		return 0;
	if (got < 0)
		failed_all(rc, err, n, e);
	for (size_t i = 0; i < n; i++)
		if (rc[i] < 0 && lr_err_broke(&err[i])) {
			b->ops->close(b);
			break;
		}
	return 1;
}

/* Request i of a batch made alone: what the operation returns. */
typedef int	one_fn(struct lr_backend *b, size_t i, void *arg, struct lr_err *e);

/* The n requests one at a time over the same connection; with reopen, a
 * closed one is opened again first, within cap_ms. */
static void
each(struct lr_backend *b, size_t n, int reopen, long long cap_ms, one_fn *one, void *arg,
    int *rc, struct lr_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (reopen && b->ops->fd(b) < 0 && b->ops->reopen(b, cap_ms, &err[i]) != 0) {
			rc[i] = -1;
			continue;
		}
		if ((rc[i] = one(b, i, arg, &err[i])) < 0 && lr_err_broke(&err[i]))
			b->ops->close(b);	/* an unanswered request poisons the stream */
	}
}

/* Opened again first if closed, within cap_ms: 0, or -1 with each of the
 * n requests failed. */
static int
opened(struct lr_backend *b, long long cap_ms, int *rc, struct lr_err *err, size_t n)
{
	struct lr_err e = LR_ERR_INIT;

	if (b->ops->fd(b) >= 0 || b->ops->reopen(b, cap_ms, &e) == 0)
		return 0;
	failed_all(rc, err, n, &e);
	return -1;
}

struct renews {
	struct lr_lock *const	*l;
	long long		 cap_ms, wait_ms;
	enum renew_outcome	*out;
};

static int
renew_each(struct lr_backend *b, size_t i, void *arg, struct lr_err *e)
{
	struct renews *a = arg;

	return renew_one(b, a->l[i], a->cap_ms, a->wait_ms, &a->out[i], e);
}

void
backend_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
    struct lr_err *err)
{
	struct renews a = { l, cap_ms, wait_ms, out };
	struct lr_err e = LR_ERR_INIT;

	if (n == 0 || opened(b, cap_ms, rc, err, n) != 0 ||
	    batched(b, b->ops->renew_many == NULL ? NO_BATCH :
	    b->ops->renew_many(b, l, n, cap_ms, wait_ms, out, rc, err, &e), &e, rc, err, n))
		return;
	each(b, n, 1, cap_ms, renew_each, &a, rc, err);
}

struct acquires {
	struct lr_lock *const	*l;
	enum lock_outcome	*out;
};

static int
acquire_each(struct lr_backend *b, size_t i, void *arg, struct lr_err *e)
{
	struct acquires *a = arg;

	return b->ops->acquire(b, a->l[i], &a->out[i], e);
}

void
backend_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err)
{
	struct acquires a = { l, out };
	struct lr_err e = LR_ERR_INIT;

	if (n == 0 || batched(b, b->ops->acquire_many == NULL ? NO_BATCH :
	    b->ops->acquire_many(b, l, n, out, rc, err, &e), &e, rc, err, n))
		return;
	each(b, n, 0, 0, acquire_each, &a, rc, err);	/* acquire() opens it */
}

struct releases {
	const struct lr_lock *const	*l;
	const struct lr_ending		*end;
};

static int
release_each(struct lr_backend *b, size_t i, void *arg, struct lr_err *e)
{
	struct releases *a = arg;

	return b->ops->release(b, a->l[i], &a->end[i], e);
}

void
backend_release_many(struct lr_backend *b, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, long long cap_ms, int *rc, struct lr_err *err)
{
	struct releases a = { l, end };
	struct lr_err e = LR_ERR_INIT;

	if (n == 0 || opened(b, cap_ms, rc, err, n) != 0 ||
	    batched(b, b->ops->release_many == NULL ? NO_BATCH :
	    b->ops->release_many(b, l, end, n, rc, err, &e), &e, rc, err, n))
		return;
	each(b, n, 1, cap_ms, release_each, &a, rc, err);
}

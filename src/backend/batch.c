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
			lr_errf(e, EX_UNAVAILABLE, "%s %s: renew: no answer within %s",
			    b->ops->name, b->where, duration_human(wait_ms, d, sizeof(d)));
			e->transport = 1;
			return -1;
		}
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return lr_errf(e, EX_OSERR, "poll: %s", "failed");
		if ((pfd.revents & (POLLIN | POLLERR | POLLHUP)) &&
		    (rc = b->ops->renew_recv(b, l, out, e)) != 0)
			return rc;
	}
}

void
backend_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
    struct lr_err *err)
{
	struct lr_err e = { 0, "", 0 };
	int batched = 1;

	if (n == 0)
		return;
	if (b->ops->fd(b) < 0 && b->ops->reopen(b, cap_ms, &e) != 0) {
		for (size_t i = 0; i < n; i++) {
			rc[i] = -1;
			err[i] = e;
		}
		return;
	}
	if (b->ops->renew_many != NULL &&
	    (batched = b->ops->renew_many(b, l, n, cap_ms, out, rc, err, &e)) <= 0) {
		if (batched < 0) {
			for (size_t i = 0; i < n; i++) {
				rc[i] = -1;
				err[i] = e;
			}
			if (e.transport)
				b->ops->close(b);
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {	/* no batch form: in turn */
		if (b->ops->fd(b) < 0 && b->ops->reopen(b, cap_ms, &err[i]) != 0) {
			rc[i] = -1;
			continue;
		}
		if ((rc[i] = renew_one(b, l[i], cap_ms, wait_ms, &out[i], &err[i])) < 0 &&
		    err[i].transport)
			b->ops->close(b);	/* an unanswered request poisons the stream */
	}
}

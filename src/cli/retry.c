/* SPDX-License-Identifier: BSD-2-Clause */
/* retry.c -- a failed run's next attempts (retry.h). Between attempts the
 * run keeps what it took: the slot key (it lives for the slot) and the
 * stable key, whose lease is renewed here every third of the ttl as
 * supervise() renews it while the command runs. Nothing else can start
 * the task meanwhile, on this server or another, so attempts never
 * overlap; the release after the last attempt records the run's end
 * once, with its status, and on_failure fires once, after it. */
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>

#include "cli/retry.h"
#include "core/duration.h"
#include "core/lease.h"
#include "out/log.h"

int
retry_attempt(struct lr_run *r, int attempt)
{
	snprintf(r->vars.attempt, sizeof(r->vars.attempt), "LOCKRUN_ATTEMPT=%d", attempt);
	r->attempt = attempt;	/* for the release (run.c) */
	return attempt;
}

/* One renewal, waited for: 0 with the lease extended, -1 with e. */
static int
renew_once(struct lr_backend *be, struct lr_lock *l, long long cap, struct lr_err *e)
{
	long long wait = be->cfg.command_timeout_ms < l->ttl_ms / 3 ?
	    be->cfg.command_timeout_ms : l->ttl_ms / 3;
	long long by;
	enum renew_outcome out;
	int rc;

	if (be->ops->renew_send(be, l, cap, wait, e) != 0)
		return -1;
	by = mono_ms() + wait;
	do {
		struct pollfd pfd = { .fd = be->ops->fd(be), .events = POLLIN };
		long long now = mono_ms();
		int n = now < by ? poll(&pfd, 1, (int)(by - now)) : 0;

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			be->ops->close(be);	/* the answer may come late: a new connection */
			return lr_errf(e, EX_UNAVAILABLE, "no answer to the renewal");
		}
		rc = be->ops->renew_recv(be, l, &out, e);
	} while (rc == 0);
	if (rc < 0)
		return -1;
	if (out == RENEW_LOST || out == RENEW_LOST_LATER)
		return lr_errf(e, EX_UNAVAILABLE, "another run holds it now, or it was freed");
	if (out == RENEW_UNCONFIRMED)
		return lr_errf(e, EX_UNAVAILABLE, "%s", l->unacked);
	return 0;
}

/* Wait ms holding the lock: renew the lease when due (s->be set). Returns
 * 0, or -1 when a signal came or the lease could not be kept. */
static int
wait_holding(struct lr_run *r, struct lr_supervise *s, long long ms)
{
	struct lr_ctx *x = r->x;
	struct lr_lease lease = { .ttl = r->lock.ttl_ms, .kill_after = x->t.kill_after_ms,
	    .confirmed = s->confirmed };
	long long end = mono_ms() + ms;
	struct lr_err e = LR_ERR_INIT;
	int renewing = s->be != NULL && r->lock.ttl_ms > 0;

	for (;;) {
		long long now = mono_ms(), next = end, sent;
		int sig;

		if (renewing && lease_renew_at(&lease) < next)
			next = lease_renew_at(&lease);
		if (now < next) {
			if ((sig = spawn_sleep(next - now)) != 0) {
				lr_event(LOG_WARNING, "retry-abandoned", NULL, "signal %d while "
				    "waiting to retry; no more attempts", sig);
				return -1;
			}
			continue;
		}
		if (now >= end)
			return 0;
		sent = now;
		if (renew_once(s->be, &r->lock, lease_term_at(&lease) - now, &e) != 0) {
			lr_event(LOG_ERR, "retry-abandoned", NULL, "%s: renew while waiting "
			    "to retry: %s; no more attempts", r->lock.keys.stable, e.msg);
			return -1;
		}
		/* as supervise() counts it: an answer from the scheduler's
		 * lease table names a batch sent before we asked */
		lease.confirmed = s->confirmed = lease_counts_from(sent,
		    r->lock.renew_sent_ms);
	}
}

int
retry_next(struct lr_run *r, struct lr_supervise *s, int attempt, int status)
{
	struct lr_ctx *x = r->x;
	struct lr_child *ch = &r->child;
	long long delay;
	char d[32];
	int st;

	if (status == 0 || status < 0 || attempt > x->t.retries || s->lost ||
	    (ch->forwarded && spawn_ends_a_job(ch->forwarded)) || spawn_signal_pending())
		return 0;
	delay = task_retry_delay(&x->t, attempt);
	lr_event(LOG_WARNING, "attempt-failed", NULL, "attempt %d of %d failed (status %d); "
	    "attempt %d in %s, holding the lock", attempt, x->t.retries + 1, status,
	    attempt + 1, duration_human(delay, d, sizeof(d)));
	/* the guard is done (it waits for its socket to close): let it go */
	child_close(ch);
	if (ch->pid > 0)
		while (waitpid(ch->pid, &st, 0) == -1 && errno == EINTR)
			;
	child_init(ch);
	if (wait_holding(r, s, delay) != 0)
		return 0;
	s->acquired_at = s->confirmed;
	s->timed_out = 0;
	return 1;
}

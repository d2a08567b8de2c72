/* SPDX-License-Identifier: BSD-2-Clause */
/* doubt.c -- a run whose lock server's answer cannot be taken as it is: a
 * request that went unanswered is withdrawn, a clock too far from the
 * server's claims no slot, and an answer too late for its slot or its
 * lease starts nothing (doubt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ctx.h"
#include "cli/doubt.h"
#include "core/duration.h"
#include "core/lease.h"
#include "out/log.h"
#include "sched/lease_client.h"
#include "sched/outcome.h"

/* The acquire was sent and went unanswered (a paused server, a stalled
 * or cut network): the server refuses it if it runs after its deadline,
 * but it may have run in time with its answer lost. Take back whatever
 * it took, by this run's owner id, on a new connection within the
 * connect and command timeouts once more, and say in e how that went. */
int
run_withdraw(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_ending end = { .status = EX_UNAVAILABLE, .event = "withdrawn" };
	struct lr_err we = LR_ERR_INIT;
	size_t len = strlen(e->msg);
	char d[32];
	int rc = -1;

	if (!r->lock.in_doubt)
		return -1;
	x->be.ops->close(&x->be);
	if (x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &we) == 0)
		rc = x->be.ops->release(&x->be, &r->lock, &end, &we);
	x->be.ops->close(&x->be);
	duration_human(x->server.command_timeout_ms, d, sizeof(d));
	if (rc < 0)
		snprintf(e->msg + len, sizeof(e->msg) - len, "; the server refuses the "
		    "request if it runs later than %s after it was sent, and withdrawing it "
		    "failed too: %s", d, we.msg);
	else
		snprintf(e->msg + len, sizeof(e->msg) - len, "; withdrew the request: %s",
		    rc == 1 ? "it had taken the lock, now freed, and its history entry is "
		    "corrected" : "it had taken nothing");
	return rc < 0 ? -1 : 0;
}

/* The server's clock and ours differ by more than the clock tolerance:
 * this run claims no slot (the other servers run it); lockrun exits
 * EX_TEMPFAIL with one line. */
int
run_clock_off(const struct lr_run *r, struct lr_err *e)
{
	const struct lr_lock *l = &r->lock;
	char tol[32];

	duration_human(l->clock_tol_ms, tol, sizeof(tol));
	return lr_errf(e, EX_TEMPFAIL, "this server's clock is off by %.1f s against the lock "
	    "server; not claiming slot %s (this clock is %s, by %lld ms +/- %lld; "
	    "clock_tolerance %s)", (double)llabs(l->offset_ms) / 1000.0, l->keys.slot_iso,
	    l->offset_ms < 0 ? "ahead" : "behind", llabs(l->offset_ms),
	    (l->rtt_ms + 1) / 2, tol);
}

int
run_too_late(const struct lr_run *r, const char *why)
{
	const struct lr_ctx *x = r->x;
	struct log_fields f;
	char msg[1024];		/* out/log.c's longest message */

	log_fields_init(&f);
	f.status = EX_UNAVAILABLE;
	snprintf(msg, sizeof(msg), "too late for %s%s: %s; the command was not started",
	    x->t.one_server ? "slot " : "", x->t.one_server ? r->lock.keys.slot_iso :
	    r->lock.keys.stable, why);
	lr_event(LOG_ERR, "too-late", &f, "%s", msg);
	lease_client_tell(OUTCOME_TOO_LATE, 0, msg);	/* its scheduler: missed */
	return EX_UNAVAILABLE;
}

int
run_lease_late(const struct lr_run *r)
{
	const struct lr_ctx *x = r->x;
	struct lr_lease ls = { .ttl = r->lock.ttl_ms, .kill_after = x->t.kill_after_ms,
	    .confirmed = r->acquired_at };
	long long now = mono_ms();
	char left[32];

	if (ls.ttl <= 0 || !x->t.renew || !lease_too_late(&ls, now))
		return 0;
	duration_human(lease_deadline(&ls) > now ? lease_deadline(&ls) - now : 0, left,
	    sizeof(left));
	lr_event(LOG_WARNING, "lease-late", NULL, "%s: the acquire was answered with %s of "
	    "its lease left, past its first renewal point", r->lock.keys.stable, left);
	return 1;
}

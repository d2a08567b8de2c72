/* SPDX-License-Identifier: BSD-2-Clause */
/* acquire.c -- a run takes its lock: the request's window and slot, once
 * or again with --wait, and once more after a broken connection
 * (acquire.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/acquire.h"
#include "cli/boot.h"
#include "cli/doubt.h"
#include "cli/replace.h"
#include "cli/when.h"
#include "core/duration.h"
#include "core/lease.h"
#include "core/schedule.h"
#include "core/where.h"
#include "out/log.h"
#include "proc/child.h"
#include "sched/lease_client.h"
#include "sched/outcome.h"

/* The instant a one-server run takes its slot at: now, or the instant
 * tick or cron found the task due at (LOCKRUN_SLOT_AT, Unix ms), so that a
 * start that crosses a slot's edge, or a late start cron allows (its
 * starting_deadline), still claims the slot it was started for. Taken when
 * no more than a minute ahead of our clock and a day behind it; not passed
 * on to the command. */
static long long
slot_instant(void)
{
	long long pinned = when_pinned_at();	/* when.c */

	unsetenv("LOCKRUN_SLOT_AT");
	return pinned ? pinned : real_ms();
}

/* Connect and try once: one round trip; two when the server's clock and
 * ours are too far apart for the request's window (LOCK_LATE): the first
 * answer measured the offset, and the second moves the window by it.
 * *out LOCK_LATE: the slot's next fire time has passed (lock_slot_passed()),
 * before it was sent (nothing sent) or by the clock of the server that
 * refused it: a claim now could find the slot key of a run that took
 * it gone (lock_window()). */
static int
acquire_once(struct lr_run *r, enum lock_outcome *out, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_lock *l = &r->lock;
	long long sent = mono_ms();
	char d[32];

	*out = LOCK_LATE;
	if (lock_slot_passed(l, real_ms()))	/* started too late: send nothing */
		return 0;
	if (l->offset_known)
		l->offset_used_ms = l->offset_ms;
	l->renew_sent_ms = 0;
	if (x->be.ops->acquire(&x->be, l, out, e) != 0)
		return -1;
	if (*out == LOCK_LATE && lock_slot_passed(l, real_ms()))
		return 0;	/* refused as past the slot's next fire time */
	if (*out == LOCK_LATE) {
		l->offset_used_ms = l->offset_ms;
		l->renew_sent_ms = 0;
		sent = mono_ms();
		if (x->be.ops->acquire(&x->be, l, out, e) != 0)
			return -1;
	}
	if (*out == LOCK_LATE)
		return lr_errf(e, EX_UNAVAILABLE, "%s %s: acquire: the server ran it more "
		    "than %s after it was sent, by its clock (%lld ms ahead of ours): "
		    "nothing was taken", x->be.ops->name, x->be.where,
		    duration_human(x->server.command_timeout_ms, d, sizeof(d)), l->offset_ms);
	/* taken before the request went (a scheduler's run: before the batch
	 * that carried it), so never later than the server's lease began */
	r->acquired_at = lease_counts_from(sent, l->renew_sent_ms);
	return 0;
}

/* Take the lock; with --wait, retry a held lock with jittered backoff
 * until the deadline. A slot that already ran is final: waiting would not
 * un-run it. Returns 0 with *out set (and *sig set if a signal cut the
 * wait short), or -1 with e. */
static int
acquire(struct lr_run *r, enum lock_outcome *out, int *sig, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_lock *l = &r->lock;
	time_t slot = (time_t)-1, next;
	long long deadline, now = slot_instant();
	unsigned long long seed;

	*sig = 0;
	lock_init(l, ctx_host(x));
	l->hist_cap = x->t.history;
	l->hist_ttl_ms = x->t.history_ttl_ms;
	l->in_doubt = l->offset_known = 0;
	l->offset_used_ms = l->slot_until_ms = 0;
	l->no_window = x->t.clock_tolerance_ms == 0;
	l->triggered = r->triggered;
	l->take[0] = '\0';
	if (r->triggered && r->trigger_take[0])	/* the mark is "host/pid/s" */
		snprintf(l->take, sizeof(l->take), "%s/%s", ctx_host(x), r->trigger_take);
	snprintf(l->claim, sizeof(l->claim), "%s", r->slot_claim);
	if (x->t.one_server) {
		l->clock_tol_ms = x->t.clock_tolerance_ms != LR_UNSET ?
		    x->t.clock_tolerance_ms : LR_CLOCK_TOLERANCE_FACTOR * x->sched.tolerance_ms;
		if ((slot = schedule_slot(&x->sched, now)) == (time_t)-1)
			return lr_errf(e, EX_CONFIG, "schedule \"%s\" has no fire time in reach",
			    x->t.schedule);
		l->slot_ttl_ms = schedule_slot_ttl_ms(&x->sched, now, slot);
		next = schedule_next(&x->sched, slot);
		l->slot_until_ms = next == (time_t)-1 ? 0 : (long long)next * 1000;
	}
	l->ttl_ms = x->t.no_overlap ? x->t.ttl_ms : 0;
	l->limit = x->t.limit;
	keys_build(&l->keys, x->prefix, r->name, slot, schedule_stamp_ms(&x->sched));
	if (x->t.run_on == RUN_ON_ALL)	/* each host claims the slot once */
		keys_slot_host(&l->keys, ctx_host(x));
	/* a triggered run of a @reboot task claims no boot, as no slot */
	if (x->sched.reboot && !r->triggered && boot_claim(r, l, e) != 0)
		return -1;
	run_log_context(r, 0);
	/* a boot's run waits for a copy still running elsewhere, unless told */
	deadline = mono_ms() + (x->sched.reboot && !r->triggered && x->t.wait_ms == 0 ?
	    x->t.starting_deadline_ms : x->t.wait_ms);
	seed = strtoull(l->id + 16, NULL, 16) | 1;	/* 64 random bits of the owner id */
	for (int n = 0; ; n++) {
		long long left, pause;

		l->quiet_held = n > 0;	/* a wait is one skipped-held, its first */
		if (acquire_once(r, out, e) != 0)
			return -1;
		r->seen_held |= *out == LOCK_HELD;
		if (*out == LOCK_HELD && replace_running(r, &deadline, e) != 0)
			return -1;	/* concurrency: replace (replace.c) */
		if (*out != LOCK_HELD || (left = deadline - mono_ms()) <= 0)
			return 0;
		if (n == 0) {
			char d[32];
			lr_event(LOG_INFO, "waiting", NULL, "%s is held; waiting up to "
			    "%s for it", l->keys.stable, duration_human(left, d, sizeof(d)));
			lease_client_tell(OUTCOME_WAITING, 0, NULL);
		}
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;	/* xorshift64 */
		pause = lease_backoff_delay(n, (double)(seed >> 11) / (double)(1ULL << 53));
		if ((*sig = spawn_sleep(pause < left ? pause : left)) != 0)
			return 0;
	}
}

/* acquire(), and once more on a new connection when the connection broke
 * under it (a master killed, not a slow server) and the withdrawal took
 * back what it may have taken: a failed-over Redis Cluster answers then. */
int
acquire_settled(struct lr_run *r, enum lock_outcome *out, int *sig, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_err again = LR_ERR_INIT;
	int broke;

	if (acquire(r, out, sig, e) == 0)
		return 0;
	/* the server's connection broke (here, or the scheduler's, which
	 * says so), or ours closed under it, and not for a timeout: a slow
	 * server, or a scheduler that does not answer (its socket stays
	 * open), is not asked again, nor a request failed for its data */
	broke = e->kind == LR_ERR_TRANSPORT || e->kind == LR_ERR_PROTOCOL ||
	    (x->be.ops->fd(&x->be) < 0 && e->kind != LR_ERR_TIMEOUT &&
	    e->kind != LR_ERR_DATA);
	if (run_withdraw(r, e) != 0 || !broke)
		return -1;
	lr_event(LOG_WARNING, "retry", NULL, "%s; trying once more", e->msg);
	if (x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &again) != 0 ||
	    acquire(r, out, sig, &again) != 0) {
		run_withdraw(r, &again);
		*e = again;
		return -1;
	}
	return 0;
}

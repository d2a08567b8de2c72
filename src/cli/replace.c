/* SPDX-License-Identifier: BSD-2-Clause */
/* replace.c -- concurrency: replace: stop the copy still running, as
 * `lockrun unlock` stops a holder, and wait for its lock (replace.h).
 * Never both at once: the tombstone keeps every newcomer out, this run
 * too, until the old copy's tree is gone and its release deleted it, or
 * its lease ended, by which its guard has stopped the tree. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/replace.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "out/log.h"

/* Has another run taken this run's slot (one-server)? Then the copy
 * still running may be that slot's own: a run of a slot that ran replaces
 * nothing, it skips. The slot key holding the claim its scheduler made
 * for this run (lr_lock.claim) is this run's. 1 taken, 0 not, -1 with e:
 * one round trip, only when a copy still runs. */
static int
slot_taken(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;
	char v[512], nonce[CLAIM_NONCE_MAX];
	long long ttl;
	int held;

	if (l->slot_ttl_ms == 0)
		return 0;
	if ((held = x->be.ops->peek(&x->be, l->keys.slot, v, sizeof(v), &ttl, e)) <= 0)
		return held;
	return !(l->claim[0] && sscanf(v, "claim 0 %*s %*s %*s %16[0-9a-f]", nonce) == 1 &&
	    strcmp(nonce, l->claim) == 0);
}

int
replace_running(struct lr_run *r, long long *deadline, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_lock *l = &r->lock;
	char who[HOST_MAX + 32], now[512], host[256] = "?", pid[32] = "?", d[32];
	long long until;
	int rc;

	if (x->t.concurrency != CONCURRENCY_REPLACE || r->replaced)
		return 0;
	r->replaced = 1;
	if ((rc = slot_taken(r, e)) != 0) {
		if (rc > 0)
			lr_event(LOG_INFO, "not-replacing", NULL, "%s: slot %s ran already: "
			    "the copy still running is not replaced", l->keys.stable,
			    l->keys.slot_iso);
		return rc < 0 ? -1 : 0;
	}
	rc = 3;
	/* told already (by unlock, or another run replacing it): unlock
	 * would free the tombstone at once, while that copy may still stop */
	if (keys_value_phase(l->holder) != KEY_UNLOCKED) {
		snprintf(who, sizeof(who), "%s %ld", ctx_host(x), (long)getpid());
		if ((rc = x->be.ops->unlock(&x->be, &l->keys, l->keys.stable, l->holder, who,
		    x->t.history, x->t.history_ttl_ms, now, sizeof(now), e)) < 0)
			return -1;
	}
	/* it learns at its next renewal, within a third of its TTL, and has
	 * kill_after to go; one that never learns (gone, cut off) is outlived
	 * by its lease, at most a TTL from now */
	until = mono_ms() + x->t.ttl_ms + x->server.command_timeout_ms;
	if (until > *deadline)
		*deadline = until;
	sscanf(l->holder, "%*s %*s %255s %31s", host, pid);
	text_visible(host);
	text_visible(pid);
	lr_event(LOG_INFO, "replacing", NULL, "%s is held by %s pid %s: %s (concurrency: "
	    "replace); waiting up to %s for it", l->keys.stable, host, pid, rc == 3 ?
	    "told it to stop" : rc == 1 ? "freed it (no copy ran)" : rc == 2 ?
	    "it changed hands meanwhile" : "it came free meanwhile",
	    duration_human(until - mono_ms(), d, sizeof(d)));
	return 0;
}

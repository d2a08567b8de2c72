/* SPDX-License-Identifier: BSD-2-Clause */
/* hookspec.c -- a run's hooks: their settings from its task, and what they
 * are told (hookspec.h). */
#include "cli/hookspec.h"

/* on_start runs under a lease that is not renewed until the command
 * starts: it has a quarter of the ttl, and a twelfth more to stop, so
 * that the first renewal, due at a third, is still in time. */
void
hooks_prepare(struct lr_ctx *x, int locked, struct lr_hook_spec *start,
    struct lr_hook_spec *after, struct lr_hook_facts *hf)
{
	const struct lr_lock *l = &x->lock;
	const struct lr_task *t = &x->t;

	*after = (struct lr_hook_spec){ .env = t->env, .timeout_ms = t->hook_timeout_ms,
	    .kill_after_ms = t->kill_after_ms, .saved = &x->sig,
	    .scheduled = x->cfg_borrowed, .creds = x->creds.uid ? &x->creds : NULL };
	*start = *after;
	if (locked && t->no_overlap && t->renew) {
		if (start->timeout_ms > t->ttl_ms / 4)
			start->timeout_ms = t->ttl_ms / 4;
		if (start->kill_after_ms > t->ttl_ms / 12)
			start->kill_after_ms = t->ttl_ms / 12;
	}
	*hf = (struct lr_hook_facts){ .task = x->cli.task ? x->cli.task : x->name,
	    .key = t->no_overlap ? l->keys.stable : l->keys.slot,
	    .slot = t->one_server ? l->keys.slot_iso : NULL,
	    .token = locked ? l->token : 0, .attempt = 1 };
}

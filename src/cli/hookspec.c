/* SPDX-License-Identifier: BSD-2-Clause */
/* hookspec.c -- a run's hooks: their settings from its task, what they
 * are told, and their output kept with the run's story (hookspec.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/hookspec.h"
#include "core/duration.h"
#include "core/tail.h"
#include "out/log.h"

/* on_start runs under a lease that is not renewed until the command
 * starts: it has a quarter of the ttl, and a twelfth more to stop, so
 * that the first renewal, due at a third, is still in time. Hooks keep
 * the end of their output as the command does, when the run has a lock
 * server to keep it in. */
void
hooks_prepare(struct lr_run *r, int locked, struct lr_hook_spec *start,
    struct lr_hook_spec *after, struct lr_hook_facts *hf)
{
	struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;
	const struct lr_task *t = &x->t;

	*after = (struct lr_hook_spec){ .env = t->env, .timeout_ms = t->hook_timeout_ms,
	    .kill_after_ms = t->kill_after_ms, .saved = x->sig,
	    .scheduled = x->cfg_borrowed, .creds = r->creds.uid ? &r->creds : NULL,
	    .keep = locked && t->keep_output > 0 ? (size_t)t->keep_output : 0 };
	*start = *after;
	if (locked && t->no_overlap && t->renew) {
		if (start->timeout_ms > t->ttl_ms / 4)
			start->timeout_ms = t->ttl_ms / 4;
		if (start->kill_after_ms > t->ttl_ms / 12)
			start->kill_after_ms = t->ttl_ms / 12;
	}
	*hf = (struct lr_hook_facts){ .task = x->cli.task ? x->cli.task : r->name,
	    .key = t->no_overlap ? l->keys.stable : l->keys.slot,
	    .slot = t->one_server ? l->keys.slot_iso : NULL,
	    .token = locked ? l->token : 0, .attempt = 1 };
}

void
hooks_start(struct lr_run *r, const struct lr_hook_spec *spec,
    const struct lr_hook_facts *hf)
{
	struct lr_ctx *x = r->x;
	free(r->start_story);
	r->start_story = NULL;
	hook_run("on_start", x->t.on_start, spec, hf, &r->start_story, &r->start_story_len);
}

char *
hooks_story_join(const struct lr_run *r, const char *cmd, size_t n, size_t *len)
{
	size_t k = r->start_story_len;
	char *s;

	if (r->start_story == NULL || (s = malloc(k + 2 + n + 1)) == NULL)
		return NULL;
	memcpy(s, r->start_story, k);
	s[k] = TAIL_SECTION;	/* the command's lines again */
	s[k + 1] = '\n';
	if (n > 0)
		memcpy(s + k + 2, cmd, n);
	*len = k + 2 + n;
	s[*len] = '\0';	/* as tail_text()'s: a C string too */
	return s;
}

/* The hook which's section (text[n]) added to the run's story, which the
 * release kept: the release operation again, its event "hook" (ops.h),
 * one round trip, over the connection the run had (opened again if it
 * was closed). A failure is a warning: the story stands without it. */
static void
story_add(struct lr_run *r, const char *which, const char *text, size_t n)
{
	struct lr_ctx *x = r->x;
	struct lr_err e = LR_ERR_INIT;
	struct lr_ending end = { .event = "hook", .status = 0, .attempt = r->attempt,
	    .output = text, .output_len = n, .keep_runs = x->t.keep_runs,
	    .keep_failed = x->t.keep_failed_runs };

	if ((x->be.ops->fd(&x->be) < 0 &&
	    x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &e) != 0) ||
	    x->be.ops->release(&x->be, &r->lock, &end, &e) < 0)
		lr_warn("the %s hook's output is not kept with the run's story: %s", which,
		    e.msg);
}

void
hooks_end(struct lr_run *r, const struct lr_hook_spec *spec, struct lr_hook_facts *hf,
    int status, long long started)
{
	struct lr_ctx *x = r->x;
	const char *which = status == 0 ? "on_success" : "on_failure";
	char *story = NULL;
	size_t n = 0;

	hf->ended = 1;
	hf->status = status;
	hf->duration_ms = mono_ms() - started;
	hook_run(which, status == 0 ? x->t.on_success : x->t.on_failure, spec, hf,
	    r->story_kept ? &story : NULL, &n);
	if (story != NULL)
		story_add(r, which, story, n);
	free(story);
}

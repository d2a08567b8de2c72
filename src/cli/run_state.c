/* SPDX-License-Identifier: BSD-2-Clause */
/* run_state.c -- what one run owns, made and let go (run_state.h). */
#include <stdlib.h>
#include <unistd.h>

#include "cli/run_state.h"
#include "out/log.h"

struct lr_run *
run_new(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_run *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		return NULL;
	}
	r->x = x;
	r->wait_med_ms = r->wait_max_ms = -1;
	child_init(&r->child);
	return r;
}

void
run_free(struct lr_run *r)
{
	if (r == NULL)		/* as free(3) */
		return;
	free(r->exec_argv);
	if (r->output_fd > 2)
		close(r->output_fd);
	free(r->start_story);
	child_close(&r->child);		/* last: the guard exits after the run */
	free(r);
}

void
run_log_context(const struct lr_run *r, long long token)
{
	const struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;

	log_context(x->cli.task ? x->cli.task : r->name,
	    x->t.no_overlap ? l->keys.stable : l->keys.slot, token,
	    x->t.one_server ? l->keys.slot_iso : NULL);
}

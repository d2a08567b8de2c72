/* SPDX-License-Identifier: BSD-2-Clause */
/* entry.c -- from a command line to a verb's exit status: read the
 * command line and the config, shared by every verb (ctx.c), and hand
 * over to the verb. main() comes here, and so does each run a scheduler
 * forks. */
#include <stdio.h>

#include "backend/notes.h"
#include "cli/ctx.h"
#include "cli/entry.h"
#include "cli/schedverbs.h"
#include "out/log.h"

#ifndef LOCKRUN_VERSION
#define LOCKRUN_VERSION "0.0.0"
#endif

static int (*const verbs[NVERBS])(struct lr_ctx *, struct lr_err *) = {
	[VERB_RUN] = verb_run, [VERB_CHECK] = verb_check, [VERB_STATUS] = verb_status,
	[VERB_HISTORY] = verb_history, [VERB_UNLOCK] = verb_unlock,
	[VERB_TICK] = verb_tick, [VERB_CRON] = verb_cron,
};

/* Say e as lockrun's one line (ctx_report()), free x and give e's
 * status. */
static int
fail(struct lr_ctx *x, const struct lr_err *e)
{
	ctx_report(x, e);
	ctx_free(x);
	return e->status;
}

int
lockrun_main(int argc, char **argv, const struct lr_config *loaded)
{
	struct lr_ctx x;
	struct lr_err e = LR_ERR_INIT;
	int status;

	ctx_init(&x);
	x.entry = lockrun_main;
	/* the forwarded signals wait, blocked, until the command can take them */
	if (child_signals_block(&x.sig, &e) != 0 || cli_parse(argc, argv, &x.cli, &e) != 0)
		return fail(&x, &e);
	log_setup(x.cli.verbose, x.cli.quiet);
	if (x.cli.help || x.cli.version) {
		if (x.cli.help)
			cli_usage(stdout, x.cli.verb);
		else
			notes_version(stdout, LOCKRUN_VERSION);
		ctx_free(&x);
		return 0;
	}
	/* --log first, so that a bad config is reported there too */
	if ((x.cli.log && log_open(x.cli.log, ctx_host(&x), &e) != 0) ||
	    ctx_load_config(&x, loaded, &e) != 0 ||
	    (!x.cli.log && x.cfg.log && log_open(x.cfg.log, ctx_host(&x), &e) != 0))
		return fail(&x, &e);
	if ((status = verbs[x.cli.verb](&x, &e)) < 0)
		return fail(&x, &e);
#ifndef __SANITIZE_ADDRESS__
	/* Leave x as it is: the caller leaves with _exit() (main.c, or the
	 * scheduler's forked run), without freeing and without libc's
	 * teardown. Under AddressSanitizer ctx_free() runs, for the leak
	 * check. */
	return status;
#else
	ctx_free(&x);
	return status;
#endif
}

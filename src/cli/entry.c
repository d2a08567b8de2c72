/* SPDX-License-Identifier: BSD-2-Clause */
/* entry.c -- from a command line to a verb's exit status: read the
 * command line and the config, shared by every verb (ctx.c), and hand
 * over to the verb. main() comes here, and so does each run a scheduler
 * forks. */
#include <stdio.h>
#include <unistd.h>

#include "backend/notes.h"
#include "cli/ctx.h"
#include "cli/entry.h"
#include "cli/schedverbs.h"
#include "out/log.h"

#ifndef LOCKRUN_VERSION
#define LOCKRUN_VERSION "0.0.0"
#endif

static int (*const verbs[NVERBS])(struct lr_ctx *) = {
	[VERB_RUN] = verb_run, [VERB_CHECK] = verb_check, [VERB_STATUS] = verb_status,
	[VERB_HISTORY] = verb_history, [VERB_UNLOCK] = verb_unlock,
	[VERB_TICK] = verb_tick, [VERB_CRON] = verb_cron,
};

int
lockrun_main(int argc, char **argv, const struct lr_config *loaded)
{
	struct lr_ctx x;
	struct lr_err e = LR_ERR_INIT;
	int status;

	ctx_init(&x);
	x.entry = lockrun_main;
	/* the forwarded signals wait, blocked, until the command can take them */
	if (child_signals_block(&x.sig, &e) != 0)
		ctx_die(&x, &e);
	if (cli_parse(argc, argv, &x.cli, &e) != 0)
		ctx_die(&x, &e);
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
	if (x.cli.log && log_open(x.cli.log, ctx_host(&x), &e) != 0)
		ctx_die(&x, &e);
	if (ctx_load_config(&x, loaded, &e) != 0)
		ctx_die(&x, &e);
	if (!x.cli.log && x.cfg.log && log_open(x.cfg.log, ctx_host(&x), &e) != 0)
		ctx_die(&x, &e);
	status = verbs[x.cli.verb](&x);
#ifndef __SANITIZE_ADDRESS__
	/* Leave without freeing and without libc's teardown (exit handlers,
	 * the loader's destructors): after the guard's fork each page written
	 * would be copied first, and only stdout needs flushing. The kernel
	 * closes the guard's socket after it has unmapped this process, so the
	 * guard's exit does not compete with this one. Under AddressSanitizer,
	 * ctx_free() and exit() run, for the leak check. */
	fflush(stdout);
	_exit(status);
#else
	ctx_free(&x);
	return status;
#endif
}


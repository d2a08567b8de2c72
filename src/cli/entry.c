/* SPDX-License-Identifier: BSD-2-Clause */
/* entry.c -- from a command line to a verb's exit status: read the
 * command line and the config, shared by every verb (ctx.c), and hand
 * over to the verb. main() comes here, and so does each run a scheduler
 * forks. */
#include <stdio.h>
#include <string.h>

#include "backend/notes.h"
#include "cli/ctx.h"
#include "cli/entry.h"
#include "out/log.h"
#include "sched/lease_client.h"
#include "sched/outcome.h"

#ifndef LOCKRUN_VERSION
#define LOCKRUN_VERSION "0.0.0"
#endif

/* The event of an error that ends lockrun, from its exit status. The
 * server could not be reached or refused is "server-error" for every
 * backend (the JSON log gives its old name, "redis-error", as alias). */
static const char *
die_event(int status)
{
	switch (status) {
	case EX_USAGE: return "usage-error";
	case EX_CONFIG: return "config-error";
	case EX_UNAVAILABLE: return "server-error";
	case EX_TEMPFAIL: return "clock-off";	/* doubt.c: run_clock_off() */
	case LR_EXIT_NOEXEC: case LR_EXIT_NOTFOUND: return "exec-failed";
	default: return "error";
	}
}

/* Say e as lockrun's one line: the log's event from its status, and the
 * --help hint after a usage error. When the server could not be reached,
 * or refused the password, the line says where each of its settings came
 * from (a default in force where a setting was meant, a password from
 * another place, is the mistake to see). A run a scheduler forked tells
 * it the line too: why it ended, or that this host's clock is off. */
static void
report(const struct lr_ctx *x, const struct lr_err *e)
{
	struct log_fields f;
	char msg[1024];		/* out/log.c's longest message */
	int with_sources = e->status == EX_UNAVAILABLE && x->sources &&
	    (lr_err_broke(e) || e->kind == LR_ERR_AUTH);

	log_fields_init(&f);
	f.status = e->status;
	/* cut short where out/log.c cuts any message */
	if (!with_sources || snprintf(msg, sizeof(msg), "%s (%s)", e->msg, x->sources) < 0)
		snprintf(msg, sizeof(msg), "%s", e->msg);
	lr_event(LOG_ERR, die_event(e->status), &f, "%s", msg);
	lease_client_tell(e->status == EX_TEMPFAIL ? OUTCOME_CLOCK_OFF : OUTCOME_FAILED, 0,
	    msg);
	if (e->status == EX_USAGE && log_human_stderr())
		fprintf(stderr, "Try 'lockrun %s%s--help' for more information.\n",
		    x->cli.def->help_as, *x->cli.def->help_as ? " " : "");
}

/* Free what x holds, the command line last. */
static void
teardown(struct lr_ctx *x)
{
	ctx_free(x);
	cli_free(&x->cli);
}

/* Say e, free x and give e's status. */
static int
fail(struct lr_ctx *x, const struct lr_err *e)
{
	report(x, e);
	teardown(x);
	return e->status;
}

int
lockrun_main(int argc, char **argv, const struct lr_config *loaded)
{
	static struct lr_sigstate sig;	/* the process's: lives as long as it */
	struct lr_ctx x;
	struct lr_err e = LR_ERR_INIT;
	int status;

	if (ctx_init(&x) != 0) {
		fputs("lockrun: out of memory\n", stderr);
		return EX_OSERR;
	}
	x.entry = lockrun_main;
	x.sig = &sig;
	/* the forwarded signals wait, blocked, until the command can take them */
	if (spawn_signals_block(x.sig, &e) != 0 || cli_parse(argc, argv, &x.cli, &e) != 0)
		return fail(&x, &e);
	log_setup(x.cli.verbose, x.cli.quiet);
	if (x.cli.help || x.cli.version) {
		if (x.cli.help)
			cli_usage(stdout, x.cli.verb);
		else
			notes_version(stdout, LOCKRUN_VERSION);
		teardown(&x);
		return 0;
	}
	/* --log first, so that a bad config is reported there too */
	if ((x.cli.log && log_open(x.cli.log, ctx_host(&x), &e) != 0) ||
	    ctx_load_config(&x, loaded, &e) != 0 ||
	    (!x.cli.log && x.cfg->log && log_open(x.cfg->log, ctx_host(&x), &e) != 0))
		return fail(&x, &e);
	if ((status = x.cli.def->entry(&x, &e)) < 0)
		return fail(&x, &e);
#ifndef __SANITIZE_ADDRESS__
	/* Leave x as it is: the caller leaves with _exit() (main.c, or the
	 * scheduler's forked run), without freeing and without libc's
	 * teardown. Under AddressSanitizer ctx_free() runs, for the leak
	 * check. */
	return status;
#else
	teardown(&x);
	return status;
#endif
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* main.c -- lockrun: run a command under a lock held in Redis, and see
 * what the fleet did.
 *
 * The first word that is not an option names a verb (run, implied by a
 * command or -t; check; status; history; unlock). main() reads the
 * command line and the config, shared by every verb (ctx.c), and hands
 * over to the verb. */
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ctx.h"
#include "cli/schedverbs.h"
#include "out/log.h"
#include "backend/notes.h"

#ifndef LOCKRUN_VERSION
#define LOCKRUN_VERSION "0.0.0"
#endif

/* Descriptors 0, 1 and 2 open, to /dev/null if they were closed (cron and
 * supervisors start jobs with 2>&-): otherwise the next file or socket
 * opened takes the number, and lockrun's messages, or the command's
 * output, would be written into it -- the Redis protocol stream, say. */
static void
std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int nul;

		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if ((nul = open("/dev/null", O_RDWR)) == -1)
			_exit(EX_OSERR);	/* no stderr to say it on */
		if (nul != fd) {	/* a lower one was closed too: fill in order */
			dup2(nul, fd);
			close(nul);
		}
	}
}

static int (*const verbs[NVERBS])(struct lr_ctx *) = {
	[VERB_RUN] = verb_run, [VERB_CHECK] = verb_check, [VERB_STATUS] = verb_status,
	[VERB_HISTORY] = verb_history, [VERB_UNLOCK] = verb_unlock,
	[VERB_TICK] = verb_tick, [VERB_CRON] = verb_cron,
};

int
main(int argc, char *argv[])
{
	struct lr_ctx x;
	struct lr_err e = { 0, "", 0 };
	int status;

	std_fds_open();
	/* no core dump, no ptrace and no /proc/PID/environ or mem for other
	 * processes of the same user (the command's included): lockrun holds
	 * passwords. The guard inherits it; the command, exec'd, does not. */
	prctl(PR_SET_DUMPABLE, 0);
	ctx_init(&x);
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
	if (ctx_load_config(&x, &e) != 0)
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

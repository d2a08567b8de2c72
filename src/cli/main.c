/* SPDX-License-Identifier: BSD-2-Clause */
/* main.c -- lockrun: run a command under a lock held in Redis, and see
 * what the fleet did.
 *
 * The first word that is not an option names a verb (run, implied by a
 * command or -t; check; status; history; unlock; tick; cron). main() makes
 * the process safe to hold passwords and to write to, then entry.c reads
 * the command line and the config and hands over to the verb. */
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/entry.h"

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

int
main(int argc, char *argv[])
{
	int status;

	std_fds_open();
	/* no core dump, no ptrace and no /proc/PID/environ or mem for other
	 * processes of the same user (the command's included): lockrun holds
	 * passwords. The guard inherits it; the command, exec'd, does not. */
	prctl(PR_SET_DUMPABLE, 0);
	status = lockrun_main(argc, argv, NULL);
#ifndef __SANITIZE_ADDRESS__
	/* Leave without freeing and without libc's teardown (exit handlers,
	 * the loader's destructors): after the guard's fork each page written
	 * would be copied first, and only stdout needs flushing. The kernel
	 * closes the guard's socket after it has unmapped this process, so the
	 * guard's exit does not compete with this one. Under AddressSanitizer
	 * lockrun_main() has freed everything and exit() runs the leak check. */
	fflush(stdout);
	_exit(status);
#else
	exit(status);
#endif
}

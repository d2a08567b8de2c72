/* SPDX-License-Identifier: BSD-2-Clause */
/* err.h -- how modules report a failure: a sysexits status and one line. */
#ifndef LR_ERR_H
#define LR_ERR_H

#include <sysexits.h>

#define LR_EXIT_TIMEOUT  124	/* --timeout expired, as timeout(1) */
#define LR_EXIT_NOEXEC   126	/* command found but not executable */
#define LR_EXIT_NOTFOUND 127	/* command not found */

struct lr_err {
	int	status;		/* exit status main() should use */
	char	msg[512];	/* one line, no "lockrun: " prefix, no newline */
	int	transport;	/* the server (any backend) could not be reached,
				 * or the connection to it broke or timed out;
				 * 0 when it answered (a refusal, or not the
				 * server expected) */
};

/* An empty error: struct lr_err e = LR_ERR_INIT; */
#define LR_ERR_INIT	{ 0, "", 0 }

/* Fill e (if not NULL) and return -1, so callers can write
 * `return lr_errf(e, EX_CONFIG, "...")`. Clears e->transport. */
int	lr_errf(struct lr_err *e, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif

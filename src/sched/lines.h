/* SPDX-License-Identifier: BSD-2-Clause */
/* lines.h -- a task's output, relayed line by line with its name on each
 * line (or as JSON records), never two tasks' lines mixed mid-line. */
#ifndef LR_LINES_H
#define LR_LINES_H

#include <stddef.h>

#define LINE_MAX_BYTES 4000	/* a longer line is cut into pieces this long */

struct line_stream {
	int	 fd;		/* the pipe's read end, or -1 once closed */
	int	 out;		/* where its lines go: 1 or 2 */
	size_t	 len;
	char	 buf[LINE_MAX_BYTES];
};

/* Who the lines are from, for their prefix or record. */
struct line_source {
	const char	*task;
	const char	*slot;	/* ISO 8601, or NULL */
	int		 json;	/* JSON records rather than "task: line" */
	long long	 token;	/* the run's fencing token (its report's); 0: none yet */
	long long	*clock_said;	/* the scheduler's: when (monotonic ms) a
					 * run's "clock is off" line was last let
					 * through; NULL: let every one through */
};

/* A run's line that says this host's clock is off against the lock
 * server is relayed once a minute, whichever task says it: every task
 * that claims a slot says the same at once. */
#define LINES_CLOCK_EVERY_MS	60000

/* Read what fd has (it is non-blocking) and write each whole line. At end
 * of file, write what is left as a line and close fd. Returns 1 while fd
 * is open, 0 once closed. With json, each record carries src->token once
 * it is not 0. With src->clock_said, a stderr line about this host's
 * clock (lockrun's "clock is off by ... against the lock server") is
 * dropped when one was relayed less than LINES_CLOCK_EVERY_MS ago. */
int	lines_pump(struct line_stream *s, struct line_source *src);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* lines.h -- a task's output, relayed line by line with its name on each
 * line (or as JSON records), never two tasks' lines mixed mid-line, each
 * stream's in its order. */
#ifndef LR_LINES_H
#define LR_LINES_H

#include <stddef.h>

#include "sched/mux.h"

#define LINE_MAX_BYTES 4000	/* a longer line is cut into pieces this long */

/* A stream's line so far, in a buffer of LINE_MAX_BYTES allocated when
 * the stream has bytes to keep, and freed once they are written: a run
 * that prints nothing, or whole lines, costs none. */
struct line_buf {
	char	*buf;		/* or NULL */
	size_t	 len;
};

/* A run's stdout and stderr, both on one pipe in frames (mux.h). */
struct line_stream {
	int			 fd;	/* the pipe's read end, or -1 once closed */
	struct mux_reader	 mux;
	struct line_buf		 line[2];	/* stdout's (to our 1), stderr's (2) */
};

/* Who the lines are from, for their prefix or record. */
struct line_source {
	const char	*task;
	const char	*slot;	/* ISO 8601, or NULL */
	int		 json;	/* JSON records rather than "task: line" */
	long long	 token;	/* the run's fencing token (its report's); 0: none yet */
};

/* Read what fd has (it is non-blocking), at most a few pipefuls a call,
 * and write each whole line where its stream goes (stdout to our 1,
 * stderr to our 2) if it takes it without waiting; a line it has no room
 * for is dropped, and the drops said once a minute. At end of file (or
 * frames out of step), write what is left of each stream as a line and
 * close fd. Returns 1 while fd is open, 0 once closed. With json, each
 * record carries src->token once it is not 0. */
int	lines_pump(struct line_stream *s, struct line_source *src);

/* Free what s holds but its descriptor (s may be a run's whose pipe is
 * still open: the scheduler ends). */
void	lines_free(struct line_stream *s);

#endif

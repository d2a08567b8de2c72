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
};

/* Read what fd has (it is non-blocking), at most a few pipefuls a call,
 * and write each whole line its sink (s->out) takes without waiting; a
 * line it has no room for is dropped, and the drops said once a minute.
 * At end of file, write what is left as a line and close fd. Returns 1
 * while fd is open, 0 once closed. With json, each record carries
 * src->token once it is not 0. */
int	lines_pump(struct line_stream *s, struct line_source *src);

#endif

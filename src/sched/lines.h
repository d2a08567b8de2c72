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
	long long	 token;	/* the run's fencing token; 0: not known yet */
};

/* Read what fd has (it is non-blocking) and write each whole line. At end
 * of file, write what is left as a line and close fd. Returns 1 while fd
 * is open, 0 once closed. With json, a line of the run's own JSON log
 * (--log json) whose event is "acquired" sets src->token, which this
 * record and every later one carry. */
int	lines_pump(struct line_stream *s, struct line_source *src);

#endif

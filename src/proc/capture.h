/* SPDX-License-Identifier: BSD-2-Clause */
/* capture.h -- the command's output passed on through lockrun: read from
 * two pipes in the wait loop, written on to where output: sends it, the
 * end of it kept (core/tail.h) for the run's end entry. */
#ifndef LR_CAPTURE_H
#define LR_CAPTURE_H

#include <poll.h>

#include "core/err.h"
#include "core/tail.h"

struct lr_capture {
	int		 rd[2];		/* the command's stdout and stderr, read here */
	int		 wr[2];		/* their write ends: the command's 1 and 2 */
	int		 to[2];		/* where each goes on; -1: nowhere any more */
	int		 sock[2];	/* to[i] is a socket: send(MSG_DONTWAIT) */
	int		 opened[2];	/* to[i] was opened here, non-blocking */
	char		*buf[2];	/* read, not yet written on: */
	size_t		 len[2], off[2];	/* buf[i][off, len) */
	long long	 rest_until[2];	/* mono ms: a short read's pipe is let
					 * fill until then (CAPTURE_REST_MS) */
	struct lr_tail	 tail;
};

/* After a read that did not fill a quarter of its chunk, neither pipe is
 * read again for this long: a command that writes line by line (a
 * shell's echo, an unbuffered logger) wakes lockrun once per rest, not
 * once per write, which costs as much as the command's own work. A read
 * that fills its chunk ends the rest; the command's end drains the pipes
 * at once. Lines of stdout and stderr written within one rest are kept
 * stdout's first (the order between the two streams is the order lockrun
 * reads them in, as before; each stream's own order is exact). */
#define CAPTURE_REST_MS	2

/* Set c up: the pipes (close-on-exec; the command gets them as 1 and 2),
 * and where each stream goes: output_fd when above 2 (a task's output:),
 * else lockrun's own 1 and 2, written without blocking the wait loop (a
 * pipe or terminal is opened again non-blocking, a socket is sent to
 * with MSG_DONTWAIT). keep: the tail's size. Returns 0, or -1 with e. */
int	capture_open(struct lr_capture *c, size_t keep, int output_fd, struct lr_err *e);

/* The two pollfds of the wait loop for c at now (mono ms), into
 * pfd[0..1]: a stream's pipe while nothing of it waits to be written and
 * it does not rest, else its destination. Returns how long the loop may
 * wait at most (a rest's end), or -1: no bound. */
long long capture_poll(const struct lr_capture *c, struct pollfd *pfd, long long now);

/* Act on what poll(2) said of pfd[0..1]. */
void	capture_ready(struct lr_capture *c, const struct pollfd *pfd);

/* The command's tree has ended: read what is left in the pipes and pass
 * it on, waiting for a slow destination until `until` (monotonic ms) at
 * most; what cannot go by then is dropped there (the tail has it). */
void	capture_drain(struct lr_capture *c, long long until);

/* The tail kept (tail_text()); malloc'd, or NULL. Call once, at the end. */
char	*capture_text(struct lr_capture *c, size_t *n);

/* Close what c opened and free it; c all -1 and NULL after. */
void	capture_close(struct lr_capture *c);

/* Make c safe to pass to capture_close(). */
void	capture_init(struct lr_capture *c);

#endif

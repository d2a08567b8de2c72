/* SPDX-License-Identifier: BSD-2-Clause */
/* mux.h -- a run's stdout and stderr on one pipe to its scheduler, each
 * piece marked with its stream, so that the scheduler holds one
 * descriptor for both (with the run's socket, two a run: issue 43).
 *
 * The run's side (mux_start(), in the child a scheduler forks): the run's
 * 1 and 2 are two pipes of its own, which a thread of its own reads and
 * writes on to the scheduler's pipe in frames: a byte for the stream (1
 * stdout, 2 stderr), two for the length (little-endian, 1 to
 * MUX_DATA_MAX), then the bytes, each frame in one write(2) of at most
 * PIPE_BUF bytes, so that none is ever cut. Everything the run's
 * processes write on 1 and 2 goes that way: the command's output (or
 * lockrun's capture of it), the hooks', lockrun's own lines for people.
 * The scheduler's side (mux_feed(), for lines.c): the frames read back,
 * however the reads cut them. */
#ifndef LR_SCHED_MUX_H
#define LR_SCHED_MUX_H

#include <limits.h>
#include <stddef.h>

#define MUX_HEAD	3
#define MUX_DATA_MAX	(PIPE_BUF - MUX_HEAD)

/* In the child a scheduler forked for a run, before the run starts: its 1
 * and 2 made pipes of its own, read by a thread that writes their bytes on
 * to the scheduler's pipe `to` (close-on-exec) in frames. The thread takes
 * no signal (all blocked in it) and no lock: it only polls, reads and
 * writes. Should the scheduler be gone (EPIPE), it closes the pipes' read
 * ends, so that a writer learns it as it did writing there itself.
 * Returns 0, or -1 with errno. */
int	mux_start(int to);

/* The run is over: its 1 and 2 closed (/dev/null in their place), and
 * what the pipes still hold written on, waiting at most wait_ms for a
 * process that holds them still (an orphan of the command) to close
 * them; what it writes after that is not relayed. */
void	mux_finish(long long wait_ms);
#define MUX_FINISH_MS	2000

/* The scheduler's side: a frame's head, as read so far, and how much of
 * its data is still to come. Zero it to start. */
struct mux_reader {
	unsigned char	head[MUX_HEAD];
	unsigned char	have;		/* bytes of head read */
	unsigned char	stream;		/* the frame being read: 1 or 2 */
	size_t		left;		/* its data still to come */
};

/* Take the n bytes buf read from the pipe: each piece of a stream's data
 * goes to got(arg, stream, bytes, len) as it comes (a frame may come in
 * several pieces). Returns 0, or -1 on a head that is no frame's (a
 * stream but 1 or 2, a length of 0 or past MUX_DATA_MAX): the pipe is
 * out of step and the rest of it cannot be read. */
int	mux_feed(struct mux_reader *r, const char *buf, size_t n,
	    void (*got)(void *arg, int stream, const char *bytes, size_t len), void *arg);

/* One frame of stream (1 or 2) around data[len] (1 to MUX_DATA_MAX) into
 * out[MUX_HEAD + len]; its length. For the run's thread, and the tests. */
size_t	mux_frame(char *out, int stream, const char *data, size_t len);

#endif

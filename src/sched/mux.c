/* SPDX-License-Identifier: BSD-2-Clause */
/* mux.c -- a run's stdout and stderr in frames on one pipe (mux.h): the
 * run's thread that writes them, and the scheduler's reading of them.
 *
 * Why a thread: what the run's 1 and 2 carry is written by many (the
 * command, its hooks, lockrun's lines for people, a guard), at any time,
 * while the run's own loop waits on other things (its lock, the server,
 * the guard). A thread that does nothing but read the two pipes and
 * write frames sees every byte in order, whoever wrote it, and the run's
 * loop is left as it was. It takes no lock (no malloc, no stdio): the
 * run forks (the guard) and vforks (the command, hooks) meanwhile, and a
 * child that starts with a lock held by a thread it does not have would
 * wait for it forever. */
#include <sys/eventfd.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sched/mux.h"

#define MUX_STACK	(256 * 1024)	/* a frame and a poll; ASan wants room */

/* The run's side: one per process (the run's). */
static struct {
	int		to;		/* the scheduler's pipe */
	int		rd[2];		/* the read ends of the run's 1 and 2 */
	int		done;		/* an eventfd the thread tells its end on */
	pthread_t	thread;
	int		started;
} mx = { .to = -1, .rd = { -1, -1 }, .done = -1 };

size_t
mux_frame(char *out, int stream, const char *data, size_t len)
{
	memmove(out + MUX_HEAD, data, len);	/* data may be there already */
	out[0] = (char)stream;
	out[1] = (char)(len & 0xff);
	out[2] = (char)(len >> 8);
	return MUX_HEAD + len;
}

/* Write frame[n] whole (n <= PIPE_BUF: one write, never cut). 0, or -1. */
static int
put(int fd, const char *frame, size_t n)
{
	ssize_t w;

	while ((w = write(fd, frame, n)) < 0 && errno == EINTR)
		;
	return w == (ssize_t)n ? 0 : -1;
}

/* The thread: each stream's bytes, as they come, in frames to mx.to,
 * until both pipes are at their end (every writer closed them), or the
 * scheduler is gone. */
static void *
relay(void *unused)
{
	char frame[PIPE_BUF];
	struct pollfd p[2] = { { .fd = mx.rd[0], .events = POLLIN },
	    { .fd = mx.rd[1], .events = POLLIN } };

	(void)unused;
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {	/* a read each: neither starves */
			ssize_t n;

			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			while ((n = read(p[i].fd, frame + MUX_HEAD, MUX_DATA_MAX)) < 0 &&
			    errno == EINTR)
				;
			if (n > 0 && put(mx.to, frame, mux_frame(frame, i + 1, frame + MUX_HEAD,
			    (size_t)n)) == 0)
				continue;
			if (n > 0 && p[1 - i].fd >= 0) {	/* the scheduler is gone: */
				close(p[1 - i].fd);		/* so is the reader */
				p[1 - i].fd = -1;
			}
			close(p[i].fd);	/* at its end, or that */
			p[i].fd = -1;
		}
	}
	(void)eventfd_write(mx.done, 1);
	return NULL;
}

/* fd moved above 2 (close-on-exec), so that dup2() onto 1 and 2 leaves
 * it alone: -1 with errno when it cannot be. */
static int
above2(int fd)
{
	int moved;

	if (fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved;
}

int
mux_start(int to)
{
	int a[2], b[2], rc, err;
	sigset_t all, old;
	pthread_attr_t at;

	if ((mx.done = eventfd(0, EFD_CLOEXEC)) < 0 || pipe2(a, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(b, O_CLOEXEC) != 0) {
		err = errno;
		close(a[0]);
		close(a[1]);
		errno = err;
		return -1;
	}
	/* the run's 1 and 2 now: its own pipes' write ends; the read ends
	 * the thread's alone. A failure leaves the child to exit */
	for (int i = 0; i < 2; i++)
		if ((a[i] = above2(a[i])) < 0 || (b[i] = above2(b[i])) < 0)
			return -1;
	if (dup2(a[1], 1) < 0 || dup2(b[1], 2) < 0)
		return -1;
	close(a[1]);
	close(b[1]);
	mx.to = to;
	mx.rd[0] = a[0];
	mx.rd[1] = b[0];
	/* no signal for the thread: the run's are read from its signalfds
	 * (or taken by the run's own handlers), and a SIGPIPE is an EPIPE */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, MUX_STACK);
	rc = pthread_create(&mx.thread, &at, relay, NULL);
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	mx.started = 1;
	return 0;
}

void
mux_finish(long long wait_ms)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct pollfd p = { .fd = mx.done, .events = POLLIN };
	int ready;

	if (!mx.started)
		return;
	/* the run's own write ends: once no other process holds one, the
	 * thread reads each pipe to its end, and ends */
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	} else {
		close(1);
		close(2);
	}
	/* a wait timed by poll(2), not a join by the wall clock, which a
	 * clock stepped (or faked) moves */
	while ((ready = poll(&p, 1, (int)wait_ms)) < 0 && errno == EINTR)
		;
	if (ready == 1)
		(void)pthread_join(mx.thread, NULL);
}

int
mux_feed(struct mux_reader *r, const char *buf, size_t n,
    void (*got)(void *arg, int stream, const char *bytes, size_t len), void *arg)
{
	while (n > 0) {
		size_t k;

		if (r->left == 0) {	/* a head, or the rest of one */
			r->head[r->have++] = (unsigned char)*buf++;
			n--;
			if (r->have < MUX_HEAD)
				continue;
			r->have = 0;
			r->stream = r->head[0];
			r->left = r->head[1] | (size_t)r->head[2] << 8;
			if ((r->stream != 1 && r->stream != 2) || r->left == 0 ||
			    r->left > MUX_DATA_MAX) {
				r->left = 0;
				return -1;
			}
			continue;
		}
		k = n < r->left ? n : r->left;
		got(arg, r->stream, buf, k);
		buf += k;
		n -= k;
		r->left -= k;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* capture.c -- the command's output read through two pipes in lockrun's
 * wait loop, passed on unchanged to where it went before, and its end
 * kept. The loop must never block on a reader: a destination that is a
 * pipe or a terminal is opened again with O_NONBLOCK (a file description
 * of our own: the shared one's flags stay as they are), a socket (the
 * journal's stream) is sent to with MSG_DONTWAIT, and a file never blocks
 * for long. While a stream's bytes wait for its destination its pipe is
 * not read, so a slow reader holds the command back, as it did when the
 * command wrote there itself. */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "proc/capture.h"

#define CHUNK	(64 * 1024)	/* one read; below malloc's mmap threshold */
#define PIPE_SZ	(256 * 1024)	/* asked for: fewer wake-ups for a chatty command */

void
capture_init(struct lr_capture *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 2; i++)
		c->rd[i] = c->wr[i] = c->to[i] = -1;
	tail_init(&c->tail, 0);
}

/* Where stream i (0 stdout, 1 stderr) goes, set so that writing there
 * does not block the loop. */
static void
destination(struct lr_capture *c, int i, int output_fd)
{
	int fd = output_fd > 2 ? output_fd : i + 1;
	char path[64];
	struct stat st;
	int nb;

	if (fstat(fd, &st) != 0)
		return;			/* closed: the output goes nowhere, as before */
	c->to[i] = fd;
	if (S_ISSOCK(st.st_mode)) {
		c->sock[i] = 1;
		return;
	}
	if (!S_ISFIFO(st.st_mode) && !(S_ISCHR(st.st_mode) && isatty(fd)))
		return;			/* a file, /dev/null */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((nb = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) >= 0) {
		c->to[i] = nb;
		c->opened[i] = 1;
	}
}

int
capture_open(struct lr_capture *c, size_t keep, int output_fd, struct lr_err *e)
{
	capture_init(c);
	if (tail_init(&c->tail, keep) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (int i = 0; i < 2; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) != 0) {
			capture_close(c);
			return lr_errf(e, EX_OSERR, "pipe: %s", strerror(errno));
		}
		c->rd[i] = p[0];
		c->wr[i] = p[1];
		(void)fcntl(p[1], F_SETPIPE_SZ, PIPE_SZ);	/* a hint: the default will do */
		if (fcntl(p[0], F_SETFL, O_NONBLOCK) != 0) {	/* a read would hold the loop */
			capture_close(c);
			return lr_errf(e, EX_OSERR, "fcntl: %s", strerror(errno));
		}
		if ((c->buf[i] = malloc(CHUNK)) == NULL) {
			capture_close(c);
			return lr_errf(e, EX_OSERR, "out of memory");
		}
		destination(c, i, output_fd);
	}
	return 0;
}

long long
capture_poll(const struct lr_capture *c, struct pollfd *pfd, long long now)
{
	long long bound = -1;

	for (int i = 0; i < 2; i++) {
		int waiting = c->off[i] < c->len[i];
		int resting = !waiting && c->rd[i] >= 0 && now < c->rest_until[i];

		pfd[i].fd = waiting ? c->to[i] : resting ? -1 : c->rd[i];
		pfd[i].events = waiting ? POLLOUT : POLLIN;
		pfd[i].revents = 0;
		if (resting && (bound < 0 || c->rest_until[i] - now < bound))
			bound = c->rest_until[i] - now;
	}
	return bound;
}

/* The destination of stream i is gone (a reader that closed its end):
 * stop reading its pipe too, so that the command's next write fails
 * there, as it would have written there itself. */
static void
gone(struct lr_capture *c, int i)
{
	if (c->opened[i])
		close(c->to[i]);
	c->to[i] = -1;
	c->opened[i] = 0;
	c->off[i] = c->len[i] = 0;
	close(c->rd[i]);
	c->rd[i] = -1;
}

/* Write what waits of stream i, without blocking. */
static void
put(struct lr_capture *c, int i)
{
	while (c->off[i] < c->len[i]) {
		const char *p = c->buf[i] + c->off[i];
		size_t n = c->len[i] - c->off[i];
		ssize_t w = c->sock[i] ? send(c->to[i], p, n, MSG_DONTWAIT | MSG_NOSIGNAL) :
		    write(c->to[i], p, n);

		if (w > 0) {
			c->off[i] += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		gone(c, i);
		return;
	}
	c->off[i] = c->len[i] = 0;
}

/* Read one chunk of stream i, keep its end, pass it on. Returns the
 * bytes read, 0 at end of file or when there is nothing now. */
static size_t
take(struct lr_capture *c, int i)
{
	ssize_t n;

	if (c->rd[i] < 0 || c->off[i] < c->len[i])
		return 0;
	while ((n = read(c->rd[i], c->buf[i], CHUNK)) < 0 && errno == EINTR)
		;
	if (n <= 0) {
		if (n == 0) {
			close(c->rd[i]);
			c->rd[i] = -1;
		}
		return 0;
	}
	tail_feed(&c->tail, i + 1, c->buf[i], (size_t)n);
	/* a trickle: let the pipes fill a little before the next wake-up;
	 * both rest, so that the other's lines are not read ahead of this
	 * one's written before them (after a rest, stdout is read first) */
	c->rest_until[0] = c->rest_until[1] = (size_t)n < CHUNK / 4 ?
	    mono_ms() + CAPTURE_REST_MS : 0;
	if (c->to[i] < 0)
		return (size_t)n;	/* nowhere to go: kept only */
	c->off[i] = 0;
	c->len[i] = (size_t)n;
	put(c, i);
	return (size_t)n;
}

void
capture_ready(struct lr_capture *c, const struct pollfd *pfd)
{
	for (int i = 0; i < 2; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].events == POLLOUT)
			put(c, i);
		else
			take(c, i);
	}
}

void
capture_drain(struct lr_capture *c, long long until)
{
	for (;;) {
		struct pollfd pfd[2];
		long long now = mono_ms();
		int moved = 0;

		for (int i = 0; i < 2; i++)
			moved |= take(c, i) > 0;
		if (moved && now < until)	/* a writer left behind stops it then */
			continue;
		if (!(c->off[0] < c->len[0]) && !(c->off[1] < c->len[1]))
			return;		/* the pipes are empty, all passed on */
		if (now >= until)
			break;
		(void)capture_poll(c, pfd, 0);	/* only writes wait here */
		if (poll(pfd, 2, (int)(until - now)) > 0)
			capture_ready(c, pfd);
	}
	for (int i = 0; i < 2; i++)	/* a reader too slow: the rest is dropped */
		c->off[i] = c->len[i] = 0;
}

char *
capture_text(struct lr_capture *c, size_t *n)
{
	return tail_text(&c->tail, n);
}

void
capture_close(struct lr_capture *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->rd[i] >= 0)
			close(c->rd[i]);
		if (c->wr[i] >= 0)
			close(c->wr[i]);
		if (c->opened[i])
			close(c->to[i]);
		free(c->buf[i]);
		c->buf[i] = NULL;
		c->rd[i] = c->wr[i] = c->to[i] = -1;
		c->opened[i] = 0;
	}
	tail_free(&c->tail);
}

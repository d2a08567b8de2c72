/* SPDX-License-Identifier: BSD-2-Clause */
/* mux_test.c -- a run's stdout and stderr on one pipe (sched/mux.c): the
 * frames read back whole however the reads cut them, each stream's bytes
 * in order; a head that is no frame's refused; and a forked child's 1 and
 * 2 after mux_start(), read from the one pipe: every byte of each, tagged
 * with its stream, to the end, once mux_finish() closed them. */
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/mux.h"

/* What mux_feed() gave, per stream (1, 2), and in how many pieces. */
struct seen {
	char	text[3][16384];
	size_t	len[3];
	int	pieces;
};

static void
got(void *arg, int stream, const char *bytes, size_t len)
{
	struct seen *s = arg;

	cr_assert(stream == 1 || stream == 2);
	cr_assert(le(sz, s->len[stream] + len, sizeof(s->text[0])));
	memcpy(s->text[stream] + s->len[stream], bytes, len);
	s->len[stream] += len;
	s->pieces++;
}

Test(mux, frames_cut_anywhere_come_back_whole_and_in_order)
{
	static char wire[3 * PIPE_BUF + 64], big[MUX_DATA_MAX];
	size_t n = 0;

	memset(big, 'x', sizeof(big));
	n += mux_frame(wire + n, 1, "one\n", 4);
	n += mux_frame(wire + n, 2, "err\n", 4);
	n += mux_frame(wire + n, 1, big, sizeof(big));
	n += mux_frame(wire + n, 1, "two\n", 4);
	/* every cut of the wire into two reads */
	for (size_t cut = 0; cut <= n; cut++) {
		struct mux_reader r = { 0 };
		struct seen s = { 0 };

		cr_assert(eq(int, mux_feed(&r, wire, cut, got, &s), 0));
		cr_assert(eq(int, mux_feed(&r, wire + cut, n - cut, got, &s), 0));
		cr_assert(eq(sz, s.len[1], 8 + sizeof(big)), "cut at %zu", cut);
		cr_assert(eq(int, memcmp(s.text[1], "one\n", 4), 0));
		cr_assert(eq(int, memcmp(s.text[1] + 4 + sizeof(big), "two\n", 4), 0));
		cr_assert(eq(sz, s.len[2], 4));
		cr_assert(eq(int, memcmp(s.text[2], "err\n", 4), 0));
	}
}

Test(mux, a_head_that_is_no_frame_is_refused)
{
	struct mux_reader r = { 0 };
	struct seen s = { 0 };

	cr_assert(eq(int, mux_feed(&r, "\x03\x01\x00z", 4, got, &s), -1), "stream 3");
	r = (struct mux_reader){ 0 };
	cr_assert(eq(int, mux_feed(&r, "\x01\x00\x00", 3, got, &s), -1), "length 0");
	r = (struct mux_reader){ 0 };
	cr_assert(eq(int, mux_feed(&r, "\x02\xff\xff", 3, got, &s), -1), "too long");
	cr_assert(eq(int, s.pieces, 0));
}

/* Everything on fd until its end (or 10 s), fed to a reader. */
static void
read_all(int fd, struct seen *s)
{
	struct mux_reader r = { 0 };
	char buf[1000];	/* smaller than a frame: frames cut across reads */
	ssize_t n;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		cr_assert(eq(int, poll(&p, 1, 10000), 1), "the child's output ended");
		if ((n = read(fd, buf, sizeof(buf))) <= 0)
			break;
		cr_assert(eq(int, mux_feed(&r, buf, (size_t)n, got, s), 0));
	}
	cr_assert(eq(sz, r.left, 0), "no frame cut short");
}

Test(mux, a_childs_stdout_and_stderr_arrive_on_one_pipe_each_as_written)
{
	struct seen s = { 0 };
	int p[2], st;
	pid_t pid;

	cr_assert(eq(int, pipe2(p, O_CLOEXEC), 0));
	cr_assert(ne(int, pid = fork(), -1));
	if (pid == 0) {
		char line[64];

		close(p[0]);
		if (mux_start(p[1]) != 0)
			_exit(1);
		for (int i = 0; i < 200; i++) {
			int n = snprintf(line, sizeof(line), "line %d\n", i);

			if (write(i % 3 ? 1 : 2, line, (size_t)n) != n)
				_exit(2);
		}
		/* a process that exec'd holds them too, and writes last */
		if (system("echo from-sh; echo from-sh-err >&2") != 0)
			_exit(3);
		mux_finish(MUX_FINISH_MS);
		_exit(0);
	}
	close(p[1]);
	read_all(p[0], &s);
	close(p[0]);
	cr_assert(eq(int, waitpid(pid, &st, 0), pid));
	cr_assert(eq(int, st, 0));
	/* each stream's lines, all, in order */
	for (int i = 0, at[3] = { 0, 0, 0 }; i < 200; i++) {
		char line[64];
		int k = i % 3 ? 1 : 2, n = snprintf(line, sizeof(line), "line %d\n", i);

		cr_assert(eq(int, strncmp(s.text[k] + at[k], line, (size_t)n), 0), "%s", line);
		at[k] += n;
	}
	cr_assert(ne(ptr, strstr(s.text[1], "line 199\nfrom-sh\n"), NULL));
	cr_assert(ne(ptr, strstr(s.text[2], "line 198\nfrom-sh-err\n"), NULL));
}

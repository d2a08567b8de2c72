/* SPDX-License-Identifier: BSD-2-Clause */
/* lines.c -- split a run's output (its stdout and stderr in frames on one
 * pipe, mux.h) into each stream's lines and write each with one write(2),
 * so that lines of tasks running at once never interleave.
 *
 * The scheduler's loop relays every run's output, and it also answers
 * every run's lock requests: no task may hold it. So a turn reads at most
 * LINES_READS_PER_TURN times a run's pipe (a task printing as fast as it
 * can is slowed by its own full pipe, not the others), and a line is
 * written only when the sink takes it whole without waiting: a pipe or a
 * socket read slowly (a log shipper behind) has its lines dropped and
 * counted, said once a minute, rather than blocking the loop. The sink's
 * last LINES_SINK_SPARE bytes are left to the scheduler's own lines, which
 * are few and written as they come (out/log.c). */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/lines.h"

#define LINES_READS_PER_TURN	4
#define LINES_SINK_SPARE	8192
#define LINES_SAY_DROPS_MS	60000

/* What a sink is, found once per descriptor (1 and 2). */
enum sink_kind { SINK_UNKNOWN, SINK_PIPE, SINK_SOCKET, SINK_OTHER };

static enum sink_kind	sink_kinds[3];

/* Lines dropped for one reason: how many since said, and when said. */
struct drops {
	long long	n, said_ms;
};
static struct drops	behind;		/* the sink did not take them in time */
static struct drops	failed;		/* write(2) failed (err: the last errno) */

static enum sink_kind
sink_kind(int fd)
{
	struct stat st;

	if (fd < 0 || fd > 2)
		return SINK_OTHER;
	if (sink_kinds[fd] == SINK_UNKNOWN)
		sink_kinds[fd] = fstat(fd, &st) != 0 ? SINK_OTHER :
		    S_ISFIFO(st.st_mode) ? SINK_PIPE : S_ISSOCK(st.st_mode) ? SINK_SOCKET :
		    SINK_OTHER;
	return sink_kinds[fd];
}

/* How many bytes fd takes now without waiting for its reader: the room
 * left in its pipe or socket buffer; SIZE_MAX for a file, a terminal or
 * /dev/null, whose writes wait on no reader, and where it cannot be told. */
static size_t
sink_room(int fd)
{
	int size = 0, queued = 0;
	socklen_t len = sizeof(size);

	switch (sink_kind(fd)) {
	case SINK_PIPE:
		if ((size = fcntl(fd, F_GETPIPE_SZ)) <= 0 || ioctl(fd, FIONREAD, &queued) != 0)
			return SIZE_MAX;
		break;
	case SINK_SOCKET:	/* both in the kernel's accounting, overhead included */
		if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &len) != 0 ||
		    ioctl(fd, SIOCOUTQ, &queued) != 0)
			return SIZE_MAX;
		break;
	default:
		return SIZE_MAX;
	}
	return size > queued ? (size_t)(size - queued) : 0;
}

/* A line the sink could not take (err 0: not in time; else write(2)'s
 * errno, or the errno the read of the run's pipe failed with): counted,
 * and said once a minute for each reason. */
static void
drop(int err)
{
	struct drops *d = err ? &failed : &behind;
	long long now = mono_ms();

	d->n++;
	if (d->said_ms != 0 && now - d->said_ms < LINES_SAY_DROPS_MS)
		return;
	if (err)
		lr_event(LOG_WARNING, "output-dropped", NULL, "%lld line%s of the tasks' "
		    "output lost: stdout or stderr refused them, or a task's pipe could not be "
		    "read: %s", d->n, d->n == 1 ? "" : "s", strerror(err));
	else
		lr_event(LOG_WARNING, "output-dropped", NULL, "%lld line%s of the tasks' "
		    "output dropped: stdout or stderr did not take them in time (a reader "
		    "behind)", d->n, d->n == 1 ? "" : "s");
	d->n = 0;
	d->said_ms = now > 0 ? now : 1;
}

/* The n bytes of line into out, made visible as text_visible() does (a
 * control, C1, bidi or bad byte becomes one '?', so that a task's ESC,
 * BEL or bare CR cannot drive the terminal, forge a line or hide one),
 * but a tab, which is text; how many bytes were written (at most n). */
static size_t
visible_copy(char *out, const char *line, size_t n)
{
	size_t r = 0, w = 0, hide;

	while (r < n) {
		if (line[r] != '\t' && (hide = text_control_len(line + r, n - r)) != 0) {
			out[w++] = '?';
			r += hide;
			continue;
		}
		for (size_t len = line[r] == '\t' ? 1 : text_utf8_len(line + r, n - r); len > 0;
		    len--)
			out[w++] = line[r++];
	}
	return w;
}

/* One line, whole, in one write to out (1: stdout, 2: stderr): "task:
 * line", or a JSON record made as every record of the log is (out/log.c),
 * time, level and host included. */
static void
emit(int out_fd, struct line_source *src, const char *line, size_t n)
{
	/* a line's every byte may take 6 escaped; the rest of the record fits
	 * in the 4 KiB beyond (text_json() cuts what would not, still valid) */
	static char out[LINE_MAX_BYTES * 6 + 4096];
	size_t k;
	ssize_t w;

	if (src->json) {
		struct log_fields f;

		log_fields_init(&f);
		f.task = src->task;
		f.slot = src->slot;
		f.token = src->token;
		k = log_output_json(out, sizeof(out), &f, out_fd == 1 ? "stdout" : "stderr",
		    line, n);
	} else {
		k = (size_t)snprintf(out, 1024, "%.200s: ", src->task);
		k += visible_copy(out + k, line, n);
		out[k++] = '\n';
	}
	if (sink_room(out_fd) < k + LINES_SINK_SPARE) {
		drop(0);
		return;
	}
	for (size_t off = 0; off < k; off += (size_t)w)
		if ((w = write(out_fd, out + off, k - off)) < 0 && errno != EINTR) {
			drop(errno == EAGAIN ? 0 : errno);	/* the rest of it */
			return;
		} else if (w < 0)
			w = 0;
}

/* What lines_pump() is at: the run's streams and who they are. */
struct pump {
	struct line_stream	*s;
	struct line_source	*src;
};

/* A piece of stream's bytes (mux_feed()): each whole line written, from
 * where it lies when nothing of it came before, else from the stream's
 * buffer, which keeps the part of a line still to come; a line longer
 * than the buffer goes in pieces of its length. */
static void
got(void *arg, int stream, const char *bytes, size_t len)
{
	struct pump *p = arg;
	struct line_buf *b = &p->s->line[stream - 1];

	while (len > 0) {
		const char *nl = memchr(bytes, '\n', len);
		size_t k = nl ? (size_t)(nl - bytes) : len, take;

		if (b->len == 0 && nl != NULL && k <= LINE_MAX_BYTES) {
			emit(stream, p->src, bytes, k);
			bytes += k + 1;
			len -= k + 1;
			continue;
		}
		if (b->buf == NULL && (b->buf = malloc(LINE_MAX_BYTES)) == NULL) {
			drop(ENOMEM);	/* this piece */
			return;
		}
		take = nl ? k + 1 : len;
		if (take > LINE_MAX_BYTES - b->len)
			take = LINE_MAX_BYTES - b->len;
		memcpy(b->buf + b->len, bytes, take);
		b->len += take;
		bytes += take;
		len -= take;
		if (b->buf[b->len - 1] == '\n')
			emit(stream, p->src, b->buf, b->len - 1);
		else if (b->len == LINE_MAX_BYTES)
			emit(stream, p->src, b->buf, b->len);
		else
			continue;
		b->len = 0;
	}
}

/* Each stream's buffer freed when it holds nothing; with all, what it
 * holds written as a line first (the end of the pipe). */
static void
settle(struct line_stream *s, struct line_source *src, int all)
{
	for (int i = 0; i < 2; i++) {
		struct line_buf *b = &s->line[i];

		if (all && b->len > 0)
			emit(i + 1, src, b->buf, b->len);
		if (all || b->len == 0) {
			free(b->buf);
			*b = (struct line_buf){ NULL, 0 };
		}
	}
}

int
lines_pump(struct line_stream *s, struct line_source *src)
{
	static char in[8192];
	struct pump p = { s, src };

	for (int reads = 0; s->fd >= 0; reads++) {
		ssize_t n;

		if (reads == LINES_READS_PER_TURN)
			break;	/* the rest next turn: poll still says it */
		n = read(s->fd, in, sizeof(in));
		if (n > 0 && mux_feed(&s->mux, in, (size_t)n, got, &p) == 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n != 0)	/* what the task wrote after is lost: said */
			drop(n < 0 ? errno : EPROTO);
		settle(s, src, 1);	/* end of file, or an error: the rest */
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	settle(s, src, 0);
	return s->fd >= 0;
}

void
lines_free(struct line_stream *s)
{
	for (int i = 0; i < 2; i++) {
		free(s->line[i].buf);
		s->line[i] = (struct line_buf){ NULL, 0 };
	}
}

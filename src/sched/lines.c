/* SPDX-License-Identifier: BSD-2-Clause */
/* lines.c -- split a pipe's bytes into lines and write each with one
 * write(2), so that lines of tasks running at once never interleave. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/text.h"
#include "sched/lines.h"

/* One line, whole, in one write. */
static void
emit(const struct line_stream *s, struct line_source *src, const char *line,
    size_t n)
{
	static char out[LINE_MAX_BYTES * 6 + 1024];
	size_t k;
	ssize_t w;

	if (src->json) {
		/* text_json(): what is not UTF-8 becomes U+FFFD, so the line parses */
		char task[600];
		size_t t = text_json(task, sizeof(task), src->task, strnlen(src->task, 100));
		k = (size_t)snprintf(out, 1024, "{\"task\":%.*s,\"stream\":\"%s\"",
		    (int)t, task, s->out == 1 ? "stdout" : "stderr");
		if (src->slot)
			k += (size_t)snprintf(out + k, 1024 - k, ",\"slot\":\"%s\"", src->slot);
		if (src->token > 0)
			k += (size_t)snprintf(out + k, 1024 - k, ",\"token\":%lld", src->token);
		k += (size_t)snprintf(out + k, 1024 - k, ",\"line\":");
		k += text_json(out + k, sizeof(out) - k - 2, line, n);
		memcpy(out + k, "}\n", 2);
		k += 2;
	} else {
		k = (size_t)snprintf(out, 1024, "%.200s: ", src->task);
		memcpy(out + k, line, n);
		k += n;
		out[k++] = '\n';
	}
	for (size_t off = 0; off < k; off += (size_t)w)
		if ((w = write(s->out, out + off, k - off)) < 0 && errno != EINTR)
			return;
		else if (w < 0)
			w = 0;
}

/* Write every whole line in the buffer, and the buffer itself if full. */
static void
drain(struct line_stream *s, struct line_source *src, int all)
{
	size_t start = 0;
	char *nl;

	while ((nl = memchr(s->buf + start, '\n', s->len - start)) != NULL) {
		emit(s, src, s->buf + start, (size_t)(nl - s->buf) - start);
		start = (size_t)(nl - s->buf) + 1;
	}
	if (start < s->len && (all || (start == 0 && s->len == sizeof(s->buf)))) {
		emit(s, src, s->buf + start, s->len - start);
		start = s->len;
	}
	memmove(s->buf, s->buf + start, s->len - start);
	s->len -= start;
}

int
lines_pump(struct line_stream *s, struct line_source *src)
{
	for (;;) {
		ssize_t n;

		if (s->fd < 0)
			return 0;
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
		if (n > 0) {
			s->len += (size_t)n;
			drain(s, src, 0);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		drain(s, src, 1);	/* end of file, or an error: the rest */
		close(s->fd);
		s->fd = -1;
		return 0;
	}
}

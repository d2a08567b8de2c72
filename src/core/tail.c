/* SPDX-License-Identifier: BSD-2-Clause */
/* tail.c -- the end of a command's output in bounded memory: whole lines
 * kept as records in one buffer, the oldest dropped from its front as
 * new ones come, each stream's unfinished line held apart. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/tail.h"

#define HDR	5		/* a record's stream byte and 4 bytes of length */
#define NONE	SIZE_MAX	/* no last record */

static uint32_t
rec_len(const struct lr_tail *t, size_t at)
{
	uint32_t len;

	memcpy(&len, t->buf + at + 1, sizeof(len));
	return len;
}

static void
rec_set(struct lr_tail *t, size_t at, int stream, uint32_t len)
{
	t->buf[at] = (char)stream;
	memcpy(t->buf + at + 1, &len, sizeof(len));
}

int
tail_init(struct lr_tail *t, size_t limit)
{
	memset(t, 0, sizeof(*t));
	t->last = NONE;
	t->limit = limit;
	if (limit == 0)
		return 0;
	t->cap = 6 * limit + 16;
	t->buf = malloc(t->cap);
	t->part[0].p = malloc(limit);
	t->part[1].p = malloc(limit);
	if (t->buf == NULL || t->part[0].p == NULL || t->part[1].p == NULL) {
		tail_free(t);
		return -1;
	}
	return 0;
}

/* Drop lines from the front until n more bytes fit in the limit: whole
 * records, then the first record's lines up to the first that starts
 * past what must go. */
static void
make_room(struct lr_tail *t, size_t n)
{
	while (t->body + n > t->limit && t->start < t->end) {
		size_t need = t->body + n - t->limit, len = rec_len(t, t->start), cut;
		const char *data = t->buf + t->start + HDR, *nl;

		nl = len > need - 1 ? memchr(data + need - 1, '\n', len - (need - 1)) : NULL;
		cut = nl ? (size_t)(nl - data) + 1 : len;
		if (cut >= len) {
			if (t->last == t->start)
				t->last = NONE;
			t->start += HDR + len;
			t->body -= len;
			continue;
		}
		/* the record's header moves forward over the lines dropped */
		rec_set(t, t->start + cut, t->buf[t->start], (uint32_t)(len - cut));
		if (t->last == t->start)
			t->last = t->start + cut;
		t->start += cut;
		t->body -= cut;
	}
	if (t->start == t->end)
		t->start = t->end = 0;
}

/* Where the first '\n' at or after from is in a[na] then b[nb], or
 * na + nb when none. */
static size_t
first_nl(const char *a, size_t na, const char *b, size_t nb, size_t from)
{
	const char *nl;

	if (from < na && (nl = memchr(a + from, '\n', na - from)) != NULL)
		return (size_t)(nl - a);
	from = from > na ? from - na : 0;
	if (from < nb && (nl = memchr(b + from, '\n', nb - from)) != NULL)
		return na + (size_t)(nl - b);
	return na + nb;
}

/* Keep a[na] then b[nb], whole lines of stream (the last one unfinished
 * only at the end): of more than the limit, the lines that start in its
 * last limit bytes (or, one line longer than that, its end) and nothing
 * before them; else after dropping what they displace. */
static void
push(struct lr_tail *t, int stream, const char *a, size_t na, const char *b, size_t nb)
{
	size_t n = na + nb, skip, room;

	if (n > t->limit) {
		size_t at = first_nl(a, na, b, nb, n - t->limit - 1);

		skip = at + 1 < n ? at + 1 : n - t->limit;
		t->start = t->end = t->body = 0;	/* all before is older */
		t->last = NONE;
		if (skip >= na) {
			b += skip - na, nb -= skip - na;
			na = 0;
		} else
			a += skip, na -= skip;
		n = na + nb;
	} else
		make_room(t, n);
	room = t->last != NONE && t->buf[t->last] == stream ? n : HDR + n;
	if (t->end + room > t->cap) {		/* compact: the records to the front */
		memmove(t->buf, t->buf + t->start, t->end - t->start);
		if (t->last != NONE)
			t->last -= t->start;
		t->end -= t->start;
		t->start = 0;
	}
	if (room == n)
		rec_set(t, t->last, stream, (uint32_t)(rec_len(t, t->last) + n));
	else {
		t->last = t->end;
		rec_set(t, t->end, stream, (uint32_t)n);
		t->end += HDR;
	}
	if (na > 0)
		memcpy(t->buf + t->end, a, na);
	if (nb > 0)
		memcpy(t->buf + t->end + na, b, nb);
	t->end += n;
	t->body += n;
}

/* Add p[n] to a stream's unfinished line, keeping its last limit bytes. */
static void
part_add(struct lr_tail *t, struct tail_part *pt, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (pt->n == 0)
		pt->seq = ++t->seq;
	if (n >= t->limit) {
		memcpy(pt->p, p + n - t->limit, t->limit);
		pt->n = t->limit;
		return;
	}
	if (pt->n + n > t->limit) {
		size_t keep = t->limit - n;

		memmove(pt->p, pt->p + pt->n - keep, keep);
		pt->n = keep;
	}
	memcpy(pt->p + pt->n, p, n);
	pt->n += n;
}

void
tail_feed(struct lr_tail *t, int stream, const char *p, size_t n)
{
	struct tail_part *pt = &t->part[stream == 2];
	const char *nl;
	size_t k;

	if (t->limit == 0 || n == 0)
		return;
	t->seen += n;
	if ((nl = memrchr(p, '\n', n)) == NULL) {
		part_add(t, pt, p, n);
		return;
	}
	k = (size_t)(nl - p) + 1;
	push(t, stream == 2 ? 2 : 1, pt->p, pt->n, p, k);
	pt->n = 0;
	part_add(t, pt, p + k, n - k);
}

/* One record's lines into out, each with its stream; returns the end. */
static char *
lines_out(char *out, int stream, const char *p, size_t len)
{
	const char *end = p + len;

	while (p < end) {
		*out++ = (char)('0' + stream);
		for (; p < end && *p != '\n'; p++) {
			if (*p != '\0') {
				*out++ = *p;
				continue;
			}
			memcpy(out, "\xe2\x90\x80", 3);		/* U+2400 SYMBOL FOR NULL */
			out += 3;
		}
		*out++ = '\n';
		p += p < end;		/* past the '\n' */
	}
	return out;
}

char *
tail_text(struct lr_tail *t, size_t *n)
{
	struct tail_part *first = &t->part[0], *second = &t->part[1];
	char *text, *out;

	*n = 0;
	if (t->limit == 0)
		return NULL;
	if (second->n > 0 && (first->n == 0 || second->seq < first->seq))
		first = &t->part[1], second = &t->part[0];
	if (first->n > 0)
		push(t, first == &t->part[1] ? 2 : 1, first->p, first->n, NULL, 0);
	if (second->n > 0)
		push(t, second == &t->part[1] ? 2 : 1, second->p, second->n, NULL, 0);
	first->n = second->n = 0;
	if (t->body == 0 || (text = malloc(5 * t->body + 1)) == NULL)
		return NULL;
	out = text;
	for (size_t at = t->start; at < t->end; at += HDR + rec_len(t, at))
		out = lines_out(out, t->buf[at], t->buf + at + HDR, rec_len(t, at));
	*out = '\0';
	*n = (size_t)(out - text);
	return text;
}

void
tail_free(struct lr_tail *t)
{
	free(t->buf);
	free(t->part[0].p);
	free(t->part[1].p);
	t->buf = t->part[0].p = t->part[1].p = NULL;
	t->limit = 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* tail.h -- the end of a command's output, kept in bounded memory: the
 * last `limit` bytes of its stdout and stderr, interleaved in the order
 * they were read, cut at the start of a line. Pure: libc only. */
#ifndef LR_TAIL_H
#define LR_TAIL_H

#include <stddef.h>

/* A stream's line not yet ended: at most limit bytes, its end. */
struct tail_part {
	char	*p;
	size_t	 n;
	unsigned long long seq;	/* when its first byte came, to order the
				 * unfinished lines of both streams at the end */
};

/* Complete lines are kept as records: one byte for the stream (1 or 2),
 * the length of the lines (4 bytes), then the lines; a stream's lines
 * that follow its own are added to its record, so a chunk of many lines
 * costs one copy whatever their number. */
struct lr_tail {
	char			*buf;
	size_t			 cap;		/* of buf: 6 * limit + 16, enough for a
						 * record per kept line */
	size_t			 start, end;	/* the records, buf[start, end) */
	size_t			 last;		/* where the last record starts */
	size_t			 body;		/* bytes of output they hold */
	size_t			 limit;		/* 0: nothing is kept */
	struct tail_part	 part[2];	/* stdout's and stderr's */
	unsigned long long	 seq;
	unsigned long long	 seen;		/* bytes fed in all */
};

/* A run's story holds its command's lines, and its hooks' (issue 45):
 * a line of this mark and a hook's name, "hon_start\n", begins the lines
 * of that hook's output; one of the mark alone, "h\n", the command's
 * again. Lines before any such line are the command's. */
#define TAIL_SECTION	'h'

/* Set t up to keep the last limit bytes (0: none, and nothing is
 * allocated). Returns 0, or -1 when out of memory. */
int	tail_init(struct lr_tail *t, size_t limit);

/* The command wrote p[n] on stream (1 stdout, 2 stderr). */
void	tail_feed(struct lr_tail *t, int stream, const char *p, size_t n);

/* The lines kept, unfinished ones last, each "<1|2><line>\n": the stream,
 * then the line's bytes as written, but a NUL byte, which is kept as
 * U+2400 (a lock server's argument here is a C string). malloc'd, with
 * its length in *n; NULL when nothing is kept (or out of memory). The
 * unfinished lines are ended: call last. */
char	*tail_text(struct lr_tail *t, size_t *n);

/* Free t's memory; tail_free() of a t never set up is a no-op only after
 * tail_init(t, 0). */
void	tail_free(struct lr_tail *t);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* tail_test.c -- the end of a command's output: the last bytes, cut at a
 * line, each line with its stream, whatever the chunks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/tail.h"

static char *
text_of(struct lr_tail *t)
{
	size_t n;
	char *s = tail_text(t, &n);

	return s ? s : strdup("");
}

Test(tail, keeps_lines_with_their_stream_in_order)
{
	struct lr_tail t;
	char *s;

	cr_assert(eq(int, tail_init(&t, 1024), 0));
	tail_feed(&t, 1, "one\ntw", 6);
	tail_feed(&t, 2, "oops\n", 5);
	tail_feed(&t, 1, "o\nthree", 7);
	s = text_of(&t);
	cr_assert(eq(str, s, "1one\n2oops\n1two\n1three\n"), "a line counts when it ends");
	free(s);
	tail_free(&t);
}

Test(tail, cuts_at_the_first_line_in_the_last_bytes)
{
	struct lr_tail t;
	char *s;

	cr_assert(eq(int, tail_init(&t, 10), 0));
	tail_feed(&t, 1, "aaaa\nbbbb\ncccc\n", 15);	/* last 10: "bbbb\ncccc\n" */
	s = text_of(&t);
	cr_assert(eq(str, s, "1bbbb\n1cccc\n"));
	free(s);
	tail_free(&t);
	cr_assert(eq(int, tail_init(&t, 9), 0));
	tail_feed(&t, 1, "aaaa\nbbbb\n", 10);
	tail_feed(&t, 2, "cccc\n", 5);		/* 9 bytes: only "cccc\n" starts a line */
	s = text_of(&t);
	cr_assert(eq(str, s, "2cccc\n"));
	free(s);
	tail_free(&t);
}

Test(tail, a_line_longer_than_the_limit_keeps_its_end)
{
	struct lr_tail t;
	char *s;

	cr_assert(eq(int, tail_init(&t, 4), 0));
	tail_feed(&t, 1, "abcdefgh", 8);
	tail_feed(&t, 1, "ij", 2);
	s = text_of(&t);
	cr_assert(eq(str, s, "1ghij\n"));
	free(s);
	tail_free(&t);
}

Test(tail, nul_is_kept_visible_as_its_symbol)
{
	struct lr_tail t;
	char *s;

	cr_assert(eq(int, tail_init(&t, 16), 0));
	tail_feed(&t, 2, "a\0b\n", 4);
	s = text_of(&t);
	cr_assert(eq(str, s, "2a\xe2\x90\x80" "b\n"));
	free(s);
	tail_free(&t);
}

Test(tail, zero_keeps_nothing)
{
	struct lr_tail t;
	size_t n;

	cr_assert(eq(int, tail_init(&t, 0), 0));
	tail_feed(&t, 1, "x\n", 2);
	cr_assert(tail_text(&t, &n) == NULL);
	tail_free(&t);
}

/* The reference: the whole output of one stream, its last limit bytes
 * from the first line start in them. */
static void
expected(const char *all, size_t n, size_t limit, char *out)
{
	size_t from = n > limit ? n - limit : 0;

	while (from > 0 && from < n && all[from - 1] != '\n')
		from++;
	out[0] = '\0';
	for (size_t i = from; i < n; ) {
		size_t e = i;
		while (all[e] != '\n')
			e++;
		strcat(out, "1");
		strncat(out, all + i, e - i + 1);
		i = e + 1;
	}
}

Test(tail, any_chunking_gives_the_same_tail)
{
	char all[4000], want[8000];
	size_t n = 0;
	unsigned seed = 7;

	while (n < sizeof(all) - 40) {	/* lines of 1 to 30 bytes */
		size_t len = (seed = seed * 1103515245 + 12345) % 30;
		for (size_t i = 0; i < len; i++)
			all[n++] = (char)('a' + i % 26);
		all[n++] = '\n';
	}
	for (size_t limit = 1; limit < 300; limit += 37) {
		expected(all, n, limit, want);
		for (size_t chunk = 1; chunk < 200; chunk += 29) {
			struct lr_tail t;
			char *s;

			cr_assert(eq(int, tail_init(&t, limit), 0));
			for (size_t i = 0; i < n; i += chunk)
				tail_feed(&t, 1, all + i, n - i < chunk ? n - i : chunk);
			s = text_of(&t);
			if (strchr(want, '\n') != NULL || limit > 30)
				cr_assert(eq(str, s, want), "limit %zu chunk %zu", limit, chunk);
			free(s);
			tail_free(&t);
		}
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* near.c -- the words nearest to a mistyped one (near.h); pure, libc only. */
#include <string.h>

#include "core/near.h"

#define NEAR_LEN	255

unsigned
near_distance(const char *a, const char *b)
{
	/* three rows of the Damerau-Levenshtein (optimal string alignment)
	 * table: two back for a swap, one back, this one */
	unsigned rows[3][NEAR_LEN + 1], *pp, *p, *c;
	size_t la = strlen(a), lb = strlen(b);

	if (la > NEAR_LEN || lb > NEAR_LEN)
		return NEAR_LEN;
	for (size_t j = 0; j <= lb; j++)
		rows[1][j] = (unsigned)j;
	pp = rows[0], p = rows[1], c = rows[2];
	for (size_t i = 1; i <= la; i++) {
		unsigned *t;

		c[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1], v = p[j - 1] + cost;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
		t = pp, pp = p, p = c, c = t;
	}
	return p[lb];
}

/* How near w is to word, or NEAR_LEN + 1 when not near at all. */
static unsigned
nearness(const char *word, const char *w)
{
	size_t len = strlen(word);
	unsigned d = near_distance(word, w), limit = len / 4 > 2 ? (unsigned)(len / 4) : 2;

	if (d <= limit && d < len)
		return d;
	if (len >= 3 && strstr(w, word))
		return limit + 1;	/* after the typos */
	return NEAR_LEN + 1;
}

size_t
near_words(const char *word, const char *const *words, size_t n, size_t out[NEAR_MAX])
{
	unsigned d[NEAR_MAX];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned di;
		size_t at;

		if (words[i] == NULL || strcmp(words[i], word) == 0 ||
		    (di = nearness(word, words[i])) > NEAR_LEN)
			continue;
		for (at = k; at > 0 && d[at - 1] > di; at--)
			;
		if (at >= NEAR_MAX)
			continue;
		if (k < NEAR_MAX)
			k++;
		for (size_t j = k - 1; j > at; j--) {
			d[j] = d[j - 1];
			out[j] = out[j - 1];
		}
		d[at] = di;
		out[at] = i;
	}
	return k;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* near.h -- the words nearest to a mistyped one, for "did you mean". */
#ifndef LR_NEAR_H
#define LR_NEAR_H

#include <stddef.h>

#define NEAR_MAX	3	/* names suggested at most */

/* The edit distance (insert, delete, change or swap two neighbours, each
 * 1) between a and b; past 255 bytes of either, 255. */
unsigned	near_distance(const char *a, const char *b);

/* Of the n words at words[0], words[1], ... (NULL entries skipped), the
 * indices of those near word, nearest first (ties in list order), at most
 * NEAR_MAX, into out; returns how many. Near: a few edits away (at most 2,
 * or a quarter of word's length, and fewer than its length), or holding
 * word whole ("import" in "import-products"), after those. */
size_t	near_words(const char *word, const char *const *words, size_t n,
	    size_t out[NEAR_MAX]);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* near_test.c -- the nearest words to a mistyped one: edit distance, and
 * which names are suggested, in which order. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/near.h"

Test(near, distance_counts_edits_and_swaps)
{
	cr_assert(eq(u32, near_distance("one-server", "one-server"), 0));
	cr_assert(eq(u32, near_distance("one-sever", "one-server"), 1), "a letter left out");
	cr_assert(eq(u32, near_distance("tiemout", "timeout"), 1), "two letters swapped");
	cr_assert(eq(u32, near_distance("", "ttl"), 3));
	cr_assert(eq(u32, near_distance("kitten", "sitting"), 3));
}

Test(near, words_nearest_first_at_most_three)
{
	static const char *const names[] = { "backup", "import-products", "import-orders",
	    NULL, "bakcup", "cleanup", "imports" };
	size_t out[NEAR_MAX];

	cr_assert(eq(sz, near_words("bakup", names, 7, out), 2));
	cr_assert(eq(sz, out[0], 0));
	cr_assert(eq(sz, out[1], 4));
	/* a word held whole in others: after the typos */
	cr_assert(eq(sz, near_words("import", names, 7, out), 3));
	cr_assert(eq(sz, out[0], 6), "imports: one edit");
	cr_assert(eq(sz, out[1], 1));
	cr_assert(eq(sz, out[2], 2));
	cr_assert(eq(sz, near_words("zzz", names, 7, out), 0), "nothing near");
	cr_assert(eq(sz, near_words("backup", names, 1, out), 0), "itself is not suggested");
}

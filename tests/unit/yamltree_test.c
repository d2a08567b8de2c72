/* SPDX-License-Identifier: BSD-2-Clause */
/* yamltree_test.c -- the YAML reader on its own: what config.c never sees
 * because yt_load() refuses it first. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "config/yamltree.h"

/* Keys in the generated mapping: the most one mapping can hold under the
 * 100000-node cap (the mapping, then a key and a value per entry).
 * Checking each key against every earlier one made loading take seconds. */
#define BIG_KEYS 49999

struct big {
	char	dir[64];
	char	path[96];
};

/* Write a top-level mapping of BIG_KEYS keys K0, K1, ...; with dup >= 0
 * the last key is K<dup> again. Key i is at line i + 1, column 1. */
static void
big_write(struct big *b, long dup)
{
	FILE *fp;

	snprintf(b->dir, sizeof(b->dir), "/tmp/lockrun-yamltree-XXXXXX");
	cr_assert(mkdtemp(b->dir) != NULL);
	snprintf(b->path, sizeof(b->path), "%s/big.yaml", b->dir);
	fp = fopen(b->path, "w");
	cr_assert(fp != NULL);
	for (long i = 0; i < BIG_KEYS - 1; i++)
		fprintf(fp, "K%ld: v\n", i);
	fprintf(fp, "K%ld: v\n", dup >= 0 ? dup : BIG_KEYS - 1);
	cr_assert(eq(int, fclose(fp), 0));
}

static void
big_remove(struct big *b)
{
	unlink(b->path);
	rmdir(b->dir);
}

Test(yamltree, many_distinct_keys_load)
{
	struct yt_node *root;
	struct lr_err e = LR_ERR_INIT;
	struct big b;

	big_write(&b, -1);
	cr_assert(eq(int, yt_load(b.path, NULL, &root, &e), 0), "%s", e.msg);
	big_remove(&b);
	cr_assert(eq(int, root->kind, YT_MAP));
	cr_assert(eq(sz, root->nkids, 2 * BIG_KEYS));
	cr_assert(eq(str, root->kids[2 * BIG_KEYS - 2]->value, "K49998"));
	yt_free(root);
}

Test(yamltree, duplicate_last_of_many_keys_is_refused)
{
	struct yt_node *root;
	struct lr_err e = LR_ERR_INIT;
	struct big b;
	char want[256];

	big_write(&b, 31337);
	snprintf(want, sizeof(want), "%s:%d:1: duplicate key \"K31337\" (first at "
	    "%d:1)", b.path, BIG_KEYS, 31337 + 1);
	cr_assert(eq(int, yt_load(b.path, NULL, &root, &e), -1));
	big_remove(&b);
	cr_assert(eq(ptr, root, NULL));
	cr_assert(eq(int, e.status, 78));
	cr_assert(eq(str, e.msg, want));
}

/* libyaml says "found character that cannot start any token"; a tab where
 * the indentation goes is the common cause, and is named. */
Test(yamltree, a_tab_in_the_indentation_says_tab)
{
	static const char *const bodies[] = {
		"tasks:\n  a:\n\tcommand: [true]\n",
		"tasks:\n  a:\n    command: [true]\n  \tttl: 3s\n",
	};
	static const char *const places[] = { ":3:1: ", ":4:3: " };
	char dir[64] = "/tmp/lockrun-yamltree-XXXXXX", path[96], want[200];
	struct yt_node *root;
	struct lr_err e;

	cr_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/tab.yaml", dir);
	for (size_t i = 0; i < 2; i++) {
		FILE *fp = fopen(path, "w");

		cr_assert(fp != NULL);
		fputs(bodies[i], fp);
		fclose(fp);
		cr_assert(eq(int, yt_load(path, NULL, &root, &e), -1));
		snprintf(want, sizeof(want), "%s%sa tab in the indentation: YAML indents with "
		    "spaces only (replace the tab with spaces)", path, places[i]);
		cr_assert(eq(str, e.msg, want));
		cr_assert(eq(int, e.status, 78));
	}
	unlink(path);
	rmdir(dir);
}

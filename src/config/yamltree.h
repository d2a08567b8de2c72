/* SPDX-License-Identifier: BSD-2-Clause */
/* yamltree.h -- a YAML file as a small tree of plain data, with positions. */
#ifndef LR_YAMLTREE_H
#define LR_YAMLTREE_H

#include <stddef.h>

#include "core/err.h"

/* YT_SKIPPED: a value read but not kept (yt_load's `only`): one shared
 * node, with no position and no content. */
enum yt_kind { YT_SCALAR, YT_SEQ, YT_MAP, YT_SKIPPED };

struct yt_node {
	enum yt_kind	  kind;
	int		  line, col;	/* 1-based, where the node starts */
	char		 *value;	/* YT_SCALAR: the text */
	int		  quoted;	/* YT_SCALAR: written in quotes or as a block */
	struct yt_node	**kids;		/* YT_SEQ: items; YT_MAP: key, value, key, ... */
	size_t		  nkids;
	size_t		  cap;
};

#define YT_MAX_BYTES	(16 << 20)	/* the largest file read: 16 MiB */
#define YT_MAX_DEPTH	32		/* the deepest nesting */

/* Read path into *root (NULL for a file with no document). Refuses what a
 * lockrun config never needs and libyaml would accept: aliases and
 * anchors (and so alias bombs), tags, merge keys, non-scalar keys,
 * duplicate keys, several documents, nesting deeper than YT_MAX_DEPTH,
 * files larger than YT_MAX_BYTES.
 * With only not NULL, the values of the top-level "tasks" mapping are
 * kept only for the key equal to only (none when only is ""): the others
 * are read, so the whole file must still be valid YAML without aliases,
 * anchors or tags, but become YT_SKIPPED nodes; their keys are kept.
 * Returns 0, or -1 with e = EX_CONFIG "path:line:col: message". The
 * caller owns *root and frees it with yt_free(). */
int	yt_load(const char *path, const char *only, struct yt_node **root,
	    struct lr_err *e);

void	yt_free(struct yt_node *n);

/* What kind of node n is, for messages: "a string", "a list", ... */
const char *yt_kind_name(const struct yt_node *n);

#endif

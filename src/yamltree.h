/* yamltree.h -- a YAML file as a small tree of plain data, with positions. */
#ifndef LR_YAMLTREE_H
#define LR_YAMLTREE_H

#include <stddef.h>

#include "err.h"

enum yt_kind { YT_SCALAR, YT_SEQ, YT_MAP };

struct yt_node {
	enum yt_kind	  kind;
	int		  line, col;	/* 1-based, where the node starts */
	char		 *value;	/* YT_SCALAR: the text */
	int		  quoted;	/* YT_SCALAR: written in quotes or as a block */
	struct yt_node	**kids;		/* YT_SEQ: items; YT_MAP: key, value, key, ... */
	size_t		  nkids;
	size_t		  cap;
};

/* Read path into *root (NULL for a file with no document). Refuses what a
 * lockrun config never needs and libyaml would accept: aliases and
 * anchors (and so alias bombs), tags, merge keys, non-scalar keys,
 * duplicate keys, several documents, nesting deeper than 32.
 * Returns 0, or -1 with e = EX_CONFIG "path:line:col: message". The
 * caller owns *root and frees it with yt_free(). */
int	yt_load(const char *path, struct yt_node **root, struct lr_err *e);

void	yt_free(struct yt_node *n);

/* What kind of node n is, for messages: "a string", "a list", ... */
const char *yt_kind_name(const struct yt_node *n);

#endif

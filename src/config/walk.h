/* SPDX-License-Identifier: BSD-2-Clause */
/* walk.h -- reading a config's YAML tree: where the walk is, and how it
 * complains (every message "file:line:col: ..."). */
#ifndef LR_CONFIG_WALK_H
#define LR_CONFIG_WALK_H

#include "config/types.h"
#include "config/yamltree.h"
#include "core/err.h"

/* One file being read into cfg: its path names every complaint. */
struct walk {
	const char		*path;
	struct lr_err		*e;
	struct lr_config	*cfg;
};

/* Fill w->e with EX_CONFIG "path:line:col: message" at n; returns -1. */
int	walk_bad(struct walk *w, const struct yt_node *n, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* A note (config/types.h) "path:line:col: msg" into cfg's notes, a line
 * left out when skipped. Returns 0, or -1 when out of memory. */
int	walk_note_add(struct lr_config *cfg, const char *path, int line, int col,
	    int skipped, const char *msg);

/* A note at n, for check to say: what could not be tried. Returns 0, or
 * -1 with w->e when out of memory. */
int	walk_note(struct walk *w, const struct yt_node *n, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* A plain ~, null or empty value is YAML's null: "nothing". */
int	walk_is_null(const struct yt_node *n);

/* What n is, for messages: "nothing" for a null. */
const char *walk_kind_of(const struct yt_node *n);

/* The value of n as a non-null string, or NULL after reporting. */
const char *walk_want_string(struct walk *w, const struct yt_node *n, const char *what);

/* 0 if n is a mapping, else -1 after reporting. */
int	walk_want_map(struct walk *w, const struct yt_node *n, const char *what);

/* *dst (freed first) becomes a copy of n's string. Returns 0 or -1. */
int	walk_set_string(struct walk *w, const struct yt_node *n, const char *what,
	    char **dst);

/* *dst becomes n's positive duration in ms. Returns 0 or -1. */
int	walk_set_timeout(struct walk *w, const struct yt_node *n, const char *what,
	    long long *dst);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* walk.c -- the small readers every part of a config shares: strings,
 * mappings, durations, and the one way to complain. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/walk.h"
#include "core/duration.h"

int
walk_bad(struct walk *w, const struct yt_node *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return lr_errf(w->e, EX_CONFIG, "%s:%d:%d: %s", w->path, n->line, n->col, msg);
}

int
walk_note_add(struct lr_config *cfg, const char *path, int line, int col, int skipped,
    const char *msg)
{
	struct lr_note *v = realloc(cfg->notes, (cfg->nnotes + 1) * sizeof(*v));
	char *text;

	if (v == NULL)
		return -1;
	cfg->notes = v;
	if (asprintf(&text, "%s:%d:%d: %s", path, line, col, msg) < 0)
		return -1;
	v[cfg->nnotes++] = (struct lr_note){ .text = text, .skipped = skipped };
	return 0;
}

int
walk_note(struct walk *w, const struct yt_node *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (walk_note_add(w->cfg, w->path, n->line, n->col, 0, msg) != 0)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	return 0;
}

/* A plain ~, null or empty value is YAML's null: "nothing". */
int
walk_is_null(const struct yt_node *n)
{
	return n->kind == YT_SCALAR && !n->quoted && (n->value[0] == '\0' ||
	    strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0);
}

const char *
walk_kind_of(const struct yt_node *n)
{
	return walk_is_null(n) ? "nothing" : yt_kind_name(n);
}

/* The value of n as a non-null string, or NULL after reporting. */
const char *
walk_want_string(struct walk *w, const struct yt_node *n, const char *what)
{
	if (n->kind != YT_SCALAR || walk_is_null(n)) {
		walk_bad(w, n, "%s: expected a string, got %s", what, walk_kind_of(n));
		return NULL;
	}
	return n->value;
}

int
walk_want_map(struct walk *w, const struct yt_node *n, const char *what)
{
	if (n->kind == YT_MAP)
		return 0;
	return walk_bad(w, n, "%s: expected a mapping, got %s", what, walk_kind_of(n));
}

int
walk_set_string(struct walk *w, const struct yt_node *n, const char *what, char **dst)
{
	const char *s = walk_want_string(w, n, what);

	if (s == NULL)
		return -1;
	free(*dst);
	if ((*dst = strdup(s)) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	return 0;
}

int
walk_set_timeout(struct walk *w, const struct yt_node *n, const char *what, long long *dst)
{
	const char *s = walk_want_string(w, n, what);

	if (s == NULL)
		return -1;
	if (duration_parse(s, dst) != 0 || *dst <= 0)
		return walk_bad(w, n, "%s: \"%s\" is not a positive duration "
		    "(e.g. 500ms, 90s, 10m, 1h30m)", what, s);
	return 0;
}
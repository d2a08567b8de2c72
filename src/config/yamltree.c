/* SPDX-License-Identifier: BSD-2-Clause */
/* yamltree.c -- libyaml events to a struct yt_node tree, refusing the YAML
 * features a config file has no use for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "core/file.h"
#include "config/yamltree.h"

struct ytp {
	yaml_parser_t	 parser;
	const char	*path;
	struct lr_err	*e;
	FILE		*fp;
	size_t		 bytes;		/* read from fp so far */
	const char	*only;		/* the one task kept, or NULL: all */
	struct yt_node	*root;		/* the top-level node */
	struct yt_node	*tasks;		/* the top level's "tasks" mapping */
	int		 tasks_next;	/* the next node is that mapping */
};

static int
fail_at(struct ytp *p, yaml_mark_t m, const char *fmt, const char *arg)
{
	char what[400];

	snprintf(what, sizeof(what), fmt, arg);
	return lr_errf(p->e, EX_CONFIG, "%s:%zu:%zu: %s", p->path,
	    m.line + 1, m.column + 1, what);
}

/* libyaml's input: the file, cut off past YT_MAX_BYTES (a device or a
 * pipe has no size to check beforehand). */
static int
read_bounded(void *arg, unsigned char *buf, size_t size, size_t *got)
{
	struct ytp *p = arg;

	*got = fread(buf, 1, size, p->fp);
	p->bytes += *got;
	return !ferror(p->fp) && p->bytes <= YT_MAX_BYTES;
}

/* Is the parse error at m a tab where indentation goes: a tab at m, or
 * in the blanks that start m's line? libyaml says only "found character
 * that cannot start any token". The file is read again from its start
 * (a regular file; the parse is over). */
static int
tab_at(struct ytp *p, yaml_mark_t m)
{
	char *line = NULL;
	size_t cap = 0, col = m.column;
	ssize_t len = -1;
	int tab = 0;

	rewind(p->fp);
	for (size_t i = 0; i <= m.line; i++)
		if ((len = getline(&line, &cap, p->fp)) < 0)
			break;
	if (len >= 0) {
		size_t lead = strspn(line, " \t");

		tab = ((size_t)len > col && line[col] == '\t') ||
		    memchr(line, '\t', lead < (size_t)len ? lead : (size_t)len) != NULL;
	}
	free(line);
	return tab;
}

/* Next event into ev; on a libyaml error, report it at its problem mark. */
static int
next_event(struct ytp *p, yaml_event_t *ev)
{
	const yaml_parser_t *yp = &p->parser;
	char what[300];

	if (yaml_parser_parse(&p->parser, ev))
		return 0;
	if (p->bytes > YT_MAX_BYTES)
		return lr_errf(p->e, EX_CONFIG, "%s: larger than %d MiB, the most a lockrun "
		    "config may be", p->path, YT_MAX_BYTES >> 20);
	if (yp->error == YAML_READER_ERROR && ferror(p->fp))
		return lr_errf(p->e, EX_CONFIG, "%s: %s", p->path, strerror(errno));
	if (tab_at(p, yp->problem_mark))
		return fail_at(p, yp->problem_mark, "%s", "a tab in the indentation: YAML "
		    "indents with spaces only (replace the tab with spaces)");
	if (yp->context && strcmp(yp->context, "while scanning an alias") == 0)
		return fail_at(p, yp->context_mark, "%s", "a value that starts with '*' is "
		    "an alias in YAML: quote it (schedule: '* * * * *')");
	if (yp->context)	/* e.g. where the unclosed quote began */
		snprintf(what, sizeof(what), "%s (%s at %zu:%zu)", yp->problem,
		    yp->context, yp->context_mark.line + 1, yp->context_mark.column + 1);
	else
		snprintf(what, sizeof(what), "%s", yp->problem ? yp->problem : "unknown");
	return fail_at(p, yp->problem_mark, "YAML syntax error: %s", what);
}

/* Every value read but not kept is this one node: 10,000 tasks not run
 * cost no allocation each. yt_free() leaves it alone. */
static struct yt_node skipped = { .kind = YT_SKIPPED };

/* Append n to parent's kids. Returns 0, or -1 when out of memory. */
static int
kid_add(struct yt_node *parent, struct yt_node *n)
{
	if (parent->nkids == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		struct yt_node **k = realloc(parent->kids, cap * sizeof(*k));
		if (k == NULL)
			return -1;
		parent->kids = k;
		parent->cap = cap;
	}
	parent->kids[parent->nkids++] = n;
	return 0;
}

static struct yt_node *
node_add(struct yt_node *parent, enum yt_kind kind, yaml_mark_t m)
{
	struct yt_node *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return NULL;
	n->kind = kind;
	n->line = (int)m.line + 1;
	n->col = (int)m.column + 1;
	if (parent != NULL && kid_add(parent, n) != 0) {
		free(n);
		return NULL;
	}
	return n;
}

/* Refuse anchors and tags on any node event. */
static int
check_props(struct ytp *p, const yaml_event_t *ev)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;

	if (ev->type == YAML_SCALAR_EVENT) {
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	} else if (ev->type == YAML_MAPPING_START_EVENT) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	}
	if (anchor)
		return fail_at(p, ev->start_mark,
		    "anchors (&%s) are not allowed in a lockrun config", (const char *)anchor);
	if (tag) {
		const char *t = (const char *)tag, *core = "tag:yaml.org,2002:";
		char shown[200];
		/* show !!str as written, not as libyaml resolved it */
		if (strncmp(t, core, strlen(core)) == 0)
			snprintf(shown, sizeof(shown), "!!%s", t + strlen(core));
		else
			snprintf(shown, sizeof(shown), "%s", t);
		return fail_at(p, ev->start_mark,
		    "tags (%s) are not allowed in a lockrun config", shown);
	}
	return 0;
}

/* The keys of one mapping being parsed, as indexes into its kids, in an
 * open-addressing table (linear probing, at most half full) that is
 * built only when the mapping passes KEYSET_MIN keys: small mappings
 * are scanned, long ones cost O(1) a key instead of O(keys). The file
 * is the operator's own, so the hash needs no secret seed. */
struct keyset {
	size_t	*slot;		/* kid index + 1; 0 is an empty slot */
	size_t	 cap;		/* a power of two, or 0 before it is built */
	size_t	 n;
};

#define KEYSET_MIN	8

static size_t
key_hash(const char *s)
{
	unsigned long long h = 0xcbf29ce484222325ULL;	/* FNV-1a, 64 bits */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return (size_t)h;
}

/* The slot holding a key equal to kids[i]'s, or the empty slot where it
 * belongs. */
static size_t *
keyset_slot(const struct keyset *ks, struct yt_node *const *kids, size_t i)
{
	const char *key = kids[i]->value;
	size_t at = key_hash(key) & (ks->cap - 1);

	while (ks->slot[at] != 0 && strcmp(kids[ks->slot[at] - 1]->value, key) != 0)
		at = (at + 1) & (ks->cap - 1);
	return &ks->slot[at];
}

/* Make room for one more key: a table twice the size, the keys
 * kids[0], kids[2], ..., kids[end - 2] (distinct, checked already) in
 * it. Returns 0, or -1 when out of memory. */
static int
keyset_grow(struct keyset *ks, struct yt_node *const *kids, size_t end)
{
	size_t cap = ks->cap ? ks->cap * 2 : 4 * KEYSET_MIN;
	struct keyset bigger = { calloc(cap, sizeof(size_t)), cap, 0 };

	if (bigger.slot == NULL)
		return -1;
	for (size_t i = 0; i < end; i += 2, bigger.n++)
		*keyset_slot(&bigger, kids, i) = i + 1;
	free(ks->slot);
	*ks = bigger;
	return 0;
}

/* Into *first, the earlier key of map equal to its last one, or NULL.
 * Returns 0, or -1 when the table could not grow. */
static int
find_earlier(struct keyset *ks, const struct yt_node *map,
    const struct yt_node **first)
{
	size_t last = map->nkids - 1, *at;

	*first = NULL;
	if (last / 2 < KEYSET_MIN) {
		for (size_t i = 0; i < last && *first == NULL; i += 2)
			if (strcmp(map->kids[i]->value, map->kids[last]->value) == 0)
				*first = map->kids[i];
		return 0;
	}
	if ((ks->n + 1) * 2 > ks->cap && keyset_grow(ks, map->kids, last) != 0)
		return -1;
	if (*(at = keyset_slot(ks, map->kids, last)) != 0)
		*first = map->kids[*at - 1];
	else {
		*at = last + 1;
		ks->n++;
	}
	return 0;
}

/* A map key just added at kids[nkids-1]: a plain string, not "<<", and
 * not seen before in this map. */
static int
check_key(struct ytp *p, const struct yt_node *map, struct keyset *ks, yaml_mark_t m)
{
	const struct yt_node *k = map->kids[map->nkids - 1], *first;
	char where[64];

	if (k->kind != YT_SCALAR)
		return fail_at(p, m, "mapping keys must be strings, not %s", yt_kind_name(k));
	if (!k->quoted && strcmp(k->value, "<<") == 0)
		return fail_at(p, m, "merge keys (%s) are not allowed in a lockrun config", "<<");
	if (find_earlier(ks, map, &first) != 0)
		return lr_errf(p->e, EX_OSERR, "out of memory reading %s", p->path);
	if (first == NULL)
		return 0;
	snprintf(where, sizeof(where), "%d:%d", first->line, first->col);
	return lr_errf(p->e, EX_CONFIG, "%s:%zu:%zu: duplicate key \"%s\" (first at %s)",
	    p->path, m.line + 1, m.column + 1, k->value, where);
}

static int parse_node(struct ytp *p, yaml_event_t *ev, struct yt_node *parent,
    int depth);

/* Read the node that starts with ev and all it contains without keeping
 * it: a YT_SKIPPED node in parent. What is refused everywhere is refused
 * here too (aliases, anchors, tags, nesting too deep); the rest, such as
 * duplicate keys, is for whoever reads that part in full. */
static int
skip_node(struct ytp *p, yaml_event_t *ev, struct yt_node *parent, int depth)
{
	yaml_event_t in;
	int open = 0;

	if (kid_add(parent, &skipped) != 0)
		return lr_errf(p->e, EX_OSERR, "out of memory reading %s", p->path);
	for (yaml_event_t *at = ev; ; at = &in) {
		int rc = 0;

		int starts = at->type == YAML_SEQUENCE_START_EVENT ||
		    at->type == YAML_MAPPING_START_EVENT;

		if (at->type == YAML_ALIAS_EVENT)
			rc = fail_at(p, at->start_mark, "aliases (*%s) are not allowed in a "
			    "lockrun config", (const char *)at->data.alias.anchor);
		else if (check_props(p, at) != 0)
			rc = -1;
		else if ((starts || at->type == YAML_SCALAR_EVENT) &&
		    depth + open > YT_MAX_DEPTH)
			rc = fail_at(p, at->start_mark, "nesting deeper than %s levels", "32");
		else if (starts)
			open++;
		else if (at->type == YAML_SEQUENCE_END_EVENT ||
		    at->type == YAML_MAPPING_END_EVENT)
			open--;
		if (at != ev)
			yaml_event_delete(at);
		if (rc != 0)
			return -1;
		if (open == 0)
			return 0;
		if (next_event(p, &in) != 0)
			return -1;
	}
}

/* Is the value about to be read in map one to skip: a task other than
 * the one asked for? */
static int
skipping(const struct ytp *p, const struct yt_node *map)
{
	return p->only != NULL && map == p->tasks && map->kind == YT_MAP &&
	    map->nkids % 2 == 1 &&
	    map->kids[map->nkids - 1]->kind == YT_SCALAR &&
	    strcmp(map->kids[map->nkids - 1]->value, p->only) != 0;
}

/* Parse the items of a sequence or mapping until its end event. */
static int
parse_items(struct ytp *p, struct yt_node *n, struct keyset *ks, int depth)
{
	yaml_event_t ev;
	yaml_event_type_t end = n->kind == YT_MAP ?
	    YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;

	for (;;) {
		yaml_mark_t m;
		int rc;

		if (next_event(p, &ev) != 0)
			return -1;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return 0;
		}
		m = ev.start_mark;
		if (skipping(p, n))
			rc = skip_node(p, &ev, n, depth + 1);
		else
			rc = parse_node(p, &ev, n, depth + 1);
		yaml_event_delete(&ev);
		if (rc != 0)
			return -1;
		if (n->kind == YT_MAP && n->nkids % 2 == 1 && check_key(p, n, ks, m) != 0)
			return -1;
		/* the top level's "tasks": the value that follows is the mapping
		 * whose values only selects among */
		p->tasks_next = n == p->root && n->kind == YT_MAP && n->nkids % 2 == 1 &&
		    n->kids[n->nkids - 1]->kind == YT_SCALAR &&
		    strcmp(n->kids[n->nkids - 1]->value, "tasks") == 0;
	}
}

/* The children of n, with a key table that lives while n is parsed. */
static int
parse_children(struct ytp *p, struct yt_node *n, int depth)
{
	struct keyset ks = { NULL, 0, 0 };
	int rc;

	rc = parse_items(p, n, &ks, depth);
	free(ks.slot);
	return rc;
}

/* Add the node that starts with ev, and all it contains, to parent. */
static int
parse_node(struct ytp *p, yaml_event_t *ev, struct yt_node *parent, int depth)
{
	struct yt_node *n;
	enum yt_kind kind;

	if (ev->type == YAML_ALIAS_EVENT)
		return fail_at(p, ev->start_mark,
		    "aliases (*%s) are not allowed in a lockrun config",
		    (const char *)ev->data.alias.anchor);
	if (check_props(p, ev) != 0)
		return -1;
	if (depth > YT_MAX_DEPTH)
		return fail_at(p, ev->start_mark, "nesting deeper than %s levels", "32");
	switch (ev->type) {
	case YAML_SCALAR_EVENT:		kind = YT_SCALAR; break;
	case YAML_SEQUENCE_START_EVENT:	kind = YT_SEQ; break;
	case YAML_MAPPING_START_EVENT:	kind = YT_MAP; break;
	default:
		return fail_at(p, ev->start_mark, "unexpected YAML event%s", "");
	}
	if ((n = node_add(parent, kind, ev->start_mark)) == NULL)
		return lr_errf(p->e, EX_OSERR, "out of memory reading %s", p->path);
	if (depth == 0)
		p->root = n;
	if (p->tasks_next) {
		p->tasks_next = 0;
		p->tasks = n;
	}
	if (kind != YT_SCALAR)
		return parse_children(p, n, depth);
	n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	n->value = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	if (n->value == NULL)
		return lr_errf(p->e, EX_OSERR, "out of memory reading %s", p->path);
	if (strlen(n->value) != ev->data.scalar.length)
		return fail_at(p, ev->start_mark, "NUL bytes are not allowed%s", "");
	return 0;
}

/* Expect an event of type t next (stream and document framing). */
static int
expect(struct ytp *p, yaml_event_type_t t, yaml_event_t *ev)
{
	if (next_event(p, ev) != 0)
		return -1;
	yaml_mark_t m = ev->start_mark;

	if (ev->type == t)
		return 0;
	yaml_event_delete(ev);		/* zeroes *ev, marks included */
	return fail_at(p, m, "unexpected YAML structure%s", "");
}

static int
parse_stream(struct ytp *p, struct yt_node *holder)
{
	yaml_event_t ev;
	int rc;

	if (expect(p, YAML_STREAM_START_EVENT, &ev) != 0)
		return -1;
	yaml_event_delete(&ev);
	if (next_event(p, &ev) != 0)
		return -1;
	if (ev.type == YAML_STREAM_END_EVENT) {		/* empty file */
		yaml_event_delete(&ev);
		return 0;
	}
	yaml_event_delete(&ev);				/* document start */
	if (next_event(p, &ev) != 0)
		return -1;
	rc = parse_node(p, &ev, holder, 0);
	yaml_event_delete(&ev);
	if (rc != 0 || expect(p, YAML_DOCUMENT_END_EVENT, &ev) != 0)
		return -1;
	yaml_event_delete(&ev);
	if (next_event(p, &ev) != 0)
		return -1;
	rc = ev.type == YAML_STREAM_END_EVENT ? 0 : fail_at(p, ev.start_mark,
	    "only one YAML document is allowed in a lockrun config%s", "");
	yaml_event_delete(&ev);
	return rc;
}

int
yt_load(const char *path, const char *only, struct yt_node **root, struct lr_err *e)
{
	struct ytp p = { .path = path, .e = e, .only = only };
	struct yt_node holder = { .kind = YT_SEQ };
	const char *what;
	char why[64];
	int rc;

	*root = NULL;
	if ((p.fp = file_open_regular(path, &what)) == NULL)
		return lr_errf(e, EX_CONFIG, "%s: %s", path, file_why(what, why, sizeof(why)));
	if (!yaml_parser_initialize(&p.parser)) {
		fclose(p.fp);
		return lr_errf(e, EX_SOFTWARE, "libyaml: cannot create a parser");
	}
	yaml_parser_set_input(&p.parser, read_bounded, &p);
	rc = parse_stream(&p, &holder);		/* all YAML logic lives here */
	yaml_parser_delete(&p.parser);
	fclose(p.fp);
	if (rc == 0 && holder.nkids == 1)
		*root = holder.kids[0];
	else
		for (size_t i = 0; i < holder.nkids; i++)
			yt_free(holder.kids[i]);
	free(holder.kids);
	return rc;
}

void
yt_free(struct yt_node *n)
{
	if (n == NULL || n == &skipped)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		yt_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

const char *
yt_kind_name(const struct yt_node *n)
{
	if (n->kind == YT_MAP)
		return "a mapping";
	if (n->kind == YT_SEQ)
		return "a list";
	if (n->kind == YT_SKIPPED)
		return "something not read";
	return n->quoted || n->value[0] != '\0' ? "a string" : "nothing";
}

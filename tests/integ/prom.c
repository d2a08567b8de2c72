/* SPDX-License-Identifier: BSD-2-Clause */
/* prom.c -- a strict Prometheus text exposition parser (prom.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "prom.h"

static int
prom_fail(struct prom *p, int line, const char *what, const char *text)
{
	snprintf(p->why, sizeof(p->why), "line %d: %s: %.200s", line, what, text);
	return -1;
}

/* Length of a metric (colons allowed) or label name at s; 0 if none. */
static size_t
name_len(const char *s, int metric)
{
	size_t n = 0;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || (metric && s[0] == ':')))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || (metric && s[n] == ':'))
		n++;
	return n;
}

static int
family_of(struct prom *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nfam; i++)
		if (strlen(p->family[i]) == len && strncmp(p->family[i], name, len) == 0)
			return (int)i;
	if (p->nfam == 64 || len >= sizeof(p->family[0]))
		return -1;
	snprintf(p->family[p->nfam], sizeof(p->family[0]), "%.*s", (int)len, name);
	return (int)p->nfam++;
}

/* "# HELP name text" or "# TYPE name type"; each once, before samples. */
static int
prom_comment(struct prom *p, int ln, const char *line)
{
	int help = strncmp(line, "# HELP ", 7) == 0, type = strncmp(line, "# TYPE ", 7) == 0;
	const char *name = line + 7, *rest;
	size_t len;
	int f;

	if (!help && !type)
		return prom_fail(p, ln, "a comment that is neither HELP nor TYPE", line);
	if ((len = name_len(name, 1)) == 0 || name[len] != ' ')
		return prom_fail(p, ln, "bad metric name", line);
	if ((f = family_of(p, name, len)) < 0)
		return prom_fail(p, ln, "too many families", line);
	if ((help && p->helped[f]++) || (type && p->typed[f]++))
		return prom_fail(p, ln, "HELP or TYPE given twice", line);
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, p->family[f]) == 0)
			return prom_fail(p, ln, "HELP or TYPE after the family's samples", line);
	rest = name + len + 1;
	if (type && strcmp(rest, "counter") != 0 && strcmp(rest, "gauge") != 0 &&
	    strcmp(rest, "histogram") != 0 && strcmp(rest, "summary") != 0 &&
	    strcmp(rest, "untyped") != 0)
		return prom_fail(p, ln, "unknown type", line);
	if (type && strcmp(rest, "histogram") == 0)
		p->histogram[f] = 1;
	if (type && strcmp(rest, "counter") == 0 &&
	    (len < 6 || strncmp(name + len - 6, "_total", 6) != 0))
		return prom_fail(p, ln, "a counter's name must end in _total", line);
	for (const char *c = rest; help && *c; c++)
		if (*c == '\\' && c[1] != '\\' && c[1] != 'n')
			return prom_fail(p, ln, "bad escape in HELP", line);
		else if (*c == '\\')
			c++;
	return 0;
}

/* {name="value",...}: label names unique and not reserved, values with
 * only \\, \" and \n escaped. Advances *s past the '}'. */
static int
prom_labels(struct prom *p, int ln, const char **s, struct sample *out)
{
	const char *c = *s + 1;
	char names[16][64];
	int nl = 0;

	for (;;) {
		size_t len = name_len(c, 0);
		char value[256];
		size_t w = 0;

		if (len == 0 || len >= 64 || strncmp(c, "__", 2) == 0 || c[len] != '=' ||
		    c[len + 1] != '"')
			return prom_fail(p, ln, "bad label name", c);
		for (int i = 0; i < nl; i++)
			if (strlen(names[i]) == len && strncmp(names[i], c, len) == 0)
				return prom_fail(p, ln, "label given twice", c);
		if (nl == 16)
			return prom_fail(p, ln, "too many labels", c);
		snprintf(names[nl++], 64, "%.*s", (int)len, c);
		for (c += len + 2; *c != '"'; c++) {
			if (*c == '\0' || *c == '\n')
				return prom_fail(p, ln, "unterminated label value", *s);
			if (*c == '\\') {
				c++;
				if (*c != '\\' && *c != '"' && *c != 'n')
					return prom_fail(p, ln, "bad escape in a label value", *s);
			}
			if (w + 1 < sizeof(value))
				value[w++] = c[-1] == '\\' && *c == 'n' ? '\n' : *c;
		}
		value[w] = '\0';
		if (strcmp(names[nl - 1], "task") == 0)
			snprintf(out->task, sizeof(out->task), "%s", value);
		c++;
		if (*c == '}')
			break;
		if (*c != ',' || c[1] == '}')
			return prom_fail(p, ln, "',' or '}' expected", c);
		c++;
	}
	snprintf(out->labels, sizeof(out->labels), "%.*s", (int)(c - *s + 1), *s);
	*s = c + 1;
	return 0;
}

/* A float as Go's ParseFloat reads it, or NaN/+Inf/-Inf; then end. */
static int
prom_value(struct prom *p, int ln, const char *v, double *out)
{
	if (strcmp(v, "NaN") == 0 || strcmp(v, "+Inf") == 0 || strcmp(v, "-Inf") == 0) {
		*out = strcmp(v, "NaN") == 0 ? NAN : v[0] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	if (!matches(v, "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?$"))
		return prom_fail(p, ln, "bad value", v);
	*out = strtod(v, NULL);
	return 0;
}

/* The histogram family that sample s (name[0..len)) belongs to: NAME_bucket
 * with an le label, NAME_sum or NAME_count of a family typed histogram;
 * else -1. */
static int
histogram_of(const struct prom *p, const struct sample *s, size_t len)
{
	static const char *const suffix[] = { "_bucket", "_sum", "_count" };

	for (size_t k = 0; k < 3; k++) {
		size_t sl = strlen(suffix[k]);

		if (len <= sl || strcmp(s->name + len - sl, suffix[k]) != 0)
			continue;
		if (k == 0 && strstr(s->labels, "le=\"") == NULL)
			return -1;
		for (size_t i = 0; i < p->nfam; i++)
			if (p->histogram[i] && strlen(p->family[i]) == len - sl &&
			    strncmp(p->family[i], s->name, len - sl) == 0)
				return (int)i;
	}
	return -1;
}

/* A sample: name, labels, one space, value; no timestamp (lockrun writes
 * none). The family is typed and helped already, its samples are
 * together, the series is new. */
static int
prom_sample(struct prom *p, int ln, const char *line)
{
	struct sample *s = &p->s[p->n];
	const char *c = line;
	size_t len = name_len(c, 1);
	int f;

	if (p->n == 256)
		return prom_fail(p, ln, "too many samples", line);
	memset(s, 0, sizeof(*s));
	if (len == 0 || len >= sizeof(s->name))
		return prom_fail(p, ln, "bad metric name", line);
	snprintf(s->name, sizeof(s->name), "%.*s", (int)len, c);
	c += len;
	if (*c == '{' && prom_labels(p, ln, &c, s) != 0)
		return -1;
	if (*c != ' ')
		return prom_fail(p, ln, "one space before the value expected", line);
	if (prom_value(p, ln, c + 1, &s->value) != 0)
		return -1;
	if ((f = histogram_of(p, s, len)) < 0 &&
	    ((f = family_of(p, s->name, len)) < 0 || !p->typed[f] || !p->helped[f]))
		return prom_fail(p, ln, "sample before its HELP and TYPE", line);
	if (p->last_fam != f)
		for (size_t i = 0; i < p->n; i++)
			if (strcmp(p->s[i].name, s->name) == 0)
				return prom_fail(p, ln, "the family's samples are not together", line);
	p->last_fam = f;
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, s->name) == 0 && strcmp(p->s[i].labels, s->labels) == 0)
			return prom_fail(p, ln, "the same series twice", line);
	p->n++;
	return 0;
}

/* Parse text strictly: every line ends with '\n', no blank lines. */
int
prom_parse(const char *text, struct prom *p)
{
	int ln = 0;

	memset(p, 0, sizeof(*p));
	p->last_fam = -1;
	for (const char *c = text; *c; ) {
		const char *nl = strchr(c, '\n');
		char line[1024];
		int rc;

		ln++;
		if (nl == NULL)
			return prom_fail(p, ln, "no newline at the end", c);
		if ((size_t)(nl - c) >= sizeof(line))
			return prom_fail(p, ln, "line too long", c);
		snprintf(line, sizeof(line), "%.*s", (int)(nl - c), c);
		if (line[0] == '\0')
			return prom_fail(p, ln, "blank line", line);
		rc = line[0] == '#' ? prom_comment(p, ln, line) : prom_sample(p, ln, line);
		if (rc != 0)
			return -1;
		c = nl + 1;
	}
	return 0;
}

/* The value of name{task="task"}, or NaN when there is no such sample. */
double
prom_get(const struct prom *p, const char *name, const char *task)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, name) == 0 && strcmp(p->s[i].task, task) == 0)
			return p->s[i].value;
	return NAN;
}

void
prom_check(const char *text, struct prom *p)
{
	cr_assert(eq(int, prom_parse(text, p), 0), "%s\n%s", p->why, text);
	for (size_t i = 0; i < p->n; i++)
		cr_assert(isfinite(p->s[i].value), "%s{%s} is not finite", p->s[i].name,
		    p->s[i].task);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		char cmd[512];

		FILE *fp = fopen(scratch("metrics.prom"), "w");

		cr_assert(fp != NULL);
		fputs(text, fp);
		cr_assert(eq(int, fclose(fp), 0));
		snprintf(cmd, sizeof(cmd), "promtool check metrics < %s >%s 2>&1", scratch("metrics.prom"), scratch("promtool.out"));
		cr_assert(eq(int, system(cmd), 0), "promtool check metrics refused it: %s", file_peek(scratch("promtool.out")));
	}
}


double
prom_get_label(const struct prom *p, const char *name, const char *task,
    const char *label)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, name) == 0 && strcmp(p->s[i].task, task) == 0 &&
		    strstr(p->s[i].labels, label) != NULL)
			return p->s[i].value;
	return NAN;
}

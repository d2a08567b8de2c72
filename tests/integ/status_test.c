/* SPDX-License-Identifier: BSD-2-Clause */
/* status_test.c -- `lockrun status` against a real redis-server: held,
 * free and stranded locks, the last run, SCAN without a config, and each
 * format checked by parsing it (json.c; a strict Prometheus text parser
 * here). */
#include <sys/wait.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "json.h"

TestSuite(status, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* --- helpers ---------------------------------------------------------- */

/* The whole of what the last LR() wrote on stdout (r.out holds 4 KiB at
 * most); the caller frees it. */
static char *
last_stdout(void)
{
	FILE *fp = fopen(scratch("run.out"), "r");
	char *buf;
	long len;

	cr_assert(fp != NULL);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)len + 1);
	cr_assert(buf != NULL);
	cr_assert(eq(sz, fread(buf, 1, (size_t)len, fp), (size_t)len));
	fclose(fp);
	return buf;
}

/* A lockrun holding the lock of name as host, its command waiting at the
 * gate g (a new one each call); returns its pid once the command runs. */
static pid_t
hold(const char *name, const char *host, struct gate *g)
{
	static int seq;
	char gate_name[32];
	pid_t pid;

	snprintf(gate_name, sizeof(gate_name), "%d-", seq++);
	gate_open(g, gate_name);
	pid = LR_START("--redis", fx.url, "--host", host, "-k", name, "--", "sh", "-c",
	    gate_sh(g));
	gate_wait(g);
	return pid;
}

static void
release(pid_t pid, const struct gate *g)
{
	gate_release(g);
	cr_assert(eq(int, lr_wait(pid), 0));
}

/* --- JSON: every field there, with its type ------------------------------- */

struct field {
	const char	*name;
	const char	*type;		/* json_is() type */
	int		 nullable;
};

static const struct field top_fields[] = {
	{ "task", "string", 0 }, { "key", "string", 0 }, { "held", "bool", 0 },
	{ "stale", "bool", 0 }, { "holder", "object", 1 }, { "last_run", "object", 1 },
	{ "last_success", "string", 1 }, { "last_success_ms", "number", 1 },
};
static const struct field holder_fields[] = {
	{ "host", "string", 1 }, { "pid", "number", 1 }, { "token", "number", 1 },
	{ "since", "string", 1 }, { "since_ms", "number", 1 }, { "held_ms", "number", 1 },
	{ "ttl_ms", "number", 1 },
};
static const struct field last_fields[] = {
	{ "event", "string", 1 }, { "host", "string", 1 }, { "pid", "number", 1 },
	{ "slot", "string", 1 }, { "token", "number", 1 }, { "start", "string", 1 },
	{ "start_ms", "number", 1 }, { "end", "string", 1 }, { "end_ms", "number", 1 },
	{ "status", "number", 1 }, { "duration_ms", "number", 1 },
};

/* Is the field a time, written in ISO 8601 UTC? */
static int
is_time(const char *name)
{
	return strcmp(name, "since") == 0 || strcmp(name, "start") == 0 ||
	    strcmp(name, "end") == 0 || strcmp(name, "last_success") == 0;
}

/* Does obj have exactly these fields, each of its type (or null)? Numbers
 * must be integers; a time's string must be ISO 8601 UTC with ms and say
 * the same instant as its _ms twin. Returns NULL or what is wrong. */
static const char *
shape_problem(const struct json *obj, const struct field *f, size_t n)
{
	static char why[256];

	if (!json_is(obj, "object"))
		return "not an object";
	if (json_keys(obj) != n) {
		snprintf(why, sizeof(why), "%zu fields, expected %zu", json_keys(obj), n);
		return why;
	}
	for (size_t i = 0; i < n; i++) {
		const struct json *v = json_get(obj, f[i].name);
		double d;

		if (v == NULL || (!json_is(v, f[i].type) && !(f[i].nullable &&
		    json_is(v, "null")))) {
			snprintf(why, sizeof(why), "field %s: missing or not %s", f[i].name,
			    f[i].type);
			return why;
		}
		if (json_num(v, &d) == 0 && d != floor(d)) {
			snprintf(why, sizeof(why), "field %s: %g is not an integer", f[i].name, d);
			return why;
		}
		if (json_str(v) && is_time(f[i].name) && !matches(json_str(v),
		    "^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]"
		    "\\.[0-9]{3}Z$")) {
			snprintf(why, sizeof(why), "field %s: \"%s\" is not ISO 8601 UTC",
			    f[i].name, json_str(v));
			return why;
		}
	}
	return NULL;
}

/* The whole shape of one status line. */
static const char *
line_problem(const struct json *j)
{
	const char *why;
	const struct json *h = json_get(j, "holder"), *l = json_get(j, "last_run");

	if ((why = shape_problem(j, top_fields, 5 + 3)) != NULL)
		return why;
	if (json_is(h, "object") &&
	    (why = shape_problem(h, holder_fields, sizeof(holder_fields) /
	    sizeof(holder_fields[0]))) != NULL)
		return why;
	if (json_is(l, "object") &&
	    (why = shape_problem(l, last_fields, sizeof(last_fields) /
	    sizeof(last_fields[0]))) != NULL)
		return why;
	return NULL;
}

/* The lines of a --json output, parsed; at most 16. */
struct lines {
	struct json	*line[16];
	size_t		 n;
	char		 why[256];
};

/* Parse each line again and keep it (json_lines() frees its values). */
static int
keep_line(const struct json *j, void *arg)
{
	struct lines *ls = arg;
	const char *why = line_problem(j);

	if (why != NULL) {
		snprintf(ls->why, sizeof(ls->why), "%s", why);
		return -1;
	}
	return ls->n < 16 ? 0 : -1;
}

static void
parse_lines(const char *text, struct lines *ls)
{
	char err[256];
	const char *p = text;
	long n;

	memset(ls, 0, sizeof(*ls));
	n = json_lines(text, keep_line, ls, err, sizeof(err));
	cr_assert(n >= 0, "%s: %s\n%s", err, ls->why, text);
	for (long i = 0; i < n; i++) {
		const char *nl = strchr(p, '\n');
		char *one = strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		ls->line[ls->n++] = json_parse(one, err, sizeof(err));
		free(one);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

static void
free_lines(struct lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		json_free(ls->line[i]);
}

static double
num(const struct json *j, const char *key)
{
	double d = NAN;

	cr_assert(eq(int, json_num(json_get(j, key), &d), 0), "%s is not a number", key);
	return d;
}

/* A true/false field: 1 or 0; -1 when it is not a bool. */
static int
flag(const struct json *j, const char *key)
{
	int b = -1;

	if (json_bool(json_get(j, key), &b) != 0)
		return -1;
	return b;
}

/* --- Prometheus: a strict text exposition parser -------------------------- */

struct sample {
	char	name[128];
	char	labels[512];	/* name="value" pairs as written, for duplicates */
	char	task[256];	/* the task label, unescaped */
	double	value;
};

struct prom {
	struct sample	s[256];
	size_t		n;
	char		family[64][128];	/* families typed, in order */
	int		typed[64];
	int		helped[64];
	size_t		nfam;
	int		last_fam;		/* family of the last sample */
	char		why[512];
};

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
	if ((f = family_of(p, s->name, len)) < 0 || !p->typed[f] || !p->helped[f])
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
static int
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
static double
prom_get(const struct prom *p, const char *name, const char *task)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, name) == 0 && strcmp(p->s[i].task, task) == 0)
			return p->s[i].value;
	return NAN;
}

/* Parse text with prom_parse(), failing the test on an error; and with
 * promtool if it is on PATH. */
static void
prom_check(const char *text, struct prom *p)
{
	cr_assert(eq(int, prom_parse(text, p), 0), "%s\n%s", p->why, text);
	for (size_t i = 0; i < p->n; i++)
		cr_assert(isfinite(p->s[i].value), "%s{%s} is not finite", p->s[i].name,
		    p->s[i].task);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", scratch("run.out"));
		cr_assert(eq(int, system(cmd), 0), "promtool check metrics refused it");
	}
}

Test(status, prometheus_parser_refuses_what_it_should)
{
	static const char *const bad[] = {
		"x 1\n",
		"# TYPE x gauge\nx 1\n",
		"# HELP x h\n# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n",
		"# HELP x h\n# TYPE x gauge\nx{a=\"\\t\"} 1\n",
		"# HELP x h\n# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n",
		"# HELP x h\n# TYPE x gauge\n# TYPE x gauge\nx 1\n",
		"# HELP x h\n# TYPE x gauge\nx one\n",
		"# HELP x h\n# TYPE x gauge\nx 1",
		"# HELP x h\n# TYPE x gauge\n1x 1\n",
		"# HELP x h\n# TYPE x gauge\n# HELP y h\n# TYPE y gauge\nx 1\ny 1\nx{a=\"b\"} 1\n",
		"# HELP x h\n# TYPE x gauge\nx{__a=\"1\"} 1\n",
		"# HELP x h\n# TYPE x gauge\nx{a=\"1\",} 1\n",
		"# HELP x h\n# TYPE x gauge\nx  1\n",
		"# HELP x h\n# TYPE x gauge\n\nx 1\n",
		"# HELP x h\n# TYPE x meter\nx 1\n",
	};
	struct prom *p = malloc(sizeof(*p));

	cr_assert(p != NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert(eq(int, prom_parse(bad[i], p), -1), "accepted: %s", bad[i]);
	cr_assert(eq(int, prom_parse("# HELP x a \\\\ b\n# TYPE x gauge\n"
	    "x{a=\"q\\\"\\\\\\n\",b=\"\"} -1.5e3\nx 7\n", p), 0), "%s", p->why);
	cr_assert(eq(str, p->s[0].task, ""));
	free(p);
}

/* --- held, free, stranded --------------------------------------------------- */

Test(status, held_lock_shows_its_holder)
{
	struct result r;
	struct lines ls;
	const struct json *h, *l;
	struct gate g;
	pid_t pid = hold("job", "web1", &g);
	double since, start;

	LR(&r, "status", "--redis", fx.url, "--json", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	parse_lines(r.out, &ls);
	cr_assert(eq(sz, ls.n, 1));
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[0], "task")), "job"));
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[0], "key")), "lockrun:{job}"));
	cr_assert(eq(int, flag(ls.line[0], "held"), 1));
	cr_assert(eq(int, flag(ls.line[0], "stale"), 0));
	h = json_get(ls.line[0], "holder");
	cr_assert(json_is(h, "object"), "%s", r.out);
	cr_assert(eq(str, (char *)json_str(json_get(h, "host")), "web1"));
	cr_assert(eq(dbl, num(h, "pid"), (double)pid));
	cr_assert(num(h, "token") > 0);
	cr_assert(num(h, "ttl_ms") > 0 && num(h, "ttl_ms") <= 30000);
	cr_assert(num(h, "held_ms") >= 0);
	since = num(h, "since_ms");
	l = json_get(ls.line[0], "last_run");
	cr_assert(eq(str, (char *)json_str(json_get(l, "event")), "running"));
	cr_assert(eq(dbl, num(l, "token"), num(h, "token")));
	start = num(l, "start_ms");
	cr_assert(eq(dbl, since, start), "the hold starts when the run took the lock");
	cr_assert(json_is(json_get(l, "status"), "null"));
	cr_assert(json_is(json_get(l, "end"), "null"));
	free_lines(&ls);

	LR(&r, "status", "--redis", fx.url, "job");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.out, "^TASK +STATE +HOLDER +SINCE +HELD +TTL +TOKEN +LAST +BY +"
	    "SLOT +STARTED +EXIT +TOOK\n"), "%s", r.out);
	cr_assert(matches(r.out, "\njob +held +web1:[0-9]+ +[0-9-]{10}T[0-9:]{8}Z +[0-9]+m?s "
	    "+[0-9]+s +[0-9]+ +running +web1:[0-9]+ +- +[0-9-]{10}T[0-9:]{8}Z +- +-\n$"),
	    "%s", r.out);
	release(pid, &g);
}

Test(status, free_lock_without_history)
{
	struct result r;
	struct lines ls;

	LR(&r, "status", "--redis", fx.url, "--format", "json", "never-ran");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	parse_lines(r.out, &ls);
	cr_assert(eq(sz, ls.n, 1));
	cr_assert(eq(int, json_is(json_get(ls.line[0], "holder"), "null"), 1));
	cr_assert(eq(int, json_is(json_get(ls.line[0], "last_run"), "null"), 1));
	cr_assert(eq(int, json_is(json_get(ls.line[0], "last_success"), "null"), 1));
	free_lines(&ls);

	LR(&r, "status", "--redis", fx.url, "never-ran");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.out, "\nnever-ran +free( +-){11}\n$"), "%s", r.out);
}

/* A key lockrun would have written, left by a holder that died long ago
 * with a TTL that never ran out (set by hand, or a huge --ttl). */
static void
strand(const char *name)
{
	char key[128];

	snprintf(key, sizeof(key), "lockrun:{%s}", name);
	freeReplyObject(rcmd("SET %s %s PX %s", key,
	    "0123456789abcdef0123456789abcdef 1577836800000000 deadhost 4242 "
	    "2020-01-01T00:00:00.000Z", "86400000"));
}

Test(status, stranded_lock_is_stale)
{
	struct result r;
	struct lines ls;
	const struct json *h;
	const char *cfg = write_config("tasks:\n  old:\n    command: [true]\n"
	    "  fine:\n    command: [true]\n");

	strand("old");
	LR(&r, "status", "-c", cfg, "--stale-after", "1s");
	cr_assert(eq(int, r.status, 1), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: old: held by deadhost:4242 for [0-9dhms]+, "
	    "longer than --stale-after 1s\n$"), "%s", r.err);
	cr_assert(matches(r.out, "\nold +stale +deadhost:4242 +2020-01-01T00:00:00Z "), "%s",
	    r.out);
	cr_assert(matches(r.out, "\nfine +free "), "%s", r.out);

	LR(&r, "status", "-c", cfg, "--stale-after", "1s", "--json");
	cr_assert(eq(int, r.status, 1));
	parse_lines(r.out, &ls);
	cr_assert(eq(sz, ls.n, 2), "config order: %s", r.out);
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[0], "task")), "old"));
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[1], "task")), "fine"));
	cr_assert(eq(int, flag(ls.line[0], "stale"), 1));
	cr_assert(eq(int, flag(ls.line[1], "stale"), 0));
	cr_assert(eq(int, flag(ls.line[1], "held"), 0));
	h = json_get(ls.line[0], "holder");
	cr_assert(eq(str, (char *)json_str(json_get(h, "since")), "2020-01-01T00:00:00.000Z"));
	cr_assert(eq(dbl, num(h, "since_ms"), 1577836800000.0));
	cr_assert(eq(dbl, num(h, "token"), 1577836800000000.0));
	cr_assert(num(h, "held_ms") > 86400000.0, "held since 2020 by the server's clock");
	free_lines(&ls);

	LR(&r, "status", "-c", cfg, "--stale-after", "1s", "fine");
	cr_assert(eq(int, r.status, 0), "only the tasks named count");
}

/* A holder's host is what the stable key's value says: a value set by
 * hand may hold control bytes, which the table shows as '?' (out/table.c)
 * and JSON escapes. */
Test(status, holder_with_control_bytes_prints_escaped_in_the_table)
{
	static const char value[] = "0123456789abcdef0123456789abcdef 1577836800000000 "
	    "evil\x1b]0;owned\x07\x1b[2J 4242 2020-01-01T00:00:00.000Z";
	struct result r;
	struct lines ls;

	freeReplyObject(rcmd("SET lockrun:{ctl} %b PX 86400000", value, sizeof(value) - 1));
	LR(&r, "status", "--redis", fx.url, "ctl");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strchr(r.out, '\x1b') == NULL && strchr(r.out, '\x07') == NULL,
	    "no control byte reaches the terminal: %s", r.out);
	cr_assert(matches(r.out, "\nctl +held +evil\\?\\]0;owned\\?\\?\\[2J:4242 "), "%s",
	    r.out);

	LR(&r, "status", "--redis", fx.url, "--json", "ctl");
	parse_lines(r.out, &ls);
	cr_assert(eq(sz, ls.n, 1));
	cr_assert(eq(str, (char *)json_str(json_get(json_get(ls.line[0], "holder"), "host")),
	    "evil\x1b]0;owned\x07\x1b[2J"), "JSON keeps the bytes, escaped");
	free_lines(&ls);
}

Test(status, fresh_hold_is_not_stale)
{
	struct result r;
	struct gate g;
	pid_t pid = hold("fresh", "web2", &g);

	LR(&r, "status", "--redis", fx.url, "--stale-after", "1h", "fresh");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, r.err, ""));
	cr_assert(matches(r.out, "\nfresh +held +web2:"), "%s", r.out);
	release(pid, &g);
}

/* --- the last run ------------------------------------------------------------ */

Test(status, last_run_exit_status_and_last_success)
{
	struct result r;
	struct lines ls;
	const struct json *l;
	double ok_end;

	LR(&r, "--redis", fx.url, "--host", "cron1", "-k", "nightly", "--", "true");
	cr_assert(eq(int, r.status, 0));
	LR(&r, "status", "--redis", fx.url, "--json", "nightly");
	parse_lines(r.out, &ls);
	l = json_get(ls.line[0], "last_run");
	ok_end = num(l, "end_ms");
	cr_assert(eq(dbl, num(ls.line[0], "last_success_ms"), ok_end));
	free_lines(&ls);

	LR(&r, "--redis", fx.url, "--host", "cron2", "-k", "nightly", "--", "sh", "-c", "exit 3");
	cr_assert(eq(int, r.status, 3));
	LR(&r, "status", "--redis", fx.url, "--json", "nightly");
	cr_assert(eq(int, r.status, 0), "a failed run is not a stale lock");
	parse_lines(r.out, &ls);
	cr_assert(eq(int, json_is(json_get(ls.line[0], "holder"), "null"), 1));
	l = json_get(ls.line[0], "last_run");
	cr_assert(eq(str, (char *)json_str(json_get(l, "event")), "released"));
	cr_assert(eq(str, (char *)json_str(json_get(l, "host")), "cron2"));
	cr_assert(eq(dbl, num(l, "status"), 3.0));
	cr_assert(num(l, "duration_ms") >= 0);
	cr_assert(num(l, "end_ms") >= num(l, "start_ms"));
	cr_assert(num(l, "start_ms") >= ok_end);
	cr_assert(json_is(json_get(l, "slot"), "null"));
	cr_assert(eq(dbl, num(ls.line[0], "last_success_ms"), ok_end),
	    "the last success outlives a failed run");
	free_lines(&ls);

	LR(&r, "status", "--redis", fx.url, "nightly");
	cr_assert(matches(r.out, "\nnightly +free( +-){5} +released +cron2:[0-9]+ +- +"
	    "[0-9-]{10}T[0-9:]{8}Z +3 +[0-9]+m?s\n$"), "%s", r.out);
}

Test(status, json_escapes_names_and_reads_slots)
{
	struct result r;
	struct lines ls;
	const char *name = "we\"ird\\name";

	LR(&r, "--redis", fx.url, "--one-server", "--every", "1d", "-k", name, "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "status", "--redis", fx.url, "--json", name);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	parse_lines(r.out, &ls);
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[0], "task")), (char *)name));
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[0], "key")),
	    "lockrun:{we\"ird\\name}"));
	cr_assert(matches(json_str(json_get(json_get(ls.line[0], "last_run"), "slot")),
	    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T00:00:00Z$"), "%s", r.out);
	free_lines(&ls);
}

/* --- Prometheus ---------------------------------------------------------------- */

Test(status, prometheus_output_is_valid_and_says_what_happened)
{
	struct result r;
	struct prom *p = malloc(sizeof(*p));
	const char *odd = "q\"x\\y";
	struct gate g;
	char *out;
	pid_t pid;

	cr_assert(p != NULL);
	LR(&r, "--redis", fx.url, "-k", "ok", "--", "true");
	LR(&r, "--redis", fx.url, "-k", "bad", "--", "sh", "-c", "exit 3");
	LR(&r, "--redis", fx.url, "-k", odd, "--", "true");
	pid = hold("busy", "h", &g);
	LR(&r, "--redis", fx.url, "-k", "busy", "--", "true");	/* skipped */
	LR(&r, "--redis", fx.url, "-k", "busy", "--", "true");	/* skipped */

	LR(&r, "status", "--redis", fx.url, "--format", "prometheus", "ok", "bad", odd,
	    "busy", "idle");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	out = last_stdout();
	prom_check(out, p);
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", "busy"), 1.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", "idle"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", odd), 0.0), "%s", out);
	cr_assert(prom_get(p, "lockrun_lock_held_seconds", "busy") >= 0);
	cr_assert(isnan(prom_get(p, "lockrun_lock_held_seconds", "ok")));
	cr_assert(eq(dbl, prom_get(p, "lockrun_last_exit_status", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_last_exit_status", "bad"), 3.0));
	cr_assert(isnan(prom_get(p, "lockrun_last_exit_status", "busy")), "still running");
	cr_assert(isnan(prom_get(p, "lockrun_last_exit_status", "idle")), "never ran");
	cr_assert(prom_get(p, "lockrun_last_run_start_timestamp_seconds", "ok") > 1e9);
	cr_assert(prom_get(p, "lockrun_last_success_timestamp_seconds", "ok") >=
	    prom_get(p, "lockrun_last_run_start_timestamp_seconds", "ok"));
	cr_assert(isnan(prom_get(p, "lockrun_last_success_timestamp_seconds", "bad")));
	cr_assert(prom_get(p, "lockrun_last_duration_seconds", "bad") >= 0);
	cr_assert(eq(dbl, prom_get(p, "lockrun_history_runs", "busy"), 1.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_history_skips", "busy"), 2.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_history_runs", "ok"), 1.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_history_skips", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_history_runs", "idle"), 0.0));
	for (size_t i = 0; i < p->n; i++)
		cr_assert(strncmp(p->s[i].name, "lockrun_", 8) == 0, "%s", p->s[i].name);
	cr_assert(matches(out, "\nlockrun_lock_held\\{task=\"q\\\\\"x\\\\\\\\y\"\\} 0\n"),
	    "label value escaped: %s", out);
	free(out);
	free(p);
	release(pid, &g);
}

/* --- which tasks --------------------------------------------------------------- */

Test(status, scan_lists_locks_under_the_prefix_without_a_config)
{
	struct result r;
	struct lines ls;
	struct gate g;
	pid_t pid = hold("held", "h", &g);
	static const char *const want[] = { "held", "ran", "stranded", "wild*card" };

	LR(&r, "--redis", fx.url, "-k", "ran", "--", "true");
	LR(&r, "--redis", fx.url, "-k", "wild*card", "--", "true");
	strand("stranded");
	freeReplyObject(rcmd("SET lockrun:{fenceonly}:fence 5"));
	freeReplyObject(rcmd("SET lockrun:{slotonly}:slot:20260101T0000Z x"));
	freeReplyObject(rcmd("XADD lockrun:{histonly}:history * event ran"));
	freeReplyObject(rcmd("SET other:{elsewhere} x"));
	freeReplyObject(rcmd("SET lockrunner:{elsewhere} x"));

	LR(&r, "status", "--redis", fx.url, "--json");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	parse_lines(r.out, &ls);
	cr_assert(eq(sz, ls.n, 4), "%s", r.out);
	for (size_t i = 0; i < 4; i++)
		cr_assert(eq(str, (char *)json_str(json_get(ls.line[i], "task")),
		    (char *)want[i]), "sorted by name: %s", r.out);
	cr_assert(eq(int, json_is(json_get(ls.line[1], "holder"), "null"), 1));
	cr_assert(eq(int, json_is(json_get(ls.line[1], "last_run"), "object"), 1));
	free_lines(&ls);

	LR(&r, "status", "--redis", fx.url, "--prefix", "other:", "--json");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	parse_lines(r.out, &ls);
	cr_assert(eq(sz, ls.n, 1), "%s", r.out);
	cr_assert(eq(str, (char *)json_str(json_get(ls.line[0], "key")), "other:{elsewhere}"));
	free_lines(&ls);
	release(pid, &g);
}

Test(status, reads_every_task_with_three_commands)
{
	struct result r;
	char seen[4096];
	redisContext *mon;
	const char *cfg = write_config("tasks:\n  a:\n    command: [true]\n"
	    "  b:\n    command: [true]\n  c:\n    command: [true]\n");

	mon = monitor_start();
	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1 + 3 * 3), "%s", seen);
	cr_assert(matches(seen, "^\"TIME\"\n(\"GET\"\n\"PTTL\"\n\"HGETALL\"\n){3}$"), "%s", seen);
}

Test(status, unknown_task_is_64)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  a:\n    command: [true]\n");
	char want[512];

	LR(&r, "status", "-c", cfg, "a", "nosuch");
	cr_assert(eq(int, r.status, 64));
	snprintf(want, sizeof(want), "lockrun: nosuch: no such task in %s\n"
	    "Try 'lockrun status --help' for more information.\n", cfg);
	cr_assert(eq(str, r.err, want));
	cr_assert(eq(str, r.out, ""));
}

Test(status, conflicting_formats_are_64)
{
	struct result r;

	LR(&r, "status", "--redis", fx.url, "--json", "--format", "prometheus");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "^lockrun: --json and --format prometheus disagree\n"),
	    "%s", r.err);
}

Test(status, redis_down_is_69_in_one_line)
{
	struct result r;

	redis_halt(&fx);
	LR(&r, "status", "--redis", fx.url, "--connect-timeout", "2s", "x");
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "^lockrun: [^\n]+\n$"), "%s", r.err);
	cr_assert(eq(str, r.out, ""));
}

/* What status reads -- the top level, and the file as YAML -- must be
 * right; a mistake inside a task's settings does not blind it (the task is
 * listed; lockrun check reports the mistake). */
Test(status, bad_config_is_78)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  a:\n    command: [true]\nbogus: 1\n");

	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "^lockrun: [^\n]+\n$"), "%s", r.err);
	cfg = write_config("tasks:\n  a:\n    bogus: 1\n");
	LR(&r, "status", "-c", cfg, "--json");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "^\\{\"task\":\"a\""), "%s", r.out);
}

Test(status, refused_command_is_69_naming_the_task)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{odd}:last not-a-hash"));
	LR(&r, "status", "--redis", fx.url, "fine", "odd");
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "^lockrun: redis [^ ]+: status odd: [^\n]*WRONGTYPE[^\n]*\n$"),
	    "%s", r.err);
	cr_assert(eq(str, r.out, ""), "nothing printed when a task could not be read");
}

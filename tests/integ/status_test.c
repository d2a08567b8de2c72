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
#include "prom.h"

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
	{ "paused", "object", 1 }, { "missed", "object", 0 },
	{ "counts", "object", 1 },
};
static const struct field holder_fields[] = {
	{ "host", "string", 1 }, { "pid", "number", 1 }, { "token", "number", 1 },
	{ "since", "string", 1 }, { "since_ms", "number", 1 }, { "held_ms", "number", 1 },
	{ "ttl_ms", "number", 1 },
};
static const struct field pause_fields[] = {
	{ "host", "string", 0 }, { "user", "string", 0 }, { "since", "string", 1 },
	{ "since_ms", "number", 1 }, { "until", "string", 1 }, { "until_ms", "number", 1 },
	{ "reason", "string", 1 },
};
static const struct field counts_fields[] = {
	{ "runs", "number", 0 }, { "skipped_held", "number", 0 },
	{ "skipped_slot", "number", 0 }, { "failures", "number", 0 },
	{ "lost", "number", 0 }, { "timeouts", "number", 0 }, { "retries", "number", 0 },
};
static const struct field last_fields[] = {
	{ "event", "string", 1 }, { "host", "string", 1 }, { "pid", "number", 1 },
	{ "slot", "string", 1 }, { "token", "number", 1 }, { "start", "string", 1 },
	{ "start_ms", "number", 1 }, { "end", "string", 1 }, { "end_ms", "number", 1 },
	{ "status", "number", 1 }, { "duration_ms", "number", 1 }, { "reason", "string", 1 },
};

/* Is the field a time, written in ISO 8601 UTC? */
static int
is_time(const char *name)
{
	return strcmp(name, "since") == 0 || strcmp(name, "start") == 0 ||
	    strcmp(name, "end") == 0 || strcmp(name, "last_success") == 0 ||
	    strcmp(name, "until") == 0;
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
	const struct json *h = json_get(j, "holder"), *l = json_get(j, "last_run"),
	    *pz = json_get(j, "paused"), *c = json_get(j, "counts");

	if ((why = shape_problem(j, top_fields, 5 + 3 + 2 + 1)) != NULL)
		return why;
	if (json_is(c, "object") &&
	    (why = shape_problem(c, counts_fields, sizeof(counts_fields) /
	    sizeof(counts_fields[0]))) != NULL)
		return why;
	if (json_is(pz, "object") &&
	    (why = shape_problem(pz, pause_fields, sizeof(pause_fields) /
	    sizeof(pause_fields[0]))) != NULL)
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
		"# HELP x h\n# TYPE x counter\nx 1\n",
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

	LR(&r, "status", "--redis", fx.url, "-l", "job");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.out, "^TASK +STATE +HOLDER +SINCE +HELD +TTL +TOKEN +LAST +BY +"
	    "SLOT +STARTED +EXIT +TOOK +MISSED +RETRIES +NEXT\n"), "%s", r.out);
	cr_assert(matches(r.out, "\njob +held +web1:[0-9]+ +[0-9-]{10}T[0-9:]{8}Z +[0-9]+m?s "
	    "+[0-9]+s +[0-9]+ +running +web1:[0-9]+ +- +[0-9-]{10}T[0-9:]{8}Z +- +- +- +0 +-\n$"),
	    "%s", r.out);
	release(pid, &g);
}

Test(status, a_named_task_nothing_knows_is_1)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  never-ran:\n    command: [true]\n");

	LR(&r, "status", "--redis", fx.url, "--format", "json", "never-ran");
	cr_assert(eq(int, r.status, 1), "%s", r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(matches(r.err, "^lockrun: never-ran: no such task \\(no config names it, "
	    "and 127\\.0\\.0\\.1:[0-9]+ has no record of it under lockrun:\\{never-ran\\}\\)\n$"),
	    "%s", r.err);

	/* a task the config names is known, run or not */
	LR(&r, "status", "--redis", fx.url, "-c", cfg, "--format", "json", "never-ran");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "\"holder\":null") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"last_run\":null") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"last_success\":null") != NULL, "%s", r.out);
	LR(&r, "status", "--redis", fx.url, "-c", cfg, "never-ran");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.out, "\nnever-ran +free( +-){5}\n$"), "%s", r.out);
}

/* A holder that lost the server while its command ran could not record
 * the end: once its lease is gone, its last run is "unknown", not running
 * forever. Here the key's lease ran out under a "running" record. */
Test(status, a_run_whose_lease_ran_out_unrecorded_is_unknown)
{
	struct result r;
	struct gate g;
	pid_t pid = hold("silent", "h", &g);

	LR(&r, "status", "--redis", fx.url, "--json", "silent");
	cr_assert(strstr(r.out, "\"event\":\"running\"") != NULL, "%s", r.out);
	/* what a server that never heard the release holds once the lease ends */
	freeReplyObject(rcmd("DEL lockrun:{silent}"));
	LR(&r, "status", "--redis", fx.url, "--json", "silent");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "\"held\":false") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"event\":\"unknown\"") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"start_ms\":null") == NULL, "its start stays: %s", r.out);
	LR(&r, "status", "--redis", fx.url, "-l", "silent");
	cr_assert(matches(r.out, "\nsilent +free( +-){5} +unknown +h:[0-9]+ "), "%s", r.out);
	release(pid, &g);
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
	LR(&r, "status", "-c", cfg, "--stale-after", "1s", "-l");
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
	cr_assert(matches(r.out, "\nctl +held +evil\\?\\]0;owned\\?\\?\\[2J "), "%s",
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
	cr_assert(matches(r.out, "\nfresh +held +web2 "), "%s", r.out);
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

	/* under the table, where to look: a failed run's status */
	LR(&r, "status", "--redis", fx.url, "-l", "nightly");
	cr_assert(matches(r.out, "\nnightly +free( +-){5} +released +cron2:[0-9]+ +- +"
	    "[0-9-]{10}T[0-9:]{8}Z +3 +[0-9]+m?s +- +0 +-\n"
	    "nightly: last run failed: exited 3 \\(lockrun logs nightly\\)\n$"), "%s", r.out);

	/* ... or why lockrun ended it, in its words */
	LR(&r, "--redis", fx.url, "-k", "nightly", "--timeout", "1s", "--", "sleep", "30");
	cr_assert(eq(int, r.status, 124), "%s", r.err);
	LR(&r, "status", "--redis", fx.url, "--json", "nightly");
	parse_lines(r.out, &ls);
	l = json_get(ls.line[0], "last_run");
	cr_assert(eq(str, (char *)json_str(json_get(l, "reason")), "timeout: stopped after 1s"));
	free_lines(&ls);
	LR(&r, "status", "--redis", fx.url, "nightly");
	cr_assert(matches(r.out, "\nnightly: last run failed: timeout: stopped after 1s "
	    "\\(lockrun logs nightly\\)\n$"), "%s", r.out);
	LR(&r, "--redis", fx.url, "-k", "nightly", "--", "true");
	LR(&r, "status", "--redis", fx.url, "nightly");
	cr_assert(eq(ptr, strstr(r.out, "failed"), NULL), "a run that went well: %s", r.out);
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
	    "busy");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	out = last_stdout();
	prom_check(out, p);
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", "busy"), 1.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", odd), 0.0), "%s", out);
	cr_assert(prom_get(p, "lockrun_lock_held_seconds", "busy") >= 0);
	cr_assert(isnan(prom_get(p, "lockrun_lock_held_seconds", "ok")));
	cr_assert(eq(dbl, prom_get(p, "lockrun_last_exit_status", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_last_exit_status", "bad"), 3.0));
	cr_assert(isnan(prom_get(p, "lockrun_last_exit_status", "busy")), "still running");
	cr_assert(prom_get(p, "lockrun_last_run_start_timestamp_seconds", "ok") > 1e9);
	cr_assert(prom_get(p, "lockrun_last_success_timestamp_seconds", "ok") >=
	    prom_get(p, "lockrun_last_run_start_timestamp_seconds", "ok"));
	cr_assert(isnan(prom_get(p, "lockrun_last_success_timestamp_seconds", "bad")));
	cr_assert(prom_get(p, "lockrun_last_duration_seconds", "bad") >= 0);
	cr_assert(eq(dbl, prom_get(p, "lockrun_runs_total", "busy"), 1.0));
	cr_assert(eq(dbl, prom_get_label(p, "lockrun_skips_total", "busy", "reason=\"held\""),
	    2.0), "%s", out);
	cr_assert(eq(dbl, prom_get_label(p, "lockrun_skips_total", "busy",
	    "reason=\"slot_taken\""), 0.0), "%s", out);
	cr_assert(eq(dbl, prom_get(p, "lockrun_runs_total", "ok"), 1.0));
	cr_assert(eq(dbl, prom_get_label(p, "lockrun_skips_total", "ok", "reason=\"held\""),
	    0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_failures_total", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_failures_total", "bad"), 1.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lost_total", "bad"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_timeouts_total", "bad"), 0.0));
	cr_assert(matches(out, "\n# TYPE lockrun_runs_total counter\n"), "%s", out);
	cr_assert(matches(out, "\n# TYPE lockrun_lock_held_seconds gauge\n"), "%s", out);
	cr_assert(strstr(out, "lockrun_history_") == NULL, "the old families are gone");
	for (size_t i = 0; i < p->n; i++)
		cr_assert(strncmp(p->s[i].name, "lockrun_", 8) == 0, "%s", p->s[i].name);
	cr_assert(matches(out, "\nlockrun_lock_held\\{task=\"q\\\\\"x\\\\\\\\y\"\\} 0\n"),
	    "label value escaped: %s", out);
	free(out);
	free(p);
	release(pid, &g);
}

/* A task the config names that never ran: free, and its counters 0, so
 * that rate() has a start. */
Test(status, prometheus_counts_a_configured_task_that_never_ran_as_0)
{
	struct result r;
	struct prom *p = malloc(sizeof(*p));
	const char *cfg = write_config("tasks:\n  idle:\n    command: [true]\n");
	char *out;

	cr_assert(p != NULL);
	LR(&r, "status", "--redis", fx.url, "-c", cfg, "--format", "prometheus");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	out = last_stdout();
	prom_check(out, p);
	cr_assert(eq(dbl, prom_get(p, "lockrun_lock_held", "idle"), 0.0));
	cr_assert(isnan(prom_get(p, "lockrun_last_exit_status", "idle")), "never ran");
	cr_assert(eq(dbl, prom_get(p, "lockrun_runs_total", "idle"), 0.0));
	cr_assert(eq(dbl, prom_get(p, "lockrun_lost_total", "idle"), 0.0));
	free(out);
	free(p);
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

/* GET, PTTL, HGETALL (last run), HMGET (pause, missed), HGETALL (counters) */
Test(status, reads_every_task_with_five_commands)
{
	struct result r;
	char seen[4096];
	redisContext *mon;
	const char *cfg = write_config("tasks:\n  a:\n    command: [true]\n"
	    "  b:\n    command: [true]\n  c:\n    command: [true]\n");

	mon = monitor_start();
	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1 + 3 * 5), "%s", seen);
	cr_assert(matches(seen, "^\"TIME\"\n(\"GET\"\n\"PTTL\"\n\"HGETALL\"\n\"HMGET\"\n"
	    "\"HGETALL\"\n){3}$"), "%s", seen);
}

/* A name the config does not name, with no record under the prefix
 * either (one with records is shown: status_any_test.c). */
Test(status, a_task_the_config_does_not_name_is_1)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  a:\n    command: [true]\n");

	LR(&r, "status", "-c", cfg, "a", "nosuch");
	cr_assert(eq(int, r.status, 1));
	cr_assert(matches(r.err, "^lockrun: nosuch: no such task \\(no config names it, and "
	    "127\\.0\\.0\\.1:[0-9]+ has no record of it under lockrun:\\{nosuch\\}\\)\n$"),
	    "%s", r.err);
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

/* SPDX-License-Identifier: BSD-2-Clause */
/* logs.c -- `lockrun logs TASK`: a run's story, wherever it ran: its
 * header (host, slot, attempt, end, duration, status, reason) and the end
 * of its output, as the release kept them (release.lua, keep_story()); or
 * with -n the headers of the last runs kept. Everything read from the
 * server is made visible before it is shown (text_visible_put()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/ctx.h"
#include "core/tail.h"
#include "core/text.h"
#include "out/json.h"
#include "out/table.h"

#define EXIT_NONE	1	/* no such run kept */

/* A header's fields, as keep_story() writes them, in the table's order. */
enum { H_EVENT, H_HOST, H_PID, H_SLOT, H_ATTEMPT, H_STATUS, H_DURATION, H_END,
	H_REASON, NH };
static const char *const h_names[NH] = { "event", "host", "pid", "slot", "attempt",
	"status", "duration_ms", "end_ms", "reason" };

/* A run kept: its id (the fencing token, increasing), whether it failed,
 * and once read its header's fields (pointing into text, which it owns). */
struct run {
	long long	 id;
	int		 failed;
	char		*text;
	const char	*f[NH];
};

/* The stories' fields through the backend, with a word when it keeps
 * none. */
static int
fetch(struct lr_ctx *x, const struct lr_keys *k, const char *const *fields, size_t n,
    char **values, size_t *lens, struct lr_err *e)
{
	if (x->be.ops->stories == NULL)
		return lr_errf(e, EX_USAGE, "logs: the %s backend keeps no run stories yet",
		    x->be.ops->title);
	return x->be.ops->stories(&x->be, k, fields, n, values, lens, e);
}

/* The ids in list (space-separated) into runs[*n], marked failed. */
static int
ids_add(const char *list, int failed, struct run **runs, size_t *n)
{
	for (const char *p = list; p && *p; p += strspn(p, " ")) {
		long long id = strtoll(p, NULL, 10);
		struct run *r = realloc(*runs, (*n + 1) * sizeof(**runs));

		if (r == NULL)
			return -1;
		*runs = r;
		r[(*n)++] = (struct run){ .id = id, .failed = failed };
		p += strcspn(p, " ");
	}
	return 0;
}

static int
newest_first(const void *a, const void *b)
{
	long long x = ((const struct run *)a)->id, y = ((const struct run *)b)->id;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The runs kept, newest first: one round trip. */
static int
runs_read(struct lr_ctx *x, const struct lr_keys *k, struct run **runs, size_t *n,
    struct lr_err *e)
{
	const char *fields[] = { "ok", "failed" };
	char *v[2] = { NULL, NULL };
	size_t len[2];
	int rc = 0;

	*runs = NULL;
	*n = 0;
	if (fetch(x, k, fields, 2, v, len, e) != 0)
		return -1;
	if (ids_add(v[0], 0, runs, n) != 0 || ids_add(v[1], 1, runs, n) != 0)
		rc = lr_errf(e, EX_OSERR, "out of memory");
	free(v[0]);
	free(v[1]);
	if (*n > 1)
		qsort(*runs, *n, sizeof(**runs), newest_first);
	return rc;
}

/* r's header taken apart: "name value" lines. */
static void
header_parse(struct run *r)
{
	for (char *line = r->text; line && *line; ) {
		char *end = strchr(line, '\n'), *sp = strchr(line, ' ');

		if (end)
			*end = '\0';
		for (int i = 0; sp && i < NH; i++)
			if ((size_t)(sp - line) == strlen(h_names[i]) &&
			    strncmp(line, h_names[i], (size_t)(sp - line)) == 0)
				r->f[i] = sp + 1;
		line = end ? end + 1 : NULL;
	}
}

/* The headers of runs[0..n), and with output the first one's output:
 * one round trip. */
static int
headers_read(struct lr_ctx *x, const struct lr_keys *k, struct run *runs, size_t n,
    char **output, struct lr_err *e)
{
	size_t m = n + (output != NULL);
	char (*names)[40] = calloc(m, sizeof(*names)), **v = calloc(m, sizeof(*v));
	const char **fields = calloc(m, sizeof(*fields));
	size_t *lens = calloc(m, sizeof(*lens));
	int rc = -1;

	if (!names || !v || !fields || !lens) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m; i++) {
		snprintf(names[i], sizeof(names[i]), "%s:%lld", i < n ? "h" : "o",
		    runs[i < n ? i : 0].id);
		fields[i] = names[i];
	}
	if ((rc = fetch(x, k, fields, m, v, lens, e)) != 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		runs[i].text = v[i];
		header_parse(&runs[i]);
	}
	if (output)
		*output = v[n];
out:
	free(names);
	free(v);
	free(fields);
	free(lens);
	return rc;
}

static const char *
field(const struct run *r, int i)
{
	return r->f[i] && *r->f[i] ? r->f[i] : "-";
}

/* One header's fields as a JSON object's members, the output's too. */
static void
json_run(const struct run *r, const char *output)
{
	struct lr_json j;
	long long v;

	json_begin(&j, stdout, NULL, 0);
	json_num(&j, "run", r->id);
	json_bool(&j, "failed", r->failed);
	for (int i = 0; i < NH; i++) {
		if (r->f[i] == NULL || (i == H_SLOT && strcmp(r->f[i], "") == 0))
			continue;
		if (i != H_EVENT && i != H_HOST && i != H_SLOT && i != H_REASON &&
		    text_decimal(r->f[i], &v) == 0)
			json_num(&j, h_names[i], v);
		else
			json_str(&j, h_names[i], r->f[i]);
	}
	if (output)
		json_str(&j, "output", output);
	json_end(&j);
}

/* The header for people, then the output, each line marked with its
 * stream, each hook's lines under a line naming it (core/tail.h). */
static void
show(const struct run *r, const char *output)
{
	char end[TEXT_ISO_MAX];
	long long ms;

	printf("run %lld by ", r->id);
	text_visible_put(stdout, field(r, H_HOST), strlen(field(r, H_HOST)));
	printf(" %s, attempt %s\n", field(r, H_PID), field(r, H_ATTEMPT));
	printf("slot: %s\n", field(r, H_SLOT));
	if (text_decimal(field(r, H_END), &ms) == 0)
		printf("ended: %s, after %sms\n", text_iso(ms, TEXT_ISO_MS, end, sizeof(end)),
		    field(r, H_DURATION));
	printf("status: %s (%s)\n", field(r, H_STATUS), field(r, H_EVENT));
	printf("reason: ");
	text_visible_put(stdout, field(r, H_REASON), strlen(field(r, H_REASON)));
	printf("\n");
	if (output == NULL || *output != TAIL_SECTION)
		printf("--- output ---\n");
	for (const char *p = output; p && *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (*p == TAIL_SECTION && len > 1) {
			fputs("--- ", stdout);
			text_visible_put(stdout, p + 1, len - 1);
			fputs(" hook ---\n", stdout);
		} else if (*p == TAIL_SECTION)
			fputs("--- output ---\n", stdout);
		else {
			fputs(*p == '2' ? "err| " : "out| ", stdout);
			text_visible_put(stdout, p + 1, len > 0 ? len - 1 : 0);
			putchar('\n');
		}
		p += len + (nl != NULL);
	}
}

/* table_print()'s rows: the headers read. */
static void
row_cells(void *arg, size_t i, const char **cell)
{
	static char id[32];
	const struct run *r = &((const struct run *)arg)[i];

	snprintf(id, sizeof(id), "%lld", r->id);
	cell[0] = id;
	for (int f = 1; f < NH; f++)
		cell[f] = field(r, f);
	cell[NH] = field(r, H_EVENT);
}

/* The run the options ask for among runs[n] (newest first): its index,
 * or -1 with e. --slot reads every header to find it. */
static long long
pick(struct lr_ctx *x, const struct lr_keys *k, struct run *runs, size_t n,
    struct lr_err *e)
{
	long long want;

	for (size_t i = 0; x->cli.run_id && i < n; i++)
		if (text_decimal(x->cli.run_id, &want) == 0 && runs[i].id == want)
			return (long long)i;
	for (size_t i = 0; x->cli.failed && !x->cli.run_id && i < n; i++)
		if (runs[i].failed)
			return (long long)i;
	if (x->cli.slot && !x->cli.run_id && n > 0) {
		if (headers_read(x, k, runs, n, NULL, e) != 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (runs[i].f[H_SLOT] && strcmp(runs[i].f[H_SLOT], x->cli.slot) == 0)
				return (long long)i;
	}
	if (!x->cli.run_id && !x->cli.failed && !x->cli.slot && n > 0)
		return 0;
	return lr_errf(e, EXIT_NONE, "logs: %s: no such run kept", x->cli.cmd[0]);
}

/* The chosen run, read with its output, shown. */
static int
one(struct lr_ctx *x, const struct lr_keys *k, struct run *runs, size_t n,
    struct lr_err *e)
{
	long long i = pick(x, k, runs, n, e);
	struct run r;
	char *output = NULL;

	if (i < 0)
		return -1;
	r = (struct run){ .id = runs[i].id, .failed = runs[i].failed };
	if (headers_read(x, k, &r, 1, &output, e) != 0)
		return -1;
	if (r.text == NULL) {
		free(output);
		return lr_errf(e, EXIT_NONE, "logs: %s: run %lld is no longer kept",
		    x->cli.cmd[0], r.id);
	}
	if (x->cli.json)
		json_run(&r, output ? output : "");
	else
		show(&r, output);
	free(r.text);
	free(output);
	return 0;
}

int
verb_logs(struct lr_ctx *x, struct lr_err *e)
{
	static const char *const heads[NH + 1] = { "RUN", "HOST", "PID", "SLOT", "ATTEMPT",
		"STATUS", "DURATION_MS", "END_MS", "REASON", "EVENT" };
	struct run *runs = NULL;
	struct lr_keys k;
	const char *why;
	size_t n = 0;
	int rc;

	if (x->cli.cmd == NULL || x->cli.cmd[0] == NULL || x->cli.cmd[1] != NULL)
		return lr_errf(e, EX_USAGE, "logs: expected one task");
	if ((why = key_name_problem(x->cli.cmd[0])) != NULL)
		return lr_errf(e, EX_USAGE, "logs: task \"%s\" %s", x->cli.cmd[0], why);
	if (ctx_server(x, e) != 0)
		return -1;
	keys_build(&k, x->prefix, x->cli.cmd[0], (time_t)-1, 60000);
	if (ctx_connect(x, e) != 0 || runs_read(x, &k, &runs, &n, e) != 0) {
		free(runs);
		return -1;
	}
	if (x->cli.count != LR_UNSET) {
		n = n < (size_t)x->cli.count ? n : (size_t)x->cli.count;
		rc = headers_read(x, &k, runs, n, NULL, e);
		for (size_t i = 0; rc == 0 && x->cli.json && i < n; i++)
			json_run(&runs[i], NULL);
		if (rc == 0 && !x->cli.json)
			table_print(stdout, heads, NH + 1, n, row_cells, runs);
	} else
		rc = one(x, &k, runs, n, e);
	for (size_t i = 0; i < n; i++)
		free(runs[i].text);
	free(runs);
	if (rc == 0 && fflush(stdout) != 0)
		return lr_errf(e, EX_IOERR, "standard output: write failed");
	return rc;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_page.c -- what a lock server can put in front of readers: rows
 * and histories made of the input (its NUL-separated pieces, taken in
 * turn for a task's name, its holder's value, its last run's fields, its
 * pause, its history's entries, a failed reload's message), written as
 * the status page and as the Prometheus exposition, each then checked:
 *
 * - the page: valid UTF-8 holding no control character (C0 but newline,
 *   DEL, C1, bidi controls and marks); every '<' opens or closes a tag
 *   lockrun writes, none inside an attribute's value; the tags balance;
 *   every link is to "/", "/metrics" or a run's page, "/run/NAME/ID", its
 *   name percent-encoded;
 * - a run's page (its header and output the rest of the input, NUL bytes
 *   and all): as the page;
 * - the exposition: every line a HELP, a TYPE or a sample whose labels
 *   parse (name="value", the value's escapes \\ \" \n only) and whose
 *   value is a number; no control character.
 *
 * A failed check aborts, for libFuzzer and replay.c alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "fuzz.h"
#include "web/page.h"
#include "web/prom.h"
#include "web/rows.h"
#include "web/runpage.h"

#define NTASKS	3
#define NHIST	4

/* The input's pieces, one at a time; "" once it is used up. */
struct pieces {
	const char	*p, *end;
};

static const char *
next(struct pieces *in)
{
	const char *s = in->p;

	if (in->p >= in->end)
		return "";
	in->p += strlen(in->p) + 1;
	return s;
}

static void
fail(const char *what, const char *doc, size_t at)
{
	size_t from = at > 80 ? at - 80 : 0;

	fprintf(stderr, "fuzz_page: %s at byte %zu: ...%.160s\n", what, at, doc + from);
	abort();
}

/* Is the character at s, left bytes, one no reader may get raw? */
static size_t
hidden(const char *s, size_t left)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = text_control_len(s, left);

	if (len == 0 && left >= 3 && p[0] == 0xe2 && p[1] == 0x80 &&
	    (p[2] == 0x8e || p[2] == 0x8f))
		len = 3;
	if (len == 0 && left >= 2 && p[0] == 0xd8 && p[1] == 0x9c)
		len = 2;
	return len;
}

/* Valid UTF-8 with no control character but newlines. */
static void
check_text(const char *doc, size_t n, const char *what)
{
	for (size_t i = 0, len; i < n; i += len) {
		if ((len = text_utf8_len(doc + i, n - i)) == 0)
			fail(what, doc, i);
		if (doc[i] != '\n' && hidden(doc + i, n - i) != 0)
			fail(what, doc, i);
	}
}

static const char *const tags[] = { "html", "head", "meta", "title", "style", "body", "h1",
	"p", "table", "thead", "tbody", "tr", "th", "td", "span", "small", "br", "time",
	"svg", "rect", "a", "code", "pre" };
static const char *const voids[] = { "meta", "br" };

static int
in(const char *name, size_t len, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(set[i]) == len && strncmp(set[i], name, len) == 0)
			return 1;
	return 0;
}

/* Every '<' a tag of tags[] or the doctype, attributes quoted and free
 * of '<', the tags balanced. */
static void
check_html(const char *doc, size_t n)
{
	const char *stack[64];
	size_t depth = 0, i = 0;

	check_text(doc, n, "a control character or bad UTF-8 in the page");
	while (i < n) {
		const char *name;
		size_t len;
		int closing, self = 0;

		if (doc[i] != '<') {
			i++;
			continue;
		}
		if (strncmp(doc + i, "<!DOCTYPE html>", 15) == 0) {
			i += 15;
			continue;
		}
		closing = doc[i + 1] == '/';
		name = doc + i + 1 + closing;
		len = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (!in(name, len, tags, sizeof(tags) / sizeof(tags[0])))
			fail("a '<' that opens no tag of lockrun's", doc, i);
		i = (size_t)(name - doc) + len;
		while (i < n && doc[i] != '>') {	/* attributes */
			if (doc[i] == '<')
				fail("a '<' inside a tag", doc, i);
			if (doc[i] == '"') {
				const char *q = memchr(doc + i + 1, '"', n - i - 1);
				if (q == NULL || memchr(doc + i + 1, '<', (size_t)(q - doc - i - 1)))
					fail("an attribute value unclosed or holding '<'", doc, i);
				i = (size_t)(q - doc);
			}
			self = doc[i] == '/';
			i++;
		}
		if (i >= n)
			fail("a tag not closed", doc, i);
		i++;
		if (closing) {
			if (depth == 0 || strlen(stack[depth - 1]) != len ||
			    strncmp(stack[depth - 1], name, len) != 0)
				fail("a closing tag that closes no open one", doc, i);
			depth--;
		} else if (!self && !in(name, len, voids, sizeof(voids) / sizeof(voids[0]))) {
			for (size_t k = 0; k < sizeof(tags) / sizeof(tags[0]); k++)
				if (strlen(tags[k]) == len && strncmp(tags[k], name, len) == 0)
					stack[depth] = tags[k];
			if (++depth >= sizeof(stack) / sizeof(stack[0]))
				fail("tags nested too deep", doc, i);
			if (len == 5 && strncmp(name, "style", 5) == 0) {	/* CSS */
				const char *e = strstr(doc + i, "</style>");
				if (e == NULL)
					fail("style not closed", doc, i);
				i = (size_t)(e - doc);
			}
		}
	}
	if (depth != 0)
		fail("tags left open", doc, n);
}

/* Every href="..." one of lockrun's paths: "/", "/metrics", or
 * "/run/NAME/ID", NAME of unreserved characters and %XX, ID digits. */
static void
check_links(const char *doc, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const char *h = doc; (h = strstr(h, "href=\"")) != NULL && h < doc + n; ) {
		const char *v = h += 6, *q = strchr(v, '"'), *p;

		if (q == NULL)
			fail("a link not closed", doc, (size_t)(v - doc));
		if ((q - v == 1 && *v == '/') || (q - v == 8 && strncmp(v, "/metrics", 8) == 0))
			continue;
		if (strncmp(v, "/run/", 5) != 0)
			fail("a link to no path of lockrun's", doc, (size_t)(v - doc));
		for (p = v + 5; p < q && *p != '/'; p++) {
			if (*p == '%' && p + 2 < q && strchr(hex, p[1]) && strchr(hex, p[2]))
				p += 2;
			else if (*p == '%' || !strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~", *p))
				fail("a run's link with a name not percent-encoded", doc,
				    (size_t)(p - doc));
		}
		if (p == v + 5 || p >= q || strspn(p + 1, "0123456789") != (size_t)(q - p - 1) ||
		    q == p + 1)
			fail("a run's link not /run/NAME/ID", doc, (size_t)(v - doc));
	}
}

/* A metric or label name: [a-zA-Z_:][a-zA-Z0-9_:]*; its length. */
static size_t
name_len(const char *s)
{
	size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:"
	    "0123456789");

	return len > 0 && !(s[0] >= '0' && s[0] <= '9') ? len : 0;
}

static void
check_sample(const char *doc, const char *line)
{
	const char *p = line + name_len(line);
	char *end;

	if (p == line)
		fail("a sample with no metric name", doc, (size_t)(line - doc));
	if (*p == '{') {
		p++;
		while (*p != '}') {
			size_t k = name_len(p);
			if (k == 0 || p[k] != '=' || p[k + 1] != '"')
				fail("a label that does not parse", doc, (size_t)(p - doc));
			for (p += k + 2; *p != '"'; p++) {
				if (*p == '\n' || *p == '\0')
					fail("a label value not closed", doc, (size_t)(p - doc));
				if (*p == '\\' && (p[1] == '\\' || p[1] == '"' || p[1] == 'n'))
					p++;
				else if (*p == '\\')
					fail("a label value's unknown escape", doc, (size_t)(p - doc));
			}
			p++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				fail("labels not separated", doc, (size_t)(p - doc));
		}
		p++;
	}
	if (*p++ != ' ')
		fail("a sample with no space before its value", doc, (size_t)(p - doc));
	if (strncmp(p, "+Inf", 4) == 0 || strncmp(p, "-Inf", 4) == 0 || strncmp(p, "NaN", 3) == 0)
		return;
	strtod(p, &end);
	if (end == p || (*end != '\n' && *end != ' '))
		fail("a sample's value is not a number", doc, (size_t)(p - doc));
}

static void
check_prom(char *doc, size_t n)
{
	check_text(doc, n, "a control character or bad UTF-8 in the exposition");
	if (n > 0 && doc[n - 1] != '\n')
		fail("the exposition does not end a line", doc, n);
	for (char *line = doc; line < doc + n; line = strchr(line, '\n') + 1) {
		if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
			if (name_len(line + 7) == 0)
				fail("a HELP or TYPE with no name", doc, (size_t)(line - doc));
		} else
			check_sample(doc, line);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const last_keys[] = { "event", "host", "slot", "status",
		"start_ms", "duration_ms", "pid", "token" };
	static const char *const hist_keys[] = { "event", "host", "slot", "status",
		"duration_ms", "token" };
	char *buf = malloc(size + 1), *doc = NULL;
	struct pieces in = { buf, buf + size };
	struct lr_state st[NTASKS];
	struct row rows[NTASKS];
	struct lr_hist h[NTASKS];
	struct lr_hist_entry he[NTASKS][NHIST];
	struct crond_task_view tv[NTASKS];
	struct page_task pt[NTASKS];
	struct page pg;
	struct run_page rp;
	const char *names[NTASKS];
	size_t len = 0;
	FILE *fp;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	memset(st, 0, sizeof(st));
	memset(he, 0, sizeof(he));
	for (size_t i = 0; i < NTASKS; i++) {
		const char *v;

		names[i] = next(&in);
		st[i].value = (v = next(&in))[0] ? strdup(v) : NULL;
		st[i].ttl_ms = (long long)strlen(v) * 1000 - 1;
		for (size_t k = 0; k < sizeof(last_keys) / sizeof(last_keys[0]); k++)
			record_field_add(&st[i].last, last_keys[k], next(&in));
		st[i].paused = (v = next(&in))[0] ? strdup(v) : NULL;
		st[i].missed = (long long)strlen(next(&in));
		st[i].missed_slot = (v = next(&in))[0] ? strdup(v) : NULL;
		rows_read(&rows[i], names[i], &st[i], 1781524800000LL, (int)(i & 1), 60000);
		for (size_t j = 0; j < NHIST; j++) {
			he[i][j].at_ms = 1781524800000LL - (long long)j * 60000;
			for (size_t k = 0; k < sizeof(hist_keys) / sizeof(hist_keys[0]); k++)
				record_field_add(&he[i][j].fields, hist_keys[k], next(&in));
		}
		h[i] = (struct lr_hist){ .n = NHIST, .e = he[i] };
		rows_outcome(&rows[i], &h[i]);	/* an unlocked run's end, if any */
		tv[i] = (struct crond_task_view){ .name = names[i], .tz = next(&in),
		    .next_ms = i == 1 ? -1 : 1781524800000LL, .subminute = (int)(i & 1),
		    .running = i };
		pt[i] = (struct page_task){ .name = names[i], .row = &rows[i], .hist = &h[i],
		    .sched = i == 2 ? NULL : &tv[i] };
	}

	if ((fp = open_memstream(&doc, &len)) == NULL)
		abort();
	pg = (struct page){ .title = next(&in), .now_ms = 1781524800000LL,
	    .refresh_s = PAGE_REFRESH_S, .tasks = pt, .n = NTASKS,
	    .total = NTASKS + (size & 1) * 5, .problem = size & 2 ? next(&in) : NULL,
	    .reload_error = size & 4 ? next(&in) : NULL, .reload_error_ms = 1781524700000LL,
	    .linked = !(size & 8) };
	triage_count(rows, NTASKS, pg.count);
	page_write(fp, &pg);
	fclose(fp);
	check_html(doc, len);
	check_links(doc, len);
	free(doc);

	/* a run's page: the header a piece, the output the rest */
	doc = NULL;
	if ((fp = open_memstream(&doc, &len)) == NULL)
		abort();
	rp.header = next(&in);
	rp.header_len = strlen(rp.header);
	rp.output = in.p < in.end ? in.p : NULL;
	rp.output_len = in.p < in.end ? (size_t)(in.end - in.p) : 0;
	rp.title = pg.title;
	rp.task = names[0];
	rp.id = (long long)size;
	run_page_write(fp, &rp);
	fclose(fp);
	check_html(doc, len);
	check_links(doc, len);
	free(doc);

	doc = NULL;
	if ((fp = open_memstream(&doc, &len)) == NULL)
		abort();
	prom_tasks_print(rows, NTASKS, fp);
	prom_sched_print(&(struct crond_view){ .tasks = tv, .ntasks = NTASKS }, fp);
	fclose(fp);
	check_prom(doc, len);
	free(doc);

	for (size_t i = 0; i < NTASKS; i++) {
		record_state_free(&st[i]);
		for (size_t j = 0; j < NHIST; j++)
			record_fields_free(&he[i][j].fields);
	}
	free(buf);
	return 0;
}

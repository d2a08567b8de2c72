/* SPDX-License-Identifier: BSD-2-Clause */
/* runpage.c -- one run's page (runpage.h): what `lockrun logs TASK --run
 * ID` prints, for a browser. Nothing read from the lock server is written
 * but through html_escape(). */
#include <stdio.h>
#include <string.h>

#include "core/tail.h"
#include "core/text.h"
#include "web/html.h"
#include "web/runpage.h"

static const char css[] =
	"body{font:15px/1.4 system-ui,sans-serif;margin:1em;color:#1b1b1b;background:#fafafa}"
	"h1{font-size:1.3em;margin:0 0 .5em}.failed{color:#c62828}.ok{color:#2e7d32}"
	"table{border-collapse:collapse;margin:0 0 1em}"
	"th,td{text-align:left;padding:.2em .6em;border-bottom:1px solid #ddd;"
	"vertical-align:top}th{font-size:.85em;color:#555}"
	"pre{background:#fff;border:1px solid #ddd;padding:.5em;overflow-x:auto;"
	"white-space:pre-wrap;overflow-wrap:anywhere}.err{color:#c62828}"
	".ctl{color:#c62828;font-size:.85em}small{color:#555}.section{color:#555;font-weight:bold}";

/* The value of the header's field name, into *v and *vlen; 0 if there. */
static int
header_field(const struct run_page *r, const char *name, const char **v, size_t *vlen)
{
	size_t n = strlen(name);

	for (const char *p = r->header, *end = p + r->header_len; p && p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len > n && strncmp(p, name, n) == 0 && p[n] == ' ') {
			*v = p + n + 1;
			*vlen = len - n - 1;
			return 0;
		}
		p += len + 1;
	}
	return -1;
}

/* Did the run fail: an end other than "released", or a status other
 * than 0? Unknown (no such fields): no. */
static int
failed(const struct run_page *r)
{
	const char *ev, *st;
	size_t evn, stn;

	if (header_field(r, "event", &ev, &evn) != 0)
		return 0;
	return !(evn == 8 && strncmp(ev, "released", 8) == 0) ||
	    (header_field(r, "status", &st, &stn) == 0 && !(stn == 1 && *st == '0'));
}

/* The header's fields, each a row, end_ms as an instant too. */
static void
header_table(FILE *fp, const struct run_page *r)
{
	fputs("<table class=\"header\">", fp);
	for (const char *p = r->header, *end = p + r->header_len; p && p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p), k;
		char num[32], iso[TEXT_ISO_MAX];
		long long ms;

		sp = memchr(p, ' ', len);
		k = sp ? (size_t)(sp - p) : len;
		fputs("<tr><th>", fp);
		html_escape(fp, p, k, 0);
		fputs("</th><td>", fp);
		if (sp)
			html_escape(fp, sp + 1, len - k - 1, 0);
		if (sp && k == 6 && strncmp(p, "end_ms", 6) == 0 && len - k - 1 < sizeof(num)) {
			snprintf(num, sizeof(num), "%.*s", (int)(len - k - 1), sp + 1);
			if (text_decimal(num, &ms) == 0)
				fprintf(fp, " <small>(%s)</small>",
				    text_iso(ms, TEXT_ISO_MS, iso, sizeof(iso)));
		}
		fputs("</td></tr>", fp);
		p += len + 1;
	}
	fputs("</table>\n", fp);
}

/* The output, a line each: "1" the standard output's, "2" the standard
 * error's, marked; a hook's lines under a line naming it (core/tail.h). */
static void
output_lines(FILE *fp, const struct run_page *r)
{
	if (r->output == NULL || r->output_len == 0) {
		fputs("<p class=\"output none\">No output kept.</p>\n", fp);
		return;
	}
	fputs("<pre class=\"output\">", fp);
	for (const char *p = r->output, *end = p + r->output_len; p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int err = *p == '2';

		if (*p == TAIL_SECTION) {
			fputs("<span class=\"section\">--- ", fp);
			if (len > 1)
				html_escape(fp, p + 1, len - 1, 0);
			fputs(len > 1 ? " hook ---</span>\n" : "output ---</span>\n", fp);
			p += len + 1;
			continue;
		}
		fputs(err ? "<span class=\"line err\">" : "<span class=\"line out\">", fp);
		html_escape(fp, p + 1, len > 0 ? len - 1 : 0, 0);
		fputs("</span>\n", fp);
		p += len + 1;
	}
	fputs("</pre>\n", fp);
}

void
run_page_write(FILE *fp, const struct run_page *r)
{
	size_t tlen = strlen(r->task);
	int bad = failed(r);

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>", fp);
	html_escape(fp, r->task, tlen, 1);
	fprintf(fp, ", run %lld: ", r->id);
	html_escape(fp, r->title, r->title ? strlen(r->title) : 0, 1);
	fprintf(fp, "</title><style>%s</style></head>\n<body><p><a href=\"/\">", css);
	html_escape(fp, r->title, r->title ? strlen(r->title) : 0, 0);
	fputs("</a></p><h1>", fp);
	html_escape(fp, r->task, tlen, 0);
	fprintf(fp, ", run %lld: <span class=\"%s\">%s</span></h1>\n", r->id,
	    bad ? "failed" : "ok", bad ? "failed" : "ok");
	header_table(fp, r);
	output_lines(fp, r);
	fputs("</body></html>\n", fp);
}

const char *
run_page_task(const struct crond_view *v, const char *rest, long long *id)
{
	const char *slash = strrchr(rest, '/');
	size_t n;

	if (slash == NULL || text_decimal(slash + 1, id) != 0 || *id <= 0)
		return NULL;
	n = (size_t)(slash - rest);
	for (size_t i = 0; i < v->ntasks; i++)
		if (strlen(v->tasks[i].name) == n && strncmp(v->tasks[i].name, rest, n) == 0)
			return v->tasks[i].name;
	return NULL;
}

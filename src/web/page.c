/* SPDX-License-Identifier: BSD-2-Clause */
/* page.c -- the status page (page.h): a line counting the tasks in
 * trouble, then a table of the tasks, each with its state, its last run,
 * its next fire time in its zone, and a strip of its recent runs across
 * the fleet, one mark per run coloured by its result, each with a <title>
 * the browser shows on hover and, served, a link to the run's page
 * (runpage.c), under a list of the newest failed runs. It loads itself again (a meta refresh: no
 * script). Readable on a phone: the table turns into one block per task
 * on a narrow screen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "web/html.h"
#include "web/page.h"

#define MARK_W		8	/* a run's mark, in SVG units */
#define MARK_GAP	3
#define MARK_H		22

static const char css[] =
	"body{font:15px/1.4 system-ui,sans-serif;margin:1em;color:#1b1b1b;background:#fafafa}"
	"h1{font-size:1.3em;margin:0 0 .2em}.meta{color:#555;margin:0 0 1em}"
	".summary{font-size:1.1em;font-weight:600;margin:0 0 .2em}"
	".problem{background:#fdecea;border-left:4px solid #c62828;padding:.5em}"
	"table{border-collapse:collapse;width:100%}"
	"th,td{text-align:left;padding:.4em .6em;border-bottom:1px solid #ddd;vertical-align:top}"
	"th{font-size:.85em;color:#555}.name{font-weight:600;overflow-wrap:break-word}"
	".st-running{color:#1565c0}.st-stale{color:#c62828}.st-paused{color:#ef6c00}"
	".r-ok{color:#2e7d32}"
	".r-fail,.r-lost{color:#c62828}small{color:#555}"
	"svg .ok{fill:#2e7d32}svg .fail{fill:#c62828}svg .lost{fill:#6a1b9a}"
	"svg .skip{fill:#9e9e9e}svg .running{fill:#1565c0}svg .unknown{fill:#ff8f00}"
	".legend span{display:inline-block;margin-right:1em}time{white-space:nowrap}"
	"a.run{color:inherit}.failed a{color:#c62828}"
	".ctl{color:#c62828;font-size:.85em}.more{background:#fff8e1;padding:.5em}"
	"@media (max-width:40em){thead{display:none}table,tbody,tr,td{display:block}"
	"tr{border-bottom:2px solid #ccc;padding:.3em 0}td{border:0;padding:.15em 0}"
	"td[data-label]::before{content:attr(data-label) \": \";color:#555;font-size:.85em}}";

static void
esc(FILE *fp, const char *s)
{
	html_escape(fp, s, s ? strlen(s) : 0, 0);
}

/* The same for an attribute's value, and for SVG's <title>, which shows
 * its text only. */
static void
esc_attr(FILE *fp, const char *s)
{
	html_escape(fp, s, s ? strlen(s) : 0, 1);
}

/* An instant, kept on one line. */
static void
iso(FILE *fp, long long ms)
{
	char b[TEXT_ISO_MAX];

	text_iso(ms, TEXT_ISO_S, b, sizeof(b));
	fprintf(fp, "<time datetime=\"%s\">%s</time>", b, b);
}

/* An instant, and how far it is from now: "(3 min ago)", "(in 12 s)". */
static void
when(FILE *fp, long long ms, long long now_ms)
{
	char rel[DURATION_RELATIVE_MAX];

	iso(fp, ms);
	fprintf(fp, " <small class=\"rel\">(%s)</small>",
	    duration_relative(ms - now_ms, rel, sizeof(rel)));
}

/* "1m5s" for people: whole seconds from 1s up, else ms. */
static const char *
took(long long ms, char *buf, size_t n)
{
	return duration_format(ms >= 1000 ? ms / 1000 * 1000 : ms, buf, n);
}

/* The state cell: running on HOST since T, stale, or free; and paused by
 * whom, until when, why. */
static void
state_cell(FILE *fp, const struct row *w, const struct crond_task_view *t, long long now)
{
	fputs("<td class=\"state\" data-label=\"State\">", fp);
	if (w->held) {
		fprintf(fp, "<span class=\"st-%s\">%s</span> on ", w->stale ? "stale" : "running",
		    w->phase == KEY_UNLOCKED ? "stopping" : w->phase == KEY_RELEASED ?
		    "held (min-hold)" : "running");
		esc(fp, w->host[0] ? w->host : "?");
		if (w->since_ms != ABSENT) {
			fputs(" since ", fp);
			when(fp, w->since_ms, now);
		}
	} else
		fputs("idle", fp);
	if (w->paused) {	/* `lockrun pause`: who, until when, why */
		fputs("<br><span class=\"st-paused\">paused</span> by ", fp);
		esc(fp, w->p_user);
		fputc('@', fp);
		esc(fp, w->p_host);
		if (w->p_until != ABSENT) {
			fputs(" until ", fp);
			when(fp, w->p_until, now);
		}
		if (w->p_reason && w->p_reason[0]) {
			fputs(": ", fp);
			esc(fp, w->p_reason);
		}
	}
	if (w->missed > 0 && w->missed_ms != ABSENT) {	/* slots that ran nowhere */
		fprintf(fp, "<br><span class=\"st-stale\">%lld missed</span>, the last ",
		    w->missed);
		when(fp, w->missed_ms, now);
	}
	if (t && t->running)
		fprintf(fp, "<br><small>%zu run%s in progress from this scheduler</small>",
		    t->running, t->running == 1 ? "" : "s");
	fputs("</td>", fp);
}

/* The last run: its result, when, where, how long. A run that lost its
 * lock says so (lost, unlocked, unknown) with the status its end gave,
 * if any (rows_outcome(): 143 for a tree stopped by SIGTERM). */
static void
last_cell(FILE *fp, const struct row *w, long long now)
{
	char d[32];
	unsigned trouble = triage_of(w);
	int running = w->l_event && strcmp(w->l_event, "running") == 0;
	const char *r = !w->has_last ? NULL : running ? "running" :
	    trouble & 1u << TRIAGE_LOST ? "lost" : w->l_status == 0 ? "ok" : "fail";

	fputs("<td class=\"last\" data-label=\"Last run\">", fp);
	if (w->error) {		/* this task's records could not be read */
		fputs("<span class=\"result r-fail\">unreadable</span>: ", fp);
		esc(fp, w->error);
		fputs("</td>", fp);
		return;
	}
	if (r == NULL) {
		fputs("never ran</td>", fp);
		return;
	}
	fprintf(fp, "<span class=\"result r-%s\">", r);
	if (running || w->l_status == ABSENT)
		esc(fp, w->l_event ? w->l_event : "?");
	else if (strcmp(r, "lost") == 0) {	/* its event: lost, or how it lost */
		esc(fp, w->l_event);
		fprintf(fp, " (exit %lld)", w->l_status);
	} else
		fprintf(fp, "%s (exit %lld)", r, w->l_status);
	fputs("</span>", fp);
	if (w->l_start != ABSENT) {
		fputs(" at ", fp);
		when(fp, w->l_start, now);
	}
	if (w->l_host) {
		fputs(" on ", fp);
		esc(fp, w->l_host);
	}
	if (!running && w->l_duration != ABSENT)
		fprintf(fp, ", took %s", took(w->l_duration, d, sizeof(d)));
	fputs("</td>", fp);
}

/* The next fire time as its zone's clock reads it, to the second for a
 * task whose fire times can fall off the minute, how far off it is, and
 * in UTC. */
static void
next_cell(FILE *fp, const struct crond_task_view *t, long long now)
{
	char wall[TEXT_ISO_MAX], rel[DURATION_RELATIVE_MAX];

	fputs("<td class=\"next\" data-label=\"Next\">", fp);
	if (t == NULL || t->next_ms < 0) {
		fputs("-</td>", fp);
		return;
	}
	text_iso(t->next_ms + t->next_offset_s * 1000LL, TEXT_ISO_S, wall, sizeof(wall));
	wall[10] = ' ';
	wall[t->subminute ? 19 : 16] = '\0';	/* "2026-06-15 12:00[:10]" */
	fprintf(fp, "%s ", wall);
	esc(fp, t->tz && *t->tz ? t->tz : "local time");
	fprintf(fp, " <small class=\"rel\">(%s)</small><br><small>",
	    duration_relative(t->next_ms - now, rel, sizeof(rel)));
	iso(fp, t->next_ms);	/* and in UTC */
	fputs("</small></td>", fp);
}

/* Entry e's mark: its class, or NULL for an entry that is no mark (a
 * start whose end is in the history too, an unlock). */
static const char *
mark_class(const struct lr_hist *h, size_t i, const struct row *w)
{
	const struct lr_fields *f = &h->e[i].fields;
	const char *ev = record_field_get(f, "event"), *tok = record_field_get(f, "token"), *st;

	if (ev == NULL)
		return NULL;
	if (strncmp(ev, "skipped", 7) == 0)
		return "skip";
	if (strcmp(ev, "lost") == 0)
		return "lost";
	if (rows_ends_run(ev))
		return (st = record_field_get(f, "status")) && strcmp(st, "0") == 0 &&
		    strcmp(ev, "released") == 0 ? "ok" : "fail";
	if (strcmp(ev, "ran") != 0)
		return NULL;
	for (size_t j = 0; j < i; j++) {	/* its end among the newer entries? */
		const char *t2 = record_field_get(&h->e[j].fields, "token");
		const char *e2 = record_field_get(&h->e[j].fields, "event");
		if (tok && t2 && rows_ends_run(e2) && strcmp(tok, t2) == 0)
			return NULL;
	}
	return w->held && tok && w->token != ABSENT && atoll(tok) == w->token ?
	    "running" : "unknown";
}

/* One mark's title: host, slot, duration, status. */
static void
mark_title(FILE *fp, const struct lr_hist_entry *he, const char *cls)
{
	const struct lr_fields *f = &he->fields;
	const char *host = record_field_get(f, "host"), *slot = record_field_get(f, "slot");
	const char *dur = record_field_get(f, "duration_ms"), *st = record_field_get(f, "status");
	long long ms;
	char d[32];

	fputs("<title>", fp);
	esc_attr(fp, record_field_get(f, "event"));
	fputs(" on ", fp);
	esc_attr(fp, host ? host : "?");
	fputs(", ", fp);
	if (slot) {
		fputs("slot ", fp);
		esc_attr(fp, slot);
	} else {
		char b[TEXT_ISO_MAX];
		fputs(text_iso(he->at_ms, TEXT_ISO_S, b, sizeof(b)), fp);
	}
	if (dur && text_decimal(dur, &ms) == 0)
		fprintf(fp, ", took %s", took(ms, d, sizeof(d)));
	if (st && strcmp(cls, "skip") != 0) {
		fputs(", exit ", fp);
		esc_attr(fp, st);
	}
	fputs("</title>", fp);
}

/* Entry he's run id, its token, when cls is the mark of a run that
 * ended (its story kept at its end); 0: none to link to. */
static long long
run_id(const struct lr_hist_entry *he, const char *cls)
{
	const char *tok = record_field_get(&he->fields, "token");
	long long id;

	if (cls == NULL || (strcmp(cls, "ok") != 0 && strcmp(cls, "fail") != 0 &&
	    strcmp(cls, "lost") != 0))
		return 0;
	return tok && text_decimal(tok, &id) == 0 && id > 0 ? id : 0;
}

/* An <a> to run id's page, of class cls, when linked and id is one. 1 if
 * written (the caller closes it), else 0. */
static int
run_link(FILE *fp, const char *name, long long id, const char *cls, int linked)
{
	if (!linked || id == 0)
		return 0;
	fprintf(fp, "<a class=\"run %s\" href=\"", cls);
	html_run_href(fp, name, id);
	fputs("\">", fp);
	return 1;
}

/* The newest PAGE_FAILED failed runs in the history, newest first: how
 * each ended, when, where, each a link to its page when linked. */
static void
failed_list(FILE *fp, const char *name, const struct lr_hist *h, const struct row *w,
    int linked)
{
	size_t k = 0;

	for (size_t i = 0; i < h->n && k < PAGE_FAILED; i++) {
		const struct lr_fields *f = &h->e[i].fields;
		const char *cls = mark_class(h, i, w), *ev, *st, *host;
		int a;

		if (cls == NULL || (strcmp(cls, "fail") != 0 && strcmp(cls, "lost") != 0))
			continue;
		ev = record_field_get(f, "event"), st = record_field_get(f, "status");
		host = record_field_get(f, "host");
		fputs(k++ == 0 ? "<small class=\"failed\">Failed: " : ", ", fp);
		a = run_link(fp, name, run_id(&h->e[i], cls), cls, linked);
		if (strcmp(ev, "released") != 0)	/* lost, stopped-timeout (exit 143) */
			esc(fp, ev);
		if (st) {
			fputs(strcmp(ev, "released") != 0 ? " (exit " : "exit ", fp);
			esc(fp, st);
			fputs(strcmp(ev, "released") != 0 ? ")" : "", fp);
		}
		fputs(" at ", fp);
		iso(fp, h->e[i].at_ms);
		fputs(" on ", fp);
		esc(fp, host ? host : "?");
		if (a)
			fputs("</a>", fp);
	}
	if (k > 0)
		fputs("</small><br>", fp);
}

/* The strip: the failed runs listed first, then every run in the
 * history, oldest on the left, each one that ended a link to its page
 * when linked. */
static void
runs_cell(FILE *fp, const char *name, const struct lr_hist *h, const struct row *w,
    int linked)
{
	size_t n = 0, x = 0;

	fputs("<td class=\"runs\" data-label=\"Recent runs\">", fp);
	for (size_t i = 0; h && i < h->n; i++)
		n += mark_class(h, i, w) != NULL;
	if (n == 0) {
		fputs("<small>no runs in the history</small></td>", fp);
		return;
	}
	failed_list(fp, name, h, w, linked);
	fprintf(fp, "<svg class=\"strip\" width=\"%zu\" height=\"%d\" viewBox=\"0 0 %zu %d\" "
	    "role=\"img\" aria-label=\"", n * (MARK_W + MARK_GAP), MARK_H,
	    n * (MARK_W + MARK_GAP), MARK_H);
	fprintf(fp, "%zu recent runs of ", n);
	esc_attr(fp, name);
	fputs("\">", fp);
	for (size_t i = h->n; i-- > 0;) {
		const char *cls = mark_class(h, i, w);
		int skip, a;

		if (cls == NULL)
			continue;
		skip = strcmp(cls, "skip") == 0;
		a = run_link(fp, name, run_id(&h->e[i], cls), cls, linked);
		fprintf(fp, "<rect class=\"mark %s\" x=\"%zu\" y=\"%d\" width=\"%d\" "
		    "height=\"%d\" rx=\"2\">", cls, x, skip ? MARK_H / 2 : 0, MARK_W,
		    skip ? MARK_H / 2 : MARK_H);
		mark_title(fp, &h->e[i], cls);
		fputs(a ? "</rect></a>" : "</rect>", fp);
		x += MARK_W + MARK_GAP;
	}
	fputs("</svg></td>", fp);
}

/* One task's row: the rows' times against the lock server's clock, the
 * fire time against this host's. */
static void
task_row(FILE *fp, const struct page_task *t, const struct page *p)
{
	long long server = p->server_ms ? p->server_ms : p->now_ms;

	fputs("<tr class=\"task\" data-task=\"", fp);
	esc_attr(fp, t->name);
	fputs("\"><td class=\"name\">", fp);
	esc(fp, t->name);
	fputs("</td>", fp);
	state_cell(fp, t->row, t->sched, server);
	last_cell(fp, t->row, server);
	next_cell(fp, t->sched, p->now_ms);
	runs_cell(fp, t->name, t->hist, t->row, p->linked);
	fputs("</tr>\n", fp);
}

/* The head, with the refresh, and the lines above the table: the count of
 * the tasks in trouble, when, a failed reload, an unanswering server. */
static void
page_top(FILE *fp, const struct page *p, size_t total)
{
	char summary[256];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">", fp);
	if (p->refresh_s > 0)	/* the browser reloads it: no script */
		fprintf(fp, "<meta http-equiv=\"refresh\" content=\"%d\">", p->refresh_s);
	fputs("<title>", fp);
	esc_attr(fp, p->title);
	fprintf(fp, "</title><style>%s</style></head>\n<body><h1>", css);
	esc(fp, p->title);
	if (p->problem)		/* nothing read: nothing to count */
		snprintf(summary, sizeof(summary), "%zu task%s, their state unknown", total,
		    total == 1 ? "" : "s");
	else
		triage_summary(p->count, total, summary, sizeof(summary));
	fprintf(fp, "</h1><p class=\"summary\">%s</p><p class=\"meta\">As of ", summary);
	iso(fp, p->now_ms);
	fputs(". Read only", fp);
	if (p->refresh_s > 0)
		fprintf(fp, "; loaded again every %d s", p->refresh_s);
	fputs(".</p>\n", fp);
	if (p->reload_error) {	/* SIGHUP read a config that was refused */
		fputs("<p class=\"problem reload\">The scheduler could not read its config "
		    "again at ", fp);
		when(fp, p->reload_error_ms, p->now_ms);
		fputs(" and runs on with the one it had: ", fp);
		esc(fp, p->reload_error);
		fputs("</p>\n", fp);
	}
	if (total > p->n)	/* a served page stays small however many tasks */
		fprintf(fp, "<p class=\"more\">The first %zu, trouble first; %zu more are "
		    "not shown here: <a href=\"/metrics\">/metrics</a> and "
		    "<code>lockrun status --json</code> have them all.</p>\n", p->n,
		    total - p->n);
	if (p->problem) {
		fputs("<p class=\"problem\">The lock server did not answer: ", fp);
		esc(fp, p->problem);
		fputs("</p>\n", fp);
	}
}

void
page_write(FILE *fp, const struct page *p)
{
	size_t total = p->total > p->n ? p->total : p->n;

	page_top(fp, p, total);
	fputs("<table><thead><tr><th>Task</th><th>State</th><th>Last run</th><th>Next</th>"
	    "<th>Recent runs</th></tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < p->n; i++)
		task_row(fp, &p->tasks[i], p);
	fputs("</tbody></table>\n<p class=\"legend\"><small>"
	    "<span><svg width=\"10\" height=\"10\"><rect class=\"ok\" width=\"10\" height=\"10\"/>"
	    "</svg> ok</span><span><svg width=\"10\" height=\"10\"><rect class=\"fail\" "
	    "width=\"10\" height=\"10\"/></svg> failed</span><span><svg width=\"10\" "
	    "height=\"10\"><rect class=\"skip\" width=\"10\" height=\"10\"/></svg> skipped"
	    "</span><span><svg width=\"10\" height=\"10\"><rect class=\"lost\" width=\"10\" "
	    "height=\"10\"/></svg> lost its lock</span><span><svg width=\"10\" height=\"10\">"
	    "<rect class=\"running\" width=\"10\" height=\"10\"/></svg> running</span>"
	    "</small></p>\n</body></html>\n", fp);
}

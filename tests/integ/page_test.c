/* SPDX-License-Identifier: BSD-2-Clause */
/* page_test.c -- the status page for people: the real binary against a
 * real Redis, the page served by `cron --listen` and written by `status
 * --html`: it loads itself again, lists the tasks in trouble first under
 * a line that counts them, says when the scheduler's config could not be
 * read again, and gives times relative to now. Read as HTML, and (full
 * tier) as a browser builds it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "browser.h"
#include "harness.h"
#include "http.h"

TestSuite(page, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */
#define BODY_MAX (256 * 1024)

/* Three tasks due at 12:00, in this order in the config: one succeeds,
 * one is paused (skipped), one exits 3. Trouble first puts bad, then
 * idle, then ok. */
#define TASKS "tasks:\n" \
	"  ok:\n    schedule: '0 12 * * *'\n    command: 'true'\n" \
	"  idle:\n    schedule: '0 12 * * *'\n    command: 'true'\n" \
	"  bad:\n    schedule: '0 12 * * *'\n    command: 'exit 3'\n"

/* Where each task's row starts in body (NULL: none). */
static const char *
row_of(const char *body, const char *task)
{
	char tr[128];

	snprintf(tr, sizeof(tr), "<tr class=\"task\" data-task=\"%s\">", task);
	return strstr(body, tr);
}

/* Is body's table bad, then idle, then ok? */
static int
trouble_first(const char *body)
{
	const char *bad = row_of(body, "bad"), *idle = row_of(body, "idle"),
	    *ok = row_of(body, "ok");

	return bad && idle && ok && bad < idle && idle < ok;
}

/* Whether both runs of 12:00 ended, as the page says. */
static int
both_ended(int port, char *body)
{
	return http_get(port, "/", body, BODY_MAX, NULL, 0) == 200 &&
	    strstr(body, "fail (exit 3)") != NULL && strstr(body, "ok (exit 0)") != NULL;
}

/* Whether the scheduler says (in /metrics, from the same snapshot of it
 * the page is made from) that a reload of its config failed. */
static int
reload_failed(int port, char *body)
{
	return http_get(port, "/metrics", body, BODY_MAX, NULL, 0) == 200 &&
	    strstr(body, "\nlockrun_scheduler_config_reload_failures_total 1\n") != NULL;
}

/* cron -v --listen 127.0.0.1:0 on TASKS, its clock two seconds before
 * 12:00, with idle paused; once both runs ended, its config is replaced
 * by one it refuses and it is told to read it again (SIGHUP). Returns its
 * pid once it says the reload failed, its port in *port, the page in
 * body. */
static pid_t
served_in_trouble(int *port, char *body)
{
	static char buf[3][128];
	static const char *env[6];
	const char *cfg = write_config_faked(TASKS);
	struct result r;
	pid_t pid;

	LR(&r, "pause", "-c", cfg, "idle", "--reason", "migrating");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	faketime_env(env, buf, T_1200 - 2);
	pid = LR_START_ENV(env, "cron", "-v", "-c", cfg, "--listen", "127.0.0.1:0");
	*port = http_port_of(pid);
	POLL_UNTIL(both_ended(*port, body));
	write_config_faked(TASKS "  broken:\n    schedule: 'at noon'\n    command: 'true'\n");
	kill(pid, SIGHUP);
	POLL_UNTIL(reload_failed(*port, body));
	cr_assert(eq(int, http_get(*port, "/", body, BODY_MAX, NULL, 0), 200));
	return pid;
}

/* What both the page's text and the browser's DOM say: the reload that
 * failed, and why, naming the file and the line. */
#define RELOAD_FAILED "class=\"problem reload\">The scheduler could not read its config " \
	"again at <time datetime=\"[0-9TZ:-]+\">[^<]+</time> <small class=\"rel\">\\(" \
	"[^)]+\\)</small> and runs on with the one it had: [^<]*lockrun\\.yaml:[0-9]+:[0-9]+: "

Test(page, lists_trouble_first_refreshes_itself_and_shows_a_failed_reload)
{
	static char body[BODY_MAX];
	const char *out = scratch("status.html");
	struct result r;
	int port;
	pid_t pid = served_in_trouble(&port, body);

	cr_assert(strstr(body, "<meta http-equiv=\"refresh\" content=\"30\">") != NULL, "%s",
	    body);
	cr_assert(trouble_first(body), "bad, then idle, then ok: %s", body);
	cr_assert(matches(body, "<p class=\"summary\">3 tasks: 1 failing, 1 paused</p>"), "%s",
	    body);
	cr_assert(matches(body, RELOAD_FAILED), "%s", body);
	/* times relative to now beside the absolute ones: a run's by the lock
	 * server's clock (real), a fire time's by the scheduler's (faked) */
	cr_assert(matches(body, "data-task=\"bad\">.*fail \\(exit 3\\)</span> at <time "
	    "datetime=\"[0-9TZ:-]+\">[^<]+</time> <small class=\"rel\">\\(([0-9]+ s ago|now)"
	    "\\)</small>"), "%s", body);
	cr_assert(matches(body, "data-task=\"ok\">.*2026-06-16 12:00 local time <small "
	    "class=\"rel\">\\(in 2[34] h\\)</small>"), "%s", body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));

	/* status --html writes the same page, trouble first (no scheduler: no reload) */
	LR(&r, "status", "-c", write_config_faked(TASKS), "--html", out);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(file_peek(out), "<meta http-equiv=\"refresh\" content=\"30\">") != NULL,
	    "%s", file_peek(out));
	cr_assert(trouble_first(file_peek(out)), "%s", file_peek(out));
	cr_assert(matches(file_peek(out), "<p class=\"summary\">3 tasks: 1 failing, 1 paused"
	    "</p>"), "%s", file_peek(out));
	cr_assert(strstr(file_peek(out), "problem reload") == NULL, "%s", file_peek(out));
}

Test(page, a_browser_lists_trouble_first_and_shows_a_failed_reload)
{
	static char body[BODY_MAX], dom[65536];
	char url[64], what[512];
	const char *first;
	int port;
	pid_t pid;

	cr_assert(eq(int, fixture_tier("chromium"), 0));
	if (system("command -v chromium >/dev/null 2>&1") != 0)
		cr_skip_test("no chromium (Debian: apt-get install chromium)");
	pid = served_in_trouble(&port, body);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	snprintf(what, sizeof(what), "--dump-dom >%s", scratch("dom.html"));
	cr_assert(eq(int, chromium(what, url), 0), "%s", file_peek(scratch("chromium.err")));
	snprintf(dom, sizeof(dom), "%s", file_peek(scratch("dom.html")));

	/* the browser read the refresh into the head, and built the rows in
	 * that order: the failing task's row is the table's first */
	cr_assert(matches(dom, "<head>.*<meta http-equiv=\"refresh\" content=\"30\">.*</head>"),
	    "%s", dom);
	first = strstr(dom, "<tr class=\"task\"");
	cr_assert(first != NULL && first == row_of(dom, "bad"), "%s", dom);
	cr_assert(trouble_first(dom), "%s", dom);
	cr_assert(matches(dom, "<p class=\"summary\">3 tasks: 1 failing, 1 paused</p>"), "%s",
	    dom);
	cr_assert(matches(dom, RELOAD_FAILED), "%s", dom);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

/* PAGE_STORY's bad run once by another host, web3; then a scheduler
 * serving its page. Returns the scheduler's pid, its port in *port. */
static pid_t
served_after_a_failure(int *port)
{
	const char *cfg = write_config(PAGE_STORY);
	char ready[256];
	struct result r;
	pid_t pid;

	LR(&r, "-c", cfg, "--host", "web3", "-t", "bad");
	cr_assert(eq(int, r.status, 2), "%s", r.err);
	pid = LR_START("cron", "-v", "-c", cfg, "--listen", "127.0.0.1:0");
	*port = http_port_of(pid);
	/* it listens before it has read its tasks: until then, 503 */
	POLL_UNTIL(http_get(*port, "/readyz", ready, sizeof(ready), NULL, 0) == 200);
	return pid;
}

Test(page, a_failed_run_links_to_its_output_escaped)
{
	static char body[BODY_MAX];
	char path[256], bad[300];
	int port;
	pid_t pid = served_after_a_failure(&port);

	cr_assert(eq(int, http_get(port, "/", body, BODY_MAX, NULL, 0), 200), "%s", body);
	/* listed first in its row, ahead of the strip, and linked from its mark */
	cr_assert(failed_link(body, path, sizeof(path)) != NULL, "%s", body);
	cr_assert(matches(path, "^/run/bad/[0-9]+$"), "%s", path);
	cr_assert(matches(body, "Failed: <a class=\"run fail\" href=\"/run/bad/[0-9]+\">exit 2 "
	    "at <time[^>]*>[^<]+</time> on web3</a></small><br><svg class=\"strip\""), "%s",
	    body);
	cr_assert(matches(body, "<a class=\"run fail\" href=\"/run/bad/[0-9]+\"><rect "
	    "class=\"mark fail\""), "%s", body);

	cr_assert(eq(int, http_get(port, path, body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(matches(body, "<h1>bad, run [0-9]+: <span class=\"failed\">failed</span></h1>"),
	    "%s", body);
	cr_assert(matches(body, "<tr><th>host</th><td>web3</td></tr>"), "%s", body);
	cr_assert(matches(body, "<tr><th>status</th><td>2</td></tr>"), "%s", body);
	cr_assert(matches(body, RUN_LINES), "%s", body);
	cr_assert(matches(body, HOOK_LINES), "%s", body);
	cr_assert(strstr(body, "<span class=\"line err\">cannot open in.csv</span>\n") != NULL,
	    "%s", body);
	cr_assert(strstr(body, "<script") == NULL && strstr(body, "\xe2\x80\xae") == NULL,
	    "%s", body);

	/* a task not the config's, a run not kept, a path that is no run's */
	snprintf(bad, sizeof(bad), "%s0", path);
	cr_assert(eq(int, http_get(port, bad, body, BODY_MAX, NULL, 0), 404), "%s", body);
	cr_assert(eq(int, http_get(port, "/run/nosuch/1", body, BODY_MAX, NULL, 0), 404));
	cr_assert(eq(int, http_get(port, "/run/bad/x", body, BODY_MAX, NULL, 0), 404));
	cr_assert(eq(int, http_get(port, "/run/../../etc/passwd", body, BODY_MAX, NULL, 0),
	    404));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(page, a_browser_follows_a_failed_runs_link_to_its_output_escaped)
{
	int port;
	pid_t pid;

	cr_assert(eq(int, fixture_tier("chromium"), 0));
	if (system("command -v chromium >/dev/null 2>&1") != 0)
		cr_skip_test("no chromium (Debian: apt-get install chromium)");
	pid = served_after_a_failure(&port);
	browser_follows_a_failed_runs_link(port);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

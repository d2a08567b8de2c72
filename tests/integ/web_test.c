/* SPDX-License-Identifier: BSD-2-Clause */
/* web_test.c -- `lockrun cron --listen`: the real binary against a real
 * Redis and PostgreSQL, its /metrics read with the strict exposition
 * parser, /readyz before and after the backend stops, the status page's
 * rows and run marks, hostile values shown as text. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <hiredis/hiredis.h>

#include "browser.h"
#include "crons.h"
#include "harness.h"
#include "http.h"
#include "prom.h"
#include "sql_fixture.h"

TestSuite(web, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */
#define BODY_MAX (256 * 1024)

/* The three tasks every test schedules at 12:00: one succeeds, one exits
 * 3, one finds its lock held (hold_skip()) and is skipped. */
#define TASKS "tasks:\n" \
	"  ok:\n    schedule: '0 12 * * *'\n    command: 'true'\n" \
	"  bad:\n    schedule: '0 12 * * *'\n    command: 'exit 3'\n" \
	"  skip:\n    schedule: '0 12 * * *'\n    command: 'true'\n"

/* Another host holds task skip's lock (for ten minutes of Redis's own
 * clock), so that cron's run of it is skipped. */
static void
hold_skip(void)
{
	redisContext *c = redis_client(&fx);
	redisReply *r = redisCommand(c, "SET lockrun:{skip} %s PX 600000",
	    "owner-x 7 elsewhere 4242 2026-06-15T11:59:00Z");

	cr_assert(r != NULL && r->type == REDIS_REPLY_STATUS, "SET failed");
	freeReplyObject(r);
	redisFree(c);
}

/* cron -v on cfg with --listen 127.0.0.1:0, its clock two seconds before
 * 12:00 (libfaketime), env added; its port into *port. */
static pid_t
cron_listening(const char *cfg, const char *extra_env, int *port)
{
	static char buf[3][128];
	static const char *env[6];
	pid_t pid;

	faketime_env(env, buf, T_1200 - 2);
	env[4] = extra_env;
	env[5] = NULL;
	pid = LR_START_ENV(env, "cron", "-v", "-c", cfg, "--listen", "127.0.0.1:0");
	*port = http_port_of(pid);
	return pid;
}

/* GET /metrics, parsed strictly (and by promtool when there is one). */
static void
metrics(int port, struct prom *p, char *body)
{
	cr_assert(eq(int, http_get(port, "/metrics", body, BODY_MAX, NULL, 0), 200), "%s", body);
	prom_check(body, p);
}

/* Whether /metrics says the three runs were recorded. */
static int
three_recorded(int port, struct prom *p, char *body)
{
	if (http_get(port, "/metrics", body, BODY_MAX, NULL, 0) != 200 || prom_parse(body, p) != 0)
		return 0;
	return prom_get(p, "lockrun_runs_total", "ok") == 1 &&
	    prom_get(p, "lockrun_failures_total", "bad") == 1 &&
	    prom_get_label(p, "lockrun_skips_total", "skip", "reason=\"held\"") == 1;
}

Test(web, redis_metrics_readyz_and_the_page)
{
	static struct prom p;
	static char body[BODY_MAX];
	char extra[1024];
	const char *cfg;
	struct result res;
	struct gate g;
	int port;
	pid_t pid;

	/* and one that runs until the test ends */
	gate_open(&g, "");
	snprintf(extra, sizeof(extra), TASKS "  long:\n    schedule: '0 12 * * *'\n"
	    "    command: '%s'\n", gate_sh(&g));
	cfg = write_config_faked(extra);
	hold_skip();
	pid = cron_listening(cfg, NULL, &port);
	cr_assert(eq(int, http_get(port, "/healthz", body, BODY_MAX, NULL, 0), 200));
	POLL_UNTIL(http_get(port, "/readyz", body, BODY_MAX, NULL, 0) == 200);
	cr_assert(eq(str, body, "ready\n"));

	POLL_UNTIL(three_recorded(port, &p, body));
	gate_wait(&g);
	/* a run of long elsewhere is skipped: its entry carries the holder's token */
	LR(&res, "-c", cfg, "--host", "elsewhere", "-t", "long");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	POLL_UNTIL(http_get(port, "/metrics", body, BODY_MAX, NULL, 0) == 200 &&
	    prom_parse(body, &p) == 0 &&
	    prom_get(&p, "lockrun_scheduler_runs_in_progress", "long") == 1 &&
	    prom_get(&p, "lockrun_lock_held", "long") == 1);
	metrics(port, &p, body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_last_exit_status", "bad"), 3.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_runs_in_progress", "ok"), 0.0));
	cr_assert(eq(dbl, prom_get(&p, "lockrun_lock_held", "skip"), 1.0), "%s", body);
	/* the scheduler's own: tomorrow's fire time, three starts, no reload */
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_next_fire_timestamp_seconds", "ok"),
	    T_1200 + 86400), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_start_lag_seconds_count", ""), 4.0),
	    "%s", body);
	cr_assert(eq(dbl, prom_get_label(&p, "lockrun_scheduler_start_lag_seconds_bucket", "",
	    "le=\"+Inf\""), 4.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_config_reloads_total", ""), 0.0));
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_missed_total", ""), 0.0));
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_slots_sat_out_total", ""), 0.0));
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_backend_up", ""), 1.0));
	cr_assert(prom_get(&p, "lockrun_scheduler_backend_roundtrip_seconds", "") >= 0);

	/* the page: a row per task with its last result, a mark per run */
	cr_assert(eq(int, http_get(port, "/", body, BODY_MAX, NULL, 0), 200));
	cr_assert(matches(body, "<tr class=\"task\" data-task=\"ok\">.*ok \\(exit 0\\)"), "%s", body);
	cr_assert(matches(body, "<tr class=\"task\" data-task=\"bad\">.*fail \\(exit 3\\)"), "%s", body);
	cr_assert(matches(body, "<tr class=\"task\" data-task=\"skip\">.*running</span> on "
	    "elsewhere"), "%s", body);
	cr_assert(matches(body, "<rect class=\"mark ok\"[^>]*><title>released on [^<]*, slot "
	    "2026-06-15T12:00:00Z, took [^<]*, exit 0</title>"), "%s", body);
	cr_assert(matches(body, "<rect class=\"mark fail\"[^>]*><title>[^<]*exit 3</title>"),
	    "%s", body);
	cr_assert(matches(body, "<rect class=\"mark skip\"[^>]*><title>skipped-held on "), "%s",
	    body);
	cr_assert(matches(body, "2026-06-16 12:00 local time"), "the next fire time: %s", body);
	cr_assert(matches(body, "data-task=\"long\">.*running</span> on .*<rect class=\"mark "
	    "running\"[^>]*><title>ran on [^<]*</title></rect><rect class=\"mark skip\"[^>]*>"
	    "<title>skipped-held on elsewhere"), "%s", body);

	/* the backend stops: not ready, still alive */
	redis_halt(&fx);	/* its dir stays: the test's scratch files are there */
	POLL_UNTIL(http_get(port, "/readyz", body, BODY_MAX, NULL, 0) == 503);
	cr_assert(matches(body, "^not ready: "), "%s", body);
	cr_assert(eq(int, http_get(port, "/healthz", body, BODY_MAX, NULL, 0), 200));
	metrics(port, &p, body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_backend_up", ""), 0.0), "%s", body);
	cr_assert(isnan(prom_get(&p, "lockrun_runs_total", "ok")), "no counter read as 0: %s",
	    body);
	cr_assert(eq(int, http_get(port, "/", body, BODY_MAX, NULL, 0), 200));
	cr_assert(matches(body, "class=\"problem\""), "%s", body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(web, pg_metrics_and_readyz)
{
	static struct sql_server s;
	static struct prom p;
	static char body[BODY_MAX];
	char cfgtext[1024];
	FILE *fp;
	int port;
	pid_t pid;

	cr_assert(eq(int, pg_start(&s), 0), "%s", sql_last_error());
	snprintf(cfgtext, sizeof(cfgtext), "url: %s\ndefaults:\n  clock_tolerance: 0\ntasks:\n"
	    "  ok:\n    schedule: '0 12 * * *'\n    command: 'true'\n"
	    "  bad:\n    schedule: '0 12 * * *'\n    command: 'exit 3'\n", s.url);
	fp = fopen(scratch("pg.yaml"), "w");
	cr_assert(fp != NULL);
	fputs(cfgtext, fp);
	cr_assert(eq(int, fclose(fp), 0));
	/* the password in the environment: the runs forked later read it too */
	pid = cron_listening(scratch("pg.yaml"), "LOCKRUN_REDIS_PASSWORD=" SQL_PASSWORD, &port);
	POLL_UNTIL(http_get(port, "/readyz", body, BODY_MAX, NULL, 0) == 200);
	/* runs_total counts at the acquire, the exit status comes with the
	 * release: wait for both ends */
	POLL_UNTIL(http_get(port, "/metrics", body, BODY_MAX, NULL, 0) == 200 &&
	    prom_parse(body, &p) == 0 && prom_get(&p, "lockrun_failures_total", "bad") == 1 &&
	    prom_get(&p, "lockrun_runs_total", "ok") == 1 &&
	    prom_get(&p, "lockrun_last_exit_status", "ok") == 0);
	metrics(port, &p, body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_failures_total", "bad"), 1.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_last_exit_status", "ok"), 0.0), "%s", body);
	cr_assert(eq(int, http_get(port, "/", body, BODY_MAX, NULL, 0), 200));
	cr_assert(matches(body, "data-task=\"bad\">.*fail \\(exit 3\\)"), "%s", body);

	sql_stop(&s);
	POLL_UNTIL(http_get(port, "/readyz", body, BODY_MAX, NULL, 0) == 503);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

/* A history entry and a last run whose values carry markup, quotes and
 * control bytes, for a task whose very name is markup. */
#define HOSTILE_TASK "<script>alert(\"t&'\")<script>"	/* a task name has no '/' */
static void
hostile_records(void)
{
	redisContext *c = redis_client(&fx);
	const char *key = "lockrun:{" HOSTILE_TASK "}:history";
	redisReply *r = redisCommand(c, "XADD %s * event released host %s slot %s status 0 "
	    "duration_ms 5 token 9", key, "<script>alert('h')</script>\"\x01\x1b[31m",
	    "<img src=x onerror=alert(1)>");

	cr_assert(r != NULL && r->type == REDIS_REPLY_STRING, "XADD failed");
	freeReplyObject(r);
	r = redisCommand(c, "HSET lockrun:{" HOSTILE_TASK "}:last event released host %s "
	    "status 0 start_ms 1781524800000 duration_ms 5", "<b>bold</b>\"\x07");
	cr_assert(r != NULL && r->type == REDIS_REPLY_INTEGER, "HSET failed");
	freeReplyObject(r);
	redisFree(c);
}

static const char *
hostile_config(void)
{
	/* YAML single quotes: a quote in it is written twice */
	return write_config_faked("tasks:\n  '<script>alert(\"t&''\")<script>':\n    schedule: '0 12 * * *'\n"
	    "    command: 'true'\n  ok:\n    schedule: '0 12 * * *'\n    command: 'true'\n");
}

Test(web, hostile_values_are_escaped_in_the_page_and_the_metrics)
{
	static struct prom p;
	static char body[BODY_MAX];
	int port;
	pid_t pid;

	hostile_records();
	pid = cron_listening(hostile_config(), NULL, &port);
	POLL_UNTIL(http_get(port, "/", body, BODY_MAX, NULL, 0) == 200 &&
	    strstr(body, "mark ok") != NULL);
	cr_assert(strstr(body, "<script") == NULL, "%s", body);
	cr_assert(strstr(body, "<img") == NULL && strstr(body, "<b>") == NULL, "%s", body);
	cr_assert(strchr(body, '\x01') == NULL && strchr(body, '\x07') == NULL &&
	    strchr(body, '\x1b') == NULL, "a control byte reached the page");
	cr_assert(matches(body, "data-task=\"&lt;script&gt;alert\\(&quot;t&amp;&#39;&quot;\\)"
	    "&lt;script&gt;\""), "%s", body);
	cr_assert(matches(body, "<title>released on &lt;script&gt;alert\\(&#39;h&#39;\\)"
	    "&lt;/script&gt;&quot;"), "%s", body);
	metrics(port, &p, body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_last_exit_status", HOSTILE_TASK), 0.0), "%s",
	    body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

/* U+202E (right-to-left override), U+2066 (an isolate), U+200F, and the C1
 * controls U+0085 and U+009B (a CSI to some terminals), as UTF-8 */
#define RLO	"\xe2\x80\xae"
#define LRI	"\xe2\x81\xa6"
#define RLM	"\xe2\x80\x8f"
#define NEL	"\xc2\x85"
#define CSI	"\xc2\x9b"

Test(web, bidi_and_c1_controls_are_shown_as_code_points_in_the_page)
{
	static char body[BODY_MAX];
	static const char *raw[] = { RLO, LRI, RLM, NEL, CSI };
	redisContext *c = redis_client(&fx);
	const char *cfg;
	redisReply *r;
	struct result res;
	int port;
	pid_t pid;

	/* a task's name cannot hold them: the config is refused */
	LR(&res, "check", "-c", write_config_faked("tasks:\n  \"ok\\u202Ex\\u009B\":\n"
	    "    schedule: '0 12 * * *'\n    command: 'true'\n"));
	cr_assert(eq(int, res.status, 78), "%s", res.err);
	cr_assert(strstr(res.err, "may not contain control characters") != NULL, "%s", res.err);

	/* the lock server's values can */
	r = redisCommand(c, "XADD lockrun:{ok}:history * event released host %s slot %s "
	    "status 0 duration_ms 5 token 9", "gnp." RLO "exe" NEL, "s" CSI "1" LRI "2" RLM);
	cr_assert(r != NULL && r->type == REDIS_REPLY_STRING, "XADD failed");
	freeReplyObject(r);
	r = redisCommand(c, "HSET lockrun:{ok}:last event released host %s status 0 "
	    "start_ms 1781524800000 duration_ms 5", "evil" RLO "txt.exe" CSI);
	cr_assert(r != NULL && r->type == REDIS_REPLY_INTEGER, "HSET failed");
	freeReplyObject(r);
	redisFree(c);

	cfg = write_config_faked(TASKS);
	/* status --json escapes them */
	LR(&res, "status", "-c", cfg, "--json", "ok");
	cr_assert(strstr(res.out, "evil\\u202etxt.exe\\u009b") != NULL, "%s", res.out);
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		cr_assert(strstr(res.out, raw[i]) == NULL, "control %zu in the JSON: %s", i,
		    res.out);

	pid = cron_listening(cfg, NULL, &port);
	POLL_UNTIL(http_get(port, "/", body, BODY_MAX, NULL, 0) == 200 &&
	    strstr(body, "mark ok") != NULL);
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		cr_assert(strstr(body, raw[i]) == NULL, "control %zu reached the page: %s", i,
		    body);
	/* the last run's host in the table, the history's in the mark's title */
	cr_assert(matches(body, " on evil<span class=\"ctl\">&lt;U\\+202E&gt;</span>txt\\.exe"
	    "<span class=\"ctl\">&lt;U\\+009B&gt;</span>"), "%s", body);
	cr_assert(matches(body, "<title>released on gnp\\.&lt;U\\+202E&gt;exe&lt;U\\+0085&gt;, "
	    "slot s&lt;U\\+009B&gt;1&lt;U\\+2066&gt;2&lt;U\\+200F&gt;"), "%s", body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(web, listen_is_checked_and_only_cron_takes_it)
{
	struct result res;
	const char *cfg = write_config_faked(TASKS);

	LR(&res, "cron", "-c", cfg, "--listen", "127.0.0.1:http-ish");
	cr_assert(eq(int, res.status, 64), "%s", res.err);
	cr_assert(eq(str, res.err, "lockrun: --listen 127.0.0.1:http-ish: not HOST:PORT, "
	    "[ADDRESS]:PORT, PORT or unix:PATH\nTry 'lockrun cron --help' for more "
	    "information.\n"));
	LR(&res, "-c", cfg, "--listen", "127.0.0.1:0", "-t", "ok");
	cr_assert(eq(int, res.status, 64), "%s", res.err);
}

/* Whether pid maps libmicrohttpd. */
static int
maps_mhd(pid_t pid)
{
	char path[64], line[512];
	int found = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp))
		found |= strstr(line, "libmicrohttpd") != NULL;
	fclose(fp);
	return found;
}

Test(web, the_library_is_loaded_only_with_listen)
{
	const char *cfg = write_config_faked(TASKS);
	pid_t plain = LR_START("cron", "-v", "-c", cfg), web;
	int port;

	POLL_UNTIL(stderr_matching(plain, "cron: 3 scheduled tasks") == 1);
	cr_assert(eq(int, maps_mhd(plain), 0));
	web = LR_START("cron", "-v", "-c", cfg, "--listen", "127.0.0.1:0");
	port = http_port_of(web);
	cr_assert(port > 0);
	cr_assert(eq(int, maps_mhd(web), 1));
	kill(plain, SIGTERM);
	kill(web, SIGTERM);
	cr_assert(eq(int, lr_wait(plain), 0));
	cr_assert(eq(int, lr_wait(web), 0));
}

Test(web, status_html_writes_the_page_once)
{
	struct result res;
	const char *cfg = write_config_faked(TASKS), *out = scratch("status.html");

	LR(&res, "-c", cfg, "-t", "ok");
	LR(&res, "-c", cfg, "-t", "bad");
	cr_assert(eq(int, res.status, 3), "%s", res.err);
	LR(&res, "status", "-c", cfg, "--html", out);
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(matches(file_peek(out), "^<!DOCTYPE html>\n"), "%s", file_peek(out));
	cr_assert(matches(file_peek(out), "data-task=\"ok\">.*ok \\(exit 0\\)"), "%s", file_peek(out));
	cr_assert(matches(file_peek(out), "data-task=\"bad\">.*fail \\(exit 3\\)"), "%s",
	    file_peek(out));
	cr_assert(matches(file_peek(out), "<rect class=\"mark fail\""), "%s", file_peek(out));
	cr_assert(matches(file_peek(out), "data-task=\"skip\">.*never ran.* 12:00 local time"),
	    "the next fire time from the config: %s", file_peek(out));
	cr_assert(eq(int, matches(file_peek(out), "class=\"st-paused\""), 0), "%s", file_peek(out));

	/* a paused task says so, with who paused it, until when and why */
	LR(&res, "pause", "-c", cfg, "ok", "--for", "1h", "--reason", "db <migration>");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	LR(&res, "status", "-c", cfg, "--html", out);
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(matches(file_peek(out), "data-task=\"ok\">.*<span class=\"st-paused\">paused"
	    "</span> by [^<@]+@[^<]+ until <time datetime=\"[0-9TZ:-]+\">[^<]+</time> "
	    "<small class=\"rel\">\\(in (59 min|1 h)\\)</small>: db &lt;migration&gt;"), "%s",
	    file_peek(out));
	cr_assert(eq(int, matches(file_peek(out), "data-task=\"bad\">[^\n]*st-paused"), 0),
	    "%s", file_peek(out));
}

Test(web, a_browser_shows_rows_and_marks_and_hostile_values_as_text)
{
	static struct prom p;
	static char body[BODY_MAX], dom[65536];
	const char *shot = getenv("LR_TEST_SCREENSHOT");
	char url[64], what[512];
	unsigned char magic[8] = { 0 };
	int port;
	pid_t pid;
	FILE *fp;

	cr_assert(eq(int, fixture_tier("chromium"), 0));
	if (system("command -v chromium >/dev/null 2>&1") != 0)
		cr_skip_test("no chromium (Debian: apt-get install chromium)");
	hostile_records();
	hold_skip();
	write_config_faked(TASKS "  '<script>alert(\"t&''\")<script>':\n    schedule: '0 12 * * *'\n"
	    "    command: 'true'\n");
	pid = cron_listening(scratch("lockrun.yaml"), NULL, &port);
	POLL_UNTIL(three_recorded(port, &p, body));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);

	snprintf(what, sizeof(what), "--dump-dom >%s", scratch("dom.html"));
	cr_assert(eq(int, chromium(what, url), 0), "%s", file_peek(scratch("chromium.err")));
	snprintf(dom, sizeof(dom), "%s", file_peek(scratch("dom.html")));
	cr_assert(matches(dom, "<tr class=\"task\" data-task=\"ok\">.*ok \\(exit 0\\)"), "%s", dom);
	cr_assert(matches(dom, "<tr class=\"task\" data-task=\"bad\">.*fail \\(exit 3\\)"), "%s",
	    dom);
	cr_assert(matches(dom, "<rect class=\"mark ok\"[^>]*><title>released on [^<]+</title>"
	    "</rect>"), "%s", dom);
	cr_assert(matches(dom, "<rect class=\"mark skip\"[^>]*><title>skipped-held on "), "%s",
	    dom);
	/* the hostile name and values are text: no element came of them */
	cr_assert(matches(dom, "<td class=\"name\">&lt;script&gt;alert\\(\"t&amp;'\"\\)"
	    "&lt;script&gt;</td>"), "%s", dom);
	cr_assert(matches(dom, "<title>released on &lt;script&gt;alert\\('h'\\)&lt;/script&gt;"),
	    "%s", dom);
	without_attribute_values(dom);
	cr_assert(strstr(dom, "<script") == NULL && strstr(dom, "<img") == NULL &&
	    strstr(dom, "<b>") == NULL, "%s", dom);

	/* the screenshot: kept where LR_TEST_SCREENSHOT says (make integ: in
	 * the build directory) */
	snprintf(what, sizeof(what), "--screenshot=%s --window-size=1000,640 --hide-scrollbars",
	    shot ? shot : scratch("page.png"));
	cr_assert(eq(int, chromium(what, url), 0), "%s", file_peek(scratch("chromium.err")));
	fp = fopen(shot ? shot : scratch("page.png"), "rb");
	cr_assert(fp != NULL);
	cr_assert(eq(sz, fread(magic, 1, 8, fp), 8));
	fclose(fp);
	cr_assert(memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG");
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(web, listen_from_the_config)
{
	static char body[BODY_MAX];
	struct result res;
	int port;
	pid_t pid;

	pid = LR_START("cron", "-v", "-c", write_config_faked("listen: 127.0.0.1:0\n" TASKS));
	port = http_port_of(pid);
	cr_assert(eq(int, http_get(port, "/healthz", body, BODY_MAX, NULL, 0), 200));
	cr_assert(eq(int, http_get(port, "/nothing", body, BODY_MAX, NULL, 0), 404));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));

	LR(&res, "cron", "-c", write_config_faked("listen: 'nope:'\n" TASKS));
	cr_assert(eq(int, res.status, 64), "%s", res.err);
	cr_assert(matches(res.err, "^lockrun: [^ ]*lockrun.yaml:[0-9]+:9: listen nope:: not "
	    "HOST:PORT"), "%s", res.err);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* history_test.c -- `lockrun history` after each kind of decision, read
 * back through the real binary and its JSON lines, parsed strictly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "json.h"

TestSuite(history, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_MIDDAY 1781524800.0	/* 2026-06-15T12:00:00Z: far from any day's or hour's end */
#define OWNER "ffffffffffffffffffffffffffffffff"	/* an owner id, for values set by hand */

/* One history entry as `lockrun history --json` printed it; a field that
 * was null is "" (strings) or -1 (numbers). */
struct ent {
	char		time[40];
	long long	time_ms;
	char		host[128];
	long long	pid;
	char		event[32];
	char		slot[64];
	long long	token;
	long long	status;
	long long	duration_ms;
	long long	attempt;
	char		holder[160];
	char		reason[200];	/* "" when the entry has none */
};

struct hist {
	struct ent	e[32];
	size_t		n;
};

/* Copy the string member key of o to buf; "" when null. Anything else
 * fails the test. */
static void
get_str(const struct json *o, const char *key, int nullable, char *buf, size_t n)
{
	const struct json *v = json_get(o, key);

	cr_assert(v != NULL, "no \"%s\"", key);
	buf[0] = '\0';
	if (nullable && json_is(v, "null"))
		return;
	cr_assert(json_is(v, "string"), "\"%s\" is not a string", key);
	snprintf(buf, n, "%s", json_str(v));
}

/* The number member key of o (an integer); -1 when null. */
static long long
get_num(const struct json *o, const char *key, int nullable)
{
	const struct json *v = json_get(o, key);
	double d;

	cr_assert(v != NULL, "no \"%s\"", key);
	if (nullable && json_is(v, "null"))
		return -1;
	cr_assert(json_num(v, &d) == 0, "\"%s\" is not a number", key);
	cr_assert(d >= 0 && d == (double)(long long)d, "\"%s\" is %f", key, d);
	return (long long)d;
}

/* json_lines() callback: check one entry's shape and keep it. */
static int
collect(const struct json *o, void *arg)
{
	struct hist *h = arg;
	struct ent *e = &h->e[h->n];
	char want[80];
	struct tm tm;
	time_t secs;

	cr_assert(h->n < sizeof(h->e) / sizeof(h->e[0]), "too many entries");
	cr_assert(json_is(o, "object"));
	/* a reason only where lockrun ended the command or could not start it */
	cr_assert(eq(sz, json_keys(o), 11 + (json_get(o, "reason") != NULL)),
	    "time, time_ms and the nine fields, and a reason");
	e->reason[0] = '\0';
	if (json_get(o, "reason") != NULL)
		get_str(o, "reason", 0, e->reason, sizeof(e->reason));
	get_str(o, "time", 0, e->time, sizeof(e->time));
	e->time_ms = get_num(o, "time_ms", 0);
	get_str(o, "host", 1, e->host, sizeof(e->host));
	e->pid = get_num(o, "pid", 1);
	get_str(o, "event", 1, e->event, sizeof(e->event));
	get_str(o, "slot", 1, e->slot, sizeof(e->slot));
	e->token = get_num(o, "token", 1);
	e->status = get_num(o, "status", 1);
	e->duration_ms = get_num(o, "duration_ms", 1);
	e->attempt = get_num(o, "attempt", 1);
	get_str(o, "holder", 1, e->holder, sizeof(e->holder));
	/* time is time_ms in ISO 8601 UTC */
	secs = (time_t)(e->time_ms / 1000);
	gmtime_r(&secs, &tm);
	snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, e->time_ms % 1000);
	cr_assert(eq(str, e->time, want));
	h->n++;
	return 0;
}

/* `lockrun history --json [-n count] name`, every line parsed. */
static void
history_json(struct hist *h, const char *name, const char *count)
{
	struct result r;
	char err[256] = "";
	long lines;

	if (count)
		LR(&r, "history", "--redis", fx.url, "--json", "-n", count, name);
	else
		LR(&r, "history", "--redis", fx.url, "--json", name);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.err, ""));
	cr_assert(strlen(r.out) < sizeof(r.out) - 1, "output cut short: use fewer entries");
	h->n = 0;
	lines = json_lines(r.out, collect, h, err, sizeof(err));
	cr_assert(lines >= 0, "%s in:\n%s", err, r.out);
	cr_assert(eq(sz, (size_t)lines, h->n));
}

/* "host pid" of a holder, as the scripts record it. */
static const char *
holder_of(const char *host, pid_t pid, char *buf, size_t n)
{
	snprintf(buf, n, "%s %d", host, (int)pid);
	return buf;
}

/* --- each kind of decision ------------------------------------------ */

Test(history, ran_then_released_with_status_and_duration)
{
	struct result r;
	struct hist h;

	LR(&r, "--redis", fx.url, "--host", "alpha", "-k", "exit3", "--", "sh", "-c",
	    "printf %s \"$LOCKRUN_TOKEN\"; exit 3");
	cr_assert(eq(int, r.status, 3));
	history_json(&h, "exit3", NULL);
	cr_assert(eq(sz, h.n, 2));
	cr_assert(eq(str, h.e[0].event, "released"));
	cr_assert(eq(str, h.e[0].host, "alpha"));
	cr_assert(eq(i64, h.e[0].status, 3));
	cr_assert(h.e[0].duration_ms >= 0, "duration_ms present");
	cr_assert(eq(i64, h.e[0].attempt, 1), "the end of a run says its attempt");
	cr_assert(eq(i64, h.e[0].token, strtoll(r.out, NULL, 10)),
	    "the command's LOCKRUN_TOKEN");
	cr_assert(h.e[0].token > 0);
	cr_assert(eq(str, h.e[0].slot, ""));
	cr_assert(eq(str, h.e[0].holder, ""));
	cr_assert(eq(str, h.e[1].event, "ran"));
	cr_assert(eq(str, h.e[1].host, "alpha"));
	cr_assert(eq(i64, h.e[1].token, h.e[0].token));
	cr_assert(eq(i64, h.e[1].status, -1), "no status before the end");
	cr_assert(eq(i64, h.e[1].duration_ms, -1));
	cr_assert(eq(i64, h.e[1].attempt, -1), "no attempt on the start");
	cr_assert(h.e[1].pid > 0);
	cr_assert(eq(i64, h.e[0].pid, h.e[1].pid), "the same lockrun");
}

Test(history, skipped_held_names_the_holder)
{
	char who[64];
	struct result r;
	struct hist h;
	pid_t holder;
	struct gate g;

	gate_open(&g, "");
	holder = LR_START("--redis", fx.url, "--host", "alpha", "-k", "held", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);
	LR(&r, "--redis", fx.url, "--host", "beta", "-k", "held", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "skipped, with the conflict status");
	cr_assert(eq(str, r.out, ""), "the second command did not run");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(holder), 0));

	history_json(&h, "held", NULL);
	cr_assert(eq(sz, h.n, 3));
	cr_assert(eq(str, h.e[0].event, "released"));
	cr_assert(eq(str, h.e[1].event, "skipped-held"));
	cr_assert(eq(str, h.e[1].host, "beta"));
	cr_assert(eq(str, h.e[1].holder, holder_of("alpha", holder, who, sizeof(who))));
	cr_assert(eq(i64, h.e[1].token, h.e[2].token), "the holder's token");
	cr_assert(ne(i64, h.e[1].pid, (long long)holder));
	cr_assert(eq(str, h.e[2].event, "ran"));
	cr_assert(eq(i64, h.e[2].pid, (long long)holder));
}

Test(history, skipped_slot_records_the_slot)
{
	const char *env[6];
	char buf[3][128], who[64];
	struct result a, b;
	struct hist h;

	faketime_frozen_env(env, buf, T_MIDDAY + 10);
	lr_run_env(&a, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--host", "alpha", "-k", "slotted", "--", "sh", "-c", "echo $PPID", NULL });
	lr_run_env(&b, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--host", "beta", "-k", "slotted", "--", "echo", "ran", NULL });
	cr_assert(eq(int, a.status, 0), "stderr: %s", a.err);
	cr_assert(eq(int, b.status, 0), "stderr: %s", b.err);
	cr_assert(eq(str, b.out, ""), "the slot had run");

	history_json(&h, "slotted", NULL);
	cr_assert(eq(sz, h.n, 3));
	cr_assert(eq(str, h.e[0].event, "skipped-slot"));
	cr_assert(eq(str, h.e[0].host, "beta"));
	cr_assert(eq(str, h.e[0].slot, "2026-06-15T12:00:00Z"));
	cr_assert(eq(i64, h.e[0].token, h.e[2].token), "the claim's token");
	cr_assert(matches(h.e[0].holder, "^alpha [0-9]+$"), "holder %s", h.e[0].holder);
	cr_assert(eq(str, h.e[0].holder, holder_of("alpha", (pid_t)h.e[2].pid, who,
	    sizeof(who))));
	cr_assert(eq(str, h.e[1].event, "released"));
	cr_assert(eq(str, h.e[1].slot, "2026-06-15T12:00:00Z"));
	cr_assert(eq(i64, h.e[1].status, 0));
	cr_assert(eq(str, h.e[2].event, "ran"));
	cr_assert(eq(str, h.e[2].slot, "2026-06-15T12:00:00Z"));
}

Test(history, lost_names_who_holds_it_now)
{
	char err[1024];
	struct hist h;
	pid_t holder;
	struct gate g;

	gate_open(&g, "");
	holder = LR_START("--redis", fx.url, "--host", "alpha", "--ttl", "3s", "-k", "lost",
	    "--", "sh", "-c", gate_sh_then(&g, "", "exec sleep 1000"));
	gate_wait(&g);
	freeReplyObject(rcmd("SET lockrun:{lost} %s PX 30000", OWNER " 9 thief 77 x"));
	/* the holder's next renewal finds the key taken and stops the command */
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, alive(holder), 0), "the holder stopped");
	cr_assert(eq(int, lr_wait(holder), 128 + 15), "the command got SIGTERM");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)),
	    "LOST LOCK lockrun:{lost}: another run holds it now") != NULL, "stderr: %s", err);

	history_json(&h, "lost", NULL);
	cr_assert(eq(sz, h.n, 2), "no release after a lost lock");
	cr_assert(eq(str, h.e[0].event, "lost"));
	cr_assert(eq(str, h.e[0].host, "alpha"));
	cr_assert(eq(i64, h.e[0].pid, (long long)holder));
	cr_assert(eq(str, h.e[0].holder, "thief 77"));
	cr_assert(eq(i64, h.e[0].token, h.e[1].token), "the holder's own token");
	cr_assert(eq(str, h.e[1].event, "ran"));
}

Test(history, stopped_timeout_records_124)
{
	struct result r;
	struct hist h;

	LR(&r, "--redis", fx.url, "--host", "alpha", "--timeout", "100ms", "-k", "slow", "--",
	    "sleep", "30");
	cr_assert(eq(int, r.status, 124));
	history_json(&h, "slow", NULL);
	cr_assert(eq(sz, h.n, 2));
	cr_assert(eq(str, h.e[0].event, "stopped-timeout"));
	cr_assert(eq(i64, h.e[0].status, 124));
	/* not a measure of speed: the timeout cannot fire before 100ms */
	cr_assert(h.e[0].duration_ms >= 100, "duration_ms %lld", h.e[0].duration_ms);
	cr_assert(eq(str, h.e[0].reason, "timeout: stopped after 100ms"));
	cr_assert(eq(str, h.e[1].event, "ran"));
}

Test(history, unlocked_records_who_and_whose)
{
	struct result r;
	struct hist h;

	freeReplyObject(rcmd("SET lockrun:{freed} %s PX 30000",
	    OWNER " 41 web-3 4141 2026-06-15T12:00:00.000Z"));
	LR(&r, "unlock", "--redis", fx.url, "--yes", "--host", "ops", "freed");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	history_json(&h, "freed", NULL);
	cr_assert(eq(sz, h.n, 1));
	cr_assert(eq(str, h.e[0].event, "unlocked"));
	cr_assert(eq(str, h.e[0].host, "ops"));
	cr_assert(h.e[0].pid > 0);
	cr_assert(eq(i64, h.e[0].token, 41));
	cr_assert(eq(str, h.e[0].holder, "web-3 4141"));
}

/* --- order, count, hosts --------------------------------------------- */

Test(history, several_hosts_newest_first)
{
	static const char *const hosts[] = { "a-1", "b-2", "c-3" };
	struct result r;
	struct hist h;

	for (int i = 0; i < 3; i++) {
		LR(&r, "--redis", fx.url, "--host", hosts[i], "-k", "fleet", "--", "true");
		cr_assert(eq(int, r.status, 0));
	}
	history_json(&h, "fleet", NULL);
	cr_assert(eq(sz, h.n, 6));
	for (size_t i = 0; i < 6; i++) {
		cr_assert(eq(str, h.e[i].host, (char *)hosts[2 - i / 2]), "entry %zu", i);
		cr_assert(eq(str, h.e[i].event, i % 2 ? "ran" : "released"), "entry %zu", i);
		if (i > 0)
			cr_assert(h.e[i].time_ms <= h.e[i - 1].time_ms, "newest first");
	}
	/* tokens go up with each acquisition: newer runs, larger tokens */
	cr_assert(h.e[1].token > h.e[3].token);
	cr_assert(h.e[3].token > h.e[5].token);
}

Test(history, count_keeps_the_newest)
{
	struct result r;
	struct hist h;

	LR(&r, "--redis", fx.url, "--host", "old", "-k", "count", "--", "true");
	LR(&r, "--redis", fx.url, "--host", "new", "-k", "count", "--", "true");
	history_json(&h, "count", "3");
	cr_assert(eq(sz, h.n, 3));
	cr_assert(eq(str, h.e[0].host, "new"));
	cr_assert(eq(str, h.e[0].event, "released"));
	cr_assert(eq(str, h.e[1].host, "new"));
	cr_assert(eq(str, h.e[2].host, "old"));
	cr_assert(eq(str, h.e[2].event, "released"));
}

Test(history, shows_twenty_by_default)
{
	struct result r;

	for (int i = 0; i < 11; i++)	/* 22 entries */
		LR(&r, "--redis", fx.url, "-k", "many", "--", "true");
	LR(&r, "history", "--redis", fx.url, "many");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strlen(r.out) < sizeof(r.out) - 1, "output cut short");
	cr_assert(matches(r.out, "^TIME  "), "a header first: %s", r.out);
	{
		int lines = 0;
		for (const char *p = r.out; *p; p++)
			lines += *p == '\n';
		cr_assert(eq(int, lines, 1 + 20));
	}
}

/* --- the text table -------------------------------------------------- */

/* The column of row where the cell of header's column named col starts. */
static const char *
cell_at(const char *header, const char *row, const char *col)
{
	const char *h = strstr(header, col);

	cr_assert(h != NULL, "no column %s", col);
	return row + (h - header);
}

Test(history, text_table_is_aligned)
{
	struct result r;
	char *header, *row1, *row2, *nl;

	freeReplyObject(rcmd("XADD lockrun:{tab}:history 1781524800123-0 event ran "
	    "host web-1 pid 7 token 12 slot 2026-06-15T12:00:00Z"));
	freeReplyObject(rcmd("XADD lockrun:{tab}:history 1781524925123-0 event released "
	    "host a-much-longer-host pid 123456 token 12 status 0 duration_ms 125000"));
	LR(&r, "history", "--redis", fx.url, "tab");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	header = r.out;
	nl = strchr(header, '\n');
	cr_assert(nl != NULL);
	*nl = '\0';
	row1 = nl + 1;
	nl = strchr(row1, '\n');
	cr_assert(nl != NULL);
	*nl = '\0';
	row2 = nl + 1;
	nl = strchr(row2, '\n');
	cr_assert(nl != NULL);
	*nl = '\0';
	cr_assert(eq(str, nl + 1, ""), "two rows");
	cr_assert(eq(str, header, "TIME                      HOST                PID     "
	    "EVENT     SLOT                  TOKEN  STATUS  DURATION  ATTEMPT  HOLDER"));
	/* newest first; each column as wide as its widest cell, "-" for empty,
	 * the duration for people, nothing after the last cell */
	cr_assert(eq(str, row1, "2026-06-15T12:02:05.123Z  a-much-longer-host  123456  "
	    "released  -                     12     0       2m5s      -        -"));
	cr_assert(eq(str, row2, "2026-06-15T12:00:00.123Z  web-1               7       "
	    "ran       2026-06-15T12:00:00Z  12     -       -         -        -"));
	cr_assert(cell_at(header, row2, "SLOT")[0] == '2', "the slot under SLOT");
}

/* A stream entry written by hand may hold control bytes: the table
 * shows them as '?' (out/table.c), so they cannot drive the terminal. */
Test(history, text_table_shows_control_bytes_as_question_marks)
{
	static const char host[] = "evil\x1b]0;owned\x07";
	static const char holder[] = "web\x1b[2J 1";
	struct result r;

	freeReplyObject(rcmd("XADD lockrun:{ctl}:history 1781524800123-0 event unlocked "
	    "host %b pid 7 holder %b", host, sizeof(host) - 1, holder, sizeof(holder) - 1));
	LR(&r, "history", "--redis", fx.url, "ctl");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strchr(r.out, '\x1b') == NULL && strchr(r.out, '\x07') == NULL, "%s",
	    r.out);
	cr_assert(strstr(r.out, "  evil?]0;owned?  7  ") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "  web?[2J 1\n") != NULL, "%s", r.out);
}

/* A task the config names that has no history yet: the header, exit 0. */
Test(history, empty_history_of_a_configured_task_is_a_header_and_exit_zero)
{
	const char *cfg = write_config("tasks:\n  never-ran:\n    command: [true]\n");
	struct result r;

	LR(&r, "history", "--redis", fx.url, "-c", cfg, "never-ran");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "^TIME  .*HOLDER\n$"), "only the header: %s", r.out);
	LR(&r, "history", "--redis", fx.url, "-c", cfg, "--json", "never-ran");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(str, r.out, ""));
	cr_assert(eq(str, r.err, ""));
	LR(&r, "history", "-v", "--redis", fx.url, "-c", cfg, "--json", "never-ran");
	cr_assert(matches(r.err, "^lockrun: redis [^\n]*: URL from --url; no password; "
	    "prefix \"lockrun:\" from the built-in default\nlockrun: no history for never-ran "
	    "\\(lockrun:\\{never-ran\\}:history is empty or gone\\)\n$"), "%s", r.err);
}

/* A name no config has and with no history: mistyped, most likely. Said,
 * and exit 1, not an empty table. */
Test(history, an_unknown_task_is_1)
{
	struct result r;

	LR(&r, "history", "--redis", fx.url, "nightyl");
	cr_assert(eq(int, r.status, 1));
	cr_assert(eq(str, r.out, ""));
	cr_assert(matches(r.err, "^lockrun: history: nightyl: no such task, or it keeps no "
	    "history \\(no config names it, and 127\\.0\\.0\\.1:[0-9]+ has none under "
	    "lockrun:\\{nightyl\\}:history\\)\n$"), "%s", r.err);
	LR(&r, "history", "--redis", fx.url, "--json", "nightyl");
	cr_assert(eq(int, r.status, 1));
	cr_assert(eq(str, r.out, ""));
}

/* --- JSON ------------------------------------------------------------ */

Test(history, json_escapes_any_byte)
{
	/* a quote, a backslash, a control byte, a newline, a byte that is not
	 * UTF-8, and an e-acute that is */
	static const char host[] = "q\"b\\s\x01\n\xff\xc3\xa9";
	struct hist h;

	freeReplyObject(rcmd("XADD lockrun:{esc}:history 1781524800123-0 event ran "
	    "host %b pid 12 status abc extra 1", host, sizeof(host) - 1));
	history_json(&h, "esc", NULL);
	cr_assert(eq(sz, h.n, 1));
	cr_assert(eq(str, h.e[0].host, "q\"b\\s\x01\n\xef\xbf\xbd\xc3\xa9"),
	    "U+FFFD for the stray byte");
	cr_assert(eq(str, h.e[0].time, "2026-06-15T12:00:00.123Z"));
	cr_assert(eq(i64, h.e[0].time_ms, 1781524800123LL));
	cr_assert(eq(i64, h.e[0].pid, 12));
	cr_assert(eq(i64, h.e[0].status, -1), "not a number: null");
	cr_assert(eq(i64, h.e[0].token, -1), "absent: null");
}

/* The token is a JSON number, as in status --json and the JSON log
 * (out/json.h): written with all its digits, and null when the entry's
 * token is no decimal number. */
Test(history, json_token_is_a_number)
{
	struct result r;
	struct json *j;
	const struct json *tok;
	char err[256];
	double d;

	freeReplyObject(rcmd("XADD lockrun:{num}:history * event ran host h pid 1 "
	    "token 1781524800123456"));
	LR(&r, "history", "--redis", fx.url, "--json", "num");
	cr_assert(strstr(r.out, "\"token\":1781524800123456,") != NULL, "%s", r.out);
	j = json_parse(r.out, err, sizeof(err));
	cr_assert(j != NULL, "%s", err);
	tok = json_get(j, "token");
	cr_assert(json_is(tok, "number"));
	cr_assert(eq(int, json_num(tok, &d), 0));
	cr_assert(d == 1781524800123456.0, "below 2^53: exact in a double");
	json_free(j);
	freeReplyObject(rcmd("XADD lockrun:{odd}:history * event ran host h pid 1 "
	    "token 12abc"));
	LR(&r, "history", "--redis", fx.url, "--json", "odd");
	cr_assert(strstr(r.out, "\"token\":null,") != NULL, "%s", r.out);
}

/* --- settings: cap, lifetime, off ------------------------------------ */

Test(history, cap_keeps_exactly_the_last_n)
{
	struct result r;
	struct hist h;
	redisReply *len;

	for (int i = 0; i < 8; i++) {
		char host[16];
		snprintf(host, sizeof(host), "run-%d", i);
		LR(&r, "--redis", fx.url, "--history", "5", "--host", host, "-k", "cap", "--",
		    "true");
		cr_assert(eq(int, r.status, 0));
	}
	len = rcmd("XLEN lockrun:{cap}:history");
	cr_assert(eq(i64, len->integer, 5));
	freeReplyObject(len);
	history_json(&h, "cap", NULL);
	cr_assert(eq(sz, h.n, 5));
	cr_assert(eq(str, h.e[0].host, "run-7"));
	cr_assert(eq(str, h.e[0].event, "released"));
	cr_assert(eq(str, h.e[4].host, "run-5"));
	cr_assert(eq(str, h.e[4].event, "released"), "the oldest kept");
}

Test(history, ttl_sets_the_history_lifetime)
{
	struct result r;
	long long ttl;

	LR(&r, "--redis", fx.url, "--history-ttl", "1h", "-k", "ttl", "--", "true");
	cr_assert(eq(int, r.status, 0));
	ttl = key_pttl("lockrun:{ttl}:history");
	cr_assert(ttl > 0 && ttl <= 3600000, "PTTL %lld", ttl);
}

Test(history, zero_writes_no_history)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--history", "0", "-k", "off", "--", "true");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(int, key_exists("lockrun:{off}:history"), 0));
	cr_assert(eq(int, key_exists("lockrun:{off}:last"), 0));
	cr_assert(eq(int, key_exists("lockrun:{off}:fence"), 1), "the run itself happened");
	LR(&r, "history", "--redis", fx.url, "--json", "off");
	cr_assert(eq(int, r.status, 1), "nothing says the name is right");
	cr_assert(strstr(r.err, "no such task, or it keeps no history") != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""));
}

Test(history, config_prefix_applies)
{
	const char *cfg = scratch("lockrun.yaml");
	char err[256] = "";
	struct result r;
	struct hist h;
	FILE *fp = fopen(cfg, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\nprefix: \"app:\"\ntasks:\n  job:\n"
	    "    command: [true]\n", fx.url);
	fclose(fp);
	LR(&r, "-c", cfg, "--host", "cfg-host", "-t", "job");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("app:{job}:history"), 1));
	LR(&r, "history", "-c", cfg, "--json", "job");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	h.n = 0;
	cr_assert(eq(long, json_lines(r.out, collect, &h, err, sizeof(err)), 2), "%s", err);
	cr_assert(eq(str, h.e[0].host, "cfg-host"));
	/* a name the config does not have, with no history: said, exit 1 */
	LR(&r, "history", "-c", cfg, "--json", "not-a-task");
	cr_assert(eq(int, r.status, 1), "stderr: %s", r.err);
	cr_assert(strstr(r.err, "not-a-task: no such task, or it keeps no history (not in "
	    "the config") != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""));
}

/* --- errors ---------------------------------------------------------- */

Test(history, no_task_is_64)
{
	struct result r;

	LR(&r, "history", "--redis", fx.url);
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: history: no task named\n"
	    "Try 'lockrun history --help' for more information.\n"));
}

Test(history, two_tasks_is_64)
{
	struct result r;

	LR(&r, "history", "--redis", fx.url, "a", "b");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: history: one task at a time, got \"a\" and "
	    "\"b\"\nTry 'lockrun history --help' for more information.\n"));
}

Test(history, bad_task_name_is_64)
{
	struct result r;

	LR(&r, "history", "--redis", fx.url, "x}y");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "^lockrun: history: task \"x\\}y\" may not contain '\\{' "
	    "or '\\}'"), "stderr: %s", r.err);
}

/* The verbs other than run take options after their words too. */
Test(history, options_may_follow_the_task)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-k", "after", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "history", "after", "--redis", fx.url, "--json", "-n", "1");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, r.out[0], '{'), "not JSON: %s", r.out);
	cr_assert(eq(ptr, strchr(r.out, '\n'), r.out + strlen(r.out) - 1), "one line: %s", r.out);
	/* "--" still ends the options: a task called "-x" */
	LR(&r, "history", "--redis", fx.url, "--", "-x");
	cr_assert(eq(int, r.status, 1), "stderr: %s", r.err);
	cr_assert(strstr(r.err, "history: -x: no such task") != NULL, "%s", r.err);
}

Test(history, redis_down_is_69)
{
	struct result r;
	char url[64];

	snprintf(url, sizeof(url), "redis://127.0.0.1:%d", fx.port);
	redis_halt(&fx);
	LR(&r, "history", "--redis", url, "job");
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: cannot connect: "
	    "Connection refused \\(URL from --url; no password\\)\n$"), "stderr: %s", r.err);
}

Test(history, wrong_type_is_69)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{wt}:history not-a-stream"));
	LR(&r, "history", "--redis", fx.url, "wt");
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "^lockrun: redis .*: history lockrun:\\{wt\\}:history: "
	    "a key lockrun uses holds another type.*WRONGTYPE"), "stderr: %s", r.err);
}

/* --- cost: with history on, still 2 round trips a run and 1 a skip ------ */

Test(history, one_server_run_costs_two_commands_and_a_skip_one)
{
	const char *env[6];
	char buf[3][128], seen[256];
	struct result r;
	redisContext *mon;
	struct hist h;

	faketime_frozen_env(env, buf, T_MIDDAY + 10);
	LR(&r, "--redis", fx.url, "-k", "warm", "--", "true");	/* loads the scripts */
	mon = monitor_start();
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "-k", "os-rt", "--", "true", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 2));
	cr_assert(eq(str, seen, "\"EVALSHA\"\n\"EVALSHA\"\n"));
	mon = monitor_start();
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "-k", "os-rt", "--", "true", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1));
	cr_assert(eq(str, seen, "\"EVALSHA\"\n"));
	history_json(&h, "os-rt", NULL);
	cr_assert(eq(sz, h.n, 3), "history on: ran, released, skipped-slot");
	cr_assert(eq(str, h.e[0].event, "skipped-slot"));
}

Test(history, no_overlap_run_costs_two_commands_and_a_skip_one)
{
	char seen[256];
	struct result r;
	redisContext *mon;
	struct hist h;

	LR(&r, "--redis", fx.url, "-k", "warm", "--", "true");	/* loads the scripts */
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "--no-overlap", "-k", "no-rt", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 2));
	cr_assert(eq(str, seen, "\"EVALSHA\"\n\"EVALSHA\"\n"));
	freeReplyObject(rcmd("SET lockrun:{no-rt} %s PX 30000", OWNER " 1 h 1 t"));
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "--no-overlap", "-k", "no-rt", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1));
	cr_assert(eq(str, seen, "\"EVALSHA\"\n"));
	history_json(&h, "no-rt", NULL);
	cr_assert(eq(sz, h.n, 3), "history on: ran, released, skipped-held");
	cr_assert(eq(str, h.e[0].event, "skipped-held"));
	cr_assert(eq(str, h.e[0].holder, "h 1"));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* late_start_test.c -- a start too late for its slot, or for its lease,
 * starts nothing (issue 40). One of three `lockrun cron` schedulers has
 * its connection stalled 40 s (a frozen TCP relay, proxy.h) across fire
 * times of a one-server `*<slash>10 * * * * *` task, on Redis and on
 * PostgreSQL: the starts it queued meanwhile claim no slot another
 * scheduler ran (the slot's next fire time bounds the claim, lock.c
 * lock_window()), and each slot it could not start is said missed once.
 * And Redis stopped 40 s with 20 runs waiting for their acquire's answer:
 * the answer comes past the lease's first renewal point, so no command
 * starts (none killed at once, none recorded 143): each slot is recorded
 * missed. Every job holds a flock on the log for its whole tree, so a
 * second copy at once is seen. Real binary, real servers, real clocks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"
#include "proc.h"
#include "proxy.h"

TestSuite(late_start, .init = suite_setup, .fini = backends_teardown, .timeout = 300);

#define NSERVERS 3

static pid_t servers[NSERVERS], said[NSERVERS];
static struct proxy relay;

static void
kill_all(void)
{
	for (int i = 0; i < NSERVERS; i++)
		if (servers[i] > 0) {
			kill(servers[i], SIGKILL);
			lr_wait(servers[i]);
			servers[i] = 0;
		}
	proxy_cut(&relay);
}

/* Until the real clock reads at (Unix s): the fault's moment, not a
 * synchronisation. */
static void
until_real(double at)
{
	while (fixture_real_s() < at)
		fixture_tick(20);
}

/* The ISO 8601 UTC form of t. */
static const char *
iso(long long t, char buf[32])
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* A config at path: task "fast" every 10 s on the server at u, connect
 * and command timeouts of 15 s (a connection opened, a request sent, in a
 * stall still succeeds or is answered when it ends), whose job appends "SLOT SERVER" to log under a flock on
 * log.lock taken without waiting ("overlap" instead). */
static const char *
fast_config(const char *name, const char *u, const char *log)
{
	char body[2048];
	const char *path = scratch(name);
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	snprintf(body, sizeof(body), "%s:\n  url: '%s'\n  connect_timeout: 15s\n"
	    "  command_timeout: 15s\ntasks:\n"
	    "  fast:\n    schedule: '*/10 * * * * *'\n    timezone: UTC\n    command: "
	    "'flock -n %s.lock sh -c ''echo \"$LOCKRUN_SLOT $SERVER\" >> %s; sleep 0.5'' "
	    "|| echo overlap >> %s'\n", be == BE_REDIS ? "redis" : "postgres", u, log, log,
	    log);
	fputs(body, fp);
	fclose(fp);
	return path;
}

/* The slots in log, as Unix times; how many. */
static int
slots_of(const char *log, long long *at, int max)
{
	char text[65536], *save = NULL;
	int n = 0;

	snprintf(text, sizeof(text), "%s", file_peek(log));
	for (char *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) {
		struct tm tm;

		memset(&tm, 0, sizeof(tm));
		if (strptime(l, "%Y-%m-%dT%H:%M:%SZ", &tm) != NULL)
			at[n++] = (long long)timegm(&tm);
	}
	return n;
}

static long long
latest(const char *log)
{
	long long at[512], top = 0;
	int n = slots_of(log, at, 512);

	for (int i = 0; i < n; i++)
		top = at[i] > top ? at[i] : top;
	return top;
}

/* Server i's stderr, whole. */
static const char *
said_by(int i)
{
	static char buf[1 << 17];

	return lr_stderr_of(said[i], buf, sizeof(buf));
}

/* How many times server i said slot t of fast missed: a line of its own
 * ("fast T: missed: ..."), or in a line of fire times it could not start
 * at all, its timer late ("fire times from A to before B were missed"). */
static int
missed_said(int i, long long t)
{
	char re[128], at[32], *save = NULL;
	char *text = strdup(said_by(i));
	int n = 0;

	cr_assert(text != NULL);
	snprintf(re, sizeof(re), "fast %s: missed", iso(t, at));
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *from = strstr(l, "fire times from "), *to = strstr(l, " to before ");
		struct tm a, b;

		n += strstr(l, re) != NULL;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		if (from && to && strstr(l, "were missed") &&
		    strptime(from + 16, "%Y-%m-%dT%H:%M:%SZ", &a) &&
		    strptime(to + 11, "%Y-%m-%dT%H:%M:%SZ", &b))
			n += (long long)timegm(&a) <= t && t < (long long)timegm(&b);
	}
	free(text);
	return n;
}

/* Did server i start a run for slot t of fast that took its part: ran
 * it, or found it taken (by the lock server, or told of the claim)? */
static int
took_part(int i, long long t)
{
	char re[160], at[32];

	snprintf(re, sizeof(re), "^lockrun: fast %s: (ended|skipped|already claimed)",
	    iso(t, at));
	return stderr_matching(said[i], re) > 0;
}

/*
 * Three schedulers on a 10 s one-server task; server 0 reaches the
 * server through a relay that is frozen from 3 s before a fire time F
 * for 40 s, across F, F+10, F+20 and F+30. Its runs for those slots ask
 * over the stalled connection, fail and are tried again, and their
 * acquires wait in it; when it thaws, a claim of a slot whose key (alive
 * until the next fire time plus the tolerance) has expired would run the
 * slot a second time. None does: every slot in the log once, no overlap,
 * and the slots server 0 could not start (F+10 and F+20 at least, whose
 * next fire time passed in the stall) each said missed once.
 */
static void
one_stalled_of_three(enum backend b)
{
	char logbuf[256], cfgbuf[256], url0[256], at[32];
	const char *log, *cfg0, *cfg;
	long long f, t[512];
	int n;

	use(b);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	cr_assert(eq(int, proxy_start(&relay, b == BE_REDIS ? fx.port : srv.port), 0));
	if (b == BE_REDIS)
		snprintf(url0, sizeof(url0), "%s", relay.url);
	else
		snprintf(url0, sizeof(url0), "postgres://lockrun@127.0.0.1:%d/lockrun",
		    relay.port);
	snprintf(cfgbuf, sizeof(cfgbuf), "%s", fast_config("stalled.yaml", url0, log));
	cfg0 = cfgbuf;
	cfg = fast_config("direct.yaml", url, log);
	for (int i = 0; i < NSERVERS; i++)
		said[i] = servers[i] = cron_server_at(i, i == 0 ? cfg0 : cfg, fixture_real_s(),
		    b != BE_REDIS ? pw_env[0] : NULL);
	POLL_UNTIL(latest(log) > 0);	/* the fleet runs */
	cr_assert(latest(log) > 0, "nothing ran:\n%s", said_by(0));
	f = ((long long)fixture_real_s() / 10 + 2) * 10;
	until_real((double)f - 3);
	proxy_freeze(&relay);
	until_real((double)f + 37);
	proxy_thaw(&relay);
	for (int k = 0; k < 4 && latest(log) < f + 60; k++)
		POLL_UNTIL(latest(log) >= f + 60);
	for (int i = 0; i < NSERVERS; i++) {
		cron_stop(servers[i]);
		servers[i] = 0;
	}
	proxy_cut(&relay);

	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "two copies at once:\n%s",
	    file_peek(log));
	n = slots_of(log, t, 512);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			cr_assert(t[i] != t[j], "slot %s ran twice:\n%s\nserver 0 said:\n%s",
			    iso(t[i], at), file_peek(log), said_by(0));
	/* the stall's slots: each one server 0 took no part in said missed,
	 * once; F+10 and F+20, whose next fire times passed in it, among them */
	for (long long s = f; s <= f + 30; s += 10)
		cr_assert(eq(int, missed_said(0, s), took_part(0, s) ? 0 : 1), "slot %s: "
		    "said missed %d times:\n%s", iso(s, at), missed_said(0, s), said_by(0));
	for (long long s = f + 10; s <= f + 20; s += 10)
		cr_assert(eq(int, took_part(0, s), 0), "slot %s:\n%s", iso(s, at), said_by(0));
}

Test(late_start, redis_one_scheduler_stalled_40s_claims_no_slot_twice, .fini = kill_all)
{
	one_stalled_of_three(BE_REDIS);
}

Test(late_start, pg_one_scheduler_stalled_40s_claims_no_slot_twice, .fini = kill_all)
{
	one_stalled_of_three(BE_PG);
}

/* The fields of the history entries of task: "EVENT STATUS SLOT" a line,
 * oldest first, into buf. */
static const char *
history_of(const char *task, char *buf, size_t n)
{
	redisReply *r = rcmd("XRANGE lockrun:{%s}:history - +", task);
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		const redisReply *fl = r->element[i]->element[1];
		const char *ev = "-", *st = "-", *sl = "-";

		for (size_t j = 0; j + 1 < fl->elements; j += 2) {
			const char *name = fl->element[j]->str, *v = fl->element[j + 1]->str;
			if (strcmp(name, "event") == 0)
				ev = v;
			else if (strcmp(name, "status") == 0)
				st = v;
			else if (strcmp(name, "slot") == 0)
				sl = v;
		}
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s %s %s\n", ev, st, sl);
	}
	freeReplyObject(r);
	return buf;
}

/* How many times what occurs in s. */
static int
count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* How many lines of s match the extended regex re. */
static int
lines_in(const char *s, const char *re)
{
	char line[512];
	int n = 0;

	for (const char *p = s; *p; ) {
		size_t len = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s\n", (int)(len < 500 ? len : 500), p);
		n += matches(line, re);
		p += len + (p[len] == '\n');
	}
	return n;
}

#define NTASKS 20
/* the scheduler's own line of how a run went */
#define SAID "^lockrun: t[0-9]+ [0-9TZ:-]+: (missed|ended)"

/*
 * 20 minutely tasks (no-overlap, the TTL's 30 s, a job of 1 s that logs
 * its start and its end under a flock), a command timeout of 60 s so that
 * a request waits for a stopped server, and clock_tolerance 0 (else the
 * one-server claims, run 39 s after they were sent, would be refused as
 * this clock being off). Redis is stopped 1 s before the minute M, for
 * 40 s. Under `tick`, started at M, the 20 runs ask at once and their
 * acquires are answered (in their window) some 39 s later, past the
 * lease's first renewal point -- before, each started its command and had
 * it killed at once (LOST LOCK, 0 ms left), a run recorded 143. Now none
 * starts: each lock is released and recorded "missed" (69). Under `cron`,
 * running since before M, the scheduler asks the server before it forks
 * (away.c), the ask waits as long, and the starts it held are past their
 * starting_deadline (30 s) when it answers: given up and recorded missed.
 * Either way no command runs, and each slot is said missed once. The
 * clock is the real one.
 */
static void
stopped_40s(const char *verb)
{
	char logbuf[256], body[16384], hist[4096], name[16], at[32];
	const char *log, *cfg, *err;
	long long m;
	size_t k;
	int status;
	pid_t seeded[NTASKS];

	use(BE_REDIS);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	k = (size_t)snprintf(body, sizeof(body), "redis:\n  url: '%s'\n  command_timeout: 60s\n"
	    "defaults:\n  clock_tolerance: 0\n  starting_deadline: 30s\ntasks:\n", fx.url);
	for (int i = 0; i < NTASKS; i++)
		k += (size_t)snprintf(body + k, sizeof(body) - k, "  t%02d:\n    schedule: "
		    "'* * * * *'\n    command: 'flock -n %s.t%02d sh -c ''echo \"t%02d start\" "
		    ">> %s; sleep 1; echo \"t%02d end\" >> %s'' || echo overlap >> %s'\n",
		    i, log, i, i, log, i, log, log);
	cfg = write_scratch("tasks.yaml", body);
	m = ((long long)fixture_real_s() + 13) / 60 * 60 + 60;
	/* each task ran once, a day before: a slot missed of a task that
	 * never ran is not recorded for the fleet (missed.c) */
	for (int i = 0; i < NTASKS; i++) {
		static char fake[NTASKS][3][128];
		static const char *env[NTASKS][5];

		snprintf(name, sizeof(name), "t%02d", i);
		faketime_env(env[i], fake[i], (double)m - 86400);
		seeded[i] = lr_start_env(env[i], (const char *const[]){ "-c", cfg, "-t", name,
		    NULL });
	}
	for (int i = 0; i < NTASKS; i++)
		cr_assert(eq(int, lr_wait(seeded[i]), 0));
	if (strcmp(verb, "cron") == 0) {
		until_real((double)m - 12.5);
		said[0] = servers[0] = LR_START("cron", "-v", "-c", cfg);
		POLL_UNTIL(stderr_matching(said[0], "scheduled tasks") >= 1);
	}
	until_real((double)m - 1);
	cr_assert(eq(int, kill(fx.pid, SIGSTOP), 0));
	POLL_UNTIL(proc_state(fx.pid) == 'T');
	if (strcmp(verb, "tick") == 0) {
		until_real((double)m + 0.5);
		said[0] = servers[0] = LR_START("tick", "-v", "-c", cfg);
	}
	until_real((double)m + 39);
	cr_assert(eq(int, kill(fx.pid, SIGCONT), 0));
	if (strcmp(verb, "cron") == 0) {
		/* every task's slot given up, then recorded for the fleet */
		for (int i = 0; i < 4 && stderr_matching(said[0], SAID) < NTASKS; i++)
			POLL_UNTIL(stderr_matching(said[0], SAID) >= NTASKS);
		POLL_UNTIL(stderr_matching(said[0], "recorded for the fleet here") >= NTASKS);
		kill(servers[0], SIGTERM);
	}
	status = lr_wait(servers[0]);
	servers[0] = 0;
	err = said_by(0);
	/* tick says how its runs went: 69, none ran; cron stops with 0 */
	cr_assert(eq(int, status, strcmp(verb, "tick") == 0 ? 69 : 0), "%s", err);

	cr_assert(eq(int, count_of(err, "LOST LOCK"), 0), "a command started without its "
	    "lease:\n%s", err);
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "start"), lines_matching(log, "end")),
	    "a command was stopped:\n%s", file_peek(log));
	iso(m, at);
	for (int i = 0; i < NTASKS; i++) {
		char re[64];

		snprintf(name, sizeof(name), "t%02d", i);
		history_of(name, hist, sizeof(hist));
		cr_assert(eq(int, count_of(hist, " 143 "), 0), "%s:\n%s", name, hist);
		snprintf(re, sizeof(re), "missed [0-9-]+ %s\n", at);
		cr_assert(eq(int, lines_in(hist, re), 1), "%s's slot %s not recorded "
		    "missed once:\n%s\n%s", name, at, hist, err);
		/* said once: by the run (tick), or as given up (cron), which
		 * then says it recorded the slot for the fleet */
		snprintf(re, sizeof(re), "%s %s: missed", name, at);
		cr_assert(eq(int, count_of(err, re), strcmp(verb, "cron") == 0 ? 2 : 1),
		    "%s's slot not said missed once:\n%s", name, err);
	}
}

Test(late_start, redis_stopped_40s_tick_starts_no_command_without_its_lease,
    .fini = kill_all)
{
	stopped_40s("tick");
}

Test(late_start, redis_stopped_40s_cron_starts_no_command_without_its_lease,
    .fini = kill_all)
{
	stopped_40s("cron");
}


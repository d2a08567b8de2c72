/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_seconds_test.c -- `lockrun cron` on schedules under a minute
 * (every: 2s, every: 5s, a 6-field "*<slash>5 * * * * *"), against Redis and
 * PostgreSQL: several schedulers, each slot once across them, none missed
 * while one of them is up, never two copies at once (the job holds a
 * flock for its whole tree), with clocks 0.5s apart either way
 * (libfaketime); a tolerance that cannot work for the period refused;
 * tick leaves such tasks to cron and says so. The clocks run at real
 * speed: a faster one would leave a loaded machine a fraction of a
 * second per slot to start a run in. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(cron_seconds, .init = suite_setup, .fini = backends_teardown, .timeout = 200);

#define NSERVERS 3

/* The servers a test started, for stop_server() and its .fini (0 once
 * stopped), and for what they said (kept). */
static pid_t servers[NSERVERS], said[NSERVERS];

/* The end of each server's stderr, for a failure's message. */
static const char *
tails(void)
{
	static char out[NSERVERS * 1100];
	char buf[65536];
	size_t k = 0;

	out[0] = '\0';
	for (int i = 0; i < NSERVERS && said[i] > 0; i++) {
		size_t len = strlen(lr_stderr_of(said[i], buf, sizeof(buf)));
		k += (size_t)snprintf(out + k, sizeof(out) - k, "server %d: ...%s\n", i,
		    buf + (len > 1000 ? len - 1000 : 0));
	}
	return out;
}


/* lockrun cron -v -c cfg as server i, whose clock is skew seconds off the
 * real one; the runs it starts say "SLOT i" in their log lines. */
static pid_t
start_server(int i, const char *cfg, double skew)
{
	return said[i] = servers[i] = cron_server_at(i, cfg, fixture_real_s() + skew,
	    be != BE_REDIS ? pw_env[0] : NULL);
}

/* SIGTERM to server i; it exits 0. */
static void
stop_server(int i)
{
	char err[4096];
	pid_t pid = servers[i];
	int st;

	kill(pid, SIGTERM);
	st = lr_wait(pid);
	servers[i] = 0;
	cr_assert(eq(int, st, 0), "server %d: %s", i, lr_stderr_of(pid, err, sizeof(err)));
}

static void
kill_all(void)
{
	for (int i = 0; i < NSERVERS; i++)
		if (servers[i] > 0) {
			kill(servers[i], SIGKILL);
			lr_wait(servers[i]);
			servers[i] = 0;
		}
}

/* The config: task "fast" on `when` (a YAML line, "every: 2s"), whose
 * command appends "SLOT SERVER" to log, then sleeps hold seconds, all
 * under a flock on log.lock taken without waiting: "overlap" instead when
 * another copy holds it. */
static const char *
seconds_config(const char *when, const char *log, double hold)
{
	char body[2048];
	const char *path = scratch("seconds.yaml");
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	snprintf(body, sizeof(body), "url: '%s'\ntasks:\n  fast:\n    %s\n"
	    "    command: 'flock -n %s.lock sh -c ''echo \"$LOCKRUN_SLOT $SERVER\" >> %s; "
	    "sleep %.1f'' || echo overlap >> %s'\n", url, when, log, log, hold, log);
	fputs(body, fp);
	fclose(fp);
	return path;
}

/* The ISO 8601 UTC time at s as a Unix time, *end past it; or -1. */
static long long
iso_at(const char *s, char **end)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if ((*end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm)) == NULL)
		return -1;
	return (long long)timegm(&tm);
}

/* The slots in log, as Unix times, in the order written, and who ran
 * each; how many. */
static int
slots_of(const char *log, long long *at, int *who, int max)
{
	char text[65536], *save = NULL;
	int n = 0;

	snprintf(text, sizeof(text), "%s", file_peek(log));
	for (char *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) {
		char *rest;

		if ((at[n] = iso_at(l, &rest)) < 0)
			continue;	/* "overlap": counted apart */
		who[n++] = (int)strtol(rest, NULL, 10);
	}
	return n;
}

/* The latest slot in log, or 0. */
static long long
latest(const char *log)
{
	long long at[512], top = 0;
	int who[512], n = slots_of(log, at, who, 512);

	for (int i = 0; i < n; i++)
		top = at[i] > top ? at[i] : top;
	return top;
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Every slot from the first in log to the last ran once: each period
 * apart, none twice, none left out; no overlap; at least min of them.
 * Returns how many. */
static int
assert_each_slot_once(const char *log, int period, int min)
{
	long long at[512];
	int who[512], n = slots_of(log, at, who, 512);

	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "two copies at once:\n%s",
	    file_peek(log));
	cr_assert(n >= min, "%d slots ran, expected at least %d:\n%s%s", n, min, file_peek(log),
	    tails());
	qsort(at, (size_t)n, sizeof(at[0]), cmp_ll);
	for (int i = 1; i < n; i++) {
		cr_assert(at[i] != at[i - 1], "slot %lld ran twice:\n%s", at[i], file_peek(log));
		cr_assert(eq(i64, at[i] - at[i - 1], period), "slots missed after %lld:\n%s",
		    at[i - 1], file_peek(log));
	}
	return n;
}

/* Backend b, and NSERVERS schedulers with the right clock on every: 2s,
 * a job of 0.5s logging into logbuf. Returns the real time they started. */
static long long
three_on_every_2s(enum backend b, char logbuf[256])
{
	const char *cfg;
	long long t0;

	use(b);
	snprintf(logbuf, 256, "%s", scratch("runs.log"));
	cfg = seconds_config("every: 2s", logbuf, 0.5);
	t0 = (long long)fixture_real_s();
	for (int i = 0; i < NSERVERS; i++)
		start_server(i, cfg, 0);
	return t0;
}

/* Three schedulers on every: 2s for 30s: server 0 stops after 10s, server
 * 1 after 20s; every slot ran exactly once, including across the stops,
 * never two at once, and once only server 2 was left it ran them all. */
static void
three_servers_every_2s(enum backend b)
{
	char logbuf[256];
	const char *log;
	long long t0, alone, at[512];
	int who[512], n;

	t0 = three_on_every_2s(b, logbuf);
	log = logbuf;
	POLL_UNTIL(latest(log) >= t0 + 10);
	stop_server(0);
	POLL_UNTIL(latest(log) >= t0 + 20);
	stop_server(1);
	alone = latest(log);
	POLL_UNTIL(latest(log) >= t0 + 30);
	stop_server(2);

	assert_each_slot_once(log, 2, 12);
	n = slots_of(log, at, who, 512);
	for (int i = 0; i < n; i++)
		if (at[i] > alone)	/* started after server 1 had exited */
			cr_assert(eq(int, who[i], 2), "slot %lld ran on server %d, which "
			    "was stopped:\n%s", at[i], who[i], file_peek(log));
}

Test(cron_seconds, redis_three_servers_every_2s_each_slot_once, .fini = kill_all)
{
	three_servers_every_2s(BE_REDIS);
}

Test(cron_seconds, pg_three_servers_every_2s_each_slot_once, .fini = kill_all)
{
	three_servers_every_2s(BE_PG);
}

/* Three schedulers whose clocks are 0.5s slow, right and 0.5s fast, on a
 * 5s schedule (`when`), a job of 2s: for five slots, each ran once, none
 * missed, never two copies at once. */
static void
skewed_servers(enum backend b, const char *when)
{
	char logbuf[256];
	const char *log, *cfg;
	long long t0;

	use(b);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	cfg = seconds_config(when, log, 2);
	t0 = (long long)fixture_real_s();
	start_server(0, cfg, -0.5);
	start_server(1, cfg, 0);
	start_server(2, cfg, 0.5);
	POLL_UNTIL(latest(log) >= t0 + 25);
	for (int i = 0; i < NSERVERS; i++)
		stop_server(i);
	assert_each_slot_once(log, 5, 4);
}

Test(cron_seconds, redis_clocks_half_a_second_apart_every_5s, .fini = kill_all)
{
	skewed_servers(BE_REDIS, "every: 5s");
}

Test(cron_seconds, pg_clocks_half_a_second_apart_every_5s, .fini = kill_all)
{
	skewed_servers(BE_PG, "every: 5s");
}

Test(cron_seconds, redis_clocks_half_a_second_apart_six_fields, .fini = kill_all)
{
	skewed_servers(BE_REDIS, "schedule: '*/5 * * * * *'\n    timezone: UTC");
}

Test(cron_seconds, pg_clocks_half_a_second_apart_six_fields, .fini = kill_all)
{
	skewed_servers(BE_PG, "schedule: '*/5 * * * * *'\n    timezone: UTC");
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

/* How many times the task's runs were skipped at the server (its
 * counters: skipped_slot and skipped_held), each a round trip. */
static long long
races_lost(void)
{
	redisReply *r = rcmd("HMGET lockrun:{fast}:counts skipped_slot skipped_held");
	long long n = 0;

	for (size_t i = 0; i < r->elements; i++)
		if (r->element[i]->type == REDIS_REPLY_STRING)
			n += strtoll(r->element[i]->str, NULL, 10);
	freeReplyObject(r);
	return n;
}

/* Server 1's clock is right, server 0's a second fast, on every: 2s: 0
 * claims each slot a second before 1's fire time, and the lock server
 * pushes the claim to 1 (sched/defer.h), which starts nothing for it: no
 * round trip lost to the race, where every slot cost one before. Each
 * slot once, none missed. */
Test(cron_seconds, redis_a_server_told_of_each_claim_races_for_none, .fini = kill_all)
{
	char logbuf[256], err[65536];
	const char *log, *cfg;
	long long t0;
	int n;

	use(BE_REDIS);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	cfg = seconds_config("every: 2s", log, 0.2);
	t0 = (long long)fixture_real_s();
	start_server(1, cfg, 0);
	start_server(0, cfg, 1.0);
	POLL_UNTIL(latest(log) >= t0 + 20);
	stop_server(0);
	stop_server(1);
	n = assert_each_slot_once(log, 2, 8);
	/* one, should server 1's first fire time come before its watch */
	cr_assert(le(i64, races_lost(), 1), "%lld of %d slots cost server 1 a round trip:\n%s",
	    races_lost(), n, tails());
	lr_stderr_of(said[1], err, sizeof(err));
	cr_assert(ge(int, count_of(err, "already claimed, as the lock server told"), n - 2),
	    "%s", tails());
}

/* Three schedulers, same clock, every: 2s: the one that wins the slots is
 * killed (SIGKILL); the others, which sat out its slots on its claims,
 * run the next ones: no slot missed across the kill, none twice, never
 * two copies at once. */
Test(cron_seconds, redis_the_winner_killed_the_others_run_its_next_slots, .fini = kill_all)
{
	char logbuf[256];
	const char *log;
	long long t0, killed, at[512];
	int who[512], n, w = -1;

	t0 = three_on_every_2s(BE_REDIS, logbuf);
	log = logbuf;
	POLL_UNTIL(latest(log) >= t0 + 8);
	n = slots_of(log, at, who, 512);
	for (int i = 0; i < n; i++)
		if (at[i] == latest(log))
			w = who[i];
	cr_assert(w >= 0 && w < NSERVERS, "%s", file_peek(log));
	killed = latest(log);
	kill(servers[w], SIGKILL);
	lr_wait(servers[w]);
	servers[w] = 0;
	POLL_UNTIL(latest(log) >= killed + 10);
	for (int i = 0; i < NSERVERS; i++)
		if (servers[i] > 0)
			stop_server(i);
	assert_each_slot_once(log, 2, 8);
	n = slots_of(log, at, who, 512);
	for (int i = 0; i < n; i++)
		if (at[i] > killed + 2)	/* its run of the next slot may have started */
			cr_assert(ne(int, who[i], w), "slot %lld ran on server %d, killed:\n%s",
			    at[i], w, file_peek(log));
}

/* slot_tolerance 1s on every: 2s cannot work (a start 1s early would take
 * the next slot): check, cron and a run of the task refuse the config
 * (78, at the task), the command line refuses the pair (64); nothing ran
 * and no key was written. */
Test(cron_seconds, a_tolerance_too_long_for_the_period_is_refused)
{
	char logbuf[256], body[512], want[512];
	const char *log, *cfg;
	struct result r;
	redisReply *k;

	use(BE_REDIS);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("ran.log"));
	log = logbuf;
	snprintf(body, sizeof(body), "tasks:\n  fast:\n    every: 2s\n    slot_tolerance: 1s\n"
	    "    command: 'echo ran >> %s'\n", log);
	cfg = write_config(body);
	snprintf(want, sizeof(want), "lockrun: %s:4:3: tasks.fast: slot_tolerance 1s must be "
	    "at most a quarter of the slot (2s) when slots are under a minute apart\n", cfg);

	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(str, r.err, want));
	LR(&r, "cron", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(str, r.err, want));
	LR(&r, "-c", cfg, "-t", "fast");
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	LR(&r, "--redis", fx.url, "--every", "2s", "--slot-tolerance", "600ms", "-k", "fast",
	    "--", "sh", "-c", "echo ran >> \"$0\"", log);
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: slot_tolerance 600ms must be at most a quarter "
	    "of the slot \\(2s\\)"), "%s", r.err);
	LR(&r, "--redis", fx.url, "--every", "2s", "--slot-tolerance", "500ms", "--one-server",
	    "-k", "fine", "--", "true");
	cr_assert(eq(int, r.status, 0), "a quarter works: %s", r.err);

	cr_assert(eq(int, file_lines(log), 0), "nothing ran: %s", file_peek(log));
	k = rcmd("KEYS lockrun:{fast}*");
	cr_assert(eq(sz, k->elements, 0), "no key of fast");
	freeReplyObject(k);
}

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* tick runs minute schedules only: a seconds task gets a warning and is
 * not started; a minute schedule and a task's own every: 5m run at 12:00;
 * an every: in defaults schedules nothing (it is the slot length of
 * crontab runs). check lists the seconds task's next fire times, two
 * seconds apart. */
Test(cron_seconds, tick_leaves_seconds_tasks_to_cron_and_check_lists_their_fire_times)
{
	char logbuf[256], body[2048], buf[3][128];
	const char *log, *cfg, *env[6];
	struct result r;
	long long a, b;
	char *p;

	use(BE_REDIS);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("ran.log"));
	log = logbuf;
	snprintf(body, sizeof(body), "defaults:\n  every: 1m\n  clock_tolerance: 0\ntasks:\n"
	    "  fast:\n    every: 2s\n"
	    "    command: 'echo fast >> %s'\n  minutely:\n    schedule: '* * * * *'\n"
	    "    command: 'echo minutely >> %s'\n  five:\n    every: 5m\n"
	    "    command: 'echo five >> %s'\n  plain:\n    command: 'echo plain >> %s'\n",
	    log, log, log, log);
	cfg = write_config(body);

	faketime_frozen_env(env, buf, T_1200 + 10);
	lr_run_env(&r, env, (const char *const[]){ "tick", "-v", "-c", cfg, NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, lines_matching(log, "^five$"), 1), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^plain$"), 0), "%s", file_peek(log));
	cr_assert(matches(r.err, "tick at 2026-06-15T12:00:10Z: 2 due, 2 ran"), "%s", r.err);
	cr_assert(matches(r.err, "fast: its fire times are under a minute apart or off the "
	    "minute, and tick runs minute schedules only: start it with `lockrun cron`"),
	    "%s", r.err);
	cr_assert(eq(int, lines_matching(log, "^fast$"), 0), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^minutely$"), 1), "%s", file_peek(log));

	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	p = strstr(r.out, "seconds schedule (lockrun cron only), tolerance 500ms; next ");
	cr_assert(p != NULL, "%s", r.out);
	p += strlen("seconds schedule (lockrun cron only), tolerance 500ms; next ");
	a = iso_at(p, &p);
	b = iso_at(p + 1, &p);
	cr_assert(a > 0 && b > 0, "%s", r.out);
	cr_assert(eq(i64, a % 2, 0), "slots start on even seconds: %s", r.out);
	cr_assert(eq(i64, b - a, 2), "%s", r.out);
	cr_assert(eq(int, matches(r.out, "minutely +lockrun:\\{minutely\\}\n +seconds"), 0),
	    "no fire-time line for a minute schedule: %s", r.out);
}

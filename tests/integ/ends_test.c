/* SPDX-License-Identifier: BSD-2-Clause */
/* ends_test.c -- one end entry per run (issue 40): a run's end (released,
 * stopped-timeout, lost, killed) is recorded once, and counted once,
 * however many times it is said: a release asked twice of a stopped
 * scheduler, which sends both once continued; a loss found by the run's
 * own renewal and again by a batch that another run's renewal sent, after
 * the scheduler's session was ended. Each end is keyed by the run's token
 * (the counts hash's field ended on Redis, :ended:<token> rows on SQL),
 * not by the last-run record, which the task's next run, another
 * scheduler's, has overwritten by then. On Redis, PostgreSQL and MariaDB;
 * every job holds a flock of its own while it runs. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define TASKS	20

TestSuite(ends, .init = suite_setup, .fini = backends_teardown, .timeout = 240);

/* The end events a run's history entry may say. */
static int
is_end(const char *event)
{
	return strcmp(event, "released") == 0 || strcmp(event, "stopped-timeout") == 0 ||
	    strcmp(event, "lost") == 0 || strcmp(event, "withdrawn") == 0 ||
	    strcmp(event, "killed") == 0;
}

/* A field of one JSON line of `lockrun history --json`: a string's text or
 * a number's digits into buf, "" when null or missing. */
static const char *
field(const char *line, const char *name, char *buf, size_t n)
{
	char want[32];
	const char *p, *end;

	buf[0] = '\0';
	snprintf(want, sizeof(want), "\"%s\":", name);
	if ((p = strstr(line, want)) == NULL)
		return buf;
	p += strlen(want);
	if (*p == '"')
		p++;
	end = p + strcspn(p, "\",}");
	if (strncmp(p, "null", 4) != 0)
		snprintf(buf, n, "%.*s", (int)(end - p), p);
	return buf;
}

/* What key's history says of its runs' ends: how many end entries in all
 * (*ends), how many tokens they name (*tokens: distinct), how many of them
 * a counter counts (lost, or a status not 0: *counted, once per token);
 * and the text, for a failure's message, into text. */
static void
ends_of(const char *key, int *ends, int *tokens, int *counted, char *text, size_t n)
{
	char seen[64][32], ev[32], tok[32], st[16];
	struct result r;
	char *out, *line, *save = NULL;
	int nseen = 0;

	VERB(&r, "history", "--json", "-n", "100", key);
	cr_assert(eq(int, r.status, 0), "history: %s", r.err);
	out = file_text(scratch("run.out"));	/* r.out holds 4 KiB at most */
	snprintf(text, n, "%s", out);
	*ends = *tokens = *counted = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int i;

		if (!is_end(field(line, "event", ev, sizeof(ev))))
			continue;
		++*ends;
		field(line, "token", tok, sizeof(tok));
		for (i = 0; i < nseen && strcmp(seen[i], tok) != 0; i++)
			;
		if (i < nseen || nseen == 64)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", tok);
		++*tokens;
		field(line, "status", st, sizeof(st));
		*counted += strcmp(ev, "lost") == 0 || (st[0] != '\0' && strcmp(st, "0") != 0);
	}
	free(out);
}

/* Every task's history has one end entry per token, and the counters that
 * count ends (lost, failures) moved once per run: they equal what the
 * history's distinct ends say, and never exceed the runs counted. With
 * at_least, each task has that many ended runs. */
static void
one_end_per_token(int at_least)
{
	static char text[16384];

	for (int i = 0; i < TASKS; i++) {
		char key[8];
		int ends, tokens, counted;
		double lost, failures, runs;

		snprintf(key, sizeof(key), "t%02d", i);
		ends_of(key, &ends, &tokens, &counted, text, sizeof(text));
		cr_assert(ge(int, tokens, at_least), "%s: %d runs ended, not %d:\n%s", key,
		    tokens, at_least, text);
		cr_assert(eq(int, ends, tokens), "%s: %d end entries for %d runs:\n%s", key,
		    ends, tokens, text);
		lost = metric(key, "lockrun_lost_total", NULL);
		failures = metric(key, "lockrun_failures_total", NULL);
		runs = metric(key, "lockrun_runs_total", NULL);
		cr_assert(eq(dbl, lost + failures, (double)counted),
		    "%s: lost %g + failures %g counted, %d ended so:\n%s", key, lost, failures,
		    counted, text);
		cr_assert(le(dbl, lost + failures, runs), "%s: %g ends counted, %g runs", key,
		    lost + failures, runs);
	}
}

/* Have all the tasks' runs of the first minute an end entry? */
static int
all_ended(void)
{
	static char text[16384];

	for (int i = 0; i < TASKS; i++) {
		char key[8];
		int ends, tokens, counted;

		snprintf(key, sizeof(key), "t%02d", i);
		ends_of(key, &ends, &tokens, &counted, text, sizeof(text));
		if (tokens < 1)
			return 0;
	}
	return 1;
}

/* How many of the tasks' locks are held, as status sees them. */
static int
locks_held(void)
{
	int n = 0;

	for (int i = 0; i < TASKS; i++) {
		char key[8];

		snprintf(key, sizeof(key), "t%02d", i);
		n += held(key);
	}
	return n;
}

/* The config, into buf: TASKS tasks t00.., each fired once a minute at
 * second i % 4 (so that their leases' renewals fall at four different
 * times, and a renewal the scheduler batches takes along leases whose runs
 * were told already), a TTL of 6 s, the server's timeouts 500 ms (a run
 * gives up on a scheduler's answer after 2 * (connect + command) + 10 s);
 * each task's command holds a flock of its own (an overlap is written
 * down), writes its pid, then sleeps 120 s ignoring SIGTERM: the kill
 * point stops it, a while after its run learnt of the loss. */
static const char *
ends_config(char *buf, size_t n, const char *log, const char *pids)
{
	size_t k = (size_t)snprintf(buf, n, "redis:\n  url: '%s'\n  connect_timeout: 500ms\n"
	    "  command_timeout: 500ms\ndefaults:\n  clock_tolerance: 0\n  ttl: 6s\n"
	    "  starting_deadline: 30s\ntasks:\n", url);

	for (int i = 0; i < TASKS && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "  t%02d:\n    schedule: '%d * * * * *'\n"
		    "    command: 'exec 9>%s.t%02d; flock -n 9 || { echo overlap t%02d >> %s; "
		    "exit 1; }; echo $$ >> %s; echo start t%02d >> %s; trap \"\" TERM; "
		    "exec sleep 120'\n", i, i % 4, log, i, i, log, pids, i, log);
	cr_assert(lt(sz, k, n));
	return buf;
}

/* How many of a's children, but its starter, have not exited: its runs
 * (forked with CLONE_PARENT: a's children, which a stopped does not
 * reap). */
static int
runs_alive(pid_t a)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	cr_assert(d != NULL);
	while ((de = readdir(d)) != NULL) {
		char path[300], text[512], state;
		const char *close;
		int ppid;
		FILE *fp;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		text[0] = '\0';
		if (fgets(text, sizeof(text), fp) == NULL)
			text[0] = '\0';
		fclose(fp);
		if ((close = strrchr(text, ')')) == NULL ||
		    sscanf(close + 1, " %c %d", &state, &ppid) != 2)
			continue;
		n += ppid == a && state != 'Z' && strstr(text, "(lockrun-starter)") == NULL;
	}
	closedir(d);
	return n;
}

/* SIGKILL to the commands listed in pids that are alive (they ignore
 * SIGTERM, which a scheduler stopping sends its runs' trees), so that the
 * schedulers stop now; then wait until they are gone. */
static void
kill_commands(const char *pids)
{
	FILE *fp = fopen(pids, "r");
	int pid;

	while (fp && fscanf(fp, "%d", &pid) == 1)
		if (alive(pid))
			kill(pid, SIGKILL);
	if (fp)
		fclose(fp);
	POLL_UNTIL(alive_in(pids) == 0);
	cr_assert(eq(int, alive_in(pids), 0));
}

/* The scheduler's config on the suite's scratch dir: the runs' log and
 * pids files' paths into log and pids, the config's path into cfg. */
static void
setup(char log[256], char pids[256], char cfg[256])
{
	static char body[32768];

	snprintf(log, 256, "%s", scratch("runs.log"));
	snprintf(pids, 256, "%s", scratch("pids"));
	/* a copy: scratch()'s paths are reused (history, metrics) */
	snprintf(cfg, 256, "%s", write_scratch("tasks.yaml",
	    ends_config(body, sizeof(body), log, pids)));
}

/* 20 runs in progress under scheduler a, which is stopped (SIGSTOP) past
 * their TTL: each run's lease runs out unconfirmed, and its command is
 * stopped by the kill point; its release, asked of the stopped scheduler,
 * goes unanswered, and is asked again, then the run gives up and exits.
 * A second scheduler's runs of the next minute start meanwhile, each
 * overwriting its task's last-run record. a is continued, and sends both
 * releases of each of its runs. Each of the first minute's runs has one
 * end entry, counted once. (Keyed by the last-run record, the second
 * release recorded a second end and counted it again.) */
static void
a_scheduler_stopped_past_the_ttl_records_each_end_once(enum backend k)
{
	char log[256], pids[256], cfg[256];
	const char *env = k == BE_REDIS ? NULL : pw_env[0];
	long long guard = 0;
	pid_t a, b;

	use(k);
	setup(log, pids, cfg);
	a = cron_server_at(0, cfg, T_1200 - 2, env);
	POLL_UNTIL(lines_matching(log, "^start ") >= TASKS);
	cr_assert(eq(int, lines_matching(log, "^start "), TASKS), "%s", file_peek(log));
	cr_assert(eq(int, kill(a, SIGSTOP), 0));
	POLL_UNTIL(alive_in(pids) == 0);
	cr_assert(eq(int, alive_in(pids), 0), "a command outlived its lease");
	/* the leases end unconfirmed; then the next minute's runs run */
	POLL_UNTIL(locks_held() == 0);
	cr_assert(eq(int, locks_held(), 0), "a lock outlived its lease");
	b = cron_server_at(1, cfg, T_1200 + 60 - 2, env);
	POLL_UNTIL(lines_matching(log, "^start ") >= 2 * TASKS);
	cr_assert(eq(int, lines_matching(log, "^start "), 2 * TASKS), "%s\nb said:\n%s",
	    file_peek(log), lr_stderr_of(b, (char[16384]){ 0 }, 16384));
	/* each run asked twice for its release, 12 s apart, and exited */
	for (int i = 0; i < 3 && runs_alive(a) > 0; i++, guard = 0)
		while (runs_alive(a) > 0 && poll_tick(&guard))
			;
	cr_assert(eq(int, runs_alive(a), 0), "a's runs still wait for it");
	cr_assert(eq(int, kill(a, SIGCONT), 0));
	/* a reaps its runs, reads what they had asked it, sends it */
	POLL_UNTIL(stderr_matching(a, ": ended, status ") >= TASKS);
	cr_assert(ge(int, stderr_matching(a, ": ended, status "), TASKS));
	kill_commands(pids);
	cron_stop(a);
	cron_stop(b);
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	POLL_UNTIL(all_ended());
	one_end_per_token(1);
}

Test(ends, redis_a_scheduler_stopped_past_the_ttl_records_each_end_once)
{
	a_scheduler_stopped_past_the_ttl_records_each_end_once(BE_REDIS);
}

Test(ends, pg_a_scheduler_stopped_past_the_ttl_records_each_end_once)
{
	a_scheduler_stopped_past_the_ttl_records_each_end_once(BE_PG);
}

Test(ends, mysql_a_scheduler_stopped_past_the_ttl_records_each_end_once)
{
	a_scheduler_stopped_past_the_ttl_records_each_end_once(BE_MYSQL);
}

/* The scheduler's session, under 20 runs, ended by the server
 * (pg_terminate_backend(), KILL): each run learns over a new session that
 * its lock is gone, and is told by the renewal its own ask sent or by a
 * batch another run's ask sent; a run told already, its command still
 * stopping, is in the next batch too, which finds it lost again. Each run
 * has one end entry, counted once, also after the next minute's runs
 * (another scheduler's) have overwritten the last-run rows. */
static void
a_terminated_session_records_each_end_once(enum backend k)
{
	char log[256], pids[256], cfg[256], sql[128], out[64];
	pid_t a, b;

	use(k);
	setup(log, pids, cfg);
	a = cron_server_at(0, cfg, T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^start ") >= TASKS);
	cr_assert(eq(int, lines_matching(log, "^start "), TASKS), "%s", file_peek(log));
	cr_assert(eq(int, sql_admin(&srv, k == BE_PG ? "SELECT pid FROM pg_stat_activity "
	    "WHERE usename = 'lockrun' ORDER BY backend_start LIMIT 1" : "SELECT id FROM "
	    "information_schema.processlist WHERE user = 'lockrun' ORDER BY id LIMIT 1",
	    out, sizeof(out)), 0));
	cr_assert(gt(int, atoi(out), 0));
	snprintf(sql, sizeof(sql), k == BE_PG ? "SELECT pg_terminate_backend(%d)" : "KILL %d",
	    atoi(out));
	cr_assert(eq(int, sql_admin(&srv, sql, NULL, 0), 0));
	POLL_UNTIL(alive_in(pids) == 0);
	cr_assert(eq(int, alive_in(pids), 0), "a command outlived its lock");
	POLL_UNTIL(stderr_matching(a, ": ended, status ") >= TASKS);
	cr_assert(ge(int, stderr_matching(a, ": ended, status "), TASKS));
	POLL_UNTIL(locks_held() == 0);
	cr_assert(eq(int, locks_held(), 0), "a lock outlived its lease");
	b = cron_server_at(1, cfg, T_1200 + 60 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^start ") >= 2 * TASKS);
	cr_assert(eq(int, lines_matching(log, "^start "), 2 * TASKS), "%s", file_peek(log));
	kill_commands(pids);
	cron_stop(b);
	cron_stop(a);
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	POLL_UNTIL(all_ended());
	one_end_per_token(1);
}

Test(ends, pg_a_terminated_session_records_each_end_once)
{
	a_terminated_session_records_each_end_once(BE_PG);
}

Test(ends, mysql_a_killed_session_records_each_end_once)
{
	a_terminated_session_records_each_end_once(BE_MYSQL);
}

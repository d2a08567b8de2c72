/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_log_test.c -- what `lockrun cron` says with no -v, as cron(8)
 * would: ready, each run's start and end, each skip with its reason, each
 * slot nobody ran; and with --log json, records of one level, each with
 * time, level and host. */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"
#include "json.h"

TestSuite(cron_log, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* The first line of text that matches re, copied into line[n]; 0, or -1. */
static int
line_of(const char *text, const char *re, char *line, size_t n)
{
	for (const char *l = text; *l; ) {
		size_t len = strcspn(l, "\n");

		snprintf(line, n, "%.*s", (int)len, l);
		if (matches(line, re))
			return 0;
		l += len + (l[len] == '\n');
	}
	return -1;
}

/* The number after word in s (as "pid 123"), or -1. */
static long
number_after(const char *s, const char *word)
{
	const char *at = strstr(s, word);

	return at ? strtol(at + strlen(word), NULL, 10) : -1;
}

/*
 * No -v: the ready line names the tasks, the server and the next fire
 * time; at 12:00 "quick" starts and ends, and "long" starts and stays (its
 * command waits on a gate). The clock is moved to just before 12:01 and
 * SIGHUP makes cron plan from it (libfaketime does not move a timerfd):
 * at 12:01 long's run skips, held by the 12:00 run, whose pid the start
 * line gave. Then long ends.
 */
Test(cron_log, says_ready_start_end_and_skip_without_v)
{
	const char *clk = scratch("clock");
	char body[1024], cbuf[2][256], err[32768], line[1024], re[256];
	const char *env[6];
	struct gate g;
	pid_t pid;
	long run;

	gate_open(&g, "");
	/* long's starting_deadline catches up no 11:59 at the start */
	snprintf(body, sizeof(body), "tasks:\n  quick:\n    schedule: '0 12 * * *'\n"
	    "    command: 'true'\n  long:\n    schedule: '* * * * *'\n"
	    "    starting_deadline: 30s\n    command: '%s'\n", gate_sh(&g));
	clock_file_set(clk, T_1200 - 3);
	clock_file_env(env, cbuf, clk);
	pid = LR_START_ENV(env, "cron", "-c", write_config_faked(body));
	gate_wait(&g);
	POLL_UNTIL(stderr_matching(pid, "^lockrun: quick 2026-06-15T12:00:00Z: ended") == 1);

	clock_file_set(clk, T_1200 + 58);
	kill(pid, SIGHUP);
	POLL_UNTIL(stderr_matching(pid, "^lockrun: long 2026-06-15T12:01:00Z: skipped") == 1);
	gate_release(&g);
	POLL_UNTIL(stderr_matching(pid, "^lockrun: long 2026-06-15T12:00:00Z: ended") == 1);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));

	snprintf(re, sizeof(re), "^lockrun: cron: 2 scheduled tasks in .*lockrun.yaml, "
	    "server redis://[^ ]+; next: (quick|long) at 2026-06-15T12:00:00Z$");
	cr_assert(eq(int, line_of(err, re, line, sizeof(line)), 0), "%s", err);
	cr_assert(eq(int, line_of(err, "^lockrun: quick 2026-06-15T12:00:00Z: started, "
	    "pid [0-9]+$", line, sizeof(line)), 0), "%s", err);
	cr_assert(eq(int, line_of(err, "^lockrun: quick 2026-06-15T12:00:00Z: ended, status 0 "
	    "after ", line, sizeof(line)), 0), "%s", err);
	cr_assert(eq(int, line_of(err, "^lockrun: long 2026-06-15T12:00:00Z: started, "
	    "pid [0-9]+$", line, sizeof(line)), 0), "%s", err);
	run = number_after(line, "pid ");
	cr_assert(run > 0, "%s", line);
	/* the skip names the run that holds the lock: the 12:00 one */
	cr_assert(eq(int, line_of(err, "^lockrun: long 2026-06-15T12:01:00Z: skipped: "
	    "lockrun:\\{long\\} is held by [^ ]+ pid [0-9]+ since 2026-06-15T12:00:0",
	    line, sizeof(line)), 0), "%s", err);
	cr_assert(eq(long, number_after(line, " pid "), run), "%s", line);
	cr_assert(eq(int, line_of(err, "^lockrun: long 2026-06-15T12:00:00Z: ended, status 0 "
	    "after ", line, sizeof(line)), 0), "%s", err);
	/* the runs' own decisions stay theirs to say, with -v */
	cr_assert(eq(int, stderr_matching(pid, "^(quick|long): "), 0), "%s", err);
}

/* Start cron on cfg at `at` with env's variables added to faketime's. */
static pid_t
cron_env(const char *cfg, double at, const char *var, const char *flag)
{
	static char buf[3][128];
	static const char *env[8];
	const char *fake[5];
	size_t n = 0;

	faketime_env(fake, buf, at);
	for (size_t i = 0; fake[i]; i++)
		env[n++] = fake[i];
	if (var)
		env[n++] = var;
	env[n] = NULL;
	return flag ? LR_START_ENV(env, "cron", flag, "-c", cfg) :
	    LR_START_ENV(env, "cron", "-c", cfg);
}

/*
 * The server is down at 12:00 and stays down past the task's
 * starting_deadline: cron starts no run for the slot (lockrun(7): while the
 * server is away, no forks) and says the slot was missed, an error, with
 * the server's answer; -q keeps that line and drops the others.
 */
Test(cron_log, a_slot_nobody_ran_is_an_error_line)
{
	const char *cfg = write_config_faked("tasks:\n  t:\n    schedule: '* * * * *'\n"
	    "    starting_deadline: 1s\n    command: 'echo ran'\n");
	char err[16384];
	pid_t pid, quiet;

	pid = cron_env(cfg, T_1200 - 2, "LOCKRUN_REDIS_URL=redis://127.0.0.1:1/0", NULL);
	quiet = cron_env(cfg, T_1200 - 2, "LOCKRUN_REDIS_URL=redis://127.0.0.1:1/0", "-q");
	POLL_UNTIL(stderr_matching(pid, "^lockrun: t 2026-06-15T12:00:00Z: missed: ") == 1);
	POLL_UNTIL(stderr_matching(quiet, "^lockrun: t 2026-06-15T12:00:00Z: missed: ") == 1);
	kill(pid, SIGTERM);
	kill(quiet, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(int, lr_wait(quiet), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: t 2026-06-15T12:00:00Z: missed: its "
	    "starting_deadline passed while the lock server did not answer \\(.*127\\.0\\.0\\.1:1"),
	    1), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "started, pid"), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: cron: 1 scheduled tasks"), 1), "%s",
	    err);
	lr_stderr_of(quiet, err, sizeof(err));
	cr_assert(eq(int, stderr_matching(quiet, "^lockrun: cron: "), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(quiet, "started, pid"), 0), "%s", err);
}

/*
 * The server cannot be reached at 12:00 (its socket is not there yet):
 * cron says so once, forks nothing, and asks again, backing off (1s at
 * first, doubling to 10s: lockrun(7), while the server is away), within
 * the task's starting_deadline; the socket appears (a symlink to the
 * test's server), and the 12:00 slot runs, once, and cron says the server
 * is back. A server that stays away past the deadline makes the slot
 * missed, one line, with no run forked for it.
 */
Test(cron_log, a_server_down_is_tried_again_until_the_starting_deadline)
{
	const char *log = scratch("runs.log"), *sock = scratch("later.sock");
	char body[1024], url[300], sem[64], err[16384];
	pid_t pid, never;

	snprintf(body, sizeof(body), "tasks:\n  t:\n    schedule: '0 12 * * *'\n"
	    "    starting_deadline: 25s\n    command: 'echo \"$LOCKRUN_SLOT\" >> %s'\n",
	    log);
	snprintf(url, sizeof(url), "LOCKRUN_URL=unix://%s", sock);
	pid = cron_env(write_config_faked(body), T_1200 - 2, url, NULL);
	never = cron_env(scratch("lockrun.yaml"), T_1200 - 2,
	    "LOCKRUN_URL=unix:///nonexistent/r.sock", NULL);
	POLL_UNTIL(stderr_matching(pid, "^lockrun: cron: Redis .* does not answer \\(.*; "
	    "starting nothing until it does, 1 due held") == 1);
	/* libfaketime's semaphore stays: the scheduler's, which its runs use */
	snprintf(sem, sizeof(sem), "/dev/shm/sem.faketime_sem_%d", (int)pid);
	cr_assert(eq(int, access(sem, F_OK), 0), "%s: %s", sem, strerror(errno));
	cr_assert(eq(int, symlink(fx.sock, sock), 0));
	POLL_UNTIL(stderr_matching(pid, "^lockrun: t 2026-06-15T12:00:00Z: ended, status 0") == 1);
	POLL_UNTIL(stderr_matching(never, "^lockrun: t 2026-06-15T12:00:00Z: missed: ") == 1);
	kill(pid, SIGTERM);
	kill(never, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(int, lr_wait(never), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(str, (char *)file_peek(log), "2026-06-15T12:00:00Z\n"), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "missed"), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "started, pid"), 1), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: cron: Redis .* answers again after "
	    "[0-9.]+m?s; of the 1 starts held, those still within"), 1), "%s", err);
	lr_stderr_of(never, err, sizeof(err));
	cr_assert(eq(int, stderr_matching(never, "started, pid"), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(never, "does not answer"), 1), "%s", err);
	cr_assert(eq(int, stderr_matching(never, "^lockrun: t 2026-06-15T12:00:00Z: missed: its "
	    "starting_deadline passed while the lock server did not answer"), 1), "%s", err);
}

/* Every line one JSON object, and no string in it a JSON object itself. */
static int
one_level(const struct json *rec, void *arg)
{
	int *events = arg;

	cr_assert(json_is(rec, "object"));
	for (size_t i = 0; i < json_keys(rec); i++) {
		const char *v = json_str(json_get(rec, json_key(rec, i)));
		struct json *inner;
		char why[128];

		if (v == NULL || v[strspn(v, " ")] != '{')
			continue;
		inner = json_parse(v, why, sizeof(why));
		cr_assert(inner == NULL, "\"%s\" holds a JSON object: %s", json_key(rec, i), v);
	}
	if (json_get(rec, "event"))
		(*events)++;
	return 0;
}

/* The record whose key is value, among the lines of text; parsed anew. */
static struct json *
record(const char *text, const char *key, const char *value)
{
	for (const char *l = text; *l; ) {
		size_t len = strcspn(l, "\n");
		char line[8192], why[128];
		struct json *j;
		const char *v;

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		l += len + (l[len] == '\n');
		if ((j = json_parse(line, why, sizeof(why))) == NULL)
			continue;
		if ((v = json_str(json_get(j, key))) != NULL && strcmp(v, value) == 0)
			return j;
		json_free(j);
	}
	return NULL;
}

/*
 * --log json: the run's own events (acquired, released, exited) arrive as
 * records of their own with its task, slot and token, not as a "line"
 * string inside another record; cron's own records (ready, started,
 * ended) too; the command's lines are the only "line" strings, with the
 * token the run acquired.
 */
Test(cron_log, json_records_are_one_level)
{
	const char *cfg = write_config_faked("tasks:\n  talk:\n    schedule: '* * * * *'\n"
	    "    starting_deadline: 30s\n    command: 'echo out; echo err >&2'\n");
	char err[32768], why[256];
	struct json *acq, *ended, *out;
	double token, t2, status;
	int events = 0;
	pid_t pid;

	pid = cron_env(cfg, T_1200 - 2, NULL, "--log=json");
	POLL_UNTIL(stderr_matching(pid, "released") == 1);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(json_lines(err, one_level, &events, why, sizeof(why)) > 0, "%s\n%s", why,
	    err);

	acq = record(err, "event", "acquired");
	cr_assert(acq != NULL, "%s", err);
	cr_assert(eq(str, (char *)json_str(json_get(acq, "task")), "talk"));
	cr_assert(eq(str, (char *)json_str(json_get(acq, "slot")), "2026-06-15T12:00:00Z"));
	cr_assert(eq(int, json_num(json_get(acq, "token"), &token), 0));
	cr_assert(record(err, "event", "released") != NULL, "%s", err);
	cr_assert(record(err, "event", "ready") != NULL, "%s", err);
	cr_assert(record(err, "event", "started") != NULL, "%s", err);
	ended = record(err, "event", "ended");
	cr_assert(ended != NULL, "%s", err);
	cr_assert(eq(int, json_num(json_get(ended, "status"), &status), 0));
	cr_assert(eq(dbl, status, 0));

	out = record(err, "line", "err");
	cr_assert(out != NULL, "%s", err);
	cr_assert(eq(str, (char *)json_str(json_get(out, "stream")), "stderr"));
	cr_assert(eq(int, json_num(json_get(out, "token"), &t2), 0));
	cr_assert(eq(dbl, t2, token));
	/* only the command's lines have a "line" */
	cr_assert(eq(int, stderr_matching(pid, "\"line\":"), 1), "%s", err);
	json_free(acq);
	json_free(ended);
	json_free(out);
}

/* What records_carry_time_level_host() found. */
struct record_count {
	int	records;
	int	lines;		/* records of a command's output: a "line" */
};

static const char *
str_or_empty(const struct json *rec, const char *key)
{
	const char *v = json_str(json_get(rec, key));

	return v ? v : "";
}

/*
 * Each JSON record in text has the members lockrun(7) says every record
 * starts with: a time (ISO 8601 UTC to the ms), a level (error, warn or
 * info) and the host (host). With mixed, text also holds human lines
 * ("lockrun: ..."), passed over: a record is a line that begins with '{'.
 * Adds what it found to c.
 */
static void
records_carry_time_level_host(const char *text, int mixed, const char *host,
    struct record_count *c)
{
	for (const char *l = text; *l; ) {
		size_t len = strcspn(l, "\n");
		char line[32768], why[128];
		struct json *rec;

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		l += len + (l[len] == '\n');
		if (mixed && line[0] != '{')
			continue;
		rec = json_parse(line, why, sizeof(why));
		cr_assert(rec != NULL, "not a JSON record (%s): %s", why, line);
		cr_assert(matches(str_or_empty(rec, "time"), "^[0-9]{4}-[0-9]{2}-[0-9]{2}T"
		    "[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"), "no time: %s", line);
		cr_assert(matches(str_or_empty(rec, "level"), "^(error|warn|info)$"),
		    "no level: %s", line);
		cr_assert(eq(str, (char *)str_or_empty(rec, "host"), (char *)host), "%s", line);
		c->records++;
		c->lines += json_get(rec, "line") != NULL;
		json_free(rec);
	}
}

/* Start cron at 11:59:58 on cfg with log (--log's value) and --host web9,
 * its stdout to the scratch file cron.stdout. */
static pid_t
cron_logging(const char *cfg, const char *log)
{
	static char buf[3][128];
	static const char *env[5];

	faketime_env(env, buf, T_1200 - 2);
	return lr_start_out(env, (const char *const[]){ "cron", "--host", "web9", "--log",
	    log, "-c", cfg, NULL }, scratch("cron.stdout"));
}

#define TALKER	"tasks:\n  talk:\n    schedule: '* * * * *'\n" \
		"    starting_deadline: 30s\n    command: 'echo out; echo err >&2'\n"

/*
 * --log json:FILE: every record in the file (cron's own and its run's)
 * has time, level and host, and so does each record of the command's
 * output lines, which cron writes on its own stdout and stderr (stderr
 * keeps the human lines beside them). The run has ended, and its lines
 * were relayed, once the file says "ended".
 */
Test(cron_log, json_file_records_and_output_records_carry_time_level_host)
{
	const char *log = scratch("cron.json");
	struct record_count file = { 0 }, out = { 0 }, err = { 0 };
	char errs[32768], spec[300], *text;
	pid_t pid;

	snprintf(spec, sizeof(spec), "json:%s", log);
	pid = cron_logging(write_config_faked(TALKER), spec);
	POLL_UNTIL(strstr(file_peek(log), "\"event\":\"ended\"") != NULL);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, errs, sizeof(errs));

	text = file_text(log);
	records_carry_time_level_host(text, 0, "web9", &file);
	/* cron's own records and its run's are among them */
	cr_assert(strstr(text, "\"event\":\"ready\"") != NULL, "%s", text);
	cr_assert(strstr(text, "\"event\":\"acquired\"") != NULL, "%s", text);
	free(text);
	text = file_text(scratch("cron.stdout"));
	records_carry_time_level_host(text, 0, "web9", &out);
	free(text);
	records_carry_time_level_host(errs, 1, "web9", &err);
	cr_assert(eq(int, out.lines, 1), "stdout: %d lines of the command's", out.lines);
	cr_assert(eq(int, out.records, 1), "stdout: %d records", out.records);
	cr_assert(eq(int, err.lines, 1), "stderr: %d lines of the command's\n%s", err.lines,
	    errs);
}

/*
 * --log json: stderr is the log, all of it records with time, level and
 * host: cron's, its run's, and the command's stderr lines among them; the
 * command's stdout lines, on cron's stdout, too.
 */
Test(cron_log, json_log_records_all_carry_time_level_host)
{
	struct record_count out = { 0 }, err = { 0 };
	char errs[32768], *text;
	pid_t pid;

	pid = cron_logging(write_config_faked(TALKER), "json");
	POLL_UNTIL(stderr_matching(pid, "\"event\":\"ended\"") == 1);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, errs, sizeof(errs));

	records_carry_time_level_host(errs, 0, "web9", &err);
	text = file_text(scratch("cron.stdout"));
	records_carry_time_level_host(text, 0, "web9", &out);
	free(text);
	cr_assert(strstr(errs, "\"event\":\"ready\"") != NULL, "%s", errs);
	cr_assert(strstr(errs, "\"event\":\"acquired\"") != NULL, "%s", errs);
	cr_assert(eq(int, err.lines, 1), "stderr: %d lines of the command's\n%s", err.lines,
	    errs);
	cr_assert(eq(int, out.lines, 1), "stdout: %d lines of the command's", out.lines);
}

/*
 * Under systemd's WatchdogSec= (WATCHDOG_USEC, WATCHDOG_PID unset), cron
 * sends READY=1 and then WATCHDOG=1 from its timer, again and again, with
 * no run due: the datagrams arrive on the socket NOTIFY_SOCKET names.
 */
Test(cron_log, pings_systemds_watchdog_from_its_timer)
{
	const char *cfg = write_config("tasks:\n  t:\n    schedule: '0 3 * * *'\n"
	    "    command: 'true'\n");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char var[300], msg[256];
	const char *env[] = { var, "WATCHDOG_USEC=200000", NULL };
	int fd, ready = 0, pings = 0;
	pid_t pid;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", scratch("notify"));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert(fd >= 0);
	cr_assert(eq(int, bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0));
	snprintf(var, sizeof(var), "NOTIFY_SOCKET=%s", sa.sun_path);
	pid = LR_START_ENV(env, "cron", "-c", cfg);
	while (pings < 3) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		cr_assert(eq(int, poll(&p, 1, 20000), 1), "no datagram in 20s: %d ready, "
		    "%d pings", ready, pings);
		n = recv(fd, msg, sizeof(msg) - 1, 0);
		cr_assert(n > 0);
		msg[n] = '\0';
		if (strcmp(msg, "READY=1") == 0)
			ready++;
		else if (strcmp(msg, "WATCHDOG=1") == 0) {
			cr_assert(eq(int, ready, 1), "a ping before READY=1");
			pings++;
		}
	}
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	close(fd);
}

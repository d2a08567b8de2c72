/* SPDX-License-Identifier: BSD-2-Clause */
/* rt_bench.c -- the bench's round trips: what Redis received for N
 * uncontended runs and N skips with one-server and no-overlap on and the
 * clock check on (its default), as MONITOR shows them: every command a
 * client sent, not those the scripts ran. The window, the clock comparison and the renewal's
 * deadline ride in the scripts: a run costs 2 (acquire, release), a skip
 * 1 (acquire). Then a lock of 3 places (limit: 3) against today's: a
 * run, a run renewed once, a skip. */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "cron_bench.h"

#define RT_N	50

static int places_cost(const char *lockrun, const struct redis_fixture *fx,
    redisContext *c);

/* A connection that MONITORs the server, or NULL. */
static redisContext *
monitor(const struct redis_fixture *fx)
{
	redisContext *m = redis_client(fx);
	redisReply *r = m ? redisCommand(m, "MONITOR") : NULL;

	if (r == NULL) {
		redisFree(m);
		return NULL;
	}
	freeReplyObject(r);
	return m;
}

/* Is line, as MONITOR shows a command, a renewal: EVALSHA with 5 keys
 * (renew.lua's; the acquire and the release have 6)? */
static int
is_renewal(const char *line)
{
	const char *p = strstr(line, "\"EVALSHA\" \"");

	return p != NULL && strlen(p) > 51 && strncmp(p + 51, "\" \"5\" ", 6) == 0;
}

/* The commands m saw from clients, not those scripts ran ("[db lua]"),
 * up to the marker c sends now, and the renewals among them into *renewals
 * (when not NULL); frees m. */
static long
monitored_renewals(redisContext *m, redisContext *c, long *renewals)
{
	static const char marker[] = "\"ECHO\" \"rt-bench-end\"";
	redisReply *r;
	long n = 0;

	freeReplyObject(redisCommand(c, "ECHO rt-bench-end"));
	while (redisGetReply(m, (void **)&r) == REDIS_OK && r != NULL) {
		int end = r->type == REDIS_REPLY_STATUS && strstr(r->str, marker) != NULL;
		if (!end && r->type == REDIS_REPLY_STATUS && strstr(r->str, " lua]") == NULL) {
			n++;
			if (renewals && is_renewal(r->str))
				(*renewals)++;
		}
		freeReplyObject(r);
		if (end)
			break;
	}
	redisFree(m);
	return n;
}

static long
monitored(redisContext *m, redisContext *c)
{
	return monitored_renewals(m, c, NULL);
}

/* Run lockrun ... -k key -- true, quietly; its exit status. */
static int
run(const char *lockrun, const char *url, const char *key)
{
	char *argv[] = { (char *)lockrun, "--redis", (char *)url, "--one-server",
	    "--every", "1h", "--no-overlap", "-E", "75", "-k", (char *)key, "--",
	    "true", NULL };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(126);
		execv(lockrun, argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* RT_N runs of key fmt % i (uncontended when each is new), watched by
 * MONITOR: the commands per run into *per; the runs whose status was not
 * want are counted in the return. */
static int
measure(const char *lockrun, const struct redis_fixture *fx, redisContext *c,
    const char *fmt, int want, double *per)
{
	redisContext *m = monitor(fx);
	char key[64];
	int bad = 0;

	if (m == NULL)
		return 1;
	for (int i = 0; i < RT_N; i++) {
		snprintf(key, sizeof(key), fmt, i);
		bad += run(lockrun, fx->url, key) != want;
	}
	*per = (double)monitored(m, c) / RT_N;
	return bad;
}

int
round_trip_cost(const char *lockrun, const struct redis_fixture *fx)
{
	redisContext *c = redis_client(fx);
	double ran, held, slot;
	int bad = 0;

	/* the scripts loaded (a first EVALSHA is a NOSCRIPT, then EVAL) */
	bad += run(lockrun, fx->url, "rt-warm") != 0;
	freeReplyObject(redisCommand(c, "SET lockrun:{rt-held} %s",
	    "0123456789abcdef0123456789abcdef 1 elsewhere 1 2026-01-01T00:00:00.000Z"));
	bad += measure(lockrun, fx, c, "rt-run-%d", 0, &ran);
	bad += measure(lockrun, fx, c, "rt-held", 75, &held);
	bad += measure(lockrun, fx, c, "rt-run-0", 75, &slot);	/* its slot ran */
	printf("\nround trips (commands clients sent, as MONITOR shows them; %d of each, --one-server "
	    "--no-overlap, clock check on): rt/run %.2f (expected 2), rt/skip %.2f "
	    "held, %.2f slot taken (expected 1)\n", RT_N, ran, held, slot);
	if (bad)
		fprintf(stderr, "bench: round trips: %d runs exited otherwise\n", bad);
	bad += places_cost(lockrun, fx, c);
	redisFree(c);
	return bad;
}

/* --- places: limit: 3 against today's lock (issue 47) ----------------- */

#define PL_N	10

/* lockrun -c cfg -t task, quietly; its exit status. */
static int
task_run(const char *lockrun, const char *cfg, const char *task)
{
	char *argv[] = { (char *)lockrun, "-c", (char *)cfg, "-t", (char *)task, NULL };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(126);
		execv(lockrun, argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* PL_N runs of task, watched by MONITOR: commands per run into *per and
 * renewals per run into *renew; the runs not exiting want counted. */
static int
task_measure(const char *lockrun, const struct redis_fixture *fx, redisContext *c,
    const char *cfg, const char *task, int want, double *per, double *renew)
{
	redisContext *m = monitor(fx);
	long renewals = 0;
	int bad = 0;

	if (m == NULL)
		return 1;
	for (int i = 0; i < PL_N; i++)
		bad += task_run(lockrun, cfg, task) != want;
	*per = (double)monitored_renewals(m, c, &renewals) / PL_N;
	*renew = (double)renewals / PL_N;
	return bad;
}

/* Round trips of a lock of 3 places (limit: 3, a sorted set) against
 * today's lock, no-overlap alone: a run of true (acquire, release), a run
 * that outlives a renewal period (ttl 1s: renewed at a third of it, the
 * command sleeping half of it), and a skip when every place is held
 * (held by values planted with a lease of an hour). */
static int
places_cost(const char *lockrun, const struct redis_fixture *fx, redisContext *c)
{
	static const char *const task[2][3] = {
		{ "pl1", "pl1-renewed", "pl1-held" }, { "pl3", "pl3-renewed", "pl3-held" },
	};
	char cfg[256], hold[64];
	double per[2][3], renew[2][3];
	long long now_ms = (long long)(fixture_real_s() * 1000);
	FILE *fp;
	int bad = 0;

	snprintf(cfg, sizeof(cfg), "%s/places.yaml", fx->dir);
	if ((fp = fopen(cfg, "w")) == NULL)
		return 1;
	fprintf(fp, "url: %s\ntasks:\n", fx->url);
	for (int l = 0; l < 2; l++)
		fprintf(fp, "  %s: {command: [\"true\"], ttl: 1s%s}\n"
		    "  %s: {command: [sleep, \"0.5\"], ttl: 1s%s}\n"
		    "  %s: {command: [\"true\"], ttl: 1s, conflict_exit: 75%s}\n",
		    task[l][0], l ? ", limit: 3" : "", task[l][1], l ? ", limit: 3" : "",
		    task[l][2], l ? ", limit: 3" : "");
	fclose(fp);
	freeReplyObject(redisCommand(c, "SET lockrun:{pl1-held} %s",
	    "0123456789abcdef0123456789abcdef 1 elsewhere 1 2026-01-01T00:00:00.000Z"));
	snprintf(hold, sizeof(hold), "%lld", now_ms + 3600000);
	for (int i = 1; i <= 3; i++) {
		char v[128];

		snprintf(v, sizeof(v), "0123456789abcdef0123456789abcde%d %d elsewhere %d "
		    "2026-01-01T00:00:00.000Z", i, i, i);
		freeReplyObject(redisCommand(c, "ZADD lockrun:{pl3-held} %s %s", hold, v));
	}
	bad += task_run(lockrun, cfg, "pl3") != 0;	/* the scripts loaded */
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < 3; k++)
			bad += task_measure(lockrun, fx, c, cfg, task[l][k], k == 2 ? 75 : 0,
			    &per[l][k], &renew[l][k]);
	printf("\nplaces (limit: 3, a sorted set) against today's lock (limit: 1), "
	    "round trips as MONITOR shows them, %d of each, no-overlap, ttl 1s:\n"
	    "  run of true:           %.2f  vs %.2f (expected 2: acquire, release)\n"
	    "  run of sleep 0.5:      %.2f  vs %.2f, renewals among them %.2f vs %.2f "
	    "(expected 3 and 1: one renewal at a third of the TTL)\n"
	    "  skip, every place held: %.2f vs %.2f (expected 1)\n", PL_N,
	    per[1][0], per[0][0], per[1][1], per[0][1], renew[1][1], renew[0][1],
	    per[1][2], per[0][2]);
	if (bad)
		fprintf(stderr, "bench: places: %d runs exited otherwise\n", bad);
	return bad;
}

/* --- capture: a run's output kept (issue 45) against it off --------- */

#define CAP_N	100
#define CAP_SCRIPT	"i=0; while [ $i -lt 2000 ]; do echo line $i of the job; " \
			"i=$((i+1)); done; echo done >&2"
#define CAP_QUIET	"echo done"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One run of key running script (its output to /dev/null, as a job's
 * output sent away), keeping keep bytes of it: its wall time, or -1. */
static double
capture_run(const char *lockrun, const char *url, const char *key, const char *keep,
    const char *script)
{
	char *argv[] = { (char *)lockrun, "--redis", (char *)url, "--keep-output",
	    (char *)keep, "-k", (char *)key, "--", "sh", "-c", (char *)script, NULL };
	double t0 = now_s();
	pid_t pid = fork();
	int st, fd;

	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(lockrun, argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? now_s() - t0 : -1;
}

/* Medians of CAP_N runs of script with keep_output 16K and 0,
 * interleaved so that drift hits both alike, into *on and *off; the
 * number of runs that failed. */
static int
capture_medians(const char *lockrun, const struct redis_fixture *fx, const char *script,
    double *on, double *off)
{
	double a[CAP_N], b[CAP_N];
	int bad = 0;

	for (int i = -3; i < CAP_N; i++) {
		double x = capture_run(lockrun, fx->url, "cap-on", "16K", script);
		double y = capture_run(lockrun, fx->url, "cap-off", "0", script);

		bad += x < 0 || y < 0;
		if (i >= 0) {
			a[i] = x;
			b[i] = y;
		}
	}
	qsort(a, CAP_N, sizeof(a[0]), cmp_double);
	qsort(b, CAP_N, sizeof(b[0]), cmp_double);
	*on = a[CAP_N / 2];
	*off = b[CAP_N / 2];
	return bad;
}

int
capture_cost(const char *lockrun, const struct redis_fixture *fx)
{
	redisContext *c = redis_client(fx), *m;
	double on, off, qon, qoff, rt_on, rt_off;
	int bad;

	bad = capture_medians(lockrun, fx, CAP_SCRIPT, &on, &off);
	bad += capture_medians(lockrun, fx, CAP_QUIET, &qon, &qoff);
	if ((m = monitor(fx)) == NULL)
		return 1;
	for (int i = 0; i < 10; i++)
		bad += capture_run(lockrun, fx->url, "cap-on", "16K", CAP_SCRIPT) < 0;
	rt_on = (double)monitored(m, c) / 10;
	if ((m = monitor(fx)) == NULL)
		return 1;
	for (int i = 0; i < 10; i++)
		bad += capture_run(lockrun, fx->url, "cap-off", "0", CAP_SCRIPT) < 0;
	rt_off = (double)monitored(m, c) / 10;
	printf("\ncapture (a run printing 2,000 lines, %d of each, interleaved): "
	    "keep_output 16K median %.2f ms, rt/run %.2f; keep_output 0 median %.2f ms, "
	    "rt/run %.2f; ratio %.2f\n", CAP_N, on * 1e3, rt_on, off * 1e3, rt_off,
	    on / off);
	printf("capture (a run printing one line): keep_output 16K median %.2f ms; "
	    "keep_output 0 median %.2f ms; ratio %.2f\n", qon * 1e3, qoff * 1e3, qon / qoff);
	if (bad)
		fprintf(stderr, "bench: capture: %d runs failed\n", bad);
	redisFree(c);
	return bad;
}

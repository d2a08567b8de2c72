/* SPDX-License-Identifier: BSD-2-Clause */
/* seconds_bench.c -- what a task every second costs under lockrun cron:
 * round trips per second per task with 1 and with 5 schedulers on one
 * Redis (INFO commandstats), and one scheduler's CPU over a real minute
 * with 100 such tasks. Reported, never asserted. */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis.h>

#include "cron_bench.h"

#define WINDOW_S	20	/* real seconds counted with 1 and 5 schedulers */
#define CPU_S		60	/* the minute with 100 tasks */
#define NTASKS		100
#define NSCHED		5

/* The commands a client sends itself, each one round trip; the others in
 * INFO commandstats (PEXPIRE, XADD, HSET, ...) run inside the scripts. */
static const char *const top_level[] = {
	"evalsha", "eval", "script", "select", "auth", "hello", "client", "ping",
	"role", "readonly", "wait", "subscribe",
};


/* The sum of calls=N over the top-level commands, from INFO commandstats. */
static long
round_trips(redisContext *c)
{
	redisReply *r = redisCommand(c, "INFO commandstats");
	long n = 0;

	for (size_t i = 0; r && r->type == REDIS_REPLY_STRING &&
	    i < sizeof(top_level) / sizeof(top_level[0]); i++) {
		char field[64];
		const char *p;

		snprintf(field, sizeof(field), "\ncmdstat_%s:calls=", top_level[i]);
		if ((p = strstr(r->str, field)) != NULL)
			n += strtol(p + strlen(field), NULL, 10);
	}
	freeReplyObject(r);
	return n;
}

/* A config of n tasks every second, each running `true`. */
static void
every_second(const char *path, const char *url, int n)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	fprintf(fp, "redis:\n  url: %s\ndefaults:\n  output: discard\ntasks:\n", url);
	for (int i = 0; i < n; i++)
		fprintf(fp, "  sec-%03d:\n    every: 1s\n    command: [true]\n", i);
	fclose(fp);
}

/* `lockrun cron -c cfg`, its stderr to /dev/null. */
static pid_t
cron_of(const char *lockrun, const char *cfg)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execl(lockrun, lockrun, "cron", "-c", cfg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int
halt(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static void
sleep_s(double s)
{
	double until = fixture_mono_s() + s;

	while (fixture_mono_s() < until)
		usleep(100000);
}

/* Round trips per second per task of ntasks every-second tasks on nsched
 * schedulers, counted over WINDOW_S after a second to start in. */
static int
rate(const char *lockrun, const char *cfg, redisContext *c, int nsched, int ntasks)
{
	pid_t pid[NSCHED];
	long before;
	double t0, secs;
	int bad = 0;

	for (int i = 0; i < nsched; i++)
		pid[i] = cron_of(lockrun, cfg);
	sleep_s(1.5);
	before = round_trips(c);
	t0 = fixture_mono_s();
	sleep_s(WINDOW_S);
	secs = fixture_mono_s() - t0;
	printf("  a task every 1s on %d scheduler%s: %.2f round trips/s/task (%ld in "
	    "%.1f s, %d task%s)\n", nsched, nsched == 1 ? "" : "s",
	    (double)(round_trips(c) - before) / secs / ntasks, round_trips(c) - before,
	    secs, ntasks, ntasks == 1 ? "" : "s");
	for (int i = 0; i < nsched; i++)
		bad += halt(pid[i]);
	return bad;
}

/* utime + stime of pid itself, and of its reaped children, in ms. */
static void
cpu_of(pid_t pid, double *self_ms, double *children_ms)
{
	char path[64], buf[4096], *p;
	unsigned long ut = 0, st = 0;
	long cut = 0, cst = 0;
	FILE *fp;

	*self_ms = *children_ms = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return;
	buf[fread(buf, 1, sizeof(buf) - 1, fp)] = '\0';
	fclose(fp);
	/* after "pid (comm) ": utime 14, stime 15, cutime 16, cstime 17 */
	if ((p = strrchr(buf, ')')) != NULL)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %ld %ld",
		    &ut, &st, &cut, &cst);
	*self_ms = (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
	*children_ms = (double)(cut + cst) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

int
seconds_cost(const char *lockrun, const struct redis_fixture *fx)
{
	char one[256], many[256];
	double s0, c0, s1, c1, t0, secs;
	long before;
	redisContext *c = redisConnectUnix(fx->sock);
	pid_t pid;
	int bad = 0;

	if (c == NULL || c->err) {
		fprintf(stderr, "bench: cannot reach the fixture's redis\n");
		return 1;
	}
	snprintf(one, sizeof(one), "%s/every-1s.yaml", fx->dir);
	snprintf(many, sizeof(many), "%s/every-1s-100.yaml", fx->dir);
	every_second(one, fx->url, 1);
	every_second(many, fx->url, NTASKS);
	printf("\nseconds: tasks every 1s under lockrun cron (a run forked per fire "
	    "time; round trips counted from INFO commandstats: EVALSHA, EVAL and the "
	    "connection's own commands), reported, not asserted:\n");
	bad += rate(lockrun, one, c, 1, 1);
	bad += rate(lockrun, one, c, NSCHED, 1);

	pid = cron_of(lockrun, many);
	sleep_s(1.5);
	cpu_of(pid, &s0, &c0);
	before = round_trips(c);
	t0 = fixture_mono_s();
	sleep_s(CPU_S);
	secs = fixture_mono_s() - t0;
	cpu_of(pid, &s1, &c1);
	printf("  %d tasks every 1s on 1 scheduler over %.0f s: the scheduler %.0f ms of "
	    "CPU (%.1f%% of a core), its runs %.0f ms (%.1f%%); %.2f round trips/s/task\n",
	    NTASKS, secs, s1 - s0, (s1 - s0) / secs / 10, c1 - c0, (c1 - c0) / secs / 10,
	    (double)(round_trips(c) - before) / secs / NTASKS);
	bad += halt(pid);
	redisFree(c);
	return bad;
}

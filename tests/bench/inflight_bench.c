/* SPDX-License-Identifier: BSD-2-Clause */
/* inflight_bench.c -- what a run in flight costs its scheduler (issue 43):
 * N tasks (LOCKRUN_BENCH_INFLIGHT_N, default 1,000) `* * * * *`, each
 * `sleep RUN_S` (LOCKRUN_BENCH_INFLIGHT_RUN_S, default 40: past three
 * renewal periods of the default TTL), output to /dev/null, on one
 * `lockrun cron` against Redis. The scheduler's VmRSS and open
 * descriptors (/proc/PID/status, /proc/PID/fd) before the fire time, and
 * their peak while all N runs are in flight, sampled every 0.5 s: the
 * batches of renewals come and go between the samples, so the peak is
 * what the loop holds, renewals included. The scheduler starts 2 s before
 * the next real minute, on the real clock (fleet_bench.c says why).
 * Reported, never asserted. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cron_bench.h"
#include "../integ/proc.h"

#define INFLIGHT_MAX	5000

static long
env_long(const char *name, long dflt, long lo, long hi)
{
	const char *v = getenv(name);
	long n = v ? strtol(v, NULL, 10) : dflt;

	return n < lo ? lo : n > hi ? hi : n;
}

/* pid's VmRSS in KiB, or -1. */
static long
rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	fclose(fp);
	return kib;
}

/* How many descriptors pid has open, or -1. */
static long
fds(pid_t pid)
{
	char path[64];
	struct dirent *de;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* How many lines of path say a run started ("...: started, pid N"). */
static int
started(const char *path)
{
	char line[1024];
	FILE *fp = fopen(path, "r");
	int n = 0;

	while (fp && fgets(line, sizeof(line), fp))
		n += strstr(line, ": started, pid ") != NULL;
	if (fp)
		fclose(fp);
	return n;
}

static int
config(const char *path, const char *url, int n, long run_s)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL) {
		perror(path);
		return -1;
	}
	fprintf(fp, "redis:\n  url: %s\ndefaults:\n  output: /dev/null\n"
	    "  starting_deadline: 30s\ntasks:\n", url);
	for (int i = 0; i < n; i++)
		fprintf(fp, "  inflight-%04d:\n    schedule: '* * * * *'\n    command: "
		    "[sleep, '%ld']\n", i, run_s);
	return fclose(fp);
}

int
inflight_cost(const char *lockrun)
{
	int n = (int)env_long("LOCKRUN_BENCH_INFLIGHT_N", 1000, 1, INFLIGHT_MAX);
	long run_s = env_long("LOCKRUN_BENCH_INFLIGHT_RUN_S", 40, 15, 3600);
	struct redis_fixture fx;
	char cfg[256], err[256];
	char *argv[] = { (char *)lockrun, "cron", "-v", "-c", cfg, NULL };
	long rss0, fd0, rss = 0, fd = 0;
	double fire, now, all = 0;
	pid_t pid;

	if (redis_start(&fx, NULL) != 0)
		return 1;
	snprintf(cfg, sizeof(cfg), "%s/inflight.yaml", fx.dir);
	snprintf(err, sizeof(err), "%s/inflight.err", fx.dir);
	if (config(cfg, fx.url, n, run_s) != 0) {
		redis_stop(&fx);
		return 1;
	}
	now = fixture_real_s();
	fire = (double)(((long long)(now + 3) / 60 + 1) * 60);
	usleep((useconds_t)((fire - 2 - now) * 1e6));
	if ((pid = cron_spawn(argv, NULL, err)) < 0) {
		redis_stop(&fx);
		return 1;
	}
	usleep(1000000);	/* ready, its tasks read: before the fire time */
	rss0 = rss_kib(pid);
	fd0 = fds(pid);
	/* from the fire time until the first run ends: the peak */
	while ((now = fixture_real_s()) < fire + run_s - 1) {
		if (all == 0 && started(err) >= n)
			all = now - fire;
		if (all > 0) {
			long r = rss_kib(pid), k = fds(pid);

			rss = r > rss ? r : rss;
			fd = k > fd ? k : fd;
		}
		usleep(500000);
	}
	printf("  %d runs in flight on one lockrun cron (each `sleep %ld`, output /dev/null; "
	    "LOCKRUN_BENCH_INFLIGHT_N, _RUN_S):\n", n, run_s);
	if (all == 0)
		printf("    not measured: %d of %d runs started\n", started(err), n);
	else
		printf("    the scheduler before its fire time: RSS %.1f MiB, %ld descriptors; "
		    "with all %d in flight (started within %.1f s), peak over %.0f s: RSS %.1f MiB "
		    "(acceptance: <= 16 MB), %ld descriptors (acceptance: <= 2,100); "
		    "a run in flight: %.1f KiB, %.2f descriptors\n", rss0 / 1024.0, fd0, n, all,
		    run_s - 1 - all, rss / 1024.0, fd, (double)(rss - rss0) / n,
		    (double)(fd - fd0) / n);
	kill(pid, SIGTERM);
	cron_reap(pid);
	redis_stop(&fx);
	return all == 0;
}

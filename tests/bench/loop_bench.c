/* SPDX-License-Identifier: BSD-2-Clause */
/* loop_bench.c -- how long the runs of `lockrun cron` wait for the answers
 * to their renewals, which the scheduler's loop gives: ten runs on 3 s
 * leases for 15 s, with one task printing as fast as it can (yes) and
 * without. Each run's released record in the JSON log carries the median
 * and the longest wait of its renewals (renew_wait_median_ms,
 * renew_wait_max_ms); the figures are the median of the runs' medians and
 * the longest of all. Reported, never asserted. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cron_bench.h"

#define HOLDERS	10
#define RUN_S	15

/* The config: HOLDERS tasks on 3 s leases sleeping RUN_S, and with flood a
 * task printing "y" lines for as long; every one at the scheduler's start. */
static int
loop_config(const char *path, const char *url, int flood)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		return -1;
	/* a prefix each: an @reboot task runs once a boot and prefix */
	fprintf(fp, "redis:\n  url: %s\nprefix: 'loop%d:'\nlog: json\ndefaults:\n  ttl: 3s\n"
	    "tasks:\n", url, flood);
	for (int i = 0; i < HOLDERS; i++)
		fprintf(fp, "  h%02d:\n    schedule: '@reboot'\n    command: [sleep, '%d']\n",
		    i, RUN_S);
	if (flood)
		fprintf(fp, "  flood:\n    schedule: '@reboot'\n    command: [timeout, '%d', yes]\n",
		    RUN_S);
	return fclose(fp) == 0 ? 0 : -1;
}

/* The number after "name": in line, or -1. */
static double
field(const char *line, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	return (p = strstr(line, key)) != NULL ? strtod(p + strlen(key), NULL) : -1;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One scheduler's run of the config: the holders' waits, and how many
 * lease-unconfirmed lines (LOST LOCK) it logged. Returns 0, or -1. */
static int
one(const char *lockrun, const struct redis_fixture *fx, int flood, double *med,
    double *max, int *lost)
{
	char cfg[300], err[300], line[8192];
	double meds[HOLDERS];
	int n = 0;
	pid_t pid;
	FILE *fp;

	snprintf(cfg, sizeof(cfg), "%s/loop-%d.yaml", fx->dir, flood);
	snprintf(err, sizeof(err), "%s/loop-%d.err", fx->dir, flood);
	if (loop_config(cfg, fx->url, flood) != 0)
		return -1;
	pid = cron_spawn((char *const[]){ (char *)lockrun, "cron", "-c", cfg, NULL }, NULL,
	    err);
	/* until every holder has said it released (bounded: a hang is a failure) */
	for (long long guard = fixture_ms() + (RUN_S + 45) * 1000LL; n < HOLDERS; ) {
		if (fixture_ms() > guard)
			break;
		fixture_tick(200);
		n = 0;
		if ((fp = fopen(err, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), fp))
			n += strstr(line, "\"event\":\"released\"") != NULL &&
			    strstr(line, "\"task\":\"h") != NULL;
		fclose(fp);
	}
	kill(pid, SIGTERM);
	cron_reap(pid);
	*med = *max = -1;
	*lost = 0;
	n = 0;
	if ((fp = fopen(err, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		*lost += strstr(line, "\"event\":\"lease-unconfirmed\"") != NULL;
		if (strstr(line, "\"event\":\"released\"") == NULL ||
		    strstr(line, "\"task\":\"h") == NULL || n == HOLDERS ||
		    field(line, "renew_wait_max_ms") < 0)
			continue;
		meds[n++] = field(line, "renew_wait_median_ms");
		if (field(line, "renew_wait_max_ms") > *max)
			*max = field(line, "renew_wait_max_ms");
	}
	fclose(fp);
	if (n == 0)
		return -1;
	qsort(meds, (size_t)n, sizeof(*meds), cmp_dbl);
	*med = meds[n / 2];
	return n == HOLDERS ? 0 : -1;
}

int
loop_cost(const char *lockrun, const struct redis_fixture *fx)
{
	double med[2], max[2];
	int lost[2], bad = 0;

	printf("\nthe scheduler's answers to renewals (%d runs on 3s leases for %ds under one "
	    "lockrun cron; each run's median and longest wait for an answer, from its "
	    "released record):\n", HOLDERS, RUN_S);
	for (int flood = 0; flood < 2; flood++) {
		if (one(lockrun, fx, flood, &med[flood], &max[flood], &lost[flood]) != 0) {
			fprintf(stderr, "bench: loop: not every run said how it went (%s)\n",
			    flood ? "flood" : "quiet");
			bad++;
		}
		printf("  %-32s median %6.0f ms, longest %6.0f ms, LOST LOCK lines %d\n",
		    flood ? "with a task printing (yes):" : "without:", med[flood], max[flood],
		    lost[flood]);
	}
	return bad;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* config_scale_test.c -- a config of 10,000 tasks runs its last one and
 * passes lockrun check; a mistake inside one task stops only that task's
 * runs and check; status and unlock work from a config whose other tasks
 * are not read. Real binary, real redis-server. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(config_scale, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define NTASKS 10000

/* A config of n tasks task-00000 ... , each of the shape an operator
 * writes, pointing at the suite's Redis; extra is appended under tasks. */
static const char *
write_tasks(int n, const char *extra)
{
	const char *path = scratch("big.yaml");
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\nprefix: \"scale:\"\ndefaults:\n  ttl: 30s\ntasks:\n",
	    fx.url);
	for (int i = 0; i < n; i++)
		fprintf(fp, "  task-%05d:\n    command: [echo, ran, %d]\n    one_server: true\n"
		    "    schedule: \"*/5 * * * *\"\n    timeout: 50m\n    env:\n"
		    "      JOB: \"%d\"\n", i, i, i);
	fputs(extra, fp);
	fclose(fp);
	return path;
}

Test(config_scale, ten_thousand_tasks_run_the_last_and_check_all)
{
	const char *cfg = write_tasks(NTASKS, "");
	struct result r;
	char want[64];

	LR(&r, "-c", cfg, "-t", "task-09999");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran 9999\n"));
	cr_assert(eq(int, key_exists("scale:{task-09999}:last"), 1));
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	snprintf(want, sizeof(want), "ok, %d tasks\n", NTASKS);
	cr_assert(strstr(r.out, want) != NULL, "%.300s", r.out);
}

static const char broken[] =
    "  fine:\n    command: [echo, fine]\n"
    "  broken:\n    command: [echo, broken]\n    ttl: \"-3s\"\n";

/* The broken ttl is on line 6 + 7 * 3 + 5 = 32 of a 3-task file. */
Test(config_scale, a_broken_task_stops_only_itself)
{
	const char *cfg = write_tasks(3, broken);
	struct result r;

	LR(&r, "-c", cfg, "-t", "fine");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "fine\n"));
	LR(&r, "-c", cfg, "-t", "task-00001");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	LR(&r, "-c", cfg, "-t", "broken");
	cr_assert(eq(int, r.status, 78));
	cr_assert(strstr(r.err, "big.yaml:32:10: tasks.broken.ttl: \"-3s\" is not a "
	    "positive duration") != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""), "nothing ran");
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(strstr(r.err, "big.yaml:32:10: tasks.broken.ttl:") != NULL, "%s", r.err);
	/* status lists every task, the broken one too, without reading it */
	LR(&r, "status", "-c", cfg, "--json");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "\"broken\"") != NULL, "%s", r.out);
}

/* Whatever is not read must still be YAML: a syntax error anywhere stops
 * every run, at its place. */
Test(config_scale, a_syntax_error_anywhere_stops_every_run)
{
	const char *cfg = write_tasks(3, "  oops:\n    command: [echo\n");
	struct result r;

	LR(&r, "-c", cfg, "-t", "task-00000");
	cr_assert(eq(int, r.status, 78));
	cr_assert(strstr(r.err, "big.yaml:") != NULL && strstr(r.err, "YAML syntax error")
	    != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""));
}

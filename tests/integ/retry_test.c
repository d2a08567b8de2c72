/* SPDX-License-Identifier: BSD-2-Clause */
/* retry_test.c -- retries: and retry_delay: on Redis and PostgreSQL: a
 * failed run goes again within its slot, holding its lock; on_failure
 * fires once, after the last attempt; two schedulers never run two
 * attempts at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(retry, .init = suite_setup, .fini = backends_teardown, .timeout = 150);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* The scratch path name, kept: scratch() reuses its buffers. */
static const char *
path_of(char buf[256], const char *name)
{
	snprintf(buf, 256, "%s", scratch(name));
	return buf;
}

/* A config with task "flaky" (every minute, retries: 2): its command
 * appends "$LOCKRUN_ATTEMPT $LOCKRUN_SLOT" to log and succeeds from its
 * attempt number ok on (0: never); each hook appends its name and
 * $LOCKRUN_ATTEMPT to hooks. */
static const char *
flaky_config(const char *log, const char *hooks, int ok)
{
	static char cfg[256];
	char body[2048];

	snprintf(body, sizeof(body), "url: '%s'\n"
	    "tasks:\n"
	    "  flaky:\n"
	    "    schedule: '* * * * *'\n"
	    "    retries: 2\n"
	    "    retry_delay: 100ms\n"
	    "    command: 'echo \"$LOCKRUN_ATTEMPT $LOCKRUN_SLOT\" >> %s; "
	    "[ %d -ne 0 ] && [ $LOCKRUN_ATTEMPT -ge %d ]'\n"
	    "    on_success: [sh, -c, 'echo \"success $LOCKRUN_ATTEMPT\" >> %s']\n"
	    "    on_failure: [sh, -c, 'echo \"failure $LOCKRUN_ATTEMPT\" >> %s']\n",
	    url, log, ok, ok, hooks, hooks);
	snprintf(cfg, sizeof(cfg), "%s", write_scratch("retry.yaml", body));
	return cfg;
}

/* The slot of the log's first line: every line must name it. */
static void
assert_one_slot(const char *log, int attempts)
{
	char slot[128] = "", re[200];

	cr_assert(sscanf(file_peek(log), "1 %127s", slot) == 1, "%s", file_peek(log));
	for (int i = 1; i <= attempts; i++) {
		snprintf(re, sizeof(re), "^%d %s$", i, slot);
		cr_assert(eq(int, lines_matching(log, re), 1), "%s in:\n%s", re, file_peek(log));
	}
	cr_assert(eq(int, file_lines(log), attempts), "%s", file_peek(log));
}

static void
fails_twice_then_succeeds(enum backend b)
{
	char logbuf[256], hooksbuf[256], ev[512], cfgbuf[256];
	const char *log = path_of(logbuf, "attempts.log");
	const char *hooks = path_of(hooksbuf, "hooks.log");
	struct result r;

	use(b);
	snprintf(cfgbuf, sizeof(cfgbuf), "%s", flaky_config(log, hooks, 3));
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfgbuf, "-t", "flaky",
	    NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	assert_one_slot(log, 3);
	cr_assert(eq(str, (char *)file_peek(hooks), "success 3\n"), "on_failure never fired");
	/* one run of the slot in the history: it ran, and ended well */
	cr_assert(eq(str, (char *)events("flaky", ev, sizeof(ev)), "released ran"), "%s", ev);
	cr_assert(eq(dbl, metric("flaky", "lockrun_runs_total", NULL), 1.0));
	cr_assert(eq(dbl, metric("flaky", "lockrun_failures_total", NULL), 0.0));
}

Test(retry, redis_fails_twice_then_succeeds_in_one_slot)
{
	fails_twice_then_succeeds(BE_REDIS);
}
Test(retry, pg_fails_twice_then_succeeds_in_one_slot)
{
	fails_twice_then_succeeds(BE_PG);
}

static void
fails_three_times(enum backend b)
{
	char logbuf[256], hooksbuf[256], ev[512], cfgbuf[256];
	const char *log = path_of(logbuf, "attempts.log");
	const char *hooks = path_of(hooksbuf, "hooks.log");
	struct result r;

	use(b);
	snprintf(cfgbuf, sizeof(cfgbuf), "%s", flaky_config(log, hooks, 0));
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfgbuf, "-t", "flaky",
	    NULL });
	cr_assert(eq(int, r.status, 1), "stderr: %s", r.err);
	assert_one_slot(log, 3);
	cr_assert(eq(str, (char *)file_peek(hooks), "failure 3\n"), "on_failure once, "
	    "after the last attempt");
	cr_assert(matches(r.err, "attempt 1 of 3 failed \\(status 1\\)"), "%s", r.err);
	cr_assert(matches(r.err, "attempt 2 of 3 failed"), "%s", r.err);
	cr_assert(matches(r.err, "attempt 3 of 3 failed") == 0, "%s", r.err);
	cr_assert(eq(str, (char *)events("flaky", ev, sizeof(ev)), "released ran"), "%s", ev);
	cr_assert(eq(dbl, metric("flaky", "lockrun_failures_total", NULL), 1.0));
}

Test(retry, redis_fails_three_times_on_failure_fires_once)
{
	fails_three_times(BE_REDIS);
}
Test(retry, pg_fails_three_times_on_failure_fires_once)
{
	fails_three_times(BE_PG);
}

/* Two schedulers, one slot of a task that always fails, retries: 2: its
 * three attempts run one after the other (each holds a flock on the log
 * taken without waiting: "overlap" when another attempt holds it), all
 * in the slot, and on_failure fires once across the fleet. */
static void
two_schedulers(enum backend b)
{
	char logbuf[256], hooksbuf[256], cfgbuf[256], body[2048];
	const char *log = path_of(logbuf, "attempts.log");
	const char *hooks = path_of(hooksbuf, "hooks.log");
	const char *cfg = path_of(cfgbuf, "fleet.yaml");
	struct fleet f;
	FILE *fp;

	use(b);
	snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "tasks:\n"
	    "  flaky:\n"
	    "    schedule: '0 12 * * *'\n"
	    "    retries: 2\n"
	    "    retry_delay: 200ms\n"
	    "    command: 'flock -n -E 99 %s.lock sh -c ''echo \"$LOCKRUN_ATTEMPT $LOCKRUN_SLOT\" "
	    ">> %s; sleep 1''; [ $? -ne 99 ] || echo overlap >> %s; exit 3'\n"
	    "    on_failure: [sh, -c, 'echo \"failure $LOCKRUN_ATTEMPT $LOCKRUN_STATUS\" >> %s']\n",
	    url, log, log, log, hooks);
	fp = fopen(cfg, "w");
	cr_assert(fp != NULL);
	fputs(body, fp);
	fclose(fp);
	fleet_start(&f, 2, cfg, T_1200 - 5, 1, b == BE_REDIS ? NULL : pw_env);
	POLL_UNTIL(file_lines(hooks) > 0);
	POLL_UNTIL(file_lines(hooks) > 0);
	cr_assert(eq(int, file_lines(hooks), 1), "server 0:\n%s\nserver 1:\n%s",
	    file_peek(f.err[0]), file_peek(f.err[1]));
	fleet_stop(&f);
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(eq(str, (char *)file_peek(hooks), "failure 3 3\n"));
	cr_assert(eq(int, lines_matching(log, "^[123] 2026-06-15T12:00:00Z$"), 3), "%s",
	    file_peek(log));
	assert_one_slot(log, 3);
	cr_assert(eq(int, fleet_matching(&f, 0, "attempt [12] of 3 failed") +
	    fleet_matching(&f, 1, "attempt [12] of 3 failed"), 2));
}

Test(retry, redis_two_schedulers_never_overlap_attempts, .fini = fleet_cleanup)
{
	two_schedulers(BE_REDIS);
}
Test(retry, pg_two_schedulers_never_overlap_attempts, .fini = fleet_cleanup)
{
	two_schedulers(BE_PG);
}

/* --retries and --retry-delay, the keys' command-line twins: a crontab
 * line with no config retries its command as a task would. */
Test(retry, redis_command_line_retries)
{
	char logbuf[256], cmd[512], ev[512];
	const char *log = path_of(logbuf, "attempts.log");
	struct result r;

	use(BE_REDIS);
	snprintf(cmd, sizeof(cmd), "echo \"$LOCKRUN_ATTEMPT\" >> %s; "
	    "[ $LOCKRUN_ATTEMPT -ge 2 ]", log);
	RUN(&r, "-k", "cli-flaky", "--retries", "1", "--retry-delay", "100ms", "--shell",
	    "--", cmd);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, (char *)file_peek(log), "1\n2\n"));
	cr_assert(eq(str, (char *)events("cli-flaky", ev, sizeof(ev)), "released ran"),
	    "%s", ev);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_missed_test.c -- a slot that passed its starting_deadline with no
 * run anywhere is recorded once for the fleet: lockrun_missed_total, the
 * status's last missed slot, a "missed" history entry, the on_missed hook
 * on the one scheduler that recorded it, an error from each scheduler
 * that noticed; a late run of that slot skips it. Against Redis and
 * PostgreSQL; the schedulers' clocks faked with libfaketime (the lock
 * server's is real: clock_tolerance 0). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(cron_missed, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* daily at 12:00, one minute of starting_deadline; its runs append
 * "daily SLOT" to log, its on_missed "missed SLOT TASK" to hooks. */
static const char *
missed_config(const char *log, const char *hooks)
{
	char body[2048];

	snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\ntasks:\n"
	    "  daily:\n    schedule: '0 12 * * *'\n    starting_deadline: 1m\n"
	    "    command: 'echo \"daily $LOCKRUN_SLOT\" >> %s'\n"
	    "    on_missed: [/bin/sh, -c, 'echo \"missed $LOCKRUN_SLOT $LOCKRUN_TASK\" >> %s']\n",
	    url, log, hooks);
	return write_scratch("missed.yaml", body);
}

/* `lockrun ARGS` with the clock at at (and the SQL password). */
static void
run_at(struct result *res, double at, const char *const args[])
{
	char buf[3][128];
	const char *env[7];
	size_t n = 0;

	faketime_env(env, buf, at);
	while (env[n])
		n++;
	if (be != BE_REDIS)
		env[n++] = pw_env[0];
	env[n] = NULL;
	lr_run_env(res, env, args);
}


/*
 * daily ran yesterday. Every scheduler was down at 12:00; two start at
 * 12:01:30, past its deadline: one records the slot as missed and runs
 * on_missed, the other says another did; both say it as an error. A run
 * of that slot afterwards skips it.
 */
static void
missed_once(enum backend b)
{
	const char *log = scratch("runs.log"), *hooks = scratch("hooks.log"), *cfg;
	char err[16384];
	struct result r;
	pid_t s[2];

	use(b);
	cfg = missed_config(log, hooks);
	run_at(&r, T_1200 - 86400, (const char *const[]){ "-c", cfg, "-t", "daily", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	for (int i = 0; i < 2; i++)
		s[i] = cron_server_at(i, cfg, T_1200 + 90, be != BE_REDIS ? pw_env[0] : NULL);
	for (int i = 0; i < 2; i++)
		POLL_UNTIL(stderr_matching(s[i], "daily 2026-06-15T12:00:00Z: missed: no server "
		    "ran it") == 1);
	POLL_UNTIL(lines_matching(hooks, ".") >= 1);
	for (int i = 0; i < 2; i++)
		cron_stop(s[i]);
	cr_assert(eq(int, stderr_matching(s[0], "recorded for the fleet here") +
	    stderr_matching(s[1], "recorded for the fleet here"), 1), "%s",
	    lr_stderr_of(s[0], err, sizeof(err)));
	cr_assert(eq(int, stderr_matching(s[0], "another scheduler recorded it") +
	    stderr_matching(s[1], "another scheduler recorded it"), 1));
	cr_assert(eq(int, lines_matching(hooks, "^missed 2026-06-15T12:00:00Z daily$"), 1),
	    "%s", file_peek(hooks));
	cr_assert(eq(int, lines_matching(hooks, "."), 1), "%s", file_peek(hooks));
	cr_assert(eq(int, lines_matching(log, "^daily 2026-06-15"), 0), "%s", file_peek(log));

	run_at(&r, T_1200 + 100, (const char *const[]){ "-c", cfg, "status", "--format",
	    "prometheus", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "\nlockrun_missed_total{task=\"daily\"} 1\n") != NULL, "%s",
	    r.out);
	cr_assert(strstr(r.out, "\nlockrun_last_missed_slot_timestamp_seconds{task=\"daily\"} "
	    "1781524800.000\n") != NULL, "%s", r.out);
	/* the same, read by the strict exposition parser (and promtool) */
	cr_assert(eq(dbl, metric("daily", "lockrun_missed_total", NULL), 1.0));
	cr_assert(eq(dbl, metric("daily", "lockrun_last_missed_slot_timestamp_seconds", NULL),
	    T_1200));
	run_at(&r, T_1200 + 100, (const char *const[]){ "-c", cfg, "status", "--format",
	    "json", NULL });
	cr_assert(strstr(r.out, "\"missed\":{\"count\":1,\"last_slot\":"
	    "\"2026-06-15T12:00:00Z\"}") != NULL, "%s", r.out);
	run_at(&r, T_1200 + 100, (const char *const[]){ "-c", cfg, "history", "daily", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "missed") != NULL, "%s", r.out);
	cr_assert(eq(str, (char *)events("daily", err, sizeof(err)), "missed released ran"), "%s",
	    err);

	/* a run of that slot, late: the slot is taken, by the record */
	run_at(&r, T_1200 + 100, (const char *const[]){ "-v", "-c", cfg, "-t", "daily", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.err, "recorded it as missed") != NULL, "%s", r.err);
	cr_assert(eq(int, lines_matching(log, "^daily 2026-06-15"), 0), "%s", file_peek(log));
}

Test(cron_missed, redis_a_slot_no_server_ran_is_recorded_once)
{
	missed_once(BE_REDIS);
}

Test(cron_missed, pg_a_slot_no_server_ran_is_recorded_once)
{
	missed_once(BE_PG);
}

/*
 * A task that never ran (a new install) has nothing to miss: a scheduler
 * started past its deadline records nothing for it and runs no hook. The
 * other task ran yesterday: its slot is recorded, in the same look at the
 * start, after the first task's was decided.
 */
Test(cron_missed, a_task_that_never_ran_records_nothing)
{
	const char *log = scratch("runs.log"), *hooks = scratch("hooks.log"), *path;
	char body[2048];
	struct result r;
	pid_t s;

	use(BE_REDIS);
	snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "  schedule: '0 12 * * *'\n  starting_deadline: 1m\n"
	    "  on_missed: [/bin/sh, -c, 'echo \"missed $LOCKRUN_SLOT $LOCKRUN_TASK\" >> %s']\n"
	    "tasks:\n  fresh:\n    command: 'echo fresh >> %s'\n"
	    "  old:\n    command: 'echo old >> %s'\n", url, hooks, log, log);
	path = write_scratch("new.yaml", body);
	run_at(&r, T_1200 - 86400, (const char *const[]){ "-c", path, "-t", "old", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	s = cron_server_at(0, path, T_1200 + 90, NULL);
	POLL_UNTIL(lines_matching(hooks, "^missed 2026-06-15T12:00:00Z old$") == 1);
	cron_stop(s);
	cr_assert(eq(int, lines_matching(hooks, "fresh"), 0), "%s", file_peek(hooks));
	cr_assert(eq(dbl, metric("old", "lockrun_missed_total", NULL), 1.0));
	run_at(&r, T_1200 + 100, (const char *const[]){ "-c", path, "status", "--format",
	    "prometheus", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "lockrun_missed_total{task=\"fresh\"} 1") == NULL, "%s", r.out);
}

/*
 * The server cannot be reached across 12:00 (its socket is not there yet):
 * no run is forked for the slot while it does not answer, and once the
 * deadline (15s) has passed the slot is noted as missed; its record, which
 * cannot reach the server either, waits. When the socket appears (a symlink to the test's server), the slot
 * is recorded, once, and on_missed runs.
 */
Test(cron_missed, a_slot_missed_while_the_server_was_away_is_recorded_when_it_is_back)
{
	const char *log = scratch("runs.log"), *hooks = scratch("hooks.log"), *path;
	const char *sock = scratch("later.sock");
	char err[16384], body[2048], real[300];
	struct result r;
	pid_t s;

	use(BE_REDIS);
	snprintf(body, sizeof(body), "url: 'unix://%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "tasks:\n  daily:\n    schedule: '0 12 * * *'\n    starting_deadline: 15s\n"
	    "    command: 'echo \"daily $LOCKRUN_SLOT\" >> %s'\n"
	    "    on_missed: [/bin/sh, -c, 'echo \"missed $LOCKRUN_SLOT\" >> %s']\n",
	    sock, log, hooks);
	path = write_scratch("away.yaml", body);
	snprintf(real, sizeof(real), "unix://%s", fx.sock);
	run_at(&r, T_1200 - 86400, (const char *const[]){ "--url", real, "-c", path, "-t",
	    "daily", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);

	s = cron_server_at(0, path, T_1200 - 2, NULL);
	/* no run is started while the server does not answer (away.h); the
	 * deadline has passed */
	POLL_UNTIL(stderr_matching(s, "daily 2026-06-15T12:00:00Z: missed: its "
	    "starting_deadline passed while the lock server did not answer") == 1);
	cr_assert(eq(int, stderr_matching(s, "started, pid"), 0), "%s",
	    lr_stderr_of(s, err, sizeof(err)));
	cr_assert(eq(int, stderr_matching(s, "cannot ask the server whether"), 1), "%s",
	    lr_stderr_of(s, err, sizeof(err)));
	cr_assert(eq(int, symlink(fx.sock, sock), 0));
	POLL_UNTIL(stderr_matching(s, "daily 2026-06-15T12:00:00Z: missed: no server ran it") == 1);
	POLL_UNTIL(lines_matching(hooks, ".") >= 1);
	cron_stop(s);
	cr_assert(eq(int, stderr_matching(s, "recorded for the fleet here"), 1), "%s",
	    lr_stderr_of(s, err, sizeof(err)));
	cr_assert(eq(int, lines_matching(hooks, "^missed 2026-06-15T12:00:00Z$"), 1), "%s",
	    file_peek(hooks));
	cr_assert(eq(int, lines_matching(log, "^daily 2026-06-15"), 0), "%s", file_peek(log));
	cr_assert(eq(dbl, metric("daily", "lockrun_missed_total", NULL), 1.0));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* schedrule_test.c -- one meaning for a schedule: a run that has one
 * claims its slot once across the fleet and never overlaps, however it
 * starts (the command line, -t from a crontab line, tick); turning either
 * off is explicit, and a setting that would change nothing is refused.
 * Real binary, real redis-server, clocks frozen by libfaketime. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(schedrule, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* lockrun args at the frozen instant at. */
static void
run_at(struct result *r, double at, const char *const args[])
{
	const char *env[6];
	char buf[3][128];

	faketime_frozen_env(env, buf, at);
	lr_run_env(r, env, args);
}

/* The case: two crontab lines on two servers, the same slot. */
Test(schedrule, a_command_line_schedule_claims_its_slot_once)
{
	const char *log = scratch("m2.log");
	char sh[256];
	struct result r;

	snprintf(sh, sizeof(sh), "echo \"$LOCKRUN_SLOT\" >> %s", log);
	run_at(&r, T_1200 + 5 * 60 + 1, (const char *const[]){ "--redis", fx.url, "--clock-tolerance", "0",
	    "--schedule", "*/5 * * * *", "-k", "m2", "--", "sh", "-c", sh, NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	run_at(&r, T_1200 + 5 * 60 + 40, (const char *const[]){ "--redis", fx.url, "--clock-tolerance", "0",
	    "--schedule", "*/5 * * * *", "-k", "m2", "-E", "75", "--", "sh", "-c", sh, NULL });
	cr_assert(eq(int, r.status, 75), "the second skips: %s", r.err);
	cr_assert(eq(str, (char *)file_peek(log), "2026-06-15T12:05:00Z\n"));
	cr_assert(eq(int, key_exists("lockrun:{m2}:slot:20260615T1205Z"), 1));
}

Test(schedrule, every_on_the_command_line_claims_its_slot_once)
{
	const char *log = scratch("ev.log");
	char sh[256];
	struct result r;

	snprintf(sh, sizeof(sh), "echo ran >> %s", log);
	run_at(&r, T_1200 + 10, (const char *const[]){ "--redis", fx.url, "--clock-tolerance", "0",
	    "--every", "1h", "-k", "ev", "--", "sh", "-c", sh, NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	run_at(&r, T_1200 + 600, (const char *const[]){ "--redis", fx.url, "--clock-tolerance", "0",
	    "--every", "1h", "-k", "ev", "-E", "75", "--", "sh", "-c", sh, NULL });
	cr_assert(eq(int, r.status, 75), "%s", r.err);
	cr_assert(eq(int, file_lines(log), 1));
}

/* The README's first example: a crontab line `lockrun -t NAME` for a task
 * with a schedule, on two servers: the slot runs once, as under tick. */
Test(schedrule, a_task_with_a_schedule_started_by_t_claims_its_slot_once)
{
	const char *log = scratch("t.log");
	char body[512];
	const char *cfg;
	struct result r;

	snprintf(body, sizeof(body), "tasks:\n  m3:\n    schedule: '*/5 * * * *'\n"
	    "    conflict_exit: 75\n"
	    "    command: 'echo \"$LOCKRUN_SLOT\" >> %s'\n", log);
	cfg = write_config_faked(body);
	run_at(&r, T_1200 + 5 * 60 + 1, (const char *const[]){ "-c", cfg, "-t", "m3", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	run_at(&r, T_1200 + 5 * 60 + 30, (const char *const[]){ "-c", cfg, "-t", "m3", NULL });
	cr_assert(eq(int, r.status, 75), "the second skips: %s", r.err);
	/* and tick, in the same slot, agrees it ran */
	run_at(&r, T_1200 + 5 * 60 + 40, (const char *const[]){ "tick", "-c", cfg, NULL });
	cr_assert(eq(str, (char *)file_peek(log), "2026-06-15T12:05:00Z\n"));
}

/* Off is explicit, and then the slot is not claimed. */
Test(schedrule, no_one_server_turns_the_slot_off)
{
	const char *log = scratch("off.log");
	char body[512];
	const char *cfg;
	struct result r;

	snprintf(body, sizeof(body), "tasks:\n  off:\n    schedule: '*/5 * * * *'\n"
	    "    one_server: false\n"
	    "    command: 'echo ran >> %s'\n", log);
	cfg = write_config_faked(body);
	run_at(&r, T_1200 + 5 * 60 + 1, (const char *const[]){ "-c", cfg, "-t", "off", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	run_at(&r, T_1200 + 5 * 60 + 2, (const char *const[]){ "-c", cfg, "-t", "off", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, file_lines(log), 2), "no slot: both ran");
	run_at(&r, T_1200 + 5 * 60 + 3, (const char *const[]){ "-c", cfg, "--one-server",
	    "-t", "off", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	run_at(&r, T_1200 + 5 * 60 + 4, (const char *const[]){ "-c", cfg, "--one-server",
	    "-t", "off", NULL });
	cr_assert(eq(int, file_lines(log), 3), "the command line turned it on again");
}

Test(schedrule, an_option_with_no_effect_is_64)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--schedule", "*/5 * * * *", "--no-one-server", "-k", "x",
	    "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: --schedule has no effect: one-server is off (a run "
	    "started by hand claims no slot; tick and cron read a schedule from the "
	    "config)\nTry 'lockrun --help' for more information.\n"));
	LR(&r, "--redis", fx.url, "--slot-tolerance", "10s", "-k", "x", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: --slot-tolerance has no effect: one-server is off "
	    "(no slot is claimed)\nTry 'lockrun --help' for more information.\n"));
	LR(&r, "--redis", fx.url, "--every", "1h", "--timezone", "UTC", "-k", "x", "--",
	    "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "^lockrun: --timezone has no effect without a cron schedule"));
	cr_assert(eq(int, key_exists("lockrun:{x}"), 0));
}

Test(schedrule, a_task_setting_with_no_effect_is_78_with_its_place)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  tol:\n    command: [true]\n"
	    "    slot_tolerance: 10s\n");

	LR(&r, "-c", cfg, "-t", "tol");
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "^lockrun: [^ ]*lockrun.yaml:[0-9]+:[0-9]+: tasks.tol: "
	    "slot_tolerance has no effect: one-server is off \\(no slot is claimed\\)\n$"),
	    "%s", r.err);
}

/* check -t says which protections apply and why. */
Test(schedrule, check_says_which_protections_apply_and_why)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  both:\n    schedule: '0 * * * *'\n"
	    "    command: [true]\n  mine:\n    schedule: '0 * * * *'\n"
	    "    no_overlap: false\n    command: [true]\n  plain:\n    command: [true]\n");

	LR(&r, "check", "-c", cfg, "-t", "both");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "protection  one-server and no-overlap: the task has a "
	    "schedule\n") != NULL, "%s", r.out);
	LR(&r, "check", "-c", cfg, "-t", "mine");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "protection  one-server: the task has a schedule; no-overlap "
	    "is off: tasks.mine sets it\n") != NULL, "%s", r.out);
	LR(&r, "check", "-c", cfg, "-t", "plain");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "protection  no-overlap: no schedule (one-server would claim "
	    "a slot every minute)\n") != NULL, "%s", r.out);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* config_once_test.c -- `lockrun cron` reads its config file once at
 * start: the helpers that have a connection of their own (the runs'
 * lease channel, the looks for triggers, the slot claims) take the
 * server's settings from the config in memory, not from the file again
 * (counted by the shim's open log). */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

TestSuite(config_once, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

Test(config_once, cron_opens_its_config_once_at_start)
{
	const char *cfg = write_config("tasks:\n  later:\n    schedule: '0 3 * * *'\n"
	    "    command: [\"true\"]\n"), *env[6];
	char shim[300], opens[300], log[300], re[32];
	pid_t cron;

	snprintf(shim, sizeof(shim), "LD_PRELOAD=%s", getenv("LOCKRUN_SHIM"));
	snprintf(opens, sizeof(opens), "LOCKRUN_SHIM_OPENS=%s", cfg);
	snprintf(log, sizeof(log), "LOCKRUN_SHIM_OPENS_LOG=%s", scratch("opens.log"));
	env[0] = shim;
	env[1] = opens;
	env[2] = log;
	env[3] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[4] = NULL;
	cron = lr_start_env(env, (const char *const[]){ "cron", "-v", "-c", cfg, NULL });
	POLL_UNTIL(stderr_matching(cron, "^lockrun: cron: 1 scheduled tasks in ") == 1);
	cron_stop(cron);
	snprintf(re, sizeof(re), "^%d$", (int)cron);
	cr_assert(eq(int, lines_matching(scratch("opens.log"), re), 1), "the scheduler "
	    "opened its config this often:\n%s", file_peek(scratch("opens.log")));
}

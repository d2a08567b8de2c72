/* SPDX-License-Identifier: BSD-2-Clause */
/* reboot_test.c -- schedule: '@reboot' on Redis and PostgreSQL: cron runs
 * the task when it starts, once per boot of the host (the boot id, faked
 * by the shim), not again when the scheduler restarts in the same boot,
 * and again after a new boot; a run by hand in the same boot is skipped,
 * a triggered one is not. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(reboot, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

static char bootfile[256], logfile[256], cfgfile[256];

/* Write the boot id the shim gives lockrun. */
static void
boot(const char *id)
{
	FILE *fp = fopen(bootfile, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "%s\n", id);
	fclose(fp);
}

/* lockrun ARGS... with the shim giving it the boot id of bootfile. */
static const char *const *
boot_env(void)
{
	static char pre[300], id[300];
	const char *extra[] = { pre, id, "ASAN_OPTIONS=verify_asan_link_order=0", NULL };

	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", getenv("LOCKRUN_SHIM"));
	snprintf(id, sizeof(id), "LOCKRUN_SHIM_BOOT_ID=%s", bootfile);
	return env_with(extra);
}

/* cron -v on the config until it has said how the boot task went (ran
 * or skipped); then SIGTERM. Returns how many lines said it skipped. */
static int
cron_once(void)
{
	pid_t pid = lr_start_env(boot_env(), (const char *const[]){ "cron", "-v", "-c",
	    cfgfile, NULL });
	int skipped;

	POLL_UNTIL(stderr_matching(pid, "^lockrun: startup [^ ]+: (ended|skipped)") > 0);
	skipped = stderr_matching(pid, "^lockrun: startup [^ ]+: skipped");
	cr_assert(eq(int, stderr_matching(pid, "^lockrun: startup [^ ]+: (ended|skipped)"), 1));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	return skipped;
}

static void
once_per_boot(enum backend b)
{
	struct result r;
	FILE *fp;

	use(b);
	snprintf(bootfile, sizeof(bootfile), "%s", scratch("boot_id"));
	snprintf(logfile, sizeof(logfile), "%s", scratch("runs.log"));
	snprintf(cfgfile, sizeof(cfgfile), "%s", scratch("reboot.yaml"));
	fp = fopen(cfgfile, "w");
	cr_assert(fp != NULL);
	fprintf(fp, "url: '%s'\ntasks:\n  startup:\n    schedule: '@reboot'\n"
	    "    command: [sh, -c, 'echo \"$LOCKRUN_TASK\" >> %s']\n", url, logfile);
	fclose(fp);

	boot("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
	cr_assert(eq(int, cron_once(), 0), "the first start in a boot runs it");
	cr_assert(eq(int, file_lines(logfile), 1));
	cr_assert(eq(int, cron_once(), 1), "a restart in the same boot skips it");
	cr_assert(eq(int, file_lines(logfile), 1));
	lr_run_env(&r, boot_env(), (const char *const[]){ "-c", cfgfile, "-t", "startup",
	    "-v", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "skipped: slot boot:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "
	    "already ran"), "%s", r.err);
	cr_assert(eq(int, file_lines(logfile), 1), "by hand in the same boot: skipped");
	/* a trigger is a run of its own: it claims no boot, and is not
	 * refused by the boot's run */
	lr_run_env(&r, boot_env(), (const char *const[]){ "trigger", "--here", "-c", cfgfile,
	    "startup", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, file_lines(logfile), 2), "trigger --here in the same boot runs it");

	boot("11111111-2222-3333-4444-555555555555");
	cr_assert(eq(int, cron_once(), 0), "a new boot runs it again, triggered or not");
	cr_assert(eq(int, file_lines(logfile), 3));
}

Test(reboot, redis_runs_once_per_boot_not_again_on_restart)
{
	once_per_boot(BE_REDIS);
}
Test(reboot, pg_runs_once_per_boot_not_again_on_restart)
{
	once_per_boot(BE_PG);
}

/* one_server has no meaning for a boot: asking for it is a config error. */
Test(reboot, one_server_does_not_apply)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  startup:\n    schedule: '@reboot'\n"
	    "    one_server: true\n    command: [true]\n");

	LR(&r, "-c", cfg, "-t", "startup");
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, "one_server does not apply to @reboot"), "%s", r.err);
}

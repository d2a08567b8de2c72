/* SPDX-License-Identifier: BSD-2-Clause */
/* input_test.c -- command-line and config input that lockrun refuses
 * before anything runs, through the real binary. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(input, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define TRY_HELP "Try 'lockrun --help' for more information.\n"

Test(input, empty_config_path_is_64)
{
	struct result r;

	/* without the check this ran the command with the system config */
	LR(&r, "-c", "", "--redis", fx.url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: -c: empty path\n" TRY_HELP));
	cr_assert(eq(str, r.out, ""));
}

Test(input, empty_config_variable_means_unset)
{
	struct result r;
	const char *const env[] = { "LOCKRUN_CONFIG=", NULL };

	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--", "echo",
	    "ran", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

Test(input, env_option_may_not_set_the_token)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-e", "LOCKRUN_TOKEN=999", "--", "sh", "-c",
	    "echo \"$LOCKRUN_TOKEN\"");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: --env: LOCKRUN_TOKEN is set by lockrun "
	    "itself\n" TRY_HELP));
	cr_assert(eq(str, r.out, ""));
}

Test(input, config_env_may_not_set_the_key)
{
	struct result r;
	char want[512];
	const char *cfg = scratch("reserved.yaml");
	FILE *fp = fopen(cfg, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\ntasks:\n  t:\n    command: [env]\n"
	    "    env:\n      OK: yes\n      LOCKRUN_KEY: forged\n", fx.url);
	cr_assert(eq(int, fclose(fp), 0));
	LR(&r, "-c", cfg, "-t", "t");
	snprintf(want, sizeof(want), "lockrun: %s:8:7: tasks.t.env: LOCKRUN_KEY is "
	    "set by lockrun itself\n", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, want));
	cr_assert(eq(str, r.out, ""));
}

/* Start lockrun with args, which name a FIFO no one writes to: it must
 * refuse it at once (78, one line naming it) rather than wait in open(2)
 * for a writer -- for ever, with TERM, INT and HUP blocked. */
static void
fifo_refused(const char *const args[], const char *expect)
{
	pid_t pid = lr_start(args);
	char err[4096];
	int st;

	POLL_UNTIL(!alive(pid));
	if (alive(pid))
		kill(pid, SIGKILL);
	st = lr_wait(pid);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, st, 78), "%s", err);
	cr_assert(matches(err, expect), "%s", err);
	cr_assert(eq(int, file_lines(scratch("ran")), 0), "the command ran");
}

Test(input, a_fifo_as_config_is_78_at_once)
{
	const char *f = fifo("config.fifo");

	fifo_refused((const char *const[]){ "-c", f, "--redis", fx.url, "--", "touch",
	    scratch("ran"), NULL }, "^lockrun: .*config\\.fifo: not a regular file \\(a "
	    "FIFO\\)\n$");
}

Test(input, a_fifo_as_password_file_is_78_at_once)
{
	const char *f = fifo("password.fifo");

	fifo_refused((const char *const[]){ "--password-file", f, "--redis", fx.url, "--",
	    "touch", scratch("ran"), NULL }, "^lockrun: password_file .*password\\.fifo: "
	    "not a regular file \\(a FIFO\\)\n$");
}

/* TLS settings beside a plain URL would send the password in the clear
 * while the config reads as if it did not: 78 at the tls block, for a run
 * and for check. */
Test(input, a_tls_block_with_a_plain_url_is_78)
{
	struct result r;
	char path[256], want[400];

	snprintf(path, sizeof(path), "%s", write_config("  tls:\n    insecure: true\n"));
	snprintf(want, sizeof(want), "^lockrun: %s:[0-9]+:3: redis\\.tls: TLS settings, but "
	    "the URL in use is not rediss:// \\(nothing would be encrypted\\)", path);
	LR(&r, "-c", path, "-k", "x", "--", "touch", scratch("ran"));
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, want), "%s", r.err);
	cr_assert(eq(int, file_lines(scratch("ran")), 0), "the command ran");
	LR(&r, "-c", path, "check");
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, want), "%s", r.err);
}

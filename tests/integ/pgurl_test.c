/* SPDX-License-Identifier: BSD-2-Clause */
/* pgurl_test.c -- a postgres:// URL that cannot be right is a usage error
 * (64) on the command line and a config error at its place (78) in the
 * config, before any connection: never "unavailable" (69), so never run
 * unlocked under on_redis_error: run; `lockrun check` says the same. No
 * server is needed: nothing may be tried. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(pgurl, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

static const char *const bad[][2] = {
	{ "postgres://u@127.0.0.1:99999/db", "port: \"99999\" is not a port from 1 to 65535" },
	{ "postgres://u@127.0.0.1:0/db", "port: \"0\" is not a port" },
	{ "postgres://u@127.0.0.1/db?port=abc", "port: \"abc\" is not a port" },
	{ "postgres://u@127.0.0.1/db?sslmode=verify_full", "sslmode: \"verify_full\" is not "
	    "one of disable,allow,prefer,require,verify-ca,verify-full" },
	{ "postgres://u@127.0.0.1/db?connect_timeout=abc", "connect_timeout: \"abc\" is not "
	    "a whole number" },
	{ "postgres://u@127.0.0.1/db?colour=blue", "invalid URI query parameter: \"colour\"" },
};

#define N_BAD	(sizeof(bad) / sizeof(bad[0]))

/* One line (a usage error's pointer to --help after it), and the command
 * did not run. */
static void
refused(const struct result *r, int status, const char *want, const char *url)
{
	const char *nl = strchr(r->err, '\n');

	cr_assert(eq(int, r->status, status), "%s: stderr: %s", url, r->err);
	cr_assert(matches(r->err, want), "%s: stderr: %s", url, r->err);
	cr_assert(nl != NULL && (nl[1] == '\0' || (status == 64 &&
	    strcmp(nl + 1, "Try 'lockrun --help' for more information.\n") == 0)),
	    "one line: %s", r->err);
	cr_assert(eq(int, access(scratch("ran"), F_OK), -1), "%s: the command ran", url);
}

Test(pgurl, on_the_command_line_is_64_even_with_on_redis_error_run)
{
	char want[300];
	struct result r;

	for (size_t i = 0; i < N_BAD; i++) {
		snprintf(want, sizeof(want), "^lockrun: postgres URL: %s", bad[i][1]);
		LR(&r, "--url", bad[i][0], "--on-redis-error", "run", "-k", "x", "--", "touch",
		    scratch("ran"));
		refused(&r, 64, want, bad[i][0]);
		LR(&r, "--url", bad[i][0], "check");
		refused(&r, 64, want, bad[i][0]);
	}
}

Test(pgurl, in_the_config_is_78_at_its_place)
{
	char path[256], want[400];
	struct result r;

	snprintf(path, sizeof(path), "%s", scratch("bad.yaml"));
	for (size_t i = 0; i < N_BAD; i++) {
		FILE *fp = fopen(path, "w");

		cr_assert(fp != NULL);
		fprintf(fp, "url: \"%s\"\ndefaults:\n  on_redis_error: run\n", bad[i][0]);
		fclose(fp);
		snprintf(want, sizeof(want), "^lockrun: %s:1:6: url: postgres URL: %s", path,
		    bad[i][1]);
		LR(&r, "-c", path, "-k", "x", "--", "touch", scratch("ran"));
		refused(&r, 78, want, bad[i][0]);
		LR(&r, "-c", path, "check");
		refused(&r, 78, want, bad[i][0]);
	}
}

/* A name PostgreSQL could not store (its text is UTF-8) is refused with
 * the command line, on every backend alike. */
Test(pgurl, a_name_that_is_not_utf8_is_64)
{
	struct result r;

	LR(&r, "--url", "postgres://u@127.0.0.1/db", "--on-redis-error", "run", "-k",
	    "caf\xe9", "--", "touch", scratch("ran"));
	refused(&r, 64, "^lockrun: --key: .*is not valid UTF-8", "-k caf\\xe9");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* auth_test.c -- a redis-server with requirepass: every way of giving the
 * password, and refusals. */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

static void
setup(void)
{
	suite_setup_password();
	setenv("TEST_REDIS_PASSWORD", "s3cret", 1);	/* for rcmd() */
}

TestSuite(auth, .init = setup, .fini = suite_teardown, .timeout = 30);

Test(auth, wrong_password_is_69_and_nothing_runs)
{
	struct result r;

	setenv("LOCKRUN_REDIS_PASSWORD", "wrong", 1);
	LR(&r, "--redis", fx.url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(eq(str, r.out, ""));
	cr_assert(strstr(r.err, "authentication refused") != NULL, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "wrong") == NULL, "never print a password");
}

Test(auth, no_password_is_69)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(eq(str, r.out, ""));
	cr_assert(strstr(r.err, "NOAUTH") != NULL, "stderr: %s", r.err);
}

Test(auth, password_from_environment)
{
	struct result r;

	setenv("LOCKRUN_REDIS_PASSWORD", "s3cret", 1);
	LR(&r, "--redis", fx.url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

/* A password file only its owner (and group) may read, as ssh wants of
 * its keys. */
static const char *
password_file(const char *name, mode_t mode)
{
	const char *path = scratch(name);
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	fputs("s3cret\n", fp);
	fclose(fp);
	cr_assert(chmod(path, mode) == 0);
	return path;
}

Test(auth, password_file_open_to_others_is_refused)
{
	struct result r;
	const char *path = password_file("pass-o", 0604);
	char want[512];

	LR(&r, "--redis", fx.url, "--password-file", path, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.out, ""), "the command did not run");
	snprintf(want, sizeof(want), "lockrun: password_file %s is open to other users "
	    "(mode 0604); chmod o-rwx it\n", path);
	cr_assert(eq(str, r.err, want));
}

Test(auth, password_from_file)
{
	struct result r;

	password_file("pass", 0640);
	LR(&r, "--redis", fx.url, "--password-file", scratch("pass"), "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

Test(auth, password_from_url)
{
	struct result r;
	char url[200];

	snprintf(url, sizeof(url), "redis://:s3cret@127.0.0.1:%d/0", fx.port);
	LR(&r, "--redis", url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
}

Test(auth, acl_user_and_password)
{
	struct result r;
	char url[200];

	freeReplyObject(rcmd("ACL SETUSER cron on >pw2 ~lockrun:* +@all"));
	snprintf(url, sizeof(url), "redis://cron:pw2@127.0.0.1:%d/0", fx.port);
	LR(&r, "--redis", url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	snprintf(url, sizeof(url), "redis://cron:nope@127.0.0.1:%d/0", fx.port);
	LR(&r, "--redis", url, "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(strstr(r.err, "nope") == NULL, "never print a password");
}

Test(auth, unreadable_password_file_is_78)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--password-file", "/nonexistent/pass", "--", "true");
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, "lockrun: password_file /nonexistent/pass: "
	    "No such file or directory\n"));
}

/* The password is lockrun's: the command's environment does not carry it,
 * whether it came in LOCKRUN_REDIS_PASSWORD or in LOCKRUN_REDIS_URL. The
 * command prints every variable that holds it (but the suite's own), then
 * "end". */
#define ENV_WITH_SECRETS "env | grep s3cret | grep -v ^TEST_REDIS_PASSWORD=; echo end"
Test(auth, the_password_is_not_passed_to_the_command)
{
	struct result r;

	setenv("LOCKRUN_REDIS_PASSWORD", "s3cret", 1);
	LR(&r, "--redis", fx.url, "--", "sh", "-c", ENV_WITH_SECRETS);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "end\n"), "the command's environment has it: %s", r.out);
}

Test(auth, a_url_with_the_password_is_not_passed_to_the_command)
{
	struct result r;
	char url[160];

	snprintf(url, sizeof(url), "redis://:s3cret@127.0.0.1:%d", fx.port);
	setenv("LOCKRUN_REDIS_URL", url, 1);
	LR(&r, "--", "sh", "-c", ENV_WITH_SECRETS);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "end\n"), "the command's environment has it: %s", r.out);
}

/* $LOCKRUN_URL wins over $LOCKRUN_REDIS_URL; the one not used still does
 * not reach the command with its password. */
Test(auth, an_unused_url_variable_with_the_password_is_not_passed_either)
{
	struct result r;
	char url[160], other[160];

	snprintf(url, sizeof(url), "redis://127.0.0.1:%d", fx.port);
	snprintf(other, sizeof(other), "redis://:s3cret@127.0.0.1:%d/1", fx.port);
	setenv("LOCKRUN_URL", url, 1);
	setenv("LOCKRUN_REDIS_PASSWORD", "s3cret", 1);
	setenv("LOCKRUN_REDIS_URL", other, 1);
	LR(&r, "--", "sh", "-c", ENV_WITH_SECRETS);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "end\n"), "the command's environment has it: %s", r.out);
}

/* A refused password names where it came from, never what it is: the
 * environment, --password-file FILE, the config's password_file, the URL. */
Test(auth, a_refused_password_names_where_it_came_from)
{
	const char *file = password_file("wrong.pass", 0600), *cfg;
	char url[200], want[600];
	struct result r;
	FILE *fp = fopen(file, "w");

	cr_assert(fp != NULL);
	fputs("wrong-one\n", fp);
	fclose(fp);
	setenv("LOCKRUN_REDIS_PASSWORD", "wrong-env", 1);
	LR(&r, "--redis", fx.url, "-k", "pw", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "authentication refused.* \\(URL from --url; password from "
	    "\\$LOCKRUN_REDIS_PASSWORD\\)\n$"), "%s", r.err);
	unsetenv("LOCKRUN_REDIS_PASSWORD");
	LR(&r, "--redis", fx.url, "--password-file", file, "-k", "pw", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	snprintf(want, sizeof(want), " (URL from --url; password from --password-file %s)\n",
	    file);
	cr_assert(strstr(r.err, want) != NULL, "%s", r.err);
	cfg = scratch("pw.yaml");
	fp = fopen(cfg, "w");
	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\n  password_file: %s\n", fx.url, file);
	fclose(fp);
	LR(&r, "-c", cfg, "-k", "pw", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	snprintf(want, sizeof(want), " (URL from redis.url at %s:2:8; password from "
	    "password_file %s in %s)\n", cfg, file, cfg);
	cr_assert(strstr(r.err, want) != NULL, "%s", r.err);
	snprintf(url, sizeof(url), "redis://:wrong-url@127.0.0.1:%d", fx.port);
	LR(&r, "--redis", url, "-k", "pw", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(strstr(r.err, " (URL from --url; password from the URL)\n") != NULL, "%s",
	    r.err);
	cr_assert(strstr(r.err, "wrong") == NULL, "never a password: %s", r.err);
	cr_assert(eq(str, r.out, ""), "nothing ran");
}

/* A config whose url: holds a password is refused, 78, when its group
 * or others may read it (a config is shared more widely than a
 * password_file: its group may be let read the tasks), and used once it
 * is closed to them. */
Test(auth, password_in_url_of_a_config_open_to_others_is_78)
{
	struct result r;
	const char *cfg = scratch("url-pw.yaml");
	char want[512];
	FILE *fp = fopen(cfg, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "url: redis://:s3cret@127.0.0.1:%d/0\ntasks:\n  job:\n"
	    "    command: [echo, ran]\n", fx.port);
	fclose(fp);
	cr_assert(eq(int, chmod(cfg, 0644), 0));
	snprintf(want, sizeof(want), "lockrun: config %s holds a password in its url "
	    "and is open to other users (mode 0644); chmod go-rwx it, or move the "
	    "password to a password_file\n", cfg);
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(str, r.err, want));
	cr_assert(eq(str, r.out, ""), "the command did not run");
	LR(&r, "-c", cfg, "check");
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(str, r.err, want));
	cr_assert(strstr(r.out, "s3cret") == NULL, "%s", r.out);
	cr_assert(eq(int, chmod(cfg, 0640), 0));
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 78), "the group may read it: %s", r.err);
	cr_assert(strstr(r.err, "(mode 0640)") != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""), "the command did not run");
	cr_assert(eq(int, chmod(cfg, 0600), 0));
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

/* A password in cron's or tick's --url would stay in the daemon's
 * command line, which any user reads: refused, 64, before anything runs,
 * pointing at the two places that keep it. */
Test(auth, password_in_a_schedulers_url_is_64)
{
	struct result r;
	const char *cfg = scratch("sched.yaml"), *mark = scratch("sched.ran");
	char url[200];
	FILE *fp = fopen(cfg, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "tasks:\n  job:\n    schedule: '* * * * *'\n    command: "
	    "'touch %s'\n", mark);
	fclose(fp);
	snprintf(url, sizeof(url), "redis://:s3cret@127.0.0.1:%d/0", fx.port);
	for (const char *const *v = (const char *const[]){ "cron", "tick", NULL }; *v; v++) {
		LR(&r, *v, "-c", cfg, "--url", url);
		cr_assert(eq(int, r.status, 64), "%s: %s", *v, r.err);
		cr_assert(matches(r.err, "^lockrun: --url: a password on `lockrun (cron|tick)`'s "
		    "command line can be read by any user \\(ps, /proc\\) for as long as it "
		    "runs; give it in a password file \\(--password-file, or password_file: "
		    "in the config\\) or in \\$LOCKRUN_REDIS_PASSWORD\n"), "%s", r.err);
		cr_assert(strstr(r.err, "s3cret") == NULL, "never a password: %s", r.err);
	}
	cr_assert(access(mark, F_OK) != 0, "nothing ran");
}

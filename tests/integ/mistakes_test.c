/* SPDX-License-Identifier: BSD-2-Clause */
/* mistakes_test.c -- the common mistakes, each said in one line through
 * the real binary: a mistyped option or task names the nearest, a tab in
 * the YAML says tab; and where the server's settings came from is said
 * by -v and check. */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "fakeredis.h"
#include "harness.h"

TestSuite(mistakes, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

Test(mistakes, a_mistyped_option_names_the_nearest)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--one-sever", "-k", "x", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: unknown option '--one-sever' (did you mean "
	    "--one-server?)\nTry 'lockrun --help' for more information.\n"));
	cr_assert(eq(str, r.out, ""));
}

Test(mistakes, a_mistyped_task_names_the_nearest_tasks)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  import-products:\n    command: [true]\n"
	    "  import-orders:\n    command: [true]\n  backup:\n    command: [true]\n");
	char want[512];

	LR(&r, "-c", cfg, "-t", "bakup");
	cr_assert(eq(int, r.status, 64));
	snprintf(want, sizeof(want), "lockrun: -t bakup: no such task in %s (did you mean "
	    "backup?)\nTry 'lockrun --help' for more information.\n", cfg);
	cr_assert(eq(str, r.err, want));
	LR(&r, "-c", cfg, "-t", "import");
	cr_assert(eq(int, r.status, 64));
	cr_assert(strstr(r.err, "(did you mean import-products or import-orders?)") != NULL,
	    "%s", r.err);
	LR(&r, "-c", cfg, "-t", "zzz");
	cr_assert(strstr(r.err, "did you mean") == NULL, "nothing near: %s", r.err);
}

/* A tasks_dir's names are near too, though a run opens one file: they
 * are listed only for the mistake. */
Test(mistakes, a_mistyped_task_of_a_tasks_dir_names_the_nearest)
{
	struct result r;
	const char *cfg;

	cr_assert(eq(int, mkdir(scratch("tasks.d"), 0755), 0));
	write_scratch("tasks.d/nightly-report.yaml", "command: [true]\n");
	write_scratch("tasks.d/t0001.yaml", "command: [true]\n");
	cfg = write_scratch("main.yaml", "tasks_dir: tasks.d\n");
	LR(&r, "-c", cfg, "-t", "nightly-reprot");
	cr_assert(eq(int, r.status, 64));
	cr_assert(strstr(r.err, "(did you mean nightly-report?)") != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""));
	LR(&r, "trigger", "-c", cfg, "--redis", fx.url, "t000l");
	cr_assert(eq(int, r.status, 64));
	cr_assert(strstr(r.err, "(did you mean t0001?)") != NULL, "%s", r.err);
}

Test(mistakes, a_tab_in_the_yaml_says_tab)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  a:\n\tcommand: [true]\n");
	char want[512];

	LR(&r, "-c", cfg, "-t", "a");
	cr_assert(eq(int, r.status, 78));
	snprintf(want, sizeof(want), "lockrun: %s:5:1: a tab in the indentation: YAML indents "
	    "with spaces only (replace the tab with spaces)\n", cfg);
	cr_assert(eq(str, r.err, want));
}

/* -v and check say where the URL, the password and the prefix came from;
 * an unreachable built-in default says it is one. */
Test(mistakes, where_the_settings_came_from_is_said)
{
	struct result r;
	const char *cfg = write_config("prefix: 'app:'\n");
	char want[512];

	LR(&r, "check", "-c", cfg, "-k", "x", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	snprintf(want, sizeof(want), "\nserver      redis 127.0.0.1:%d: URL from redis.url at "
	    "%s:2:8; no password; prefix from %s\n", fx.port, cfg, cfg);
	cr_assert(strstr(r.out, want) != NULL, "%s", r.out);
	LR(&r, "-v", "--redis", fx.url, "--prefix", "p:", "-k", "x", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: URL from --url; no "
	    "password; prefix from --prefix\n"), "%s", r.err);
}

/* The config's mistakes that looked like something else: each says the
 * fix, at its place. */
static void
config_says(const char *body, const char *want_at_says)
{
	struct result r;
	const char *cfg = write_config(body);
	char want[512];

	LR(&r, "-c", cfg, "check");
	cr_assert(eq(int, r.status, 78), "%s%s", r.out, r.err);
	snprintf(want, sizeof(want), "lockrun: %s:%s\n", cfg, want_at_says);
	cr_assert(eq(str, r.err, want));
}

Test(mistakes, a_mistyped_key_names_the_nearest_whatever_its_value)
{
	config_says("tasks:\n  a:\n    comand: [echo, hi]\n",
	    "5:5: unknown key \"comand\" in tasks.a (did you mean command?)");
	config_says("tasks:\n  a:\n    comand: echo hi\n",
	    "5:5: unknown key \"comand\" in tasks.a (did you mean command?)");
	config_says("tasks:\n  a:\n    command: [echo]\n    schedul: '* * * * *'\n",
	    "6:5: unknown key \"schedul\" in tasks.a (did you mean schedule?)");
	config_says("defaults:\n  tll: 10s\n",
	    "4:3: unknown key \"tll\" in defaults (did you mean ttl?)");
}

Test(mistakes, an_unquoted_star_schedule_says_quote_it)
{
	config_says("tasks:\n  a:\n    command: [echo]\n    schedule: * * * * *\n",
	    "6:15: a value that starts with '*' is an alias in YAML: quote it (schedule: "
	    "'* * * * *')");
}

Test(mistakes, a_url_given_as_the_redis_section_says_url)
{
	struct result r;
	const char *cfg = write_scratch("redis.yaml", "redis: redis://127.0.0.1:6379\n");
	char want[512];

	LR(&r, "-c", cfg, "check");
	cr_assert(eq(int, r.status, 78));
	snprintf(want, sizeof(want), "lockrun: %s:1:8: redis: is a section, not a URL: give "
	    "the URL as url: (at the top level, or under redis:)\n", cfg);
	cr_assert(eq(str, r.err, want));
}

/* A mistyped verb is refused with the verb it is near, where no program
 * has its name; a program's name still runs. */
Test(mistakes, a_mistyped_verb_names_the_verb)
{
	struct result r;

	LR(&r, "--url", fx.url, "stauts");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: \"stauts\" is no verb (did you mean status?) and no "
	    "program in PATH; to run a program of that name: lockrun -- stauts\nTry 'lockrun "
	    "--help' for more information.\n"));
	LR(&r, "--url", fx.url, "-k", "t", "stat", "/");
	cr_assert(eq(int, r.status, 0), "near \"status\", but a program: %s", r.err);
}

/* A port where another kind of server listens says so, with what it
 * answered, not "protocol error". */
Test(mistakes, a_server_that_is_not_redis_says_what_it_answered)
{
	const char *script[] = { "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", NULL };
	struct fakeredis f;
	struct result r;

	cr_assert(eq(int, fakeredis_start(&f, script), 0));
	LR(&r, "--url", f.url, "-k", "x", "--", "echo", "ran");
	fakeredis_stop(&f);
	cr_assert(eq(int, r.status, 69), "%s", r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(ne(ptr, strstr(r.err, "the server does not answer as Redis does (it began "
	    "\"HTTP/1.1 400 Bad Request\"): is this the port of another service?"), NULL), "%s",
	    r.err);
}

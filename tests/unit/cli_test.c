/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_test.c -- the command line. */
#include <stdlib.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "cli/cli.h"
#include "cli/ctx.h"

#define ARGV(...) ((char *[]){ "lockrun", __VA_ARGS__, NULL })
#define ARGC(v) ((int)(sizeof(v) / sizeof(v[0])) - 1)

Test(cli, stops_at_the_command)
{
	char **v = ARGV("-k", "import", "--ttl", "1m", "--", "import", "-v", "--all");
	struct lr_cli c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(8, v, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, (char *)c.key, "import"));
	cr_assert(eq(i64, c.o.ttl_ms, 60000));
	cr_assert(eq(int, c.verbose, 0), "-v after -- belongs to the command");
	cr_assert(eq(str, c.cmd[0], "import"));
	cr_assert(eq(str, c.cmd[1], "-v"));
	cli_free(&c);
}

Test(cli, command_without_dashes_also_stops_options)
{
	char **v = ARGV("--one-server", "echo", "-q");
	struct lr_cli c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(3, v, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(int, c.o.one_server, 1));
	cr_assert(eq(int, c.o.no_overlap, LR_UNSET));
	cr_assert(eq(int, c.quiet, 0));
	cr_assert(eq(str, c.cmd[1], "-q"));
	cli_free(&c);
}

static void
usage_error(int argc, char **argv, const char *msg)
{
	struct lr_cli c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(argc, argv, &c, &e), -1));
	cr_assert(eq(int, e.status, 64));
	cr_assert(eq(str, e.msg, (char *)msg));
	cli_free(&c);
}

Test(cli, reports_usage_errors)
{
	usage_error(1 + 1, ARGV("-x"), "unknown option '-x'");
	usage_error(1 + 1, ARGV("--nope"), "unknown option '--nope'");
	usage_error(1 + 1, ARGV("--one-sever"), "unknown option '--one-sever' (did you mean "
	    "--one-server?)");
	usage_error(1 + 1, ARGV("--tiemout=5s"), "unknown option '--tiemout=5s' (did you "
	    "mean --timeout?)");
	usage_error(1 + 1, ARGV("--no-overlapp"), "unknown option '--no-overlapp' (did you "
	    "mean --no-overlap?)");
	usage_error(1 + 1, ARGV("-k"), "option '-k' needs an argument");
	usage_error(1 + 1, ARGV("--every"), "option '--every' needs an argument");
	usage_error(2 + 1, ARGV("--ttl", "soon"), "--ttl: \"soon\" is not a positive "
	    "duration (e.g. 500ms, 90s, 10m, 1h30m)");
	usage_error(2 + 1, ARGV("-E", "256"), "--conflict-exit: expected an exit status "
	    "from 0 to 255, got \"256\"");
	usage_error(2 + 1, ARGV("-k", "a{b}"), "--key: \"a{b}\" may not contain '{' or '}' "
	    "(they delimit the hash tag)");
	usage_error(2 + 1, ARGV("--env", "NOEQUALS"), "--env: expected NAME=VALUE, "
	    "got \"NOEQUALS\"");
	usage_error(2 + 1, ARGV("--on-redis-error", "maybe"), "--on-redis-error: "
	    "expected fail or run, got \"maybe\"");
	usage_error(2 + 1, ARGV("--connect-timeout", "0"), "--connect-timeout: \"0\" is not "
	    "a positive duration (e.g. 500ms, 90s, 10m, 1h30m)");
	usage_error(2 + 1, ARGV("--wait-replicas", "-1"), "--wait-replicas: \"-1\" is not "
	    "a number of replicas (0 to 1000; 0: do not wait)");
	usage_error(2 + 1, ARGV("--wait-timeout", "soon"), "--wait-timeout: \"soon\" is not "
	    "a positive duration (e.g. 500ms, 90s, 10m, 1h30m)");
}

Test(cli, wait_options_set_the_redis_settings)
{
	struct lr_cli c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(5 + 1, ARGV("--wait-replicas", "2", "--wait-timeout",
	    "50ms", "true"), &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, settings_get(&c.server.own, "wait_replicas")->value, "2"));
	cr_assert(eq(str, settings_get(&c.server.own, "wait_timeout")->value, "50ms"));
	cli_free(&c);
}

Test(cli, empty_config_path_is_a_usage_error)
{
	/* not "no -c": an explicit empty path must not fall back to the
	 * system config */
	usage_error(2 + 1, ARGV("-c", ""), "-c: empty path");
	usage_error(1 + 1, ARGV("--config="), "-c: empty path");
	usage_error(2 + 1, ARGV("--config", ""), "-c: empty path");
}

Test(cli, env_may_not_set_lockruns_own_variables)
{
	usage_error(2 + 1, ARGV("-e", "LOCKRUN_TOKEN=999"), "--env: LOCKRUN_TOKEN "
	    "is set by lockrun itself");
	usage_error(2 + 1, ARGV("--env", "LOCKRUN_SLOT="), "--env: LOCKRUN_SLOT "
	    "is set by lockrun itself");
}

Test(cli, collects_env_in_order)
{
	char **v = ARGV("-e", "A=1", "--env", "B=x=y", "true");
	struct lr_cli c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(5, v, &c, &e), 0), "%s", e.msg);
	cr_assert(eq(str, c.o.env[0], "A=1"));
	cr_assert(eq(str, c.o.env[1], "B=x=y"));
	cli_free(&c);
}

/* Parse v, expecting success. */
static int
words(char **v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}

static void
parse_ok(char **v, struct lr_cli *c)
{
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(words(v), v, c, &e), 0), "%s", e.msg);
}

Test(cli, the_first_word_names_the_verb)
{
	struct lr_cli c;

	parse_ok(ARGV("status", "--json", "import"), &c);
	cr_assert(eq(int, c.verb, VERB_STATUS));
	cr_assert(eq(int, c.json, 1));
	cr_assert(eq(str, c.cmd[0], "import"));
	cli_free(&c);
	/* options may come before the verb too */
	parse_ok(ARGV("-v", "history", "-n", "5"), &c);
	cr_assert(eq(int, c.verb, VERB_HISTORY));
	cr_assert(eq(int, c.verbose, 1));
	cr_assert(eq(i64, c.count, 5));
	cr_assert(eq(ptr, c.cmd, NULL));
	cli_free(&c);
	parse_ok(ARGV("-v", "check", "-k", "x"), &c);
	cr_assert(eq(int, c.verb, VERB_CHECK));
	cr_assert(eq(str, (char *)c.key, "x"));
	cli_free(&c);
}

Test(cli, a_program_called_like_a_verb_runs_after_dashes_or_run)
{
	struct lr_cli c;

	parse_ok(ARGV("--", "status", "-x"), &c);
	cr_assert(eq(int, c.verb, VERB_RUN));
	cr_assert(eq(str, c.cmd[0], "status"));
	cr_assert(eq(str, c.cmd[1], "-x"));
	cli_free(&c);
	parse_ok(ARGV("run", "status", "now"), &c);
	cr_assert(eq(int, c.verb, VERB_RUN));
	cr_assert(eq(str, c.cmd[0], "status"));
	cli_free(&c);
	parse_ok(ARGV("run", "-k", "a", "unlock"), &c);
	cr_assert(eq(int, c.verb, VERB_RUN));
	cr_assert(eq(str, c.cmd[0], "unlock"));
	cli_free(&c);
	/* "--" as an option's argument is not the end of the options */
	parse_ok(ARGV("-k", "k", "-C", "--"), &c);
	cr_assert(eq(int, c.verb, VERB_RUN));
	cr_assert(eq(str, c.o.cwd, "--"));
	cr_assert(eq(ptr, c.cmd, NULL));
	cli_free(&c);
}

/* usage_error() for a NULL-terminated argv. */
static void
refused(char **v, const char *msg)
{
	usage_error(words(v), v, msg);
}

Test(cli, an_option_of_another_verb_is_refused)
{
	refused(ARGV("status", "--ttl", "5s"),
	    "option '--ttl' does not apply to `lockrun status`");
	refused(ARGV("--yes", "history", "x"),
	    "option '--yes' does not apply to `lockrun history`");
	refused(ARGV("--json", "--", "true"),
	    "option '--json' does not apply to `lockrun run`");
	refused(ARGV("unlock", "-t", "x"),
	    "option '--task' does not apply to `lockrun unlock`");
	refused(ARGV("status", "--format", "xml", "a"),
	    "--format: expected text, json or prometheus, got \"xml\"");
	refused(ARGV("history", "-n", "0", "a"),
	    "--count: expected a number from 1 to 100000, got \"0\"");
	refused(ARGV("--host", "web 1", "true"),
	    "--host: \"web 1\" is not a host name (1 to 64 bytes, no spaces or control "
	    "characters)");
	refused(ARGV("--history", "-1", "true"),
	    "--history: expected a count from 0 to 100000, got \"-1\"");
}

Test(cli, options_may_follow_the_words_of_status_history_and_unlock)
{
	struct lr_cli c;

	parse_ok(ARGV("status", "a", "--json", "b", "--stale-after", "1h"), &c);
	cr_assert(eq(int, c.json, 1));
	cr_assert(eq(i64, c.stale_after_ms, 3600000));
	cr_assert(eq(str, c.cmd[0], "a"));
	cr_assert(eq(str, c.cmd[1], "b"));
	cr_assert(eq(ptr, c.cmd[2], NULL));
	cli_free(&c);
	parse_ok(ARGV("unlock", "job", "--yes"), &c);
	cr_assert(eq(int, c.yes, 1));
	cr_assert(eq(str, c.cmd[0], "job"));
	cli_free(&c);
	/* whatever POSIXLY_CORRECT says */
	setenv("POSIXLY_CORRECT", "1", 1);
	parse_ok(ARGV("history", "job", "-n", "3"), &c);
	unsetenv("POSIXLY_CORRECT");
	cr_assert(eq(i64, c.count, 3));
	cr_assert(eq(str, c.cmd[0], "job"));
	cr_assert(eq(ptr, c.cmd[1], NULL));
	cli_free(&c);
	/* but a run's options end at its command */
	parse_ok(ARGV("run", "sh", "--json"), &c);
	cr_assert(eq(int, c.json, 0));
	cr_assert(eq(str, c.cmd[1], "--json"));
	cli_free(&c);
}

/* The verbs' table: a row for each, whatever the enum's order. */
Test(cli, every_verb_has_a_row)
{
	for (int v = 0; v < NVERBS; v++) {
		cr_assert(lr_verbs[v].name != NULL && lr_verbs[v].entry != NULL &&
		    lr_verbs[v].usage != NULL && lr_verbs[v].footer != NULL, "verb %d", v);
		cr_assert(lr_verbs[v].groups & OG_ALL, "%s takes every verb's options",
		    lr_verbs[v].name);
	}
}

/* --on-server-error is the name, --on-redis-error its old one: each
 * sets on_server_error, and a bad value is named as it was given. */
Test(cli, on_server_error_and_its_old_name)
{
	struct lr_cli c;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, cli_parse(3 + 1, ARGV("--on-server-error", "run", "true"), &c, &e),
	    0), "%s", e.msg);
	cr_assert(eq(int, c.o.on_server_error, ON_SERVER_ERROR_RUN));
	cli_free(&c);
	usage_error(2 + 1, ARGV("--on-server-error", "maybe"), "--on-server-error: "
	    "expected fail or run, got \"maybe\"");
	usage_error(3 + 1, ARGV("status", "--wait-replicas", "1"), "option "
	    "'--wait-replicas' does not apply to `lockrun status`");
}

/* ctx_free(NULL) is a no-op, as free(3): a cleanup path may free what it
 * never made (before, it read through the null pointer: a crash). */
Test(cli, ctx_free_of_null_is_a_no_op)
{
	ctx_free(NULL);
	cr_assert(true);
}

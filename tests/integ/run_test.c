/* SPDX-License-Identifier: BSD-2-Clause */
/* run_test.c -- the real lockrun binary against a real redis-server. */
#include <sys/stat.h>
#include <sys/wait.h>

#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(run, .init = suite_setup, .fini = suite_teardown, .timeout = 30);

#define T_MIDDAY 1781524800.0	/* 2026-06-15T12:00:00Z: far from any day's or hour's end */

/* --- exit status --------------------------------------------------- */

Test(run, passes_exit_status_zero)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--", "true");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(str, r.err, ""));
}

Test(run, passes_exit_status_three)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--", "sh", "-c", "exit 3");
	cr_assert(eq(int, r.status, 3));
}

Test(run, reports_death_by_signal_as_128_plus_n)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--", "sh", "-c", "kill -KILL $$");
	cr_assert(eq(int, r.status, 128 + SIGKILL));
}

Test(run, passes_stdout_through)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--", "echo", "hello", "world");
	cr_assert(eq(str, r.out, "hello world\n"));
}

/* A command this host cannot find is found missing before the lock, and
 * said once the lock is held: the fleet's history says why the run failed
 * (issue 45), and no lock is left. */
Test(run, not_found_is_127_recorded_and_leaves_no_lock)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-k", "nf", "--", "no-such-command-lockrun");
	cr_assert(eq(int, r.status, 127));
	cr_assert(eq(str, r.err, "lockrun: cannot run no-such-command-lockrun: "
	    "command not found in PATH\n"));
	cr_assert(eq(int, key_exists("lockrun:{nf}"), 0), "no lock left");
	LR(&r, "history", "--redis", fx.url, "--json", "nf");
	cr_assert(strstr(r.out, "\"status\":127") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"reason\":\"command not found: no-such-command-lockrun\"")
	    != NULL, "%s", r.out);
}

Test(run, not_executable_is_126)
{
	struct result r;
	FILE *fp = fopen(scratch("script.sh"), "w");

	fputs("#!/bin/sh\necho hi\n", fp);
	fclose(fp);
	LR(&r, "--redis", fx.url, "--", scratch("script.sh"));
	cr_assert(eq(int, r.status, 126));
	cr_assert(matches(r.err, "^lockrun: cannot run .*script.sh: Permission denied\n$"),
	    "stderr: %s", r.err);
}

/* --- the two protections ------------------------------------------- */

/* Ten lockruns released at once on one key: one runs, nine skip. */
Test(run, ten_at_once_run_exactly_once)
{
	const char *script;
	struct gate g;
	pid_t pids[10];
	int gate[2], ran = 0, skipped = 0;

	gate_open_file(&g, "");		/* each racer that ran appends to it */
	g.say = "ran";
	script = gate_sh(&g);
	cr_assert(pipe(gate) == 0);
	for (int i = 0; i < 10; i++) {
		if ((pids[i] = fork()) == 0) {	/* wait at the gate, then exec */
			char c;
			close(gate[1]);
			if (read(gate[0], &c, 1) != 0)
				_exit(122);
			execl(getenv("LOCKRUN_BIN"), "lockrun", "--redis", fx.url,
			    "-k", "race", "-E", "75", "--", "sh", "-c", script, (char *)NULL);
			_exit(121);
		}
	}
	close(gate[0]);
	close(gate[1]);			/* open the gate: all ten start */
	for (int i = 0; i < 9; i++) {	/* the nine skippers end by themselves */
		int st;
		cr_assert(wait(&st) > 0);
		skipped += WIFEXITED(st) && WEXITSTATUS(st) == 75;
	}
	gate_release(&g);		/* let the one runner finish */
	for (int i = 0; i < 10; i++) {
		int st;
		if (waitpid(pids[i], &st, WNOHANG) == 0 && waitpid(pids[i], &st, 0) == pids[i])
			ran += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	cr_assert(eq(int, skipped, 9));
	cr_assert(eq(int, ran, 1));
	cr_assert(eq(int, file_lines(g.ready), 1));
}

Test(run, no_overlap_skips_while_running_and_runs_after)
{
	struct result r;
	pid_t first;
	struct gate g;

	gate_open(&g, "");
	first = LR_START("--redis", fx.url, "-k", "job", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);		/* first holds the lock */

	LR(&r, "--redis", fx.url, "-k", "job", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(str, r.err, ""), "a skip is silent without -v");

	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	LR(&r, "--redis", fx.url, "-k", "job", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 0));
}

Test(run, skip_says_who_holds_it_with_verbose)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{v} %s PX 30000",
	    "0123456789abcdef0123456789abcdef 41 web7 4242 2026-11-21T17:45:02.123Z"));
	LR(&r, "--redis", fx.url, "-v", "-k", "v", "--", "true");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: URL from --url; "
	    "no password; prefix \"lockrun:\" from the built-in default\n"
	    "lockrun: skipped: lockrun:\\{v\\} is held by web7 pid 4242 "
	    "since 2026-11-21T17:45:02\\.123Z \\(token 41\\)\n$"), "%s", r.err);
}

/* --every 1d, both runs at mid-day by a faked clock: one slot, whenever
 * the suite runs (on the real clock they could straddle midnight UTC). */
Test(run, one_server_second_run_in_slot_skips_after_first_ended)
{
	const char *out = scratch("ran"), *env[5];
	char script[256], buf[3][128], slot[64];
	struct result r;
	FILE *fp;

	faketime_env(env, buf, T_MIDDAY);
	snprintf(script, sizeof(script), "echo \"$LOCKRUN_SLOT\" >> %s", out);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--every", "1d", "-k", "daily", "--", "sh", "-c", script, NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--every", "1d", "-k", "daily", "-E", "75", "--", "sh", "-c", script, NULL });
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(int, file_lines(out), 1));
	fp = fopen(out, "r");
	cr_assert(fp != NULL && fgets(slot, sizeof(slot), fp) != NULL);
	fclose(fp);
	cr_assert(eq(str, slot, "2026-06-15T00:00:00Z\n"), "the faked day's slot");
}

Test(run, one_server_only_leaves_no_stable_key)
{
	struct result r;
	redisReply *k;

	LR(&r, "--redis", fx.url, "--one-server", "-k", "os", "--", "true");
	cr_assert(eq(int, r.status, 0));
	k = rcmd("EXISTS lockrun:{os}");
	cr_assert(eq(long, k->integer, 0));
	freeReplyObject(k);
}

/* --- keys, values, environment -------------------------------------- */

Test(run, keys_values_and_environment_are_as_designed)
{
	const char *env = scratch("env");
	char script[512];
	redisReply *v, *slot, *ttl, *fence, *keys;
	pid_t first;
	FILE *fp;
	char line[256], envs[2048] = "", token[64];
	struct gate g;

	gate_open(&g, "");
	snprintf(script, sizeof(script), "env | grep -E '^LOCKRUN_(KEY|SLOT|TASK|TOKEN)=' | "
	    "sort > %s; ", env);
	first = LR_START("--redis", fx.url, "--one-server", "--no-overlap",
	    "--every", "1h", "--ttl", "20s", "-k", "import", "--", "sh", "-c",
	    gate_sh_around(&g, script, ""));
	gate_wait(&g);

	v = rcmd("GET lockrun:{import}");
	cr_assert(eq(int, v->type, REDIS_REPLY_STRING));
	cr_assert(matches(v->str, "^[0-9a-f]{32} [1-9][0-9]* [^ ]+ [0-9]+ "
	    "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"),
	    "value: %s", v->str);
	keys = rcmd("KEYS lockrun:{import}:slot:*");
	cr_assert(eq(sz, keys->elements, 1));
	cr_assert(matches(keys->element[0]->str,
	    "^lockrun:\\{import\\}:slot:[0-9]{8}T[0-9]{2}00Z$"), "%s", keys->element[0]->str);
	slot = rcmd("GET %s", keys->element[0]->str);
	cr_assert(eq(str, slot->str, v->str), "both keys name the same run");
	ttl = rcmd("PTTL lockrun:{import}");
	cr_assert(ttl->integer > 0 && ttl->integer <= 20000, "ttl %lld", ttl->integer);
	fence = rcmd("GET lockrun:{import}:fence");
	snprintf(token, sizeof(token), " %s ", fence->str);
	cr_assert(strstr(v->str, token) != NULL, "the value carries the token %s: %s",
	    fence->str, v->str);
	snprintf(token, sizeof(token), "LOCKRUN_TOKEN=%s\n", fence->str);

	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	fp = fopen(env, "r");
	cr_assert(fp != NULL);
	while (fgets(line, sizeof(line), fp))
		strncat(envs, line, sizeof(envs) - strlen(envs) - 1);
	fclose(fp);
	cr_assert(matches(envs, "^LOCKRUN_KEY=lockrun:\\{import\\}\n"
	    "LOCKRUN_SLOT=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00Z\n"
	    "LOCKRUN_TASK=import\nLOCKRUN_TOKEN=[0-9]+\n$"), "env:\n%s", envs);
	cr_assert(strstr(envs, token) != NULL, "the command sees the token: %s", envs);
	freeReplyObject(v);
	freeReplyObject(slot);
	freeReplyObject(ttl);
	freeReplyObject(fence);
	freeReplyObject(keys);
}

Test(run, fencing_token_increases_per_run)
{
	struct result r;
	long long last = 0;

	for (int i = 1; i <= 3; i++) {
		long long token;
		LR(&r, "--redis", fx.url, "-k", "fence", "--", "sh", "-c",
		    "printf %s \"$LOCKRUN_TOKEN\"");
		cr_assert(eq(int, r.status, 0));
		token = strtoll(r.out, NULL, 10);
		cr_assert(token > last, "token %lld after %lld", token, last);
		last = token;
	}
}

Test(run, releases_the_stable_key_after_the_run)
{
	struct result r;
	redisReply *k;

	LR(&r, "--redis", fx.url, "-k", "rel", "--", "true");
	cr_assert(eq(int, r.status, 0));
	k = rcmd("EXISTS lockrun:{rel}");
	cr_assert(eq(long, k->integer, 0));
	freeReplyObject(k);
}

/* The release is owner-checked: a key someone else took is left alone. */
Test(run, release_leaves_another_owners_key)
{
	redisReply *v;
	pid_t first;
	char err[1024];
	struct gate g;

	gate_open(&g, "");
	first = LR_START("--redis", fx.url, "-k", "own", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	freeReplyObject(rcmd("SET lockrun:{own} %s", "ffffffffffffffffffffffffffffffff 9 other 1 x"));
	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	v = rcmd("GET lockrun:{own}");
	cr_assert(eq(str, v->str, "ffffffffffffffffffffffffffffffff 9 other 1 x"));
	cr_assert(matches(lr_stderr_of(first, err, sizeof(err)),
	    "lockrun:\\{own\\} was no longer ours at release"), "stderr: %s", err);
	freeReplyObject(v);
}

Test(run, derived_key_is_stable_across_runs)
{
	struct result r1, r2, r3;

	LR(&r1, "--redis", fx.url, "--", "sh", "-c", "printf %s \"$LOCKRUN_KEY\"");
	LR(&r2, "--redis", fx.url, "--", "sh", "-c", "printf %s \"$LOCKRUN_KEY\"");
	LR(&r3, "--redis", fx.url, "--", "sh", "-c", "printf %s \"$LOCKRUN_KEY\"", "x");
	cr_assert(matches(r1.out, "^lockrun:\\{sh-[0-9a-f]{16}\\}$"), "%s", r1.out);
	cr_assert(eq(str, r1.out, r2.out));
	cr_assert(ne(str, r1.out, r3.out), "other arguments, other key");
}

Test(run, prefix_option_changes_the_keys)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--prefix", "app1:", "-k", "p", "--", "sh", "-c",
	    "printf %s \"$LOCKRUN_KEY\"");
	cr_assert(eq(str, r.out, "app1:{p}"));
}

/* --- cost: round trips counted by Redis itself ----------------------- */

Test(run, uncontended_run_costs_two_commands)
{
	struct result r;

	redisContext *mon;
	char seen[256];

	LR(&r, "--redis", fx.url, "-k", "rt", "--", "true");	/* loads the scripts */
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "-k", "rt", "--", "true");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 2));
	cr_assert(eq(str, seen, "\"EVALSHA\"\n\"EVALSHA\"\n"));
}

Test(run, skip_costs_one_command)
{
	struct result r;

	redisContext *mon;
	char seen[256];

	LR(&r, "--redis", fx.url, "-k", "rt", "--", "true");	/* loads the scripts */
	freeReplyObject(rcmd("SET lockrun:{rt} %s PX 30000", "x 1 h 1 t"));
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "-k", "rt", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1));
	cr_assert(eq(str, seen, "\"EVALSHA\"\n"));
}

Test(run, falls_back_to_eval_after_script_flush)
{
	struct result r;
	redisReply *k;

	freeReplyObject(rcmd("SCRIPT FLUSH"));
	LR(&r, "--redis", fx.url, "-k", "fl", "--", "true");
	cr_assert(eq(int, r.status, 0));
	k = rcmd("GET lockrun:{fl}:fence");
	cr_assert(eq(int, k->type, REDIS_REPLY_STRING), "the acquire script ran");
	cr_assert(strtoll(k->str, NULL, 10) > 0, "fence %s", k->str);
	freeReplyObject(k);
}

/* --- signals --------------------------------------------------------- */

Test(run, sigterm_reaches_the_child_and_releases)
{
	redisReply *k;
	pid_t lr;
	long child;
	struct gate g;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "term", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 60"));
	child = gate_wait(&g);
	cr_assert(child > 0 && alive((pid_t)child));
	kill(lr, SIGTERM);
	cr_assert(eq(int, lr_wait(lr), 143));
	cr_assert(alive((pid_t)child) == 0, "the child is gone");
	k = rcmd("EXISTS lockrun:{term}");
	cr_assert(eq(long, k->integer, 0), "the lock is released");
	freeReplyObject(k);
}

/* The child leads a process group, so a whole pipeline gets the signal. */
Test(run, signals_reach_the_whole_pipeline)
{
	const char *pids = scratch("pids");
	char script[512];
	pid_t lr;
	long a = 0, b = 0;
	FILE *fp;
	struct gate g;

	gate_open(&g, "");
	snprintf(script, sizeof(script),
	    "sleep 60 & a=$!; sleep 60 & b=$!; echo \"$a $b\" > %s; ", pids);
	lr = LR_START("--redis", fx.url, "-k", "pipe", "--", "sh", "-c",
	    gate_sh_then(&g, script, "wait"));
	gate_wait(&g);
	fp = fopen(pids, "r");
	cr_assert(fp && fscanf(fp, "%ld %ld", &a, &b) == 2);
	fclose(fp);
	cr_assert(alive((pid_t)a) && alive((pid_t)b));
	/* SIGTERM, not SIGINT: sh starts background jobs with SIGINT ignored */
	kill(lr, SIGTERM);
	lr_wait(lr);
	/* the sleeps are not our children: a poll on /proc for them to be gone */
	POLL_UNTIL(!alive((pid_t)a) && !alive((pid_t)b));
	cr_assert(alive((pid_t)a) + alive((pid_t)b) == 0, "both members got SIGTERM");
}

Test(run, hup_and_usr1_are_forwarded)
{
	const char *got = scratch("got");
	char script[512];
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	snprintf(script, sizeof(script),
	    "trap 'echo usr1 >> %s' USR1; trap 'echo hup >> %s; exit 7' HUP; ", got, got);
	lr = LR_START("--redis", fx.url, "-k", "hup", "--", "sh", "-c",
	    gate_sh_then(&g, script, "while :; do sleep 0.05; done"));
	gate_wait(&g);
	kill(lr, SIGUSR1);
	POLL_UNTIL(file_lines(got) >= 1);	/* a poll on the file the trap writes */
	cr_assert(eq(int, file_lines(got), 1), "SIGUSR1 never reached the command");
	kill(lr, SIGHUP);
	cr_assert(eq(int, lr_wait(lr), 7));
	cr_assert(eq(int, file_lines(got), 2));
}

/* --- Redis trouble ----------------------------------------------------- */

Test(run, redis_down_is_69_and_nothing_runs)
{
	const char *out = scratch("ran");
	char script[256], url[64];
	struct result r;

	snprintf(script, sizeof(script), "echo ran >> %s", out);
	snprintf(url, sizeof(url), "redis://127.0.0.1:%d", fx.port);
	redis_halt(&fx);
	LR(&r, "--redis", url, "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 69));
	cr_assert(matches(r.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: cannot connect: "
	    "Connection refused \\(URL from --url; no password\\)\n$"), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(out), 0));
}

Test(run, redis_down_with_on_redis_error_run_runs_unlocked)
{
	const char *out = scratch("ran");
	char script[256], url[64];
	struct result r;

	snprintf(script, sizeof(script), "echo \"ran ${LOCKRUN_TOKEN:-none}\" >> %s", out);
	snprintf(url, sizeof(url), "redis://127.0.0.1:%d", fx.port);
	redis_halt(&fx);
	LR(&r, "--redis", url, "--on-redis-error", "run", "-k", "x", "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.err, "cannot connect: Connection refused; running without a "
	    "lock \\(on_server_error: run\\)\n$"), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(out), 1));
}

Test(run, unix_socket_url_works)
{
	struct result r;
	char url[200];

	snprintf(url, sizeof(url), "unix://%s?db=3", fx.sock);
	LR(&r, "--redis", url, "-k", "sock", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
}

Test(run, db_from_url_is_selected)
{
	char url[200];
	redisContext *c;
	redisReply *k;
	pid_t lr;
	struct gate g;

	snprintf(url, sizeof(url), "%s/5", fx.url);
	gate_open(&g, "");
	lr = LR_START("--redis", url, "-k", "db5", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	c = redis_client(&fx);
	freeReplyObject(redisCommand(c, "SELECT 5"));
	k = redisCommand(c, "EXISTS lockrun:{db5}");
	cr_assert(eq(long, k->integer, 1));
	freeReplyObject(k);
	redisFree(c);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
}

/* --- bad input: one line, the right status, nothing run --------------- */

Test(run, unknown_option_is_64)
{
	struct result r;

	LR(&r, "--bogus", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: unknown option '--bogus'\n"
	    "Try 'lockrun --help' for more information.\n"));
}

Test(run, missing_option_argument_is_64)
{
	struct result r;

	LR(&r, "--ttl");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: option '--ttl' needs an argument\n"
	    "Try 'lockrun --help' for more information.\n"));
}

Test(run, no_command_is_64)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-k", "x");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: no command (expected -t TASK or -- COMMAND "
	    "[ARG...])\nTry 'lockrun --help' for more information.\n"));
}

Test(run, help_goes_to_stdout)
{
	struct result r;

	LR(&r, "--help");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.out, "^usage: lockrun "), "%s", r.out);
	cr_assert(eq(str, r.err, ""));
}

Test(run, bad_redis_url_is_64)
{
	struct result r;

	LR(&r, "--redis", "http://x", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(matches(r.err, "^lockrun: redis URL: expected redis://"), "%s", r.err);
}

/* An executable file at path holding text (no #! line). */
static void
write_script(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	fputs(text, fp);
	fclose(fp);
	cr_assert(chmod(path, 0755) == 0);
}

/* A script without #! runs with /bin/sh, as execvp(3) and the shells do:
 * lockrun execs the path it found, and falls back to that rule. */
Test(run, a_script_without_a_shebang_runs_with_sh)
{
	const char *path = scratch("noshebang");
	struct result r;

	write_script(path, "echo \"ran with $# args: $*\"\n");
	LR(&r, "--redis", fx.url, "-k", "nsb", "--", path, "a", "b");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran with 2 args: a b\n"));
}

/* The same, found through the task's PATH, not lockrun's. */
Test(run, a_script_without_a_shebang_is_found_in_the_tasks_path)
{
	char envpath[512];
	struct result r;

	write_script(scratch("noshebang-job"), "echo \"ran from the task's PATH\"\n");
	snprintf(envpath, sizeof(envpath), "PATH=%s:/usr/bin:/bin", fx.dir);
	LR(&r, "--redis", fx.url, "-k", "nsb2", "-e", envpath, "--", "noshebang-job");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran from the task's PATH\n"));
}

/* --url names where the lock lives for every backend; --redis, the older
 * name, is the same option, and so are $LOCKRUN_URL and the config's
 * top-level url:. */
Test(run, url_option_env_and_config_twin_reach_the_same_redis)
{
	const char *env[] = { NULL, NULL };
	char var[200];
	struct result r;
	FILE *fp;

	LR(&r, "--url", fx.url, "-k", "u1", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	snprintf(var, sizeof(var), "LOCKRUN_URL=%s", fx.url);
	env[0] = var;
	lr_run_env(&r, env, (const char *const[]){ "-k", "u2", "--", "true", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	fp = fopen(scratch("url.yaml"), "w");
	cr_assert(fp != NULL);
	fprintf(fp, "url: %s\ntasks:\n  u3:\n    command: \"true\"\n", fx.url);
	fclose(fp);
	LR(&r, "-c", scratch("url.yaml"), "-t", "u3");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{u1}:last"), 1), "u1 ran on this server");
	cr_assert(eq(int, key_exists("lockrun:{u2}:last"), 1), "u2 ran on this server");
	cr_assert(eq(int, key_exists("lockrun:{u3}:last"), 1), "u3 ran on this server");
}

/* The libraries are lockrun's own, shared: a Redis run maps no OpenSSL,
 * libpq or libmariadb (they are loaded only for URLs that need them). */
Test(run, a_redis_run_loads_no_optional_library)
{
	char path[64], maps[1 << 16];
	pid_t pid;
	size_t n;
	FILE *fp;
	struct gate g;

	gate_open(&g, "");
	pid = LR_START("--redis", fx.url, "-k", "maps", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "r");
	cr_assert(fp != NULL);
	n = fread(maps, 1, sizeof(maps) - 1, fp);
	maps[n] = '\0';
	fclose(fp);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(matches(maps, "libhiredis"), "%s", maps);
	cr_assert(not(matches(maps, "libssl|libcrypto|libpq|libmariadb")), "%s", maps);
}

/* rediss:// without libssl.so.3 on the host: one line naming the package,
 * 69, nothing run (the fault shim makes dlopen() fail as the loader does). */
Test(run, a_rediss_url_without_libssl_names_the_package)
{
	char buf[3][256], missing[64] = "LOCKRUN_SHIM_DLOPEN_MISSING=libssl.so.3";
	const char *env[6] = { 0 };
	struct result r;
	size_t i;

	shim_env(env, buf, NULL, NULL);
	for (i = 0; env[i] != NULL; i++)
		;
	env[i] = missing;
	lr_run_env(&r, env, (const char *const[]){ "--url", "rediss://127.0.0.1:1/0", "--",
	    "touch", scratch("ran"), NULL });
	cr_assert(eq(int, r.status, 69), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: rediss://: cannot load libssl\\.so\\.3 \\(Debian: "
	    "apt-get install libssl3\\): [^\n]*No such file or directory\n$"), "%s", r.err);
	cr_assert(eq(int, access(scratch("ran"), F_OK), -1), "the command did not run");
}

/* on_server_error is the name; on_redis_error, its name from before, is
 * read the same (tests above): both in a config. */
Test(run, on_server_error_run_in_a_config_runs_unlocked)
{
	const char *out = scratch("ran");
	char script[256], cfg[128];
	struct result r;

	snprintf(script, sizeof(script), "echo ran >> %s", out);
	snprintf(cfg, sizeof(cfg), "%s", write_config("defaults:\n  on_server_error: run\n"));
	LR(&r, "-c", cfg, "--redis", "redis://127.0.0.1:1", "-k", "x", "--", "sh", "-c",
	    script);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.err, "running without a lock \\(on_server_error: run\\)\n$"),
	    "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(out), 1));
}

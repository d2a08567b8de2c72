/* SPDX-License-Identifier: BSD-2-Clause */
/* logs_test.c -- each run's story (issue 45): the end of its output, its
 * status and the reason lockrun ended it, kept with its release in Redis
 * and read back with `lockrun logs` from another host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define OWNER "ffffffffffffffffffffffffffffffff"	/* an owner id, for values set by hand */

TestSuite(logs, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* The newest id in the task's list ("ok" or "failed"), as a string in
 * buf; "" when none. */
static const char *
newest_id(const char *task, const char *list, char *buf, size_t n)
{
	redisReply *r = rcmd("HGET lockrun:{%s}:runs %s", task, list);
	const char *last;

	buf[0] = '\0';
	if (r->type == REDIS_REPLY_STRING) {
		last = strrchr(r->str, ' ');
		snprintf(buf, n, "%s", last ? last + 1 : r->str);
	}
	freeReplyObject(r);
	return buf;
}

Test(logs, another_host_sees_the_lines_the_status_and_the_host)
{
	const char *cfg = write_config("tasks:\n  three:\n    command: [sh, -c, "
	    "'echo one; echo two >&2; echo three; exit 2']\n");
	struct result r;

	LR(&r, "-c", cfg, "--host", "web3", "-t", "three");
	cr_assert(eq(int, r.status, 2), "stderr: %s", r.err);
	LR(&r, "logs", "-c", cfg, "--host", "ops", "three");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, " by web3 ") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "status: 2 (released)\n") != NULL, "%s", r.out);
	/* each stream's lines in order; between the two, in the order lockrun
	 * read them, which lines written in one instant do not fix */
	cr_assert(strstr(r.out, "--- output ---\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| one\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "err| two\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| three\n") > strstr(r.out, "out| one\n"), "%s", r.out);
}

/* The hooks' lines (issue 45: "also for hook runs, marked as such"), in
 * the order they ran, each under a line naming its hook: on_start's ride
 * with the release, on_failure's (it runs after) follow it. */
#define HOOKED "    on_start: [sh, -c, 'echo warming cache; echo cache cold >&2']\n" \
	"    on_failure: [sh, -c, 'echo paging oncall; echo pager down >&2']\n"
#define HOOK_LINES "--- on_start hook ---\nout| warming cache\nerr| cache cold\n" \
	"--- output ---\n"
#define AFTER_LINES "--- on_failure hook ---\nout| paging oncall\nerr| pager down\n"

Test(logs, the_hooks_lines_are_kept_under_their_names)
{
	const char *cfg = write_config("tasks:\n  hooked:\n    command: [sh, -c, "
	    "'echo one; exit 2']\n" HOOKED);
	struct result r;

	LR(&r, "-c", cfg, "--host", "web3", "-t", "hooked");
	cr_assert(eq(int, r.status, 2), "stderr: %s", r.err);
	LR(&r, "logs", "-c", cfg, "--host", "ops", "hooked");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: -\n" HOOK_LINES "out| one\n" AFTER_LINES) != NULL,
	    "%s", r.out);
}

/* A run cron starts sends its release over the scheduler's connection:
 * the end of its output goes with it, as a run's own release takes it;
 * its hooks' too. */
Test(logs, a_run_under_cron_keeps_its_output_too)
{
	char body[512], err[4096];
	const char *cfg;
	struct result r;
	pid_t cron;

	snprintf(body, sizeof(body), "redis:\n  url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "tasks:\n  nightly:\n    schedule: '* * * * *'\n    command: [sh, -c, "
	    "'echo loaded 12 rows; echo cannot open in.csv >&2; exit 2']\n" HOOKED, fx.url);
	cfg = write_scratch("cron.yaml", body);
	cron = cron_at(cfg, 1781524800.0 - 2);	/* 2026-06-15 11:59:58 */
	POLL_UNTIL(key_exists("lockrun:{nightly}:runs") == 1);
	cron_stop(cron);
	LR(&r, "logs", "-c", cfg, "nightly");
	cr_assert(eq(int, r.status, 0), "%s\nthe scheduler said:\n%s", r.err,
	    lr_stderr_of(cron, err, sizeof(err)));
	cr_assert(strstr(r.out, "status: 2 (released)\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| loaded 12 rows\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "err| cannot open in.csv\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, HOOK_LINES) != NULL && strstr(r.out, AFTER_LINES) != NULL,
	    "%s", r.out);
}

/* lockrun with keep_output 1001 on task, whose command prints flood's
 * output (to lockrun's stdout, /dev/null here), then 126 lines of 8
 * bytes; its peak RSS in KiB (its command's processes' too). */
static long
flood_peak(const char *task, const char *flood)
{
	char cmd[200], err[2048];
	long kib;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "%sseq 2999875 3000000", flood);
	pid = lr_start_out(NULL, (const char *const[]){ "--redis", fx.url, "--keep-output",
	    "1001", "-k", task, "--", "sh", "-c", cmd, NULL }, "/dev/null");
	cr_assert(eq(int, proc_wait_peak(pid, &kib), 0), "%s", lr_stderr_of(pid, err,
	    sizeof(err)));
	return kib;
}

/* 1 GB, then the 126 lines: the last 1001 bytes hold the last 125 lines
 * whole and the end of the one before, so exactly those 125 are kept,
 * each with its stream's mark; and lockrun's memory is that of a run
 * that prints the 126 lines alone, give or take 2 MiB. */
Test(logs, a_flood_keeps_exactly_the_last_bytes_cut_at_a_line)
{
	long quiet = flood_peak("few", ""), flood = flood_peak("flood",
	    "yes | head -c 1000000000; ");
	char id[40], want[2000] = "";
	redisReply *v;

	cr_log_info("peak RSS: %ld KiB for 1 KB of output, %ld KiB for 1 GB", quiet, flood);
	cr_assert(lt(long, flood, quiet + 2048), "%ld KiB, against %ld", flood, quiet);
	for (long i = 2999876; i <= 3000000; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "1%ld\n", i);
	v = rcmd("HGET lockrun:{flood}:runs o:%s", newest_id("flood", "ok", id, sizeof(id)));
	cr_assert(eq(int, v->type, REDIS_REPLY_STRING));
	cr_assert(eq(str, v->str, want));
	freeReplyObject(v);
}

Test(logs, command_not_found_is_the_reason_in_logs_and_history)
{
	const char *cmd = write_scratch("gone.sh", "#!/bin/sh\necho never\n");
	char body[1024];
	struct result r;

	chmod(cmd, 0755);
	/* found when the run checks it, gone by the time it is executed */
	snprintf(body, sizeof(body), "tasks:\n  gone:\n    command: [%s]\n"
	    "    on_start: [rm, -f, %s]\n", cmd, cmd);
	LR(&r, "-c", write_config(body), "-t", "gone");
	cr_assert(eq(int, r.status, 127), "stderr: %s", r.err);
	LR(&r, "logs", "--redis", fx.url, "gone");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: command not found: ") != NULL, "%s", r.out);
	LR(&r, "history", "--redis", fx.url, "--json", "gone");
	cr_assert(strstr(r.out, "\"reason\":\"command not found: ") != NULL, "%s", r.out);
}

Test(logs, a_timeout_is_the_reason_in_logs_and_history)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--timeout", "100ms", "-k", "slow", "--", "sh", "-c",
	    "echo started; exec sleep 30");
	cr_assert(eq(int, r.status, 124));
	LR(&r, "logs", "--redis", fx.url, "--failed", "slow");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: timeout: stopped after 100ms\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| started\n") != NULL, "%s", r.out);
	LR(&r, "history", "--redis", fx.url, "slow");
	cr_assert(strstr(r.out, "REASON") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "timeout: stopped after 100ms") != NULL, "%s", r.out);
}

/* Another holder's value in the key: the run's next renewal finds the
 * lock lost and stops the command; its story says so, and so does the
 * history's entry for the loss. */
Test(logs, a_lost_lock_is_the_reason_in_logs_and_history)
{
	struct result r;
	pid_t holder;
	struct gate g;

	gate_open(&g, "");
	holder = LR_START("--redis", fx.url, "--ttl", "3s", "-k", "lost", "--", "sh", "-c",
	    gate_sh_then(&g, "echo started; ", "exec sleep 1000"));
	gate_wait(&g);
	freeReplyObject(rcmd("SET lockrun:{lost} %s PX 30000", OWNER " 9 thief 77 x"));
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, lr_wait(holder), 128 + 15), "the command got SIGTERM");
	LR(&r, "logs", "--redis", fx.url, "--failed", "lost");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: lost the lock: another run holds it now\n") != NULL,
	    "%s", r.out);
	cr_assert(strstr(r.out, "out| started\n") != NULL, "%s", r.out);
	LR(&r, "history", "--redis", fx.url, "--json", "lost");
	cr_assert(strstr(r.out, "\"event\":\"lost\"") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"reason\":\"lost the lock: another run holds it now\"")
	    != NULL, "%s", r.out);
	/* the keep-alive recorded the loss; the release adds how and why */
	LR(&r, "status", "--redis", fx.url, "lost");
	cr_assert(strstr(r.out, "lost: last run failed: lost the lock: another run holds it "
	    "now (lockrun logs lost)\n") != NULL, "%s", r.out);
}

/* A user that does not exist on this host: the config is read (a note,
 * for check), and the run fails once it holds the lock, saying why there
 * and in the fleet's record (78): logs and history give the reason. */
Test(logs, an_unknown_user_is_the_reason_in_logs_and_history)
{
	char body[512];
	const char *cfg;
	struct result r;

	snprintf(body, sizeof(body), "tasks:\n  ghost:\n    user: no-such-user-xyz\n"
	    "    command: [echo, hi]\n");
	cfg = write_config(body);
	cr_assert(eq(int, chmod(cfg, 0600), 0));
	LR(&r, "-c", cfg, "-t", "ghost");
	cr_assert(eq(int, r.status, 78), "stderr: %s", r.err);
	cr_assert(strstr(r.err, "user no-such-user-xyz: no such user on this host") != NULL,
	    "%s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{ghost}"), 0), "no lock left");
	LR(&r, "logs", "--redis", fx.url, "ghost");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: user no-such-user-xyz: no such user on this host")
	    != NULL, "%s", r.out);
	LR(&r, "history", "--redis", fx.url, "--json", "ghost");
	cr_assert(strstr(r.out, "\"reason\":\"user no-such-user-xyz: no such user on this "
	    "host\"") != NULL, "%s", r.out);
	LR(&r, "check", "-c", cfg);
	cr_assert(strstr(r.out, "no user \"no-such-user-xyz\" on this host") != NULL ||
	    strstr(r.err, "no user \"no-such-user-xyz\" on this host") != NULL,
	    "check says it: %s%s", r.out, r.err);
}

Test(logs, thirty_runs_keep_five_and_the_failed_ones)
{
	struct result r;
	redisReply *v;
	int lines = 0;

	for (int i = 0; i < 30; i++) {	/* every third fails: 10 failures */
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "echo run %d; exit %d", i, i % 3 == 0);
		LR(&r, "--redis", fx.url, "--keep-runs", "5", "-k", "many", "--", "sh", "-c",
		    cmd);
		cr_assert(eq(int, r.status, i % 3 == 0));
	}
	v = rcmd("HLEN lockrun:{many}:runs");
	cr_assert(eq(i64, v->integer, 2 + 2 * 15), "the two lists, a header and output each");
	freeReplyObject(v);
	LR(&r, "logs", "--redis", fx.url, "--json", "-n", "100", "many");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	for (const char *p = r.out; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	cr_assert(eq(int, lines, 15), "%s", r.out);
	LR(&r, "logs", "--redis", fx.url, "many");
	cr_assert(strstr(r.out, "out| run 29\n") != NULL, "the newest: %s", r.out);
}

Test(logs, keep_output_zero_stores_nothing)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--keep-output", "0", "-k", "quiet", "--", "sh", "-c",
	    "echo secret; exit 3");
	cr_assert(eq(int, r.status, 3));
	cr_assert(eq(int, key_exists("lockrun:{quiet}:runs"), 0));
	LR(&r, "logs", "--redis", fx.url, "quiet");
	cr_assert(eq(int, r.status, 1), "nothing kept: %s", r.out);
}

Test(logs, every_key_has_a_ttl)
{
	struct result r;
	redisReply *keys;

	LR(&r, "--redis", fx.url, "--one-server", "-k", "ttl", "--", "sh", "-c", "echo hi");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{ttl}:runs"), 1));
	keys = rcmd("KEYS *");
	cr_assert(keys->elements > 0);
	for (size_t i = 0; i < keys->elements; i++)
		cr_assert(key_pttl(keys->element[i]->str) > 0, "%s has no TTL",
		    keys->element[i]->str);
	freeReplyObject(keys);
}

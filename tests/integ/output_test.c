/* SPDX-License-Identifier: BSD-2-Clause */
/* output_test.c -- a task's output: (inherit, discard, a file) through the
 * real binary, in a run, a tick and cron; and the run's token in cron's
 * JSON records of its lines. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(output, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* A config of task talk (echo out, echo err >&2) with output: given. */
static const char *
talk_config(const char *schedule, const char *output)
{
	char body[1024];

	/* a starting_deadline shorter than from 11:59 to the tests' start:
	 * cron catches up no fire time when it starts */
	snprintf(body, sizeof(body), "tasks:\n  talk:\n%s%s%s    output: %s\n"
	    "    starting_deadline: 30s\n    command: 'echo out; echo err >&2'\n",
	    schedule ? "    schedule: '" : "", schedule ? schedule : "", schedule ? "'\n" : "",
	    output);
	return write_config_faked(body);
}

Test(output, a_file_relative_to_the_config_gets_the_commands_lines_appended)
{
	const char *cfg = talk_config(NULL, "talk.log");
	struct result r;

	LR(&r, "-c", cfg, "-t", "talk");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	LR(&r, "-v", "-c", cfg, "-t", "talk");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""));
	/* lockrun's own lines stay on its stderr; the command's are in the file */
	cr_assert(matches(r.err, "lockrun: released"), "%s", r.err);
	cr_assert(eq(int, matches(r.err, "(^|\n)(out|err)\n"), 0), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(scratch("talk.log")), "out\nerr\nout\nerr\n"));
}

Test(output, discard_drops_the_commands_lines_and_keeps_the_status)
{
	const char *cfg = talk_config(NULL, "discard");
	struct result r;

	LR(&r, "-c", cfg, "-t", "talk");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(eq(str, r.err, ""));
}

Test(output, a_file_that_cannot_be_opened_stops_the_run_before_the_lock)
{
	const char *cfg = talk_config(NULL, "/nonexistent/dir/talk.log");
	struct result r;

	LR(&r, "-c", cfg, "-t", "talk");
	cr_assert(eq(int, r.status, 73), "stderr: %s", r.err);
	cr_assert(matches(r.err, "output /nonexistent/dir/talk\\.log: No such file"), "%s",
	    r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(eq(int, key_exists("lockrun:{talk}:last"), 0), "no run was recorded");
}

Test(output, tick_runs_write_to_the_file)
{
	const char *cfg = talk_config("* * * * *", "talk.log");
	const char *env[6];
	char buf[3][128];
	struct result r;

	faketime_frozen_env(env, buf, T_1200 + 5);
	lr_run_env(&r, env, (const char *const[]){ "tick", "-c", cfg, NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(eq(str, (char *)file_peek(scratch("talk.log")), "out\nerr\n"));
}

/* Start lockrun cron with its clock at `at` (running on), args after. */
static pid_t
cron_at(double at, const char *a, const char *b)
{
	static const char *env[5];
	static char buf[3][128];

	faketime_env(env, buf, at);
	return LR_START_ENV(env, "cron", "-c", scratch("lockrun.yaml"), a, b);
}

/* What a lockrun started by lr_start() wrote on stdout: the file beside
 * its stderr's (bgN.out and bgN.err, pidP.err a link to the latter). */
static const char *
stdout_of(pid_t pid)
{
	char link[64], path[512];
	ssize_t n;

	snprintf(link, sizeof(link), "pid%d.err", (int)pid);
	n = readlink(scratch(link), path, sizeof(path) - 1);
	cr_assert(n > 4);
	memcpy(path + n - 4, ".out", 5);
	return file_peek(path);
}

Test(output, cron_with_discard_still_relays_the_runs_own_lines)
{
	char err[16384];
	pid_t pid;

	talk_config("* * * * *", "discard");
	pid = cron_at(T_1200 - 2, "-v", NULL);
	POLL_UNTIL(matches(lr_stderr_of(pid, err, sizeof(err)), "talk: lockrun: released"));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, matches(err, "talk: err"), 0), "%s", err);
	cr_assert(eq(int, matches(stdout_of(pid), "talk: out"), 0), "%s", stdout_of(pid));
}

Test(output, cron_with_inherit_writes_the_lines_as_they_are)
{
	char err[16384];
	pid_t pid;

	talk_config("* * * * *", "inherit");
	pid = cron_at(T_1200 - 2, "-v", NULL);
	POLL_UNTIL(matches(lr_stderr_of(pid, err, sizeof(err)), "(^|\n)err\n"));
	POLL_UNTIL(matches(lr_stderr_of(pid, err, sizeof(err)), "lockrun: released"));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, matches(err, "talk: "), 0), "nothing relayed: %s", err);
	cr_assert(matches(stdout_of(pid), "(^|\n)out\n"), "%s", stdout_of(pid));
}

Test(output, cron_json_records_carry_the_runs_token)
{
	char err[16384], tok[32], want[128];
	const char *at;
	pid_t pid;

	write_config_faked("tasks:\n  talk:\n    schedule: '* * * * *'\n"
	    "    starting_deadline: 30s\n    command: 'echo out; echo err >&2'\n");
	pid = cron_at(T_1200 - 2, "--log", "json");
	POLL_UNTIL(matches(lr_stderr_of(pid, err, sizeof(err)), "\"event\":\"released\""));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	/* the token the run acquired with, from its own record ... */
	at = strstr(err, "\"event\":\"acquired\"");
	cr_assert(at != NULL, "%s", err);
	at = strstr(at, "\"token\":");
	cr_assert(at != NULL, "%s", err);
	snprintf(tok, sizeof(tok), "%lld", strtoll(at + 8, NULL, 10));
	/* ... on the command's records, stdout and stderr alike */
	snprintf(want, sizeof(want), "\"stream\":\"stdout\",\"slot\":\"2026-06-15T12:00:00Z\","
	    "\"token\":%s,\"line\":\"out\"", tok);
	cr_assert(strstr(stdout_of(pid), want) != NULL, "%s\n%s", want, stdout_of(pid));
	snprintf(want, sizeof(want), "\"token\":%s,\"line\":\"err\"", tok);
	cr_assert(strstr(err, want) != NULL, "%s\n%s", want, err);
}

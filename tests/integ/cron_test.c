/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_test.c -- `lockrun cron` through the real binary, several at once as
 * the fleet's servers, their wall clock set by libfaketime a few seconds
 * before a fire time (it keeps running): each slot once, output relayed,
 * SIGHUP, SIGTERM. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"
#include "proc.h"

TestSuite(cron, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* A task NAME on schedule whose run appends "NAME SLOT" to log under a
 * flock it takes without waiting: "overlap" instead if another run of it
 * holds that (two copies at once). Its starting_deadline (30s) is shorter
 * than the time from 11:59 to when these tests start their clocks, so a
 * scheduler catches up no fire time at its start (cron_catchup's subject):
 * the first slot is 12:00. */
static int
task_yaml(char *buf, size_t n, const char *name, const char *schedule, const char *log)
{
	return snprintf(buf, n, "  %s:\n    schedule: '%s'\n    starting_deadline: 30s\n"
	    "    command: 'flock -n %s.%s sh -c ''echo \"$0 $LOCKRUN_SLOT\" >> %s'' %s || "
	    "echo overlap >> %s'\n", name, schedule, log, name, log, name, log);
}

Test(cron, three_servers_run_each_slot_once)
{
	const char *log = scratch("runs.log");
	char body[2048];
	size_t k;
	pid_t pids[3];

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += (size_t)task_yaml(body + k, sizeof(body) - k, "minutely", "* * * * *", log);
	k += (size_t)task_yaml(body + k, sizeof(body) - k, "hourly", "@hourly", log);
	task_yaml(body + k, sizeof(body) - k, "nightly", "0 3 * * *", log);
	write_config_faked(body);
	for (int i = 0; i < 3; i++)
		pids[i] = cron_at(scratch("lockrun.yaml"), T_1200 - 3);
	/* each server started or skipped both tasks due at 12:00 */
	for (int i = 0; i < 3; i++)
		POLL_UNTIL(sched_decided(pids[i], "minutely|hourly") == 2);
	for (int i = 0; i < 3; i++) {
		kill(pids[i], SIGTERM);
		cr_assert(eq(int, lr_wait(pids[i]), 0));
	}
	cr_assert(eq(int, file_lines(log), 2), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)minutely 2026-06-15T12:00:00Z\n"), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "(^|\n)hourly 2026-06-15T12:00:00Z\n"), "%s", file_peek(log));
}

Test(cron, output_is_relayed_line_by_line_with_the_task_name)
{
	pid_t pid;
	char err[8192];
	const char *cfg = write_config_faked("tasks:\n  talk:\n    schedule: '* * * * *'\n"
	    "    command: 'echo one; echo two >&2; printf three'\n");

	pid = cron_at(cfg, T_1200 - 2);
	POLL_UNTIL(stderr_matching(pid, "^talk: lockrun: released") == 1);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(matches(err, "(^|\n)talk: two\n"), "%s", err);
	/* stdout went to the file lr_start made for it: bgN.out */
	cr_assert(eq(int, stderr_matching(pid, "^talk: one$"), 0));
}

/* A task's ESC, BEL and bare CR cannot drive the terminal the log is
 * read on, nor forge or hide a line: each shows as '?' (a tab stays). */
Test(cron, a_tasks_control_bytes_are_made_visible_in_the_text_log)
{
	pid_t pid;
	char err[8192];
	const char *cfg = write_config_faked("tasks:\n  talk:\n    schedule: '* * * * *'\n"
	    "    command: 'printf \"a\\033[31mred\\007\\tb\\rtalk: lockrun: forged\\n\" >&2'\n");

	pid = cron_at(cfg, T_1200 - 2);
	POLL_UNTIL(stderr_matching(pid, "^talk: lockrun: released") == 1);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(matches(err, "(^|\n)talk: a\\?\\[31mred\\?\tb\\?talk: lockrun: forged\n"),
	    "%s", err);
	cr_assert(not(matches(err, "[\x1b\x07\r]")), "%s", err);
}

/* Stop cron with sig while its task runs: the lock is released, exit 0. */
static void
stopped_by(int sig)
{
	struct gate g;
	char body[1024];
	pid_t pid;

	gate_open(&g, "");
	snprintf(body, sizeof(body), "tasks:\n  long:\n    schedule: '* * * * *'\n"
	    "    command: '%s'\n", gate_sh(&g));
	write_config_faked(body);
	pid = cron_at(scratch("lockrun.yaml"), T_1200 - 2);
	gate_wait(&g);
	cr_assert(eq(int, key_exists("lockrun:{long}"), 1));
	kill(pid, sig);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(int, key_exists("lockrun:{long}"), 0), "the lock was released");
}

Test(cron, sigterm_stops_a_running_task_releases_its_lock_and_exits_0)
{
	stopped_by(SIGTERM);
}

Test(cron, sigquit_stops_it_as_sigterm_does)
{
	stopped_by(SIGQUIT);
}

Test(cron, sighup_reads_the_config_again_and_a_bad_one_is_refused)
{
	const char *log = scratch("runs.log");
	char body[2048], err[16384];
	size_t k;
	pid_t pid;
	FILE *fp;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	task_yaml(body + k, sizeof(body) - k, "first", "* * * * *", log);
	write_config_faked(body);
	pid = cron_at(scratch("lockrun.yaml"), T_1200 - 8);
	POLL_UNTIL(stderr_matching(pid, "cron: 1 scheduled tasks") == 1);

	/* a bad config: said with its place, the old one stays */
	fp = fopen(scratch("lockrun.yaml"), "a");
	cr_assert(fp != NULL);
	fputs("  broken:\n    schedule: '61 * * * *'\n    command: [true]\n", fp);
	fclose(fp);
	kill(pid, SIGHUP);
	POLL_UNTIL(stderr_matching(pid, "lockrun.yaml:[0-9]+:[0-9]+: .*the config in force "
	    "stays") == 1);

	/* a good one: the new task is scheduled too */
	k += (size_t)task_yaml(body + k, sizeof(body) - k, "first", "* * * * *", log);
	task_yaml(body + k, sizeof(body) - k, "second", "* * * * *", log);
	write_config_faked(body);
	kill(pid, SIGHUP);
	POLL_UNTIL(stderr_matching(pid, "read .* again: 2 scheduled tasks") == 1);
	POLL_UNTIL(file_lines(log) == 2);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(matches(file_peek(log), "(^|\n)first 2026-06-15T12:00:00Z\n"), "%s", err);
	cr_assert(matches(file_peek(log), "(^|\n)second 2026-06-15T12:00:00Z\n"), "%s", err);
}

/*
 * The config in force is the one cron read, not the file as it is now: a
 * file made invalid (and refused on SIGHUP) does not stop the next run,
 * which is forked with the config cron holds. (A run that read the file
 * again would fail on it.)
 */
Test(cron, a_run_uses_the_config_in_force_not_the_file_edited_since)
{
	const char *log = scratch("runs.log");
	char body[1024];
	pid_t pid;
	FILE *fp;

	snprintf(body, sizeof(body), "tasks:\n");
	task_yaml(body + 7, sizeof(body) - 7, "first", "* * * * *", log);
	write_config_faked(body);
	pid = cron_at(scratch("lockrun.yaml"), T_1200 - 8);
	POLL_UNTIL(stderr_matching(pid, "cron: 1 scheduled tasks") == 1);
	fp = fopen(scratch("lockrun.yaml"), "a");
	cr_assert(fp != NULL);
	fputs("  broken: [unclosed\n", fp);	/* the whole file no longer parses */
	fclose(fp);
	kill(pid, SIGHUP);
	POLL_UNTIL(stderr_matching(pid, "the config in force stays") == 1);

	/* an error at a place of the file is "path:line:col: ..." (with -v,
	 * the run's first line names the place redis.url came from too) */
	POLL_UNTIL(stderr_matching(pid, "^first: lockrun: (released|error|config)") >= 1 ||
	    stderr_matching(pid, "^first: .*lockrun.yaml:[0-9]+:[0-9]+: ") >= 1);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(str, (char *)file_peek(log), "first 2026-06-15T12:00:00Z\n"));
	cr_assert(eq(int, stderr_matching(pid, "^first: .*lockrun.yaml:[0-9]+:[0-9]+: "), 0));
}

/* The pid of pid's child named name (comm), or 0. */
static pid_t
child_named(pid_t pid, const char *name)
{
	char path[300], buf[512], comm[64];
	pid_t found = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;

	cr_assert(d != NULL);
	while (found == 0 && (de = readdir(d)) != NULL) {
		int ppid = 0;
		FILE *fp;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		/* "pid (comm) state ppid": no comm of ours holds ") " */
		if (fgets(buf, sizeof(buf), fp) && sscanf(buf, "%*d (%63[^)]) %*c %d", comm,
		    &ppid) == 2 && ppid == pid && strcmp(comm, name) == 0)
			found = (pid_t)atoi(de->d_name);
		fclose(fp);
	}
	closedir(d);
	return found;
}

/*
 * The runs are forked by a small process of cron's, its starter
 * (sched/starter.c). Killed, it is started again at the next run, which is
 * not lost: the slots after the kill run, none "could not be started",
 * never two copies at once, and cron says what happened.
 */
Test(cron, a_killed_starter_is_started_again_and_no_slot_is_lost)
{
	const char *log = scratch("runs.log");
	char body[1024], err[16384];
	pid_t pid, starter, again;
	int before;

	snprintf(body, sizeof(body), "tasks:\n  fast:\n    every: 2s\n    command: 'flock -n "
	    "%s.lock sh -c ''echo \"$LOCKRUN_SLOT\" >> %s'' || echo overlap >> %s'\n", log,
	    log, log);
	write_config_faked(body);
	pid = cron_at(scratch("lockrun.yaml"), fixture_real_s());
	POLL_UNTIL(file_lines(log) >= 1);
	starter = child_named(pid, "lockrun-starter");
	cr_assert(gt(int, starter, 0), "no starter: %s", lr_stderr_of(pid, err, sizeof(err)));
	kill(starter, SIGKILL);
	before = file_lines(log);
	POLL_UNTIL(file_lines(log) >= before + 2);
	again = child_named(pid, "lockrun-starter");
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, file_lines(log), before + 2), "%s", err);
	cr_assert(gt(int, again, 0), "%s", err);
	cr_assert(ne(int, again, starter));
	cr_assert(eq(int, stderr_matching(pid, "the runs' starter is gone"), 1), "%s", err);
	cr_assert(eq(int, stderr_matching(pid, "no run could be started"), 0), "%s", err);
	cr_assert(not(matches(file_peek(log), "overlap")), "%s", file_peek(log));
}

Test(cron, needs_a_config)
{
	struct result r;

	LR(&r, "cron");
	cr_assert(eq(int, r.status, 64), "stderr: %s", r.err);
}

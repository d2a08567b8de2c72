/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_cost_test.c -- what a run in flight costs its scheduler (issue 43):
 * at most two descriptors (its socket, and the one pipe its stdout and
 * stderr come on), read from /proc/PID/fd while 50 runs are in flight. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define RUNS	50

TestSuite(cron_cost, .init = suite_setup, .fini = suite_teardown, .timeout = 120);

/* How many descriptors pid has open. */
static int
fds_of(pid_t pid)
{
	char dir[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	cr_assert(ne(ptr, d = opendir(dir), NULL), "%s", dir);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* 50 tasks due at once, each printing its name and then sleeping: once
 * every command runs, the scheduler holds at most 2 descriptors a run
 * more than when it was ready, and 4 of its own besides (its connection,
 * the starter's socket and pidfd, and one to spare). On main before:
 * 4 a run (stdout, stderr, the run's log records, its socket). */
Test(cron_cost, fifty_runs_in_flight_hold_at_most_two_descriptors_each)
{
	char cmd[512], log[256], err[16384];
	int ready, flying;
	pid_t pid;

	snprintf(log, sizeof(log), "%s", scratch("runs.log"));
	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; exec sleep 60", log);
	pid = cron_at(tasks_config(fx.url, RUNS, "  starting_deadline: 30s\n", cmd),
	    T_1200 - 5);
	POLL_UNTIL(stderr_matching(pid, "^lockrun: cron: [0-9]+ scheduled tasks") == 1);
	ready = fds_of(pid);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") == RUNS);
	flying = fds_of(pid);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0), "%s", lr_stderr_of(pid, err, sizeof(err)));
	cr_log_info("descriptors: %d ready, %d with %d runs in flight", ready, flying, RUNS);
	cr_assert(le(int, flying, ready + 2 * RUNS + 4), "%d descriptors ready, %d with %d "
	    "runs in flight", ready, flying, RUNS);
}

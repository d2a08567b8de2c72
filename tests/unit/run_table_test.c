/* SPDX-License-Identifier: BSD-2-Clause */
/* run_table_test.c -- the scheduler's runs in progress (sched/run_table.c):
 * a reap notes each run's status as lockrun's exit status (128 + a
 * signal's number for a run killed), forgets its pid but remembers it,
 * and leaves the runs still alive alone. Real children, forked here. */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/run_table.h"

/* A child that exits with status, or waits for a signal (status -1). */
static pid_t
child(int status)
{
	pid_t pid = fork();

	cr_assert(ne(int, pid, -1));
	if (pid == 0) {
		/* gone with the test, should an assertion end it first */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (status < 0)
			for (;;)
				pause();
		_exit(status);
	}
	return pid;
}

Test(run_table, a_reap_notes_each_ended_run_and_leaves_the_live_ones)
{
	struct run_table t = { 0 };
	pid_t pid[3] = { child(3), child(-1), child(-1) };

	for (int i = 0; i < 3; i++) {
		struct running *r = run_table_add(&t);

		cr_assert(ne(ptr, r, NULL));
		r->pid = r->was = pid[i];
		r->lease = -1;
	}
	cr_assert(eq(int, kill(pid[1], SIGKILL), 0));
	/* until both ended runs are reaped: a bounded poll, no timing */
	for (int tries = 0; run_table_live(&t) > 1 && tries < 1000; tries++) {
		run_table_reap(&t);
		(void)poll(NULL, 0, 10);
	}
	cr_assert(eq(sz, run_table_live(&t), 1), "the third is alive");
	cr_assert(eq(int, t.v[0]->pid, 0));
	cr_assert(eq(int, t.v[0]->status, 3));
	cr_assert(eq(int, t.v[1]->status, 128 + SIGKILL));
	cr_assert(eq(int, t.v[2]->pid, pid[2]), "not reaped");
	cr_assert(run_table_was(&t, pid[0]), "still known once reaped");
	cr_assert(eq(int, kill(pid[2], SIGTERM), 0));
	cr_assert(eq(int, waitpid(pid[2], NULL, 0), pid[2]));
	run_table_free(&t);
}

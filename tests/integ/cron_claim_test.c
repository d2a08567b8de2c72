/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_claim_test.c -- claim before fork (sched/claim.h): schedulers on
 * one config claim each fire time's slots before they fork, so a fleet
 * forks about one run a slot, not one a slot and a scheduler, and every
 * slot still runs once. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define TASKS	200
#define SCHEDS	3

TestSuite(cron_claim, .init = suite_setup, .fini = suite_teardown, .timeout = 200);

/* Starts scheduler pid has decided: a slot skipped (its claim lost, or its
 * run's acquire), ended or missed. */
static int
decided(pid_t pid)
{
	return stderr_matching(pid, "^lockrun: t[0-9]+ [0-9TZ:-]+: (skipped|ended|missed)");
}

static int
all_decided(const pid_t *cron)
{
	for (int i = 0; i < SCHEDS; i++)
		if (decided(cron[i]) < TASKS)
			return 0;
	return 1;
}

/* Three schedulers, 200 tasks due at once, each run appending its task
 * and scheduler to a log: the schedulers fork at most 220 runs in all
 * (each forked all 200 before: 600), each slot runs exactly once, and
 * each scheduler runs at least a fifth of them (the claims spread:
 * before, the first to claim took nearly all). */
Test(cron_claim, three_schedulers_fork_about_one_run_a_slot)
{
	char log[256], cmd[512], err[SCHEDS][4096];
	pid_t cron[SCHEDS];
	const char *cfg;
	int forks = 0, ran[SCHEDS];
	long long guard = 0;

	snprintf(log, sizeof(log), "%s", scratch("runs.log"));
	snprintf(cmd, sizeof(cmd), "echo %%1$s $SERVER >> %s", log);
	cfg = tasks_config(fx.url, TASKS, "  starting_deadline: 30s\n", cmd);
	for (int i = 0; i < SCHEDS; i++)
		cron[i] = cron_server_at(i, cfg, T_1200 - 2, NULL);
	/* 600 starts decided take a while on a loaded machine */
	for (int k = 0; k < 4 && !all_decided(cron); k++, guard = 0)
		while (!all_decided(cron) && poll_tick(&guard))
			;
	for (int i = 0; i < SCHEDS; i++)
		forks += stderr_matching(cron[i], "^lockrun: t[0-9]+ [0-9TZ:-]+: started, pid");
	cr_assert(le(int, forks, TASKS + TASKS / 10), "%d forks", forks);
	for (int i = 0; i < SCHEDS; i++) {
		cr_assert(eq(int, decided(cron[i]), TASKS), "%s",
		    lr_stderr_of(cron[i], err[i], sizeof(err[i])));
		cron_stop(cron[i]);
	}
	cr_log_info("%d forks for %d slots on %d schedulers", forks, TASKS, SCHEDS);
	for (int i = 0; i < SCHEDS; i++) {
		char re[16];

		snprintf(re, sizeof(re), " %d$", i);
		ran[i] = lines_matching(log, re);
	}
	cr_log_info("ran: %d, %d, %d", ran[0], ran[1], ran[2]);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+ [0-9]$"), TASKS), "%s", file_peek(log));
	for (int t = 0; t < TASKS; t++) {
		char re[32];

		snprintf(re, sizeof(re), "^t%02d ", t);
		cr_assert(eq(int, lines_matching(log, re), 1), "%s:\n%s", re, file_peek(log));
	}
	for (int i = 0; i < SCHEDS; i++)
		cr_assert(ge(int, ran[i], TASKS / 5), "scheduler %d ran %d of %d: %d, %d, %d",
		    i, ran[i], TASKS, ran[0], ran[1], ran[2]);
}

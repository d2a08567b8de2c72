/* SPDX-License-Identifier: BSD-2-Clause */
/* where_test.c -- where a task runs (core/where.h): run_on: all on three
 * schedulers runs each slot once on each; hosts: keeps a task off the
 * hosts it does not list, for cron, for -t and in check. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <hiredis/hiredis.h>

#include "crons.h"
#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define SCHEDS	3

TestSuite(where, .init = suite_setup, .fini = suite_teardown, .timeout = 150);

/* How many entries of t00's history have event, and, with host not
 * NULL, that host. */
static long
entries(const char *event, const char *host)
{
	redisReply *r = rcmd("XRANGE lockrun:{t00}:history - +");
	long n = 0;

	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		redisReply *f = r->element[i]->element[1];
		int ev = 0, at = host == NULL;

		for (size_t j = 0; j + 1 < f->elements; j += 2) {
			ev |= strcmp(f->element[j]->str, "event") == 0 &&
			    strcmp(f->element[j + 1]->str, event) == 0;
			at |= host && strcmp(f->element[j]->str, "host") == 0 &&
			    strcmp(f->element[j + 1]->str, host) == 0;
		}
		n += ev && at;
	}
	freeReplyObject(r);
	return n;
}

/* Scheduler i of SCHEDS as host web<i+1>, on cfg, its clock from 2 s
 * before 12:00. */
static pid_t
web(int i, const char *cfg)
{
	static char host[SCHEDS][16];

	snprintf(host[i], sizeof(host[i]), "web%d", i + 1);
	return cron_server_args(i, T_1200 - 2, NULL, (const char *const[]){ "cron", "-v",
	    "--host", host[i], "-c", cfg, NULL });
}

/* Each of the schedulers in want (a bit each) has decided t00's slot. */
static int
decided(const pid_t *cron, int want)
{
	for (int i = 0; i < SCHEDS; i++)
		if ((want & 1 << i) && stderr_matching(cron[i],
		    "^lockrun: t00 [0-9TZ:-]+: (ended|skipped|missed)") < 1)
			return 0;
	return 1;
}

static void
wait_decided(const pid_t *cron, int want)
{
	long long guard = 0;

	/* a slot put off by the claims' ranking (claim.h) takes a while */
	for (int k = 0; k < 4 && !decided(cron, want); k++, guard = 0)
		while (!decided(cron, want) && poll_tick(&guard))
			;
	for (int i = 0; i < SCHEDS && !decided(cron, want); i++) {
		char err[4096];

		cr_log_info("scheduler %d: %s", i, lr_stderr_of(cron[i], err, sizeof(err)));
	}
	cr_assert(decided(cron, want), "not every scheduler decided t00");
}

/* run_on: all on three schedulers, web1..web3, a task due once: each
 * runs it exactly once (its job appends its scheduler to a log: three
 * lines, one each), and the history has three runs, one per host. Before,
 * run_on was an unknown key and no scheduler started. */
Test(where, run_on_all_runs_each_slot_once_on_every_server)
{
	char log[256], cmd[512], err[4096];
	pid_t cron[SCHEDS];
	const char *cfg;

	snprintf(log, sizeof(log), "%s", scratch("runs.log"));
	snprintf(cmd, sizeof(cmd), "echo %%1$s $SERVER >> %s", log);
	cfg = tasks_config(fx.url, 1, "  starting_deadline: 30s\n  run_on: all\n", cmd);
	for (int i = 0; i < SCHEDS; i++)
		cron[i] = web(i, cfg);
	wait_decided(cron, 7);
	for (int i = 0; i < SCHEDS; i++) {
		char re[64], host[16];

		snprintf(re, sizeof(re), "^t00 %d$", i);
		snprintf(host, sizeof(host), "web%d", i + 1);
		cr_assert(eq(int, lines_matching(log, re), 1), "%s:\n%s\n%s", re, file_peek(log),
		    lr_stderr_of(cron[i], err, sizeof(err)));
		cr_assert(eq(long, entries("ran", host), 1), "%s ran once", host);
		snprintf(re, sizeof(re), "lockrun:{t00}:slot:20260615T1200Z@%s", host);
		cr_assert(eq(int, key_exists(re), 1), "%s: the host's own slot key", re);
	}
	for (int i = 0; i < SCHEDS; i++)
		cron_stop(cron[i]);
	cr_assert(eq(int, file_lines(log), SCHEDS), "%s", file_peek(log));
	cr_assert(eq(long, entries("ran", NULL), SCHEDS));
	cr_assert(eq(long, entries("skipped-slot", NULL), 0), "no server took another's slot");
}

/* hosts: [web1, web2] on three schedulers web1..web3: one run a slot,
 * never on web3, which says at its start that it does not schedule the
 * task, and forks nothing for it. */
Test(where, hosts_keep_a_task_off_the_others)
{
	char log[256], cmd[512], err[4096];
	pid_t cron[SCHEDS];
	const char *cfg;

	snprintf(log, sizeof(log), "%s", scratch("runs.log"));
	snprintf(cmd, sizeof(cmd), "echo %%1$s $SERVER >> %s", log);
	cfg = tasks_config(fx.url, 1, "  starting_deadline: 30s\n  hosts: [web1, web2]\n",
	    cmd);
	for (int i = 0; i < SCHEDS; i++)
		cron[i] = web(i, cfg);
	POLL_UNTIL(stderr_matching(cron[2], "t00: not scheduled on this host: web3 is not "
	    "in hosts \\[web1, web2\\]") == 1);
	wait_decided(cron, 3);
	cr_assert(eq(int, stderr_matching(cron[2], "t00.*(started|skipped|released)"), 0),
	    "%s", lr_stderr_of(cron[2], err, sizeof(err)));
	for (int i = 0; i < SCHEDS; i++)
		cron_stop(cron[i]);
	cr_assert(eq(int, file_lines(log), 1), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^t00 [01]$"), 1), "%s", file_peek(log));
	cr_assert(eq(long, entries("ran", NULL), 1));
	cr_assert(eq(long, entries("ran", "web3"), 0));
}

/* -t on a host that hosts: leaves out: the skip status, a line saying
 * so, nothing run, nothing asked of the server; check -t says where it
 * runs and why, on both kinds of host. */
Test(where, a_host_left_out_skips_and_check_says_why)
{
	char log[256], cmd[512], body[1024];
	struct result r;
	const char *cfg;

	snprintf(log, sizeof(log), "%s", scratch("ran"));
	snprintf(cmd, sizeof(cmd), "touch %s", log);
	snprintf(body, sizeof(body), "tasks:\n  job:\n    command: '%s'\n"
	    "    host_match: 'web[12]'\n    conflict_exit: 75\n", cmd);
	cfg = write_config(body);
	LR(&r, "-v", "--host", "web3", "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 75), "%s", r.err);
	cr_assert(strstr(r.err, "task job does not run on this host: web3 does not match "
	    "host_match \"web[12]\"") != NULL, "%s", r.err);
	cr_assert(eq(int, access(log, F_OK), -1), "nothing ran");
	cr_assert(eq(int, key_exists("lockrun:{job}:history"), 0), "nothing recorded");
	LR(&r, "check", "--host", "web3", "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, "does not run on this host (web3 does not match "
	    "host_match \"web[12]\")") != NULL, "%s", r.out);
	LR(&r, "check", "--host", "web2", "-c", cfg, "-t", "job");
	cr_assert(strstr(r.out, "runs on this host (web2 matches host_match \"web[12]\")") !=
	    NULL, "%s", r.out);
	LR(&r, "--host", "web2", "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, access(log, F_OK), 0), "ran on web2");
}

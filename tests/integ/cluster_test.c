/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster_test.c -- lockrun on a Redis Cluster of three masters and three
 * replicas: a seed node that does not serve the key (MOVED), and status,
 * which cannot list a cluster's tasks. A failover under a running job:
 * cluster_failover_test.c; a slot moved under it: cluster_slots_test.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "cluster_nodes.h"
#include "crons.h"

TestSuite(cluster, .timeout = 120);

/* Three tasks whose keys are on three different masters, each run through
 * one seed node, which serves at most one of them: every run follows
 * MOVED where it must, runs its command, and leaves its keys on the master
 * that serves them. status and history find them there too. */
Test(cluster, runs_a_task_on_every_master_from_one_seed, .fini = cluster_down)
{
	static const char *const names[] = { "a", "b", "c" };
	const char *out;
	struct result res;
	char cmd[256], key[64];
	int m[3];

	cluster_up();
	out = scratch("ran");
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "lockrun:{%s}", names[i]);
		m[i] = cluster_node_for_key(&cl, key);
		cr_assert(m[i] >= 0);
	}
	cr_assert(m[0] != m[1] && m[1] != m[2] && m[0] != m[2]);
	for (int i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "echo %s >> %s", names[i], out);
		LR(&res, "--redis", seed_url(0), "-k", names[i], "--", "sh", "-c", cmd);
		cr_assert(eq(int, res.status, 0), "%s: %s", names[i], res.err);
		snprintf(key, sizeof(key), "lockrun:{%s}:fence", names[i]);
		cr_assert(eq(int, on_int(m[i], "EXISTS %s", key), 1), "%s not on node %d",
		    key, m[i]);
		snprintf(key, sizeof(key), "lockrun:{%s}:last", names[i]);
		cr_assert(eq(int, on_int(m[i], "EXISTS %s", key), 1), "%s not on node %d",
		    key, m[i]);
	}
	cr_assert(eq(int, file_lines(out), 3));

	LR(&res, "status", "--redis", seed_url(0), "a", "b", "c");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	for (int i = 0; i < 3; i++) {
		char row[64];

		/* each task's own row: free, its last run released */
		snprintf(row, sizeof(row), "\n%s +free +.* released ", names[i]);
		cr_assert(matches(res.out, row), "%s", res.out);
	}
	LR(&res, "history", "--redis", seed_url(0), "b");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(matches(res.out, "released"), "%s", res.out);
}

/* status lists tasks with SCAN, which sees one node: on a cluster it
 * wants their names, and says so. */
Test(cluster, status_without_names_is_refused, .fini = cluster_down)
{
	struct result res;

	cluster_up();
	LR(&res, "status", "--redis", seed_url(0));
	cr_assert(eq(int, res.status, 64));
	cr_assert(matches(res.err, "on a Redis Cluster, name the tasks"), "%s", res.err);
}

/* The scheduler of the trigger test below, killed when the test fails. */
static pid_t trigger_cron;

static void
trigger_down(void)
{
	if (trigger_cron > 0 && kill(trigger_cron, SIGKILL) == 0)
		lr_wait(trigger_cron);
	trigger_cron = 0;
	cluster_down();
}

/* Three tasks whose triggers are on three different masters, asked for
 * at once: one scheduler, through one seed node, takes each and runs each
 * once (under a flock: a second copy says "overlap"). Before, its takes
 * were pipelined: those redirected to another master deleted their
 * triggers and their answers went astray, and nothing ran them. */
Test(cluster, a_trigger_on_every_master_runs_once, .fini = trigger_down)
{
	static const char *const names[] = { "a", "b", "c" };
	char body[2048], key[64], err[8192];
	const char *out, *cfg;
	struct result res;
	size_t k = 0;
	int m[3];

	cluster_up();
	out = scratch("triggered");
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "lockrun:{%s}:trigger", names[i]);
		m[i] = cluster_node_for_key(&cl, key);
		cr_assert(m[i] >= 0);
	}
	cr_assert(m[0] != m[1] && m[1] != m[2] && m[0] != m[2]);
	k += (size_t)snprintf(body + k, sizeof(body) - k, "url: '%s'\ntasks:\n", seed_url(0));
	for (int i = 0; i < 3; i++)
		k += (size_t)snprintf(body + k, sizeof(body) - k, "  %s:\n    schedule: "
		    "'0 0 1 1 *'\n    command: 'flock -n %s.%s sh -c ''echo %s >> %s; sleep 1'' "
		    "|| echo overlap >> %s'\n", names[i], out, names[i], names[i], out, out);
	cfg = write_scratch("trigger.yaml", body);
	trigger_cron = LR_START("cron", "-v", "-c", cfg);
	POLL_UNTIL(stderr_matching(trigger_cron, "cron: 3 scheduled tasks") > 0);
	for (int i = 0; i < 3; i++) {
		LR(&res, "trigger", "-c", cfg, names[i]);
		cr_assert(eq(int, res.status, 0), "%s: %s", names[i], res.err);
	}
	POLL_UNTIL(stderr_matching(trigger_cron, "triggered: ended") >= 3);
	cr_assert(eq(int, stderr_matching(trigger_cron, "triggered: ended"), 3), "%s\n%s",
	    file_peek(out), lr_stderr_of(trigger_cron, err, sizeof(err)));
	pid_t cron = trigger_cron;
	trigger_cron = 0;	/* from here on reaped by cron_stop(), not killed */
	cron_stop(cron);
	cr_assert(eq(int, file_lines(out), 3), "%s", file_peek(out));
	for (int i = 0; i < 3; i++) {
		char re[16];

		snprintf(re, sizeof(re), "^%s$", names[i]);
		cr_assert(eq(int, lines_matching(out, re), 1), "%s", file_peek(out));
		snprintf(key, sizeof(key), "lockrun:{%s}:trigger", names[i]);
		cr_assert(eq(int, on_int(m[i], "EXISTS %s", key), 0), "%s is left", key);
	}
}

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

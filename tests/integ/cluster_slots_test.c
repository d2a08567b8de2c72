/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster_slots_test.c -- a Redis Cluster's slot moves under a running
 * job: once with ASK, once key by key and back while starters arrive. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "cluster_nodes.h"

TestSuite(cluster_slots, .timeout = 120);

/* The job's slot moves from node A to node B while it runs: once its keys
 * are on B and the slot is still migrating, A answers ASK, and the renewal
 * goes to B after ASKING; the run ends well, and once B owns the slot a
 * new run is served there. */
Test(cluster_slots, a_slot_moved_under_a_job_is_followed_with_ask, .fini = cluster_down)
{
	const char *key = "lockrun:{mv}";
	char err[4096], ida[64], idb[64], slot[16];
	redisContext *mon;
	redisReply *keys;
	struct result res;
	struct gate g;
	int a, b, seen;
	pid_t job;

	cluster_up();
	gate_open_file(&g, "");
	a = cluster_node_for_key(&cl, key);
	cr_assert(a >= 0);
	b = other_master(a);
	snprintf(slot, sizeof(slot), "%lld", on_int(a, "CLUSTER KEYSLOT %s", key));
	node_id(a, ida, sizeof(ida));
	node_id(b, idb, sizeof(idb));

	/* a first run leaves every key of the task but the lock itself (fence,
	 * history, last run, counters, its story), so
	 * that the renewal's keys all move (a missing one makes TRYAGAIN) */
	LR(&res, "--redis", seed_url(a), "-k", "mv", "--", "true");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	job = LR_START("--redis", seed_url(a), "-k", "mv", "--ttl", "1500ms", "--",
	    "sh", "-c", gate_sh(&g));
	gate_started(&g, job);

	mon = watch(b);
	on_ok(b, "OK", "CLUSTER SETSLOT %s IMPORTING %s", slot, ida);
	on_ok(a, "OK", "CLUSTER SETSLOT %s MIGRATING %s", slot, idb);
	keys = on(a, "CLUSTER GETKEYSINSLOT %s 100", slot);
	cr_assert(keys->type == REDIS_REPLY_ARRAY && keys->elements == 6,
	    "keys in slot %s: %zu", slot, keys->elements);
	for (size_t i = 0; i < keys->elements; i++)
		on_ok(a, "OK", "MIGRATE 127.0.0.1 %s %s 0 5000", port_of(b),
		    keys->element[i]->str);
	freeReplyObject(keys);
	/* the renewal: A has none of the keys now and says ASK */
	seen = watch_until(mon, 1, "\"ASKING\"", NULL);
	cr_assert(eq(int, seen, 1), "no ASKING on B");
	seen = watch_until(mon, 1, "EVAL", "\"lockrun:{mv}\"", NULL);
	cr_assert(eq(int, seen, 1), "no renewal on B");
	redisFree(mon);
	for (int i = 0; i < CLUSTER_NODES; i++)
		if (is_master(i))
			on_ok(i, "OK", "CLUSTER SETSLOT %s NODE %s", slot, idb);
	finish(job, &g);
	cr_assert(eq(int, lr_wait(job), 0));
	lr_stderr_of(job, err, sizeof(err));
	cr_assert(eq(ptr, strstr(err, "LOST"), NULL), "stderr: %s", err);
	cr_assert(eq(ptr, strstr(err, "release-failed"), NULL), "stderr: %s", err);
	cr_assert(eq(int, on_int(b, "EXISTS %s", key), 0), "not released");
	cr_assert(eq(int, cluster_node_for_key(&cl, key), b));

	LR(&res, "--redis", seed_url(a), "-k", "mv", "--", "true");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	cr_assert(eq(int, on_int(b, "EXISTS %s", "lockrun:{mv}:fence"), 1));
}

/* TRYAGAIN answers node i has given so far (INFO errorstats). */
static long long
tryagains(int i)
{
	char v[64];

	if (redis_info_field(&cl.node[i], "errorstats", "errorstat_TRYAGAIN", v,
	    sizeof(v)) != 0)
		return 0;
	return strncmp(v, "count=", 6) == 0 ? atoll(v + 6) : 0;
}

/* Move slot from node src to node dst under traffic, key by key: keys
 * (the task's) split between the two for a while, then all on dst while
 * the slot is still migrating (src answers ASK), then dst's for good.
 * mon watches dst: at each stage the starters go on, and once the keys
 * are all on dst the job's renewal is served there. */
static void
reshard(int src, int dst, const char *slot, const char *key, redisContext *mon)
{
	char ids[64], idd[64], renewal[96];
	redisReply *keys;
	long long tries;

	node_id(src, ids, sizeof(ids));
	node_id(dst, idd, sizeof(idd));
	snprintf(renewal, sizeof(renewal), "\"5\" \"%s\"", key);
	on_ok(dst, "OK", "CLUSTER SETSLOT %s IMPORTING %s", slot, ids);
	on_ok(src, "OK", "CLUSTER SETSLOT %s MIGRATING %s", slot, idd);
	starters_wait(1);
	keys = on(src, "CLUSTER GETKEYSINSLOT %s 100", slot);
	cr_assert(keys->type == REDIS_REPLY_ARRAY && keys->elements == 6,
	    "keys in slot %s: %zu", slot, keys->elements);
	for (size_t i = 0; i < keys->elements; i++) {
		tries = tryagains(src) + tryagains(dst);
		on_ok(src, "OK", "MIGRATE 127.0.0.1 %s %s 0 5000", port_of(dst),
		    keys->element[i]->str);
		/* split: a run is told TRYAGAIN (and asks again) before the next */
		if (i + 1 < keys->elements)
			POLL_UNTIL(tryagains(src) + tryagains(dst) > tries);
	}
	freeReplyObject(keys);
	/* all on dst, the slot still migrating: src answers ASK */
	cr_assert(eq(int, watch_until(mon, 1, renewal, NULL), 1), "no renewal on %d", dst);
	starters_wait(2);
	for (int i = 0; i < CLUSTER_NODES; i++)
		if (is_master(i))
			on_ok(i, "OK", "CLUSTER SETSLOT %s NODE %s", slot, idd);
	cr_assert(eq(int, watch_until(mon, 1, renewal, NULL), 1), "no renewal on %d", dst);
	starters_wait(2);
}

/* The task's slot moves to another master and back, key by key, while a
 * job runs and starters keep arriving: the job's renewals follow (ASK,
 * TRYAGAIN while the keys are split, MOVED once the slot has moved), it
 * is never stopped, and every starter is skipped (75): none ends with
 * "unexpected reply" (70) or gives up on TRYAGAIN (69). */
Test(cluster_slots, a_resharding_keeps_the_job_and_skips_the_starters, .fini = cluster_down)
{
	const char *key = "lockrun:{rs}";
	char before[1024], err[4096], slot[16], url[160];
	redisContext *mon_b, *mon_a;
	struct result res;
	struct gate g;
	int a, b, n;
	pid_t job, loop;

	cluster_up();
	cluster_url(&cl, url, sizeof(url));
	gate_open_file(&g, "");
	a = cluster_node_for_key(&cl, key);
	cr_assert(a >= 0);
	b = other_master(a);
	/* the slot of the hash tag {rs}, which every key of the task has */
	snprintf(slot, sizeof(slot), "%lld", on_int(a, "CLUSTER KEYSLOT %s", "{rs}"));
	/* a first run leaves every key of the task but the lock: four keys */
	LR(&res, "--redis", url, "-k", "rs", "--", "true");
	cr_assert(eq(int, res.status, 0), "%s", res.err);
	snprintf(before, sizeof(before), "exec 9>%s; flock -n 9 || echo overlap >> %s; ",
	    scratch("excl"), scratch("marks"));
	job = LR_START("--redis", url, "-k", "rs", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_around(&g, before, ""));
	gate_started(&g, job);
	loop = starters_start(url, "rs", "");
	starters_wait(1);

	mon_b = watch(b);
	reshard(a, b, slot, key, mon_b);
	redisFree(mon_b);
	mon_a = watch(a);
	reshard(b, a, slot, key, mon_a);
	redisFree(mon_a);

	n = starters_stop(loop, "75", 0, job);
	cr_assert(n >= 10, "only %d starters", n);
	finish(job, &g);
	cr_assert(eq(int, lr_wait(job), 0));
	lr_stderr_of(job, err, sizeof(err));
	cr_assert(eq(ptr, strstr(err, "LOST"), NULL), "stderr: %s", err);
	cr_assert(eq(ptr, strstr(err, "release-failed"), NULL), "stderr: %s", err);
	cr_assert(eq(int, on_int(a, "EXISTS %s", key), 0), "not released");
}

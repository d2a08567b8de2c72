/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster_test.c -- Redis Cluster key slots and redirect replies. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "backend/redis/cluster.h"

Test(cluster, crc16_matches_the_specification_check_value)
{
	/* the CRC-16/XMODEM check value, as the Redis Cluster spec gives it */
	cr_assert(eq(uint, cluster_crc16("123456789", 9), 0x31C3));
	cr_assert(eq(uint, cluster_crc16("", 0), 0));
}

struct slot_case {
	char		 key[64];	/* not a pointer: the parameters are copied */
	int		 slot;
};

/* Each slot as redis-server 7.0.15 gives it: CLUSTER KEYSLOT <key>. */
ParameterizedTestParameters(cluster, keyslot_agrees_with_redis_server)
{
	static struct slot_case cases[] = {
		{ "123456789", 12739 },
		{ "lockrun:{a}", 15495 },
		{ "lockrun:{b}", 3300 },
		{ "lockrun:{c}", 7365 },
		{ "{a}k", 15495 },
		{ "lockrun:{import-products}:slot:20261121T1745Z", 7171 },
		{ "nightly-backup", 3445 },
		{ "foo{}{bar}", 8363 },		/* an empty tag: the whole key */
		{ "foo{{bar}}zap", 4015 },	/* the tag is "{bar" */
		{ "foo{bar}{zap}", 5061 },	/* the first tag only */
		{ "x{", 3596 },			/* no '}': the whole key */
		{ "}{y}", 12222 },		/* a '}' before the '{' does not count */
		{ "", 0 },
	};

	return cr_make_param_array(struct slot_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct slot_case *c, cluster, keyslot_agrees_with_redis_server)
{
	cr_assert(eq(int, cluster_keyslot(c->key, strlen(c->key)), c->slot), "%s", c->key);
}

Test(cluster, every_key_of_a_task_is_on_one_slot)
{
	static const char *const keys[] = { "lockrun:{nightly}", "lockrun:{nightly}:fence",
	    "lockrun:{nightly}:history", "lockrun:{nightly}:last",
	    "lockrun:{nightly}:slot:20261121T1745Z" };
	int slot = cluster_keyslot("nightly", 7);

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_assert(eq(int, cluster_keyslot(keys[i], strlen(keys[i])), slot), "%s", keys[i]);
}

Test(cluster, moved_names_the_slot_and_the_node)
{
	struct cluster_redirect r;

	cr_assert(eq(int, cluster_redirect_parse("MOVED 3999 127.0.0.1:6381", &r), 1));
	cr_assert(eq(int, r.ask, 0));
	cr_assert(eq(int, r.slot, 3999));
	cr_assert(eq(str, r.host, "127.0.0.1"));
	cr_assert(eq(int, r.port, 6381));
}

Test(cluster, ask_is_told_from_moved)
{
	struct cluster_redirect r;

	cr_assert(eq(int, cluster_redirect_parse("ASK 16383 10.0.0.7:7000", &r), 1));
	cr_assert(eq(int, r.ask, 1));
	cr_assert(eq(int, r.slot, 16383));
	cr_assert(eq(str, r.host, "10.0.0.7"));
	cr_assert(eq(int, r.port, 7000));
}

Test(cluster, ipv6_and_host_names_split_at_the_last_colon)
{
	struct cluster_redirect r;

	cr_assert(eq(int, cluster_redirect_parse("MOVED 1 ::1:7001", &r), 1));
	cr_assert(eq(str, r.host, "::1"));
	cr_assert(eq(int, r.port, 7001));
	cr_assert(eq(int, cluster_redirect_parse("MOVED 2 redis-2.internal:6379", &r), 1));
	cr_assert(eq(str, r.host, "redis-2.internal"));
}

Test(cluster, an_empty_host_is_the_node_that_answered)
{
	struct cluster_redirect r;

	cr_assert(eq(int, cluster_redirect_parse("MOVED 5 :6380", &r), 1));
	cr_assert(eq(str, r.host, ""));
	cr_assert(eq(int, r.port, 6380));
}

Test(cluster, other_errors_are_not_redirects)
{
	struct cluster_redirect r;

	cr_assert(eq(int, cluster_redirect_parse("TRYAGAIN Multiple keys request during "
	    "rehashing of slot", &r), 0));
	cr_assert(eq(int, cluster_redirect_parse("CLUSTERDOWN The cluster is down", &r), 0));
	cr_assert(eq(int, cluster_redirect_parse("MOVEDX 1 a:1", &r), 0));
	cr_assert(eq(int, cluster_redirect_parse("ERR unknown command", &r), 0));
}

Test(cluster, malformed_redirects_are_refused)
{
	static const char *const bad[] = { "MOVED", "MOVED 1", "MOVED x 1.2.3.4:5",
	    "MOVED 16384 1.2.3.4:5", "MOVED -1 1.2.3.4:5", "MOVED 1 1.2.3.4",
	    "MOVED 1 1.2.3.4:0", "MOVED 1 1.2.3.4:65536", "MOVED 1 1.2.3.4:6x",
	    "ASK 1 ?:6379", "MOVED 1 a b:6379" };
	struct cluster_redirect r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert(eq(int, cluster_redirect_parse(bad[i], &r), -1), "%s", bad[i]);
}

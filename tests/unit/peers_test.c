/* SPDX-License-Identifier: BSD-2-Clause */
/* peers_test.c -- which of the listener's clients is closed to make room
 * for a newcomer: the oldest of its address at the per-address cap, else
 * the oldest of all at the overall cap. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "web/peers.h"

static struct sockaddr_in
v4(const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	cr_assert(eq(int, inet_pton(AF_INET, ip, &a.sin_addr), 1));
	return a;
}

static int
add(struct peers *t, int fd, const char *ip)
{
	struct sockaddr_in a = v4(ip);

	return peers_add(t, fd, (struct sockaddr *)&a);
}

static struct peers t;

Test(peers, under_the_caps_nobody_is_closed)
{
	t = (struct peers){ .all_max = 4, .per_addr_max = 2 };
	cr_assert(eq(int, add(&t, 10, "10.0.0.1"), -1));
	cr_assert(eq(int, add(&t, 11, "10.0.0.1"), -1));
	cr_assert(eq(int, add(&t, 12, "10.0.0.2"), -1));
	cr_assert(eq(int, add(&t, 13, "10.0.0.3"), -1));
}

Test(peers, an_address_at_its_cap_loses_its_oldest_not_the_newcomer)
{
	t = (struct peers){ .all_max = 8, .per_addr_max = 2 };
	add(&t, 10, "10.0.0.1");
	add(&t, 20, "10.0.0.2");
	add(&t, 11, "10.0.0.1");
	cr_assert(eq(int, add(&t, 12, "10.0.0.1"), 10));
	/* 10 is dropped but not yet closed: it no longer counts */
	cr_assert(eq(int, add(&t, 13, "10.0.0.1"), 11));
	peers_remove(&t, 10);
	peers_remove(&t, 11);
	cr_assert(eq(int, add(&t, 21, "10.0.0.2"), -1), "another address is not touched");
}

Test(peers, all_at_the_cap_loses_the_oldest_of_all)
{
	t = (struct peers){ .all_max = 3, .per_addr_max = 3 };
	add(&t, 10, "10.0.0.1");
	add(&t, 20, "10.0.0.2");
	add(&t, 30, "10.0.0.3");
	cr_assert(eq(int, add(&t, 40, "10.0.0.4"), 10));
	cr_assert(eq(int, add(&t, 41, "10.0.0.4"), 20));
	peers_remove(&t, 20);
	peers_remove(&t, 10);
	cr_assert(eq(int, add(&t, 42, "10.0.0.4"), 30));
}

Test(peers, a_full_table_refuses_the_newcomer)
{
	t = (struct peers){ .all_max = PEERS_MAX * 2, .per_addr_max = PEERS_MAX * 2 };
	for (int i = 0; i < PEERS_MAX; i++)
		cr_assert(eq(int, add(&t, 100 + i, "10.0.0.1"), -1));
	cr_assert(eq(int, add(&t, 7, "10.0.0.1"), 7));
	peers_remove(&t, 100);
	cr_assert(eq(int, add(&t, 7, "10.0.0.1"), -1));
}

Test(peers, unix_clients_share_one_address)
{
	struct sockaddr sa = { .sa_family = AF_UNIX };

	t = (struct peers){ .all_max = 8, .per_addr_max = 1 };
	cr_assert(eq(int, peers_add(&t, 10, &sa), -1));
	cr_assert(eq(int, peers_add(&t, 11, &sa), 10));
	cr_assert(eq(int, add(&t, 12, "10.0.0.1"), -1));
}

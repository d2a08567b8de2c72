/* SPDX-License-Identifier: BSD-2-Clause */
/* lease_test.c -- lease arithmetic and the --wait backoff. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/lease.h"

/* The one rule: the earlier of the ask and the confirmed request's send,
 * when the answer names one (0: none). */
Test(lease, counts_from_the_earlier_of_the_ask_and_the_send)
{
	cr_assert(eq(i64, lease_counts_from(9000, 0), 9000), "no send named: the ask");
	cr_assert(eq(i64, lease_counts_from(9000, 5000), 5000),
	    "a batch sent before the ask (the scheduler's lease table)");
	cr_assert(eq(i64, lease_counts_from(9000, 9400), 9000),
	    "a batch sent after the ask: the ask, earlier");
	cr_assert(eq(i64, lease_counts_from(9000, 9000), 9000));
}

Test(lease, default_ttl_timeline)
{
	struct lr_lease l = { .ttl = 30000, .kill_after = 10000, .confirmed = 1000 };

	cr_assert(eq(i64, lease_deadline(&l), 31000));
	cr_assert(eq(i64, lease_renew_at(&l), 11000), "a third of the TTL later");
	cr_assert(eq(i64, lease_margin(&l), 1000), "a tenth, capped at 1s");
	cr_assert(eq(i64, lease_kill_at(&l), 30000));
	cr_assert(eq(i64, lease_term_at(&l), 20000));
}

Test(lease, short_ttl_timeline)
{
	struct lr_lease l = { .ttl = 1000, .kill_after = 333, .confirmed = 0 };

	cr_assert(eq(i64, lease_margin(&l), 100));
	cr_assert(eq(i64, lease_kill_at(&l), 900));
	cr_assert(eq(i64, lease_term_at(&l), 567));
	cr_assert(lease_term_at(&l) > lease_renew_at(&l), "room to renew before stopping");
}

Test(lease, margin_has_a_floor)
{
	struct lr_lease l = { .ttl = 200, .kill_after = 10, .confirmed = 0 };

	cr_assert(eq(i64, lease_margin(&l), 50));
}

Test(lease, sigkill_always_lands_before_the_deadline)
{
	for (long long ttl = 1000; ttl <= 3600000; ttl = ttl * 3 / 2) {
		struct lr_lease l = { .ttl = ttl, .kill_after = ttl / 3, .confirmed = 5 };
		cr_assert(lease_kill_at(&l) < lease_deadline(&l));
		cr_assert(lease_term_at(&l) <= lease_kill_at(&l));
		cr_assert(lease_term_at(&l) > lease_renew_at(&l), "ttl %lld", ttl);
	}
}

Test(lease, retry_delay_is_bounded)
{
	struct lr_lease a = { .ttl = 1000 }, b = { .ttl = 30000 }, c = { .ttl = 3600000 };

	cr_assert(eq(i64, lease_retry_delay(&a), 50));
	cr_assert(eq(i64, lease_retry_delay(&b), 500));
	cr_assert(eq(i64, lease_retry_delay(&c), 500));
}

Test(lease, backoff_grows_to_a_cap_with_jitter)
{
	cr_assert(eq(i64, lease_backoff_delay(0, 0.0), 12));
	cr_assert(eq(i64, lease_backoff_delay(0, 0.999), 24));
	cr_assert(eq(i64, lease_backoff_delay(1, 0.0), 25));
	cr_assert(eq(i64, lease_backoff_delay(3, 0.0), 100));
	cr_assert(eq(i64, lease_backoff_delay(5, 0.0), 250), "capped at 500: half fixed");
	cr_assert(eq(i64, lease_backoff_delay(50, 0.999), 499));
	for (int n = 0; n < 100; n++)
		cr_assert(lease_backoff_delay(n, 0.5) <= 500);
}

Test(lease, an_answer_past_the_first_renewal_is_too_late)
{
	struct lr_lease l = { .ttl = 30000, .kill_after = 10000, .confirmed = 1000 };
	struct lr_lease k = { .ttl = 30000, .kill_after = 25000, .confirmed = 1000 };

	cr_assert(eq(int, lease_too_late(&l, 1000), 0), "answered at once");
	cr_assert(eq(int, lease_too_late(&l, 11000), 0), "two thirds left: still starts");
	cr_assert(eq(int, lease_too_late(&l, 11001), 1), "past its first renewal point");
	cr_assert(eq(int, lease_too_late(&l, 40000), 1), "the lease is over");
	cr_assert(eq(i64, lease_term_at(&k), 5000));
	cr_assert(eq(int, lease_too_late(&k, 5000), 1), "it would be stopped at once");
	cr_assert(eq(int, lease_too_late(&k, 4999), 0));
}

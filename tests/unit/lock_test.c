/* SPDX-License-Identifier: BSD-2-Clause */
/* lock_test.c -- a renewal's deadline (backend/lock.c): the server's clock
 * as the last answer read it, moved on by our monotonic clock, plus the
 * wait, that reading's error and LOCK_RENEW_SLACK_MS. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/lock.h"
#include "core/duration.h"

Test(lock, no_deadline_before_the_servers_clock_was_read)
{
	struct lr_lock l = { .renew_within_ms = 1000 };

	lock_renew_window(&l);
	cr_assert(eq(llong, l.renew_deadline_ms, 0));
}

Test(lock, no_deadline_with_the_clock_check_off)
{
	struct lr_lock l = { .no_window = 1, .renew_within_ms = 1000 };

	lock_window(&l, 1000000, 2000);
	lock_offset_note(&l, 5000000, 1000020);
	lock_renew_window(&l);
	cr_assert(eq(llong, l.renew_deadline_ms, 0));
}

/* The acquire's answer read the server's clock at 5000000 (round trip 20
 * ms, so +/- 10), whatever our wall clock said: the deadline follows the
 * server's clock, not ours. */
Test(lock, deadline_follows_the_servers_clock)
{
	struct lr_lock l = { .renew_within_ms = 1000 };
	long long t0 = mono_ms(), spent, low = 5000000 + 1000 + 10 + LOCK_RENEW_SLACK_MS;

	lock_window(&l, 1000000, 2000);		/* our wall clock: far behind */
	lock_offset_note(&l, 5000000, 1000020);
	lock_renew_window(&l);
	spent = mono_ms() - t0;
	cr_assert(ge(llong, l.renew_deadline_ms, low + 10), "%lld", l.renew_deadline_ms);
	cr_assert(le(llong, l.renew_deadline_ms, low + 10 + spent), "%lld",
	    l.renew_deadline_ms);
}

/* A renewal's answer reads the server's clock again: a step of the
 * server's clock (here 60 s ahead) moves the next deadline with it. */
Test(lock, each_renewal_reads_the_servers_clock_again)
{
	struct lr_lock l = { .renew_within_ms = 1000 };
	long long t0, spent, low = 5060000 + 1000 + LOCK_RENEW_SLACK_MS;

	lock_window(&l, 1000000, 2000);
	lock_offset_note(&l, 5000000, 1000020);
	t0 = mono_ms();
	lock_renew_window(&l);
	lock_renew_note(&l, 5060000);
	lock_renew_window(&l);
	spent = mono_ms() - t0;	/* bounds the time since, and the error */
	cr_assert(ge(llong, l.renew_deadline_ms, low), "%lld", l.renew_deadline_ms);
	cr_assert(le(llong, l.renew_deadline_ms, low + 2 * spent + 1), "%lld",
	    l.renew_deadline_ms);
}

/* A request sent for another process (a scheduler's run, which waits for
 * its answer until asker_until_mono) must run before that one gives up,
 * however long it queued before it was sent: the acquire's deadline is
 * no later than the asker's wait ... */
Test(lock, an_acquire_is_late_once_its_asker_gave_up)
{
	struct lr_lock l = { .asker_until_mono = mono_ms() + 300 };

	lock_window(&l, 1000000, 2000);
	cr_assert(le(llong, l.deadline_ms, 1000000 + 300), "%lld", l.deadline_ms);
	cr_assert(ge(llong, l.deadline_ms, 1000000), "%lld", l.deadline_ms);
	l.asker_until_mono = mono_ms() - 1;	/* gave up already */
	lock_window(&l, 1000000, 2000);
	cr_assert(eq(llong, l.deadline_ms, 1000000));
	l.asker_until_mono = mono_ms() + 60000;	/* waits longer: the timeout */
	lock_window(&l, 1000000, 2000);
	cr_assert(eq(llong, l.deadline_ms, 1000000 + 2000));
}

/* ... and so is a renewal's, reckoned on the server's clock. */
Test(lock, a_renewal_is_late_once_its_asker_gave_up)
{
	struct lr_lock l = { .renew_within_ms = 1000 };
	long long t0, spent, low = 5000000 + 10 + LOCK_RENEW_SLACK_MS;

	lock_window(&l, 1000000, 2000);
	lock_offset_note(&l, 5000000, 1000020);
	t0 = mono_ms();
	l.asker_until_mono = l.sync_mono_ms;	/* gave up when the clock was read */
	lock_renew_window(&l);
	spent = mono_ms() - t0;
	cr_assert(eq(llong, l.renew_deadline_ms, low), "%lld", l.renew_deadline_ms);
	l.asker_until_mono = mono_ms() + 60000;	/* waits longer: renew_within_ms */
	lock_renew_window(&l);
	spent = mono_ms() - t0;
	cr_assert(le(llong, l.renew_deadline_ms, low + 1000 + 2 * spent + 10), "%lld",
	    l.renew_deadline_ms);
	cr_assert(ge(llong, l.renew_deadline_ms, low + 1000), "%lld", l.renew_deadline_ms);
}

/* A slot claim runs no later than the slot's next fire time, whatever
 * its timeout: a claim that waited past it could find the slot key of a
 * run that took the slot gone (lock_window()). */
Test(lock, a_slot_claim_is_late_past_the_next_fire_time)
{
	struct lr_lock l = { .slot_ttl_ms = 12500, .slot_until_ms = 1001000 };

	lock_window(&l, 1000000, 2000);
	cr_assert(eq(llong, l.deadline_ms, 1001000), "the next fire time first");
	lock_window(&l, 995000, 2000);
	cr_assert(eq(llong, l.deadline_ms, 997000), "the timeout first");
	l.slot_ttl_ms = 0;	/* claims no slot: the timeout alone */
	lock_window(&l, 1000000, 2000);
	cr_assert(eq(llong, l.deadline_ms, 1002000));
	l.slot_ttl_ms = 12500;
	l.no_window = 1;	/* no window on the server */
	lock_window(&l, 1000000, 2000);
	cr_assert(eq(llong, l.deadline_ms, 0));
	cr_assert(eq(int, lock_slot_passed(&l, 1001000), 0));
	cr_assert(eq(int, lock_slot_passed(&l, 1001001), 1), "the client still sends none");
	l.offset_known = 1;
	l.offset_ms = 2000;	/* the server's clock is 2 s ahead: by its clock */
	cr_assert(eq(int, lock_slot_passed(&l, 999001), 1));
	l.slot_ttl_ms = 0;
	cr_assert(eq(int, lock_slot_passed(&l, 2000000), 0), "claims no slot");
}

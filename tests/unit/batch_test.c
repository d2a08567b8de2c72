/* SPDX-License-Identifier: BSD-2-Clause */
/* batch_test.c -- backend_renew_many() over a backend of the test's own:
 * its batch form when it has one, else one renewal each in turn over the
 * same connection; a batch that fails as a whole fails every lease, and a
 * broken connection is closed. */
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/batch.h"

/* The fake connection: a pipe whose read end is readable once a renewal
 * was sent. Lease i is lost when lost[i]. */
static struct {
	int	p[2];
	int	sends, recvs, batches, closes;
	int	batch_says;	/* renew_many's return */
	int	lost[8];
} f;

static int
fake_fd(const struct lr_backend *b)
{
	(void)b;
	return f.p[0];
}

static int
fake_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms, long long wait_ms,
    struct lr_err *e)
{
	(void)b, (void)l, (void)cap_ms, (void)wait_ms, (void)e;
	f.sends++;
	return write(f.p[1], "x", 1) == 1 ? 0 : -1;
}

static int
fake_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out, struct lr_err *e)
{
	char c;

	(void)b, (void)e;
	if (read(f.p[0], &c, 1) != 1)
		return 0;
	f.recvs++;
	*out = f.lost[l->hist_cap] ? RENEW_LOST : RENEW_OK;	/* hist_cap: its index */
	return 1;
}

static int
fake_many(struct lr_backend *b, struct lr_lock *const *l, size_t n, long long cap_ms,
    enum renew_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	(void)b, (void)cap_ms, (void)err;
	f.batches++;
	if (f.batch_says != 0) {
		lr_errf(e, EX_UNAVAILABLE, "broken");
		e->transport = 1;
		return f.batch_says;
	}
	for (size_t i = 0; i < n; i++) {
		rc[i] = 1;
		out[i] = f.lost[l[i]->hist_cap] ? RENEW_LOST : RENEW_OK;
	}
	return 0;
}

static void
fake_close(struct lr_backend *b)
{
	(void)b;
	f.closes++;
}

static struct lr_backend_ops ops = { .name = "fake", .renew_send = fake_send,
    .renew_recv = fake_recv, .fd = fake_fd, .close = fake_close };

static void
setup(void)
{
	memset(&f, 0, sizeof(f));
	cr_assert(eq(int, pipe(f.p), 0));
}

static void
teardown(void)
{
	close(f.p[0]);
	close(f.p[1]);
}

TestSuite(batch, .init = setup, .fini = teardown);

/* Three leases, the second lost: their answers, by whichever path. */
static void
renew_three(int *rc, enum renew_outcome *out)
{
	struct lr_backend b = { .ops = &ops };
	struct lr_lock locks[3] = { { .hist_cap = 0 }, { .hist_cap = 1 }, { .hist_cap = 2 } };
	struct lr_lock *l[3] = { &locks[0], &locks[1], &locks[2] };
	struct lr_err err[3];

	f.lost[1] = 1;
	backend_renew_many(&b, l, 3, 1000, 1000, out, rc, err);
}

Test(batch, without_a_batch_form_each_lease_is_renewed_in_turn)
{
	enum renew_outcome out[3];
	int rc[3];

	ops.renew_many = NULL;
	renew_three(rc, out);
	cr_assert(eq(int, f.sends, 3));
	cr_assert(eq(int, f.recvs, 3));
	for (int i = 0; i < 3; i++)
		cr_assert(eq(int, rc[i], 1));
	cr_assert(eq(int, out[0], RENEW_OK));
	cr_assert(eq(int, out[1], RENEW_LOST));
	cr_assert(eq(int, out[2], RENEW_OK));
}

Test(batch, a_batch_form_renews_them_all_in_one_call)
{
	enum renew_outcome out[3];
	int rc[3];

	ops.renew_many = fake_many;
	renew_three(rc, out);
	cr_assert(eq(int, f.batches, 1));
	cr_assert(eq(int, f.sends, 0), "no renewal of its own");
	cr_assert(eq(int, rc[0] + rc[1] + rc[2], 3));
	cr_assert(eq(int, out[1], RENEW_LOST));
}

Test(batch, leases_a_batch_cannot_take_are_renewed_in_turn)
{
	enum renew_outcome out[3];
	int rc[3];

	ops.renew_many = fake_many;
	f.batch_says = 1;
	renew_three(rc, out);
	cr_assert(eq(int, f.batches, 1));
	cr_assert(eq(int, f.sends, 3));
	cr_assert(eq(int, out[1], RENEW_LOST));
	cr_assert(eq(int, f.closes, 0));
}

Test(batch, a_batch_that_broke_fails_every_lease_and_closes_the_connection)
{
	enum renew_outcome out[3];
	int rc[3];

	ops.renew_many = fake_many;
	f.batch_says = -1;
	renew_three(rc, out);
	for (int i = 0; i < 3; i++)
		cr_assert(eq(int, rc[i], -1));
	cr_assert(eq(int, f.closes, 1));
	cr_assert(eq(int, f.sends, 0), "not sent again one by one");
}

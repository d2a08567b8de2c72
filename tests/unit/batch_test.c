/* SPDX-License-Identifier: BSD-2-Clause */
/* batch_test.c -- backend_renew_many(), backend_acquire_many() and
 * backend_release_many() over a backend of the test's own: its batch form
 * when it has one, else one request each in turn over the same
 * connection; a batch that fails as a whole fails every lease, and a
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
	int	acquires, releases, reopens;
	int	broken;		/* 1 + the lease whose request breaks it */
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

/* A batch form is asked: 1 when it says f.batch_says (e: broken). */
static int
batch_refused(struct lr_err *e)
{
	f.batches++;
	if (f.batch_says == 0)
		return 0;
	lr_errf(e, EX_UNAVAILABLE, "broken");
	e->kind = LR_ERR_TRANSPORT;
	return 1;
}

static int
fake_many(struct lr_backend *b, struct lr_lock *const *l, size_t n, long long cap_ms,
    long long wait_ms, enum renew_outcome *out, int *rc, struct lr_err *err,
    struct lr_err *e)
{
	(void)b, (void)cap_ms, (void)wait_ms, (void)err;
	if (batch_refused(e))
		return f.batch_says;
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

/* Three leases, each knowing its index (hist_cap); the second is lost
 * (held by another, no longer ours). */
static struct lr_backend be = { .ops = &ops };
static struct lr_lock locks[3];
static struct lr_lock *three[3] = { &locks[0], &locks[1], &locks[2] };
static struct lr_err errs[3];

static void
setup(void)
{
	memset(&f, 0, sizeof(f));
	memset(locks, 0, sizeof(locks));
	for (int i = 0; i < 3; i++)
		locks[i].hist_cap = i;
	f.lost[1] = 1;
	cr_assert(eq(int, pipe(f.p), 0));
}

static void
teardown(void)
{
	close(f.p[0]);
	close(f.p[1]);
}

TestSuite(batch, .init = setup, .fini = teardown);

/* The three renewed: their answers, by whichever path. */
static void
renew_three(int *rc, enum renew_outcome *out)
{
	backend_renew_many(&be, three, 3, 1000, 1000, out, rc, errs);
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

/* acquire: lease i (hist_cap) is held by another when lost[i]; the
 * request of lease broken - 1 breaks the connection. */
static int
fake_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	(void)b;
	f.acquires++;
	if (f.broken == l->hist_cap + 1) {
		lr_errf(e, EX_UNAVAILABLE, "broken");
		e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
	*out = f.lost[l->hist_cap] ? LOCK_HELD : LOCK_ACQUIRED;
	return 0;
}

static int
fake_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	if (batch_refused(e))
		return f.batch_says;
	for (size_t i = 0; i < n; i++) {
		rc[i] = fake_acquire(b, l[i], &out[i], &err[i]);
		f.acquires--;		/* not one of its own */
	}
	return 0;
}

static int
fake_release(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	(void)b, (void)e;
	f.releases++;
	return !f.lost[l->hist_cap] && strcmp(end->event, "ok") == 0;
}

static int
fake_release_many(struct lr_backend *b, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err, struct lr_err *e)
{
	if (batch_refused(e))
		return f.batch_says;
	for (size_t i = 0; i < n; i++) {
		rc[i] = fake_release(b, l[i], &end[i], &err[i]);
		f.releases--;
	}
	return 0;
}

static int
fake_reopen(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	(void)b, (void)cap_ms, (void)e;
	f.reopens++;
	return 0;
}

/* The three acquired, with the batch form many (NULL: none) saying
 * says: each has its answer, whichever path it took; the batch form was
 * asked batches times, and the backend own times one at a time. */
static void
acquires_answered(int (*many)(struct lr_backend *, struct lr_lock *const *, size_t,
    enum lock_outcome *, int *, struct lr_err *, struct lr_err *), int says,
    int batches, int own)
{
	enum lock_outcome out[3];
	int rc[3];

	ops.acquire = fake_acquire;
	ops.acquire_many = many;
	f.batch_says = says;
	backend_acquire_many(&be, three, 3, out, rc, errs);
	cr_assert(eq(int, f.batches, batches));
	cr_assert(eq(int, f.acquires, own));
	cr_assert(eq(int, rc[0] + rc[1] + rc[2], 0));
	cr_assert(eq(int, out[0], LOCK_ACQUIRED));
	cr_assert(eq(int, out[1], LOCK_HELD));
	cr_assert(eq(int, out[2], LOCK_ACQUIRED));
	cr_assert(eq(int, f.closes, 0));
}

Test(batch, acquires_without_a_batch_form_go_in_turn)
{
	acquires_answered(NULL, 0, 0, 3);
}

Test(batch, acquires_go_in_one_batch_and_each_has_its_answer)
{
	acquires_answered(fake_acquire_many, 0, 1, 0);
}

Test(batch, acquires_a_batch_cannot_take_go_in_turn)
{
	acquires_answered(fake_acquire_many, 1, 1, 3);
}

/* The acquire of lease broken - 1 breaks the connection: in turn, it is
 * closed, and the next acquire opens it again itself and is answered; in
 * one batch, the answers that did not come fail and it is closed once;
 * a batch that fails as a whole fails each, and none goes alone. */
Test(batch, an_acquire_that_breaks_the_connection_closes_it)
{
	enum lock_outcome out[3];
	int rc[3];

	ops.acquire = fake_acquire;
	f.broken = 1 + 0;
	backend_acquire_many(&be, three, 3, out, rc, errs);
	cr_assert(eq(int, rc[0], -1));
	cr_assert(eq(int, f.closes, 1));
	cr_assert(eq(int, rc[2], 0));
	cr_assert(eq(int, out[2], LOCK_ACQUIRED));
	ops.acquire_many = fake_acquire_many;
	f.broken = 1 + 1;
	backend_acquire_many(&be, three, 3, out, rc, errs);
	cr_assert(eq(int, rc[0], 0));
	cr_assert(eq(int, rc[1], -1));
	cr_assert(eq(int, f.closes, 2));
	f.broken = 0;
	f.batch_says = -1;
	f.acquires = 0;
	backend_acquire_many(&be, three, 3, out, rc, errs);
	cr_assert(eq(int, rc[0] + rc[1] + rc[2], -3));
	cr_assert(eq(int, f.closes, 3));
	cr_assert(eq(int, f.acquires, 0));
}

/* The three released, each ending "ok" (the second is no longer ours: 0). */
static void
release_three(int *rc)
{
	struct lr_ending end[3] = { { .event = "ok" }, { .event = "ok" }, { .event = "ok" } };

	ops.release = fake_release;
	ops.reopen = fake_reopen;
	backend_release_many(&be, (const struct lr_lock *const *)three, end, 3, 1000, rc, errs);
}

Test(batch, releases_go_in_one_batch_or_in_turn)
{
	int rc[3];

	ops.release_many = fake_release_many;
	release_three(rc);
	cr_assert(eq(int, f.batches, 1));
	cr_assert(eq(int, f.releases, 0));
	cr_assert(eq(int, rc[0] * 100 + rc[1] * 10 + rc[2], 101));
	f.batch_says = 1;
	release_three(rc);
	cr_assert(eq(int, f.batches, 2));
	cr_assert(eq(int, f.releases, 3));
	cr_assert(eq(int, rc[0] * 100 + rc[1] * 10 + rc[2], 101));
	cr_assert(eq(int, f.reopens, 0), "the connection was open");
}

/* A closed connection is opened again first (the fake stays closed:
 * before the batch, then before each). */
Test(batch, releases_open_a_closed_connection_first)
{
	int rc[3];

	close(f.p[0]);
	f.p[0] = -1;
	release_three(rc);
	cr_assert(eq(int, f.reopens, 4));
	cr_assert(eq(int, f.releases, 3));
}

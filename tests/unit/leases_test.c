/* SPDX-License-Identifier: BSD-2-Clause */
/* leases_test.c -- the scheduler's side of its runs' locks (sched/leases.c)
 * over a backend of the test's own: the requests of one turn go in one
 * batch each, releases before acquires; a renewal renews every lease due
 * with it, and a run asking after such a batch is answered from the table
 * with that batch's instant; a lease a batch found lost is told so; a
 * request its run gave up on is not sent. Runs are socket pairs, as the
 * scheduler's forks have. */
#include <sys/socket.h>

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/duration.h"
#include "sched/lease_wire.h"
#include "sched/leases.h"

#define TTL_MS	6000	/* a batch renews past 1s, a run asks within 3s */

/* What the backend was asked, in order: a letter per batch (A acquire,
 * L release, R renew) and its size, e.g. "A3R3L1A1". Lease i (hist_cap)
 * is lost when lost[i]. */
static struct {
	char	calls[64];
	int	lost[8];
} f;

static void
called(char op, size_t n)
{
	size_t len = strlen(f.calls);

	snprintf(f.calls + len, sizeof(f.calls) - len, "%c%zu", op, n);
}

static int
fake_fd(const struct lr_backend *b)
{
	(void)b;
	return 0;	/* "open" */
}

static void
fake_close(struct lr_backend *b)
{
	(void)b;
}

static int
fake_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	(void)b, (void)err, (void)e;
	called('A', n);
	for (size_t i = 0; i < n; i++) {
		rc[i] = 0;
		out[i] = LOCK_ACQUIRED;
		l[i]->token = 100 + l[i]->hist_cap;
	}
	return 0;
}

static int
fake_release_many(struct lr_backend *b, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err, struct lr_err *e)
{
	(void)b, (void)l, (void)end, (void)err, (void)e;
	called('L', n);
	for (size_t i = 0; i < n; i++)
		rc[i] = 1;
	return 0;
}

static int
fake_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n, long long cap_ms,
    long long wait_ms, enum renew_outcome *out, int *rc, struct lr_err *err,
    struct lr_err *e)
{
	(void)b, (void)cap_ms, (void)wait_ms, (void)err, (void)e;
	called('R', n);
	for (size_t i = 0; i < n; i++) {
		rc[i] = 1;
		out[i] = f.lost[l[i]->hist_cap] ? RENEW_LOST : RENEW_OK;
	}
	return 0;
}

static struct lr_backend_ops ops = { .name = "fake", .fd = fake_fd, .close = fake_close,
    .acquire_many = fake_acquire_many, .release_many = fake_release_many,
    .renew_many = fake_renew_many };
static struct lr_backend be = { .ops = &ops, .where = "fake:0" };

/* A run: the scheduler's end of its socket pair, and its own. */
struct run {
	int	sched, own;
	struct lr_lock lock;	/* as its last answer left it */
};

static void
run_open(struct run *r, int index)
{
	int sv[2];

	cr_assert(eq(int, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0));
	*r = (struct run){ .sched = sv[0], .own = sv[1] };
	r->lock.hist_cap = index;
	r->lock.ttl_ms = TTL_MS;
}

/* Run r asks for op; the scheduler reads it into ls. */
static void
ask(struct leases *ls, struct run *r, int op)
{
	struct lease_req q = { .op = op, .seq = (unsigned)op + 7, .cap_ms = TTL_MS,
	    .wait_ms = 1000, .lock = r->lock };

	if (op == LEASE_RELEASE) {
		q.has_event = 1;
		snprintf(q.event, sizeof(q.event), "released");
	}
	cr_assert(eq(sz, (size_t)send(r->own, &q, sizeof(q), 0), sizeof(q)));
	leases_collect(ls, &r->sched, NULL);
	cr_assert(eq(int, (int)ls->nq > 0, 1), "the request was read");
}

/* Run r's answer, which must be there. */
static struct lease_rep
answer_of(struct run *r)
{
	struct lease_rep a;

	cr_assert(eq(sz, (size_t)recv(r->own, &a, sizeof(a), MSG_DONTWAIT), sizeof(a)),
	    "run %d has its answer", (int)r->lock.hist_cap);
	r->lock = a.lock;
	return a;
}

/* Wait on the clock, for a rule that is about time passing. */
static void
wait_until_mono(long long at)
{
	while (mono_ms() < at)
		(void)poll(NULL, 0, (int)(at - mono_ms()));
}

static struct leases ls;

static void
setup(void)
{
	memset(&f, 0, sizeof(f));
	ls = (struct leases){ .be = &be, .connect_timeout_ms = 1000 };
}

static void
teardown(void)
{
	leases_free(&ls);
}

TestSuite(leases, .init = setup, .fini = teardown);

Test(leases, one_batch_a_kind_and_a_renewal_renews_every_lease_due_with_it)
{
	struct run r[4];
	struct lease_rep a, b, c;
	long long took;

	for (int i = 0; i < 4; i++)
		run_open(&r[i], i);
	f.lost[2] = 1;		/* the server says run 2's lease is another's */

	for (int i = 0; i < 3; i++)
		ask(&ls, &r[i], LEASE_ACQUIRE);
	took = mono_ms();
	leases_flush(&ls);
	cr_assert(eq(str, f.calls, "A3"), "three acquires, one exchange");
	for (int i = 0; i < 3; i++) {
		a = answer_of(&r[i]);
		cr_assert(eq(u32, a.seq, (unsigned)LEASE_ACQUIRE + 7));
		cr_assert(eq(int, a.rc, 0));
		cr_assert(eq(int, a.out, LOCK_ACQUIRED));
		cr_assert(eq(i64, a.lock.token, 100 + i));
	}

	/* past a sixth of the TTL: run 0's renewal takes 1 and 2 along */
	wait_until_mono(took + TTL_MS / 6 + 50);
	ask(&ls, &r[0], LEASE_RENEW);
	leases_flush(&ls);
	cr_assert(eq(str, f.calls, "A3R3"), "one renewal batch for all three");
	a = answer_of(&r[0]);
	cr_assert(eq(int, a.rc, 1));
	cr_assert(eq(int, a.out, RENEW_OK));
	cr_assert(a.lock.renew_sent_ms >= took, "the batch's instant: %lld", a.lock.renew_sent_ms);

	/* run 1 asks next: answered from the table, with that batch's instant */
	ask(&ls, &r[1], LEASE_RENEW);
	leases_flush(&ls);
	cr_assert(eq(str, f.calls, "A3R3"), "nothing sent for run 1");
	b = answer_of(&r[1]);
	cr_assert(eq(int, b.rc, 1));
	cr_assert(eq(int, b.out, RENEW_OK));
	cr_assert(eq(i64, b.lock.renew_sent_ms, a.lock.renew_sent_ms),
	    "its lease counts from when the batch was sent, not from its ask");

	/* run 2's lease was found lost by that batch: told so, nothing sent */
	ask(&ls, &r[2], LEASE_RENEW);
	leases_flush(&ls);
	cr_assert(eq(str, f.calls, "A3R3"));
	c = answer_of(&r[2]);
	cr_assert(eq(int, c.rc, 1));
	cr_assert(eq(int, c.out, RENEW_LOST));

	/* one turn: run 3 acquires, run 0 releases: the release goes first,
	 * so that a newcomer of the same task finds its key free */
	ask(&ls, &r[3], LEASE_ACQUIRE);
	ask(&ls, &r[0], LEASE_RELEASE);
	leases_flush(&ls);
	cr_assert(eq(str, f.calls, "A3R3L1A1"));
	cr_assert(eq(int, answer_of(&r[0]).rc, 1));
	cr_assert(eq(int, answer_of(&r[3]).out, LOCK_ACQUIRED));

	/* a run gone: its socket is closed, its lease forgotten */
	close(r[1].own);
	leases_collect(&ls, &r[1].sched, NULL);
	cr_assert(eq(int, r[1].sched, -1));
	cr_assert(eq(sz, ls.n, 2), "the leases of runs 2 and 3 are left");
	for (int i = 0; i < 4; i++) {
		if (r[i].sched >= 0)
			close(r[i].sched);
		if (i != 1)
			close(r[i].own);
	}
}

/* An acquire whose run gave up waiting, or whose slot's next fire time
 * passed while it queued, is answered without being sent: the server
 * would refuse it, and a command started on it would be killed at once. */
Test(leases, an_acquire_given_up_on_or_past_its_slot_is_not_sent)
{
	struct run late, gave_up;
	struct lease_rep a;

	run_open(&late, 0);
	run_open(&gave_up, 1);
	late.lock.slot_ttl_ms = 60000;
	late.lock.slot_until_ms = real_ms() - 1000;	/* the next fire time passed */
	gave_up.lock.asker_until_mono = mono_ms() - 1;
	ask(&ls, &late, LEASE_ACQUIRE);
	ask(&ls, &gave_up, LEASE_ACQUIRE);
	leases_flush(&ls);
	cr_assert(eq(str, f.calls, ""), "neither was sent");
	a = answer_of(&late);
	cr_assert(eq(int, a.rc, -1));
	cr_assert(ne(ptr, strstr(a.e.msg, "next fire time passed"), NULL), "%s", a.e.msg);
	a = answer_of(&gave_up);
	cr_assert(eq(int, a.rc, -1));
	cr_assert(eq(sz, ls.n, 0), "no lease is held for them");
	close(late.sched), close(late.own), close(gave_up.sched), close(gave_up.own);
}

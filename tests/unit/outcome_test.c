/* SPDX-License-Identifier: BSD-2-Clause */
/* outcome_test.c -- how a forked run tells its scheduler how it goes
 * (sched/outcome.c): each field of a message back as it was sent, a
 * message that is not one refused, what the scheduler learns from a run's
 * messages in turn; and over a socket pair, as the scheduler's forks have
 * (sched/lease_client.c's side, sched/leases.c's), the messages read
 * between a run's lock requests, which stay in the order sent. */
#include <sys/socket.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/lease_client.h"
#include "sched/lease_wire.h"
#include "sched/leases.h"
#include "sched/outcome.h"

/* m encoded and decoded again, which must work. */
static struct outcome_msg
round_trip(const struct outcome_msg *m)
{
	char buf[OUTCOME_WIRE_MAX];
	struct outcome_msg back;
	size_t n = outcome_encode(m, buf, sizeof(buf));

	cr_assert(eq(sz, n, sizeof(struct outcome_head) + m->why_len));
	memset(&back, 0x5a, sizeof(back));
	cr_assert(eq(int, outcome_decode(buf, n, &back), 0));
	return back;
}

Test(outcome, each_field_comes_back_as_it_was_sent)
{
	/* quotes, a backslash, a newline and UTF-8: bytes, not JSON */
	const char *why = "skipped: {t}:fence is held by \"b\\c\"\npid 7 \xc3\xa9";
	struct outcome_msg m, back;

	outcome_msg_set(&m, OUTCOME_SKIPPED, why);
	m.status = 75;
	m.token = 1795432160690488LL;
	back = round_trip(&m);
	cr_assert(eq(int, back.kind, OUTCOME_SKIPPED));
	cr_assert(eq(int, back.status, 75));
	cr_assert(eq(i64, back.token, 1795432160690488LL));
	cr_assert(eq(sz, back.why_len, strlen(why)));
	cr_assert(eq(str, back.why, (char *)why));

	outcome_msg_set(&m, OUTCOME_EXITED, NULL);
	m.status = 128 + 15;
	back = round_trip(&m);
	cr_assert(eq(int, back.kind, OUTCOME_EXITED));
	cr_assert(eq(int, back.status, 143));
	cr_assert(eq(sz, back.why_len, 0));
	cr_assert(eq(str, back.why, ""));
}

Test(outcome, a_long_reason_is_cut_to_its_maximum)
{
	char why[2 * OUTCOME_WHY_MAX];
	struct outcome_msg m, back;

	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	outcome_msg_set(&m, OUTCOME_FAILED, why);
	cr_assert(eq(sz, m.why_len, OUTCOME_WHY_MAX));
	back = round_trip(&m);
	cr_assert(eq(sz, strlen(back.why), OUTCOME_WHY_MAX));
}

Test(outcome, what_is_no_message_is_refused)
{
	char buf[OUTCOME_WIRE_MAX + 8];
	struct outcome_head h;
	struct outcome_msg m;
	size_t n;

	outcome_msg_set(&m, OUTCOME_TOO_LATE, "too late");
	n = outcome_encode(&m, buf, sizeof(buf));
	cr_assert(eq(int, outcome_decode(buf, n - 1, &m), -1), "cut short");
	cr_assert(eq(int, outcome_decode(buf, n + 1, &m), -1), "more than it says");
	cr_assert(eq(int, outcome_decode(buf, sizeof(h) - 1, &m), -1), "no head");
	cr_assert(eq(sz, outcome_encode(&m, buf, n - 1), 0), "no room");

	memcpy(&h, buf, sizeof(h));
	h.op = LEASE_RELEASE;			/* a lock request's */
	memcpy(buf, &h, sizeof(h));
	cr_assert(eq(int, outcome_decode(buf, n, &m), -1), "not an outcome");
	h.op = LEASE_OUTCOME;
	h.kind = OUTCOME_KINDS;
	memcpy(buf, &h, sizeof(h));
	cr_assert(eq(int, outcome_decode(buf, n, &m), -1), "a kind unknown");
	h.kind = 0;
	memcpy(buf, &h, sizeof(h));
	cr_assert(eq(int, outcome_decode(buf, n, &m), -1), "no kind");
	h.kind = OUTCOME_FAILED;
	h.why_len = OUTCOME_WHY_MAX + 1;
	memcpy(buf, &h, sizeof(h));
	cr_assert(eq(int, outcome_decode(buf, sizeof(h) + h.why_len, &m), -1), "too long");

	outcome_msg_set(&m, OUTCOME_KINDS, NULL);
	cr_assert(eq(sz, outcome_encode(&m, buf, sizeof(buf)), 0), "not sent either");
}

/* What the scheduler knows after the messages kinds[], in turn. */
static struct run_outcome
told(const int *kinds, size_t n, long long token, const char *why)
{
	struct run_outcome o = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct outcome_msg m;

		outcome_msg_set(&m, kinds[i], why);
		m.token = token;
		m.status = 3;
		outcome_apply(&o, &m);
	}
	return o;
}

/* o's flags, in words, for a diff that shows which. */
static const char *
flags(const struct run_outcome *o)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s%s%s%s%s%s", o->waiting ? "waiting " : "",
	    o->ran ? "ran " : "", o->skipped ? "skipped " : "", o->clock_off ? "clock-off " : "",
	    o->too_late ? "too-late " : "", o->exited ? "exited " : "");
	return buf;
}

Test(outcome, the_scheduler_learns_each_kind_and_the_latest_reason)
{
	int wait_ran[] = { OUTCOME_WAITING, OUTCOME_RAN, OUTCOME_EXITED };
	int skip[] = { OUTCOME_SKIPPED };
	int clock[] = { OUTCOME_CLOCK_OFF };
	int late[] = { OUTCOME_TOO_LATE };
	int failed[] = { OUTCOME_FAILED, OUTCOME_EXITED };
	struct outcome_msg m;
	struct run_outcome o;

	o = told(wait_ran, 3, 42, NULL);
	cr_assert(eq(str, (char *)flags(&o), "waiting ran exited "));
	cr_assert(eq(i64, o.token, 42));
	cr_assert(eq(int, o.status, 3));
	o = told(skip, 1, 0, "skipped: held");
	cr_assert(eq(str, (char *)flags(&o), "skipped "));
	cr_assert(eq(str, o.why, "skipped: held"));
	o = told(clock, 1, 0, "off by 9 s");
	cr_assert(eq(str, (char *)flags(&o), "clock-off "));
	cr_assert(eq(str, o.why, "off by 9 s"));
	o = told(late, 1, 0, "too late for slot x");
	cr_assert(eq(str, (char *)flags(&o), "too-late "));
	cr_assert(eq(str, o.why, "too late for slot x"));
	o = told(failed, 2, 0, "redis: connection refused");
	cr_assert(eq(str, (char *)flags(&o), "exited "), "a failure is no flag");
	cr_assert(eq(str, o.why, "redis: connection refused"));

	/* ran without a lock (token 0) keeps the token it had; a later
	 * reason replaces an earlier one */
	o = told(wait_ran, 2, 7, NULL);
	outcome_msg_set(&m, OUTCOME_RAN, NULL);
	outcome_apply(&o, &m);
	cr_assert(eq(i64, o.token, 7));
	outcome_msg_set(&m, OUTCOME_FAILED, "first");
	outcome_apply(&o, &m);
	outcome_msg_set(&m, OUTCOME_FAILED, "second");
	outcome_apply(&o, &m);
	cr_assert(eq(str, o.why, "second"));
}

/* A lock request from the run, as lease_client.c sends one. */
static void
request(int fd, int op)
{
	struct lease_req q = { .op = op, .seq = 9 };

	cr_assert(eq(sz, (size_t)send(fd, &q, sizeof(q), 0), sizeof(q)));
}

Test(outcome, told_over_the_socket_between_the_lock_requests)
{
	struct leases ls = { 0 };
	struct run_outcome o = { 0 };
	int sv[2];

	cr_assert(eq(int, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0));
	lease_client_set(sv[1], NULL);
	lease_client_tell(OUTCOME_RAN, 4242, NULL);
	request(sv[1], LEASE_RENEW);
	lease_client_tell(OUTCOME_FAILED, 0, "lost");
	lease_client_tell(OUTCOME_EXITED, 69, NULL);

	/* the message before the request, then the request, one a call */
	cr_assert(eq(int, leases_collect(&ls, &sv[0], &o), 1));
	cr_assert(eq(str, (char *)flags(&o), "ran "));
	cr_assert(eq(i64, o.token, 4242));
	cr_assert(eq(sz, ls.nq, 1), "the request is queued");
	cr_assert(eq(str, o.why, ""), "what follows the request waits");
	cr_assert(eq(int, leases_collect(&ls, &sv[0], &o), 1));
	cr_assert(eq(str, o.why, "lost"));
	cr_assert(eq(str, (char *)flags(&o), "ran exited "));
	cr_assert(eq(int, o.status, 69));
	cr_assert(eq(int, leases_collect(&ls, &sv[0], &o), 0), "nothing more has come");
	cr_assert(eq(sz, ls.nq, 1));

	close(sv[1]);		/* the run is gone */
	cr_assert(eq(int, leases_collect(&ls, &sv[0], &o), 1));
	cr_assert(eq(int, sv[0], -1), "closed");
	leases_free(&ls);
}

/* A scheduler without a connection of its own (no leases): the socket
 * carries the outcome alone, and a request on it is dropped. */
Test(outcome, told_where_the_run_connects_itself)
{
	struct run_outcome o = { 0 };
	int sv[2];

	cr_assert(eq(int, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0));
	lease_client_set(sv[1], NULL);
	lease_client_tell(OUTCOME_WAITING, 0, NULL);
	request(sv[1], LEASE_ACQUIRE);
	lease_client_tell(OUTCOME_SKIPPED, 0, "skipped: held by b pid 7");
	close(sv[1]);
	while (sv[0] >= 0 && leases_collect(NULL, &sv[0], &o) > 0)
		;
	cr_assert(eq(int, sv[0], -1), "read to its end, and closed");
	cr_assert(eq(str, (char *)flags(&o), "waiting skipped "));
	cr_assert(eq(str, o.why, "skipped: held by b pid 7"));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* supervise.c -- the wait loop: one poll(2) over the signalfd and the
 * backend's socket (while a renewal is in flight, or all along for a
 * backend that watches its session), with a timeout computed from the
 * next thing due (renewal, retry, stop, SIGKILL, --timeout). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/duration.h"
#include "proc/guard.h"
#include "core/lease.h"
#include "out/log.h"
#include "proc/supervise.h"
#include "core/task.h"

#define NEVER (1LL << 62)

struct loop {
	struct lr_supervise	*s;
	struct lr_child		*ch;
	struct lr_lease		 lease;
	int			 renewing;	/* a stable key to keep alive */
	long long		 next_renew;	/* when to send (or retry) */
	long long		 in_flight;	/* when the renewal in flight was sent, or -1 */
	long long		 asked;		/* when it was asked for: before the
						 * send, and any reconnect before it */
	long long		 waits[64];	/* each answer's wait (the last 64) */
	unsigned		 nwaits;
	long long		 reply_by;	/* give up on it then */
	int			 stopping;	/* SIGTERM sent */
	long long		 kill_at;	/* SIGKILL then, or NEVER */
	long long		 timeout_at;	/* --timeout, or NEVER */
	int			 doubt_said;	/* the unconfirmed-lease line was logged */
	int			 unacked_said;	/* the too-few-replicas line was logged */
	char			 last_err[512];	/* why the last renewal failed */
};

static long long
min2(long long a, long long b)
{
	return a < b ? a : b;
}

static long long
max2(long long a, long long b)
{
	return a > b ? a : b;
}

/* Note why lockrun stops the command, for the run's end entry: the first
 * reason only, as the first is what the others follow from. */
static void
said_why(struct loop *l, const char *fmt, const char *arg)
{
	if (l->s->why[0] == '\0')
		snprintf(l->s->why, sizeof(l->s->why), fmt, arg);
}

/* SIGTERM now and SIGKILL at kill_at: once, whatever asked first. */
static void
stop(struct loop *l, long long kill_at)
{
	if (l->stopping) {
		l->kill_at = min2(l->kill_at, kill_at);
		return;
	}
	l->stopping = 1;
	l->kill_at = kill_at;
	child_stop(l->ch, SIGTERM);
}

/* Someone else may run now: stop at once, not at the lease's end; and
 * SIGKILL by the lease's kill point at the latest, as lease_in_doubt()
 * does: a lost lock is not renewed, so the lease is not extended. */
static void
lock_lost(struct loop *l, long long now, int how, const char *why)
{
	struct lr_supervise *s = l->s;

	l->renewing = 0;
	l->in_flight = -1;
	s->lost = how;
	lr_event(LOG_ERR, "lost", NULL, "LOST LOCK %s: %s; %s", s->lock->keys.stable, why,
	    s->on_lost == ON_LOST_TERM ? "stopping the command (on_lost: term)" :
	    "the command goes on unprotected (on_lost: ignore)");
	if (s->on_lost == ON_LOST_TERM) {
		said_why(l, "lost the lock: %.170s", why);
		stop(l, min2(now + s->kill_after_ms, lease_kill_at(&l->lease)));
	}
}

static void
renew_failed(struct loop *l, long long now, const struct lr_err *e)
{
	char why[600];

	/* a session lock went with its connection: the database frees it as
	 * soon as it notices, and another run may take it then */
	if (lr_err_broke(e) && l->s->be->ops->session) {
		l->s->be->ops->close(l->s->be);
		snprintf(why, sizeof(why), "the session that held it is gone (%s)", e->msg);
		lock_lost(l, now, LOST_SESSION, why);
		return;
	}
	snprintf(l->last_err, sizeof(l->last_err), "%s", e->msg);
	/* an unanswered request poisons the stream; an error reply does not */
	if (lr_err_broke(e))
		l->s->be->ops->close(l->s->be);
	l->in_flight = -1;
	l->next_renew = now + lease_retry_delay(&l->lease);
}

/* A session lock lives as long as its connection: closing the connection
 * over a late answer would end the session and free the lock. Wait on for
 * the answer; the lease decides, as when Redis is silent (lease_in_doubt).
 * The server ends a session that goes silent for a TTL, from its side. */
static void
renew_slow(struct loop *l, const struct lr_err *e)
{
	snprintf(l->last_err, sizeof(l->last_err), "%s", e->msg);
	l->reply_by = NEVER;
	lr_event(LOG_WARNING, "renew-slow", NULL, "%s: %s; waiting for it while the "
	    "lease lasts", l->s->lock->keys.stable, e->msg);
}

static void
renew_send(struct loop *l, long long now)
{
	struct lr_supervise *s = l->s;
	struct lr_err e;
	long long signal_at = l->stopping ? l->kill_at :
	    s->on_lost == ON_LOST_TERM ? lease_term_at(&l->lease) : NEVER;
	long long cap = signal_at == NEVER ? NEVER : signal_at - now;
	long long wait = min2(s->be->cfg.command_timeout_ms, l->lease.ttl / 3);

	/* the server refuses the renewal once lockrun has given up on it
	 * (lock_renew_window()): after wait, or, on a session backend, whose
	 * answer is waited for while the lease lasts (renew_slow), at the
	 * lease's end -- or after wait, when the lease has ended (on_lost:
	 * ignore renews on) */
	s->lock->renew_within_ms = s->be->ops->session ?
	    max2(lease_deadline(&l->lease) - now, wait) : wait;
	/* a reconnect may not block past the next point at which the
	 * command must be signalled: SIGTERM, or SIGKILL once stopping */
	if (s->be->ops->renew_send(s->be, s->lock, cap, wait, &e) != 0) {
		renew_failed(l, now, &e);
		return;
	}
	l->asked = now;		/* the lease it brings counts from no later */
	now = mono_ms();	/* after a reconnect, which may have taken a while */
	l->in_flight = now;
	l->reply_by = now + wait;
}

/* The master renewed the key but too few replicas acknowledged it: a
 * failover could lose the renewal, so the lease is not extended in
 * lockrun's accounting; it is retried as after a renewal that got no
 * answer, on the same connection (the stream is in step). If no renewal
 * is acknowledged before the lease ends, the command is stopped in time,
 * as when Redis stops answering. */
static void
renew_unacked(struct loop *l, long long now)
{
	struct lr_supervise *s = l->s;
	struct lr_err e;

	lr_errf(&e, EX_UNAVAILABLE, "%s %s: renew: %s", s->be->ops->name, s->be->where,
	    s->lock->unacked);
	if (!l->unacked_said)
		lr_event(LOG_WARNING, "renew-unconfirmed", NULL, "%s: %s; the lease is not "
		    "extended until a renewal is acknowledged", s->lock->keys.stable, e.msg);
	l->unacked_said = 1;
	renew_failed(l, now, &e);
}

static void
renew_recv(struct loop *l, long long now)
{
	struct lr_supervise *s = l->s;
	enum renew_outcome out;
	struct lr_err e;
	int rc = s->be->ops->renew_recv(s->be, s->lock, &out, &e);

	if (rc == 0)
		return;
	if (rc < 0) {
		renew_failed(l, now, &e);
		return;
	}
	if (out == RENEW_LOST || out == RENEW_LOST_LATER) {
		lock_lost(l, now, out == RENEW_LOST ? LOST_TAKEN : LOST_FREED,
		    out == RENEW_LOST ? "another run holds it now" : "it was freed and "
		    "a later token drawn since (another run took it, or lockrun unlock "
		    "freed it)");
		return;
	}
	if (out == RENEW_UNCONFIRMED) {
		renew_unacked(l, now);
		return;
	}
	if (out == RENEW_LATE) {	/* refused, the stream in step: ask again */
		lr_errf(&e, EX_UNAVAILABLE, "%s %s: renew: it ran past its deadline by the "
		    "server's clock, so it changed nothing", s->be->ops->name, s->be->where);
		renew_failed(l, now, &e);
		return;
	}
	if (l->unacked_said)
		lr_event(LOG_INFO, "renew-acknowledged", NULL, "%s: replicas acknowledge "
		    "the renewals again", s->lock->keys.stable);
	l->unacked_said = 0;
	if (out == RENEW_RETAKEN)
		lr_event(LOG_WARNING, "retaken", NULL, "%s had vanished from %s (restart "
		    "without persistence, or deleted); took it back", s->lock->keys.stable,
		    s->be->ops->title);
	if (l->doubt_said)
		lr_event(LOG_WARNING, "server-back", NULL, "%s: %s answers again; lease "
		    "renewed%s", s->lock->keys.stable, s->be->ops->title,
		    l->stopping ? ", but the command is already being stopped" : "");
	l->doubt_said = 0;
	l->waits[l->nwaits++ % 64] = now - l->asked;
	/* an answer from a renewal sent before we asked counts from then */
	l->lease.confirmed = lease_counts_from(l->asked, s->lock->renew_sent_ms);
	l->in_flight = -1;
	l->next_renew = lease_renew_at(&l->lease);
	child_deadline(l->ch, lease_kill_at(&l->lease));
}

/* Redis has not confirmed the lease in time to be sure the command can
 * be stopped before it ends. */
static void
lease_in_doubt(struct loop *l, long long now)
{
	struct lr_supervise *s = l->s;
	char left[32];

	if (l->doubt_said)
		return;
	l->doubt_said = 1;
	duration_human(lease_deadline(&l->lease) - now, left, sizeof(left));
	if (s->on_lost == ON_LOST_TERM) {
		lr_event(LOG_ERR, "lease-unconfirmed", NULL, "LOST LOCK %s: %s has not "
		    "confirmed the lease (%s); stopping the command before it ends in %s "
		    "(on_lost: term)", s->lock->keys.stable, s->be->ops->title,
		    l->last_err[0] ? l->last_err : "no answer", left);
		said_why(l, "lost the lock: the server did not confirm the lease (%.120s)",
		    l->last_err[0] ? l->last_err : "no answer");
		stop(l, lease_kill_at(&l->lease));
	} else
		lr_event(LOG_ERR, "lease-unconfirmed", NULL, "LOST LOCK %s: %s has not "
		    "confirmed the lease (%s); it ends in %s, the command goes on "
		    "(on_lost: ignore)", s->lock->keys.stable, s->be->ops->title,
		    l->last_err[0] ? l->last_err : "no answer", left);
}

/* The tree ended with the lease past its term point and never said in
 * doubt: lockrun was stopped or starved, and the guard, keeping the
 * deadline, stopped the tree itself (guard.c, keep_deadline). Say so as
 * lease_in_doubt() would have, now that lockrun runs again. */
static void
lease_overrun(struct loop *l, long long now)
{
	char late[32];

	if (!l->renewing || l->doubt_said || l->s->on_lost != ON_LOST_TERM ||
	    l->ch->ctl < 0 || now < lease_term_at(&l->lease))
		return;
	l->doubt_said = 1;
	lr_event(LOG_ERR, "lease-unconfirmed", NULL, "LOST LOCK %s: lockrun did not "
	    "renew the lease in time (stopped or starved for %s past the renewal); "
	    "the guard stopped the command before the lease ended", l->s->lock->keys.stable,
	    duration_human(now - l->next_renew, late, sizeof(late)));
}

/* The socket to poll: the renewal's answer, while one is in flight; and
 * between renewals too for a backend that watches its session (idle_read),
 * since a session lock ends with its session, whenever that is. */
static int
watched_fd(const struct loop *l)
{
	const struct lr_backend *be = l->s->be;

	if (!l->renewing || (l->in_flight < 0 && be->ops->idle_read == NULL))
		return -1;
	return be->ops->fd(be);
}

/* The socket became readable between renewals. The server ending the
 * session (pg_terminate_backend(), KILL) or a cut connection (end of
 * file, a reset) takes the session lock with it at once: the lock is
 * lost now, not at the next renewal. Newcomers still wait for the lease,
 * but only until it ends, so the command must be gone by then: SIGKILL
 * at lease_kill_at() at the latest, as when the lease is unconfirmed. */
static void
idle_readable(struct loop *l, long long now)
{
	struct lr_err e;

	if (l->s->be->ops->idle_read(l->s->be, &e) == 0)
		return;		/* a notice: the session goes on */
	e.kind = LR_ERR_TRANSPORT;
	renew_failed(l, now, &e);
	if (l->stopping)
		stop(l, lease_kill_at(&l->lease));
}

/* Act on whatever is due at now; return when the next thing is due. */
static long long
due(struct loop *l, long long now)
{
	long long next = NEVER;

	if (l->renewing) {
		if (l->in_flight >= 0 && now >= l->reply_by) {
			struct lr_err e;
			char d[32];
			lr_errf(&e, EX_UNAVAILABLE, "%s %s: renew: no answer within %s",
			    l->s->be->ops->name, l->s->be->where,
			    duration_human(l->reply_by - l->in_flight, d, sizeof(d)));
			e.kind = LR_ERR_TIMEOUT;
			if (l->s->be->ops->session)
				renew_slow(l, &e);
			else
				renew_failed(l, now, &e);
		}
		if (l->in_flight < 0 && now >= l->next_renew)
			renew_send(l, now);
		if (now >= lease_term_at(&l->lease))
			lease_in_doubt(l, now);
		next = l->in_flight >= 0 ? l->reply_by : l->next_renew;
		if (!l->doubt_said)
			next = min2(next, lease_term_at(&l->lease));
	}
	if (now >= l->timeout_at && !l->s->timed_out) {
		char d[32];

		l->s->timed_out = 1;
		lr_event(LOG_ERR, "stopped-timeout", NULL, "--timeout reached; stopping "
		    "the command");
		said_why(l, "timeout: stopped after %s", duration_human(l->s->timeout_ms, d,
		    sizeof(d)));
		stop(l, now + l->s->kill_after_ms);
	}
	if (!l->s->timed_out)
		next = min2(next, l->timeout_at);
	if (l->stopping && now >= l->kill_at) {
		child_stop(l->ch, SIGKILL);
		l->kill_at = NEVER;
	}
	return l->stopping ? min2(next, l->kill_at) : next;
}

/* The command has ended with a renewal in flight: wait for its answer
 * (until reply_by) rather than drop it, so that it cannot reach Redis after
 * the release and put the key back. A session backend's slow renewal is
 * waited for while the lease lasts (renew_slow: reply_by NEVER), and no
 * longer: past the lease's end the answer cannot matter. */
static void
finish_renewal(struct loop *l)
{
	while (l->in_flight >= 0) {
		long long now = mono_ms();
		long long until = min2(l->reply_by, lease_deadline(&l->lease));
		struct pollfd pfd = { .fd = l->s->be->ops->fd(l->s->be), .events = POLLIN };

		if (now >= until || poll(&pfd, 1, (int)min2(until - now, INT_MAX)) <= 0) {
			l->s->be->ops->close(l->s->be);	/* no answer: a new connection */
			return;
		}
		renew_recv(l, mono_ms());
	}
}

/* How long the renewals' answers were waited for (the last 64): the
 * median and the longest into s, for the run's end record, where they
 * show how close it came to its term point (a scheduler that answered
 * late, a server slow). */
static void
waits_said(struct loop *l)
{
	unsigned n = l->nwaits < 64 ? l->nwaits : 64;
	long long v[64];

	l->s->wait_med_ms = l->s->wait_max_ms = -1;
	if (n == 0)
		return;
	memcpy(v, l->waits, n * sizeof(*v));
	for (unsigned i = 1; i < n; i++)	/* insertion sort: n <= 64 */
		for (unsigned k = i; k > 0 && v[k - 1] > v[k]; k--) {
			long long t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	l->s->wait_med_ms = v[n / 2];
	l->s->wait_max_ms = v[n - 1];
}

int
supervise(struct lr_supervise *s, struct lr_err *e)
{
	struct loop l = { .s = s, .in_flight = -1, .kill_at = NEVER, .timeout_at = NEVER };
	int ended = 0;

	s->why[0] = '\0';	/* each attempt's own */
	l.renewing = s->be != NULL && s->lock != NULL && s->lock->ttl_ms > 0;
	l.lease.ttl = s->lock ? s->lock->ttl_ms : 0;
	l.lease.kill_after = s->kill_after_ms;
	l.lease.confirmed = s->acquired_at;
	l.next_renew = lease_renew_at(&l.lease);
	l.ch = s->child;
	if (child_start(l.ch, s->spec, s->vars, l.renewing ? lease_kill_at(&l.lease) : NEVER,
	    e) != 0)
		return -1;
	if (s->timeout_ms > 0)
		l.timeout_at = mono_ms() + s->timeout_ms;
	while (!ended) {
		long long next = due(&l, mono_ms()), now = mono_ms();	/* due() may block */
		struct pollfd pfd[5] = {
			{ .fd = l.ch->sfd, .events = POLLIN },
			{ .fd = watched_fd(&l), .events = POLLIN },
			{ .fd = l.ch->ctl, .events = POLLIN },
			{ .fd = -1 }, { .fd = -1 },
		};
		int wait = next == NEVER ? -1 : (int)(next > now ? min2(next - now, 1 << 30) : 0);
		long long rest = s->capture ? capture_poll(s->capture, &pfd[3], now) : -1;

		if (rest >= 0 && (wait < 0 || rest < wait))
			wait = (int)rest;
		if (poll(pfd, 5, wait) == -1 && errno != EINTR) {
			/* out of memory, say: the lock cannot be kept, so nothing
			 * of the command may outlive this loop */
			guard_kill_all();
			break;
		}
		if ((pfd[1].revents & (POLLIN | POLLERR | POLLHUP)) && l.in_flight >= 0)
			renew_recv(&l, mono_ms());
		else if (pfd[1].revents & (POLLIN | POLLERR | POLLHUP))
			idle_readable(&l, mono_ms());
		if (pfd[0].revents & POLLIN)
			ended = child_event(l.ch);
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
			ended |= child_guard_event(l.ch);
		if (s->capture)
			capture_ready(s->capture, &pfd[3]);
	}
	/* what the tree wrote last is in the pipes: passed on, within a
	 * bound that a stalled reader cannot stretch past the lease */
	if (s->capture)
		capture_drain(s->capture, mono_ms() + min2(s->kill_after_ms, 2000));
	if (l.ch->guard_died)
		lr_event(LOG_ERR, "guard-killed", NULL, "the guard process was killed by "
		    "signal %d; killed what was left of the command", l.ch->guard_died);
	if (ended)
		lease_overrun(&l, mono_ms());
	finish_renewal(&l);
	waits_said(&l);
	s->confirmed = l.lease.confirmed;
	if (!ended)
		return lr_errf(e, EX_OSERR, "poll: %s", "failed");
	return s->timed_out ? LR_EXIT_TIMEOUT : l.ch->status;
}

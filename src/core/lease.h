/* SPDX-License-Identifier: BSD-2-Clause */
/* lease.h -- the lock as a lease on lockrun's own monotonic clock: when to
 * renew, when the lease ends if Redis stops answering, and when to stop
 * the command so that it is gone before then. Pure arithmetic, in ms. */
#ifndef LR_LEASE_H
#define LR_LEASE_H

struct lr_lease {
	long long	ttl;		/* the key's TTL */
	long long	kill_after;	/* SIGTERM to SIGKILL */
	long long	confirmed;	/* when the last request Redis confirmed (the
					 * acquire, then each renewal) was sent */
};

/* The instant a lease the server confirmed counts from, the one rule for
 * every path that starts, retries or keeps a command: the send of the
 * request the server confirmed, which it received after that send -- sent,
 * when the answer names it (a scheduler's batch, sched/leases.c; 0 when it
 * names none) -- but never later than asked, when the caller asked for it:
 * an answer from the scheduler's lease table names a batch sent before the
 * caller asked, and counting from the ask would end the lease after the
 * server's. Each is on the monotonic clock. */
long long lease_counts_from(long long asked, long long sent);

/* The lease ends here at the latest: Redis set the expiry when it received
 * the request, which was after it was sent. */
long long lease_deadline(const struct lr_lease *l);

/* When to send the next renewal: a third of the TTL after the last one
 * that was confirmed. */
long long lease_renew_at(const struct lr_lease *l);

/* Slack kept before the deadline for the kernel to deliver SIGKILL and for
 * lockrun to reap: a tenth of the TTL, between 50ms and 1s. */
long long lease_margin(const struct lr_lease *l);

/* With no renewal confirmed, SIGTERM the command here and SIGKILL it at
 * lease_kill_at(), so that it is gone before the deadline. */
long long lease_term_at(const struct lr_lease *l);
long long lease_kill_at(const struct lr_lease *l);

/* Is a lease whose acquire was answered at now too short to start a
 * command under? When its first renewal point has passed (less than two
 * thirds of the TTL left) or its SIGTERM point has: the command would
 * start with its renewal already due and one stall of a renewal's round
 * trip from being stopped -- or be stopped at once. A start answered so
 * late is given up (its lock released), not started and killed. */
int	lease_too_late(const struct lr_lease *l, long long now);

/* How long to wait before a renewal that failed is tried again. */
long long lease_retry_delay(const struct lr_lease *l);

/* The pause before acquire attempt number n (0, 1, ...) while waiting for a
 * held lock: exponential from 25ms, capped at 500ms, with "equal jitter"
 * (half fixed, half random from r in [0, 1)), so waiters spread out
 * instead of knocking together. */
long long lease_backoff_delay(int n, double r);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* outcome.h -- how a run that a scheduler forked goes, told by the run
 * itself as typed messages over its socket pair with the scheduler
 * (lease_wire.h's LEASE_OUTCOME; lease_client.c sends them, leases.c
 * reads them), and what the scheduler keeps of them. The run's log lines
 * still reach the scheduler's log (report.c), for people; nothing the
 * scheduler decides is read from them. */
#ifndef LR_SCHED_OUTCOME_H
#define LR_SCHED_OUTCOME_H

#include <stddef.h>

/* What one message says. */
enum outcome_kind {
	OUTCOME_WAITING = 1,	/* it waits for a held lock (wait:) */
	OUTCOME_RAN,		/* it took its lock (token), or runs without one
				 * (on_server_error: run; token 0) */
	OUTCOME_SKIPPED,	/* it skipped: held, slot taken, paused, another
				 * host's (why: its line's message) */
	OUTCOME_CLOCK_OFF,	/* it claimed no slot: this host's clock is off
				 * against the lock server's (why) */
	OUTCOME_TOO_LATE,	/* it started nothing, too late for its slot or
				 * its lease (why): the slot is missed */
	OUTCOME_FAILED,		/* the error that ends it (why) */
	OUTCOME_EXITED,		/* its last word: lockrun's exit status (128 + a
				 * signal's number when one ended the command) */
	OUTCOME_KINDS
};

#define OUTCOME_WHY_MAX	511	/* bytes of a reason kept: the rest is cut */

/* One message, as the run fills it and the scheduler reads it. */
struct outcome_msg {
	int		kind;		/* enum outcome_kind */
	int		status;		/* OUTCOME_EXITED's */
	long long	token;		/* OUTCOME_RAN's; 0 none */
	size_t		why_len;	/* bytes of why, at most OUTCOME_WHY_MAX */
	char		why[OUTCOME_WHY_MAX + 1];	/* NUL-terminated too */
};

/* On the wire: a fixed head, then why_len bytes of why (no NUL), in one
 * message of the socket pair. */
struct outcome_head {
	int		op;		/* LEASE_OUTCOME: not a lock request */
	int		kind;
	int		status;
	unsigned	why_len;
	long long	token;
};
#define OUTCOME_WIRE_MAX	(sizeof(struct outcome_head) + OUTCOME_WHY_MAX)

/* A message of kind, with why (NULL: none) cut to OUTCOME_WHY_MAX bytes. */
void	outcome_msg_set(struct outcome_msg *m, int kind, const char *why);

/* m into buf[cap]: its length, or 0 when m is not a message (a kind
 * unknown, why_len over OUTCOME_WHY_MAX) or cap too small. */
size_t	outcome_encode(const struct outcome_msg *m, void *buf, size_t cap);

/* A message of len bytes from buf into *m. Returns 0, or -1 when it is
 * not one: not LEASE_OUTCOME, a kind unknown, why_len over the maximum or
 * not what follows the head. */
int	outcome_decode(const void *buf, size_t len, struct outcome_msg *m);

/* What the scheduler knows of a run from its messages, from zero. */
struct run_outcome {
	int		ran;		/* took its lock, or runs without one */
	int		skipped;
	int		waiting;
	int		clock_off;
	int		too_late;
	int		exited;		/* said its exit status (status) */
	int		status;
	long long	token;		/* its fencing token once it took the lock; 0 */
	char		why[OUTCOME_WHY_MAX + 1];	/* a skip's, a clock's, a
					 * too-late's message, or its last error */
};

/* Learn m: its flag, its token, its reason (the latest one stands). */
void	outcome_apply(struct run_outcome *o, const struct outcome_msg *m);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* lease_wire.h -- what a run forked by a scheduler and the scheduler say
 * to each other over their socket pair (SOCK_SEQPACKET: one message per
 * write, arriving whole): the run's lock requests, when they go over the
 * scheduler's connection instead of one of its own, and their answers;
 * and, whether they do or not, how the run goes (outcome.h) and the
 * run's log records, unanswered (lease_client.c, the run's side;
 * leases.c, the scheduler's). Both ends
 * are this program, forked: the structures go as they are. Every message
 * from the run starts with its op, an int. */
#ifndef LR_LEASE_WIRE_H
#define LR_LEASE_WIRE_H

#include "backend/lock.h"
#include "backend/record.h"

enum lease_op {
	LEASE_ACQUIRE,		/* ops->acquire(lock) */
	LEASE_RENEW,		/* ops->renew_send(lock, cap_ms, wait_ms), then
				 * renew_recv until it answers */
	LEASE_RELEASE,		/* ops->release(lock, end) */
	LEASE_OUTCOME,		/* no request: how the run goes (outcome.h's
				 * struct outcome_head), not answered */
	LEASE_LOG,		/* no request: one record of the run's log
				 * (out/log.h's log_report(), its newline
				 * included) after the op, passed on where
				 * the scheduler's JSON lines go, not answered */
};

/* A release carries the end of its run's output (lr_ending.output, core/
 * tail.h's lines) after the structure, in the same message: at most this
 * much of it, whole lines, the last ones (a message must fit the socket's
 * buffer, about 208 KiB by default). */
#define LEASE_OUTPUT_MAX	(128 * 1024)

struct lease_req {
	int		op;		/* enum lease_op */
	unsigned	seq;		/* echoed in the reply */
	long long	cap_ms, wait_ms;	/* LEASE_RENEW's */
	int		has_event;	/* end.event is event, else NULL */
	char		event[32];
	struct lr_ending end;		/* LEASE_RELEASE's; event: see above */
	struct lr_lock	lock;
};

struct lease_rep {
	unsigned	seq;
	int		rc;		/* what the operation returned */
	int		out;		/* enum lock_outcome or renew_outcome */
	struct lr_err	e;		/* when rc < 0 */
	struct lr_lock	lock;		/* as the operation left it */
};

#endif

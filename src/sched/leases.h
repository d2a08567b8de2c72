/* SPDX-License-Identifier: BSD-2-Clause */
/* leases.h -- the scheduler's side of its runs' locks: one connection to
 * the server for all of them; and of how each run goes, which it tells
 * over the same socket pair (outcome.h). A run forked with a socket pair
 * sends its acquire, renewals and release there (lease_client.h); the
 * scheduler
 * runs them over its own backend and answers, the acquires and the
 * releases that came in one turn of its loop each in one batch. It keeps
 * a table of the leases its runs hold: a renewal asked for renews, in one
 * batch (backend_renew_many()), every lease past a sixth of its TTL, and
 * a run that asks after such a batch renewed its lease is answered from
 * the table, with the instant that batch was sent. */
#ifndef LR_SCHED_LEASES_H
#define LR_SCHED_LEASES_H

#include "backend/ops.h"
#include "sched/report.h"

struct held;
struct asked;
struct run_outcome;

struct leases {
	struct lr_backend	*be;	/* set up, connected on first use; borrowed */
	long long		 connect_timeout_ms;
	struct held		*v;		/* the leases held, one per run */
	size_t			 n, cap;
	struct asked		*q;		/* read, not yet run */
	size_t			 nq, capq;
	long long		 answered_ms;	/* mono: the server last answered
						 * a request here (away.h) */
	struct report_once	 said;	/* an answer not sent (report.h) */
};

/* Read what has come on *fd, a run's end of the socket pair
 * (non-blocking): each outcome message, learnt into o (outcome.h; NULL:
 * read and dropped), and each record of the run's log, passed on
 * (log_relay()), then a request, if one has come, to run at
 * leases_flush(): one a call, so that a run's requests are run in the
 * order it sent them, and LEASES_ASKED_MAX at most a flush, the others
 * left in their sockets for the next (a request holds two copies of a
 * lock, 15 KB: a thousand runs renewing at once would hold 15 MB, while
 * the first batch renews every lease due and the next are answered from
 * the table). ls NULL (the runs connect themselves): the outcomes
 * only. Once the run's end is closed (its run and guard are gone), its
 * lease is forgotten, *fd closed and set to -1. Returns 1 when something
 * was read (or *fd closed), 0 when nothing had come. */
int	leases_collect(struct leases *ls, int *fd, struct run_outcome *o);
#define LEASES_ASKED_MAX	64

/* Run the requests collected over ls->be, within its connect and command
 * timeouts, and answer each on its run's socket: the releases in one
 * batch (backend_release_many()), then the acquires in one
 * (backend_acquire_many()), but those whose run has given up on them,
 * then each renewal. ls NULL: nothing (the runs connect themselves). */
void	leases_flush(struct leases *ls);

/* Free the tables (the connection is the caller's). */
void	leases_free(struct leases *ls);

#endif

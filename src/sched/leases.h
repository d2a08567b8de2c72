/* SPDX-License-Identifier: BSD-2-Clause */
/* leases.h -- the scheduler's side of its runs' locks: one connection to
 * the server for all of them. A run forked with a socket pair sends its
 * acquire, renewals and release there (lease_client.h); the scheduler
 * runs each over its own backend and answers. It keeps a table of the
 * leases its runs hold: a renewal asked for renews, in one batch
 * (backend_renew_many()), every lease past a sixth of its TTL, and a run
 * that asks after such a batch renewed its lease is answered from the
 * table, with the instant that batch was sent. */
#ifndef LR_SCHED_LEASES_H
#define LR_SCHED_LEASES_H

#include "backend/ops.h"

struct held;

struct leases {
	struct lr_backend	*be;	/* set up, connected on first use; borrowed */
	long long		 connect_timeout_ms;
	unsigned long long	 served;	/* requests answered */
	unsigned long long	 batches;	/* renewal batches sent */
	struct held		*v;		/* the leases held, one per run */
	size_t			 n, cap;
};

/* Answer what has come on *fd, a run's end of the socket pair (non-
 * blocking): each request run over ls->be in turn, within its connect and
 * command timeouts, and answered on *fd. Once the run's end is closed
 * (its run and guard are gone), its lease is forgotten, *fd closed and
 * set to -1. */
void	leases_serve(struct leases *ls, int *fd);

/* Free the table (the connection is the caller's). */
void	leases_free(struct leases *ls);

#endif

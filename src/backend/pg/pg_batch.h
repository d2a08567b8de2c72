/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_batch.h -- a scheduler's batch of leases in PostgreSQL: one statement
 * a lease, all of them in one write, one answer and one transaction
 * (pg_conn_pipeline()), as renew_many, acquire_many and release_many
 * (ops.h) send them. */
#ifndef LR_PG_BATCH_H
#define LR_PG_BATCH_H

#include "backend/pg/pg_conn.h"

/* What varies from one operation's batch to another's. */
struct pg_batch {
	const char	*what;		/* "renew", "acquire", "release": in messages */
	long long	 wait_ms;	/* the answer is waited for this long, or the
					 * command timeout if longer */
	/* The answer to lease i's statement (res, which it clears): what the
	 * single form returns (with e). */
	int		(*answer)(struct lr_backend *b, void *arg, size_t i, PGresult *res,
			    struct lr_err *e);
	/* Lease i's statement ran and the batch was undone: put right what
	 * the rollback does not (a session lock it took). NULL: nothing. */
	void		(*undone)(struct lr_backend *b, void *arg, size_t i);
	void		*arg;
};

/* The n leases' statements s[i] (sql NULL: lease i has none, its rc[i]
 * is the caller's), in the order of their tasks' stable keys key[i]:
 * two schedulers' batches over the same tasks then lock their rows in
 * the same order, and never wait for each other in opposite orders (a
 * deadlock, which the server would break by failing one batch). Returns
 * as ops.h's batch forms: 0 with rc[i] (err[i]) for each statement, from
 * bt->answer; 1 when the batch was undone (a statement refused: bt->undone
 * has been called for each that ran) or cannot go as one (no pipeline
 * mode): the caller makes them one at a time, so that a failure is that
 * lease's alone; -1 with e, the connection closed. */
int	pg_batch_run(struct lr_backend *b, const struct pg_batch *bt, const struct pg_stmt *s,
	    const char *const *key, size_t n, int *rc, struct lr_err *err, struct lr_err *e);

#endif

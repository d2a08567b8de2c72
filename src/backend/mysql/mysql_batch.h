/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_batch.h -- a scheduler's batch of leases in MySQL/MariaDB: each
 * lease's string of statements (a group) in turn in one string, one
 * exchange, each answered by its own row, as
 * renew_many, acquire_many and release_many (ops.h) send them. */
#ifndef LR_MYSQL_BATCH_H
#define LR_MYSQL_BATCH_H

#include "backend/mysql/mysql_args.h"

/* What varies from one operation's batch to another's. */
struct my_batch {
	const char	*what;		/* "renew", "acquire", "release": in messages */
	const char	*undone_if;	/* an SQL condition on the variables of a
					 * group refused before its answer: it left
					 * its session lock taken; NULL never */
	const char	*tail;		/* sent behind the last group (the cleanup of
					 * expired rows), or NULL */
	/* Lease i's group into q: its inputs, @lr_group := group among them,
	 * then its statements. */
	void		(*group)(struct lr_backend *b, void *arg, size_t i, size_t group,
			    struct myq *q);
	/* Lease i's answer a: what the single form returns (with e). */
	int		(*answer)(struct lr_backend *b, void *arg, size_t i,
			    const struct my_answer *a, struct lr_err *e);
	void		*arg;
};

/* The m leases idx[0..m) (indices into rc[], err[]) in as few exchanges
 * as the server allows: all of them in one; when the server refuses a
 * statement, the groups answered before it stand, and the rest go again
 * in the next exchange, past the refused group when the refusal was its
 * own (rc -1 with its error, and what it took let go). Returns as ops.h's
 * batch forms: 0 with rc[idx[k]] (err) each; 1 when nothing was done
 * and they are to go one at a time (a table missing: each alone creates
 * it); -1 with e when nothing was answered and the connection is closed.
 * Leases whose requests were cut off by a closed connection after others
 * were answered fail with its error (lr_err_broke()). */
int	my_batch_run(struct lr_backend *b, const struct my_batch *bt, const size_t *idx,
	    size_t m, int *rc, struct lr_err *err, struct lr_err *e);

#endif

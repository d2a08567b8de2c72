/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_withdraw.h -- take back an acquire that went unanswered. */
#ifndef LR_PG_WITHDRAW_H
#define LR_PG_WITHDRAW_H

#include "backend/pg/pg_conn.h"

#define PG_WITHDRAW_PARAMS	12

/* The acquire went unanswered and may have run in time (its answer lost):
 * on the connection b has now (a new one: the old session, and its
 * session lock, went when it was closed), delete the stable and slot
 * rows that hold l's owner id, take the "ran" entry they wrote out of the
 * history and its count, and record "withdrawn" with end->status.
 * Returns 1 when the acquire had taken effect, 0 when nothing held the
 * id (it never ran, or was refused as late; nothing recorded), -1 with e. */
int	pg_withdraw(struct lr_backend *b, const struct lr_lock *l,
	    const struct lr_ending *end, struct lr_err *e);

/* The same as one statement of a batch (pg_batch.h): its parameters for
 * l and end, in a's buffers; its answer, res (cleared), read as
 * pg_withdraw() returns it. */
struct pg_withdraw_args {
	char		 host[256], pid[32], status[24], cap[24], hist_ttl[24];
	const char	*params[PG_WITHDRAW_PARAMS];
};
extern const char pg_sql_withdraw[];
void	pg_withdraw_args(struct pg_withdraw_args *a, const struct lr_lock *l,
	    const struct lr_ending *end);
int	pg_withdraw_answer(struct lr_backend *b, PGresult *res, struct lr_err *e);

#endif

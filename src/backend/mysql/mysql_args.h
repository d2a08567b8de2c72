/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_args.h -- what the MySQL/MariaDB lock's operations share
 * (mysql_lock.c has acquire and release, mysql_renew.c the renewal,
 * mysql.c unlock): a lease's inputs and the answer row each gives. */
#ifndef LR_MYSQL_ARGS_H
#define LR_MYSQL_ARGS_H

#include "backend/mysql/mysql_conn.h"

/* An answer of one row (code, text), as acquire, renew, release and
 * unlock give. */
struct my_answer {
	int		got;
	long long	code;
	int		null;		/* text is SQL NULL */
	char		text[512];
	long long	now_ms;		/* a third column: the server's clock */
};

/* "host pid" (of "host pid start") as @host and @pid. */
void	my_who_vars(struct myq *q, MYSQL *db, const char *who);
/* The inputs acquire, renew and release share, l's, into q's SET. */
void	my_lock_vars(struct myq *q, MYSQL *db, const struct lr_lock *l);
/* A my_row_fn: the row into arg, a struct my_answer. */
int	my_answer_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf);
/* The answer to what is not the shape asked for: close (it is no server
 * of ours), fill e. Returns -1. */
int	my_no_answer(struct lr_backend *b, const char *what, struct lr_err *e);

#endif

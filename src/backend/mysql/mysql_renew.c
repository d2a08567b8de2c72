/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_renew.c -- a lease renewed in MySQL/MariaDB (mysql_renew.h):
 * mysql_sql_renew with a lease's inputs, one at a time without blocking
 * (a run's own connection: renew_send, then renew_recv), or, for a
 * scheduler that holds its runs' leases, each lease's statements in turn
 * in one string (CLIENT_MULTI_STATEMENTS), each answered by its own row:
 * one exchange a renewal period however many leases, where one each cost
 * an exchange apiece (300 leases: 300 every third of the TTL). */
#include <stdio.h>
#include <stdlib.h>

#include "backend/mysql/mysql_conn.h"
#include "backend/mysql/mysql_lock.h"
#include "backend/mysql/mysql_renew.h"
#include "backend/mysql/mysql_sql.h"

/* The renewal's inputs, l's, its window set from now. */
static void
renew_vars(struct myq *q, MYSQL *db, struct lr_lock *l)
{
	my_lock_vars(q, db, l);
	myq_str(q, db, "val", l->value);
	myq_str(q, db, "token", l->token_s);
	lock_renew_window(l);
	myq_ll(q, "deadline", l->renew_deadline_ms);
	myq_end(q);
}

int
my_renew_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
    long long wait_ms, struct lr_err *e)
{
	struct my *m = b->impl;
	struct myq q = { 0 };
	int rc;

	(void)cap_ms;	/* a session lock is not carried across a new connection */
	(void)wait_ms;
	if (m->db == NULL)
		return my_not_connected(b, "renew", e);
	renew_vars(&q, m->db, l);
	myq_add(&q, mysql_sql_renew);
	rc = my_send(b, "renew", &q, e);
	free(q.s);
	m->renewing = rc == 0;
	return rc;
}

/* The answer to l's renewal, a: 1 with *out, or -1 with e (closed). */
static int
renew_answer(struct lr_backend *b, struct lr_lock *l, const struct my_answer *a,
    enum renew_outcome *out, struct lr_err *e)
{
	static const enum renew_outcome outcomes[] = {
		RENEW_LOST, RENEW_OK, RENEW_RETAKEN, RENEW_LOST_LATER, RENEW_LATE,
	};

	if (!a->got || a->code < 0 || a->code > 4)
		return my_no_answer(b, "renew", e);
	lock_renew_note(l, a->now_ms);
	*out = outcomes[a->code];
	if (*out == RENEW_LOST || *out == RENEW_LOST_LATER)
		snprintf(l->holder, sizeof(l->holder), "%s", a->text);
	return 1;
}

int
my_renew_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out,
    struct lr_err *e)
{
	struct my *m = b->impl;
	struct my_answer a = { 0 };

	if (!m->renewing)
		return lr_errf(e, EX_SOFTWARE, "mysql %s: renew: nothing sent", b->where);
	m->renewing = 0;
	if (my_recv(b, "renew", 1, my_answer_row, &a, e) != 0)
		return -1;
	return renew_answer(b, l, &a, out, e);
}

/* The answers of a batch: set i is group i's. */
static int
answer_rows(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct my_answer *a = arg;

	return a[set].got ? -1 : my_answer_row(&a[set], 0, row, nf);
}

/* The renewals of l[at..n) as one exchange, each lease's group in turn
 * (renew_group()), their answers into rc[], out[], err[]: as
 * my_exec_groups() returns, with *answered. */
static int
renew_groups(struct lr_backend *b, struct lr_lock *const *l, size_t at, size_t n,
    enum renew_outcome *out, int *rc, struct lr_err *err, size_t *answered,
    struct lr_err *e)
{
	struct my *m = b->impl;
	struct my_answer *a = calloc(n - at + 1, sizeof(*a));
	struct myq q = { 0 };
	int got;

	*answered = 0;
	if (a == NULL)
		return lr_errf(e, EX_OSERR, "mysql %s: renew: out of memory", b->where);
	for (size_t i = at; i < n; i++) {
		if (i > at)
			myq_add(&q, ";\n");
		renew_vars(&q, m->db, l[i]);
		myq_add(&q, mysql_sql_renew);
	}
	got = my_exec_groups(b, "renew", &q, n - at, answer_rows, a, answered, e);
	for (size_t k = 0; got >= 0 && got < 2 && k < *answered; k++)
		rc[at + k] = renew_answer(b, l[at + k], &a[k], &out[at + k], &err[at + k]);
	free(q.s);
	free(a);
	return got;
}

/* A scheduler's renewals in one exchange, each lease's statements in turn
 * (CLIENT_MULTI_STATEMENTS), each answered by its own row: one round trip
 * a renewal period however many leases. The server stops at the first
 * statement it refuses: the groups answered before stand; the next is
 * sent again at the head of the rest, and when it is refused there too,
 * before any answer, the failure is that lease's alone, and the rest go
 * on in the next exchange. */
int
my_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n, long long cap_ms,
    long long wait_ms, enum renew_outcome *out, int *rc, struct lr_err *err,
    struct lr_err *e)
{
	size_t at = 0, answered;
	int got;

	(void)cap_ms;	/* a session lock is not carried across a new connection */
	(void)wait_ms;	/* the read timeout bounds the wait for each group's
			 * answer, which come one after another, not the batch's */
	if (((struct my *)b->impl)->db == NULL)
		return my_not_connected(b, "renew", e);
	while (at < n) {
		got = renew_groups(b, l, at, n, out, rc, err, &answered, e);
		if (got == 2 || (got < 0 && at == 0))
			return got < 0 ? -1 : 1;
		if (got < 0) {		/* the rest failed with it */
			for (size_t i = at; i < n; i++) {
				rc[i] = -1;
				err[i] = *e;
			}
			return 0;
		}
		if (got == 1 && answered == 0) {
			rc[at] = -1;	/* refused at its head: its own */
			err[at++] = *e;
		}
		at += answered;
		if (got == 0)
			break;
	}
	return 0;
}

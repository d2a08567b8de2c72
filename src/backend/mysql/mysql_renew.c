/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_renew.c -- a lease renewed in MySQL/MariaDB (mysql_renew.h):
 * mysql_sql_renew with a lease's inputs, one at a time without blocking
 * (a run's own connection: renew_send, then renew_recv), or, for a
 * scheduler that holds its runs' leases, each lease's statements in turn
 * in one string (CLIENT_MULTI_STATEMENTS, mysql_batch.h), each answered
 * by its own row: one exchange a renewal period however many leases,
 * where one each cost an exchange apiece (300 leases: 300 every third of
 * the TTL). */
#include <stdio.h>
#include <stdlib.h>

#include "backend/mysql/mysql_args.h"
#include "backend/mysql/mysql_batch.h"
#include "backend/mysql/mysql_conn.h"
#include "backend/mysql/mysql_renew.h"
#include "backend/mysql/mysql_sql.h"

/* The renewal's inputs, l's, its window set from now; and its group's
 * index in a batch (below 0: none). */
static void
renew_vars(struct myq *q, MYSQL *db, struct lr_lock *l, long long group)
{
	my_lock_vars(q, db, l);
	myq_str(q, db, "val", l->value);
	myq_str(q, db, "token", l->token_s);
	lock_renew_window(l);
	myq_ll(q, "deadline", l->renew_deadline_ms);
	if (group >= 0)
		myq_ll(q, "lr_group", group);
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
	renew_vars(&q, m->db, l, -1);
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

struct renews {
	struct lr_lock *const	*l;
	enum renew_outcome	*out;
};

static void
renew_group(struct lr_backend *b, void *arg, size_t i, size_t group, struct myq *q)
{
	struct renews *r = arg;

	renew_vars(q, ((struct my *)b->impl)->db, r->l[i], (long long)group);
	myq_add(q, mysql_sql_renew);
}

static int
renew_each(struct lr_backend *b, void *arg, size_t i, const struct my_answer *a,
    struct lr_err *e)
{
	struct renews *r = arg;

	return renew_answer(b, r->l[i], a, &r->out[i], e);
}

/* A scheduler's renewals in one exchange (mysql_batch.h): one round
 * trip a renewal period however many leases. A renewal is statements
 * that commit each, no transaction: one refused changes none of the
 * others. */
int
my_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n, long long cap_ms,
    long long wait_ms, enum renew_outcome *out, int *rc, struct lr_err *err,
    struct lr_err *e)
{
	struct renews r = { l, out };
	struct my_batch bt = { "renew", NULL, NULL, renew_group, renew_each, &r };
	size_t *idx = calloc(n + 1, sizeof(*idx));
	int got;

	(void)cap_ms;	/* a session lock is not carried across a new connection */
	(void)wait_ms;	/* the read timeout bounds the wait for each group's
			 * answer, which come one after another, not the batch's */
	if (((struct my *)b->impl)->db == NULL) {
		free(idx);
		return my_not_connected(b, "renew", e);
	}
	if (idx == NULL)
		return lr_errf(e, EX_OSERR, "mysql %s: renew: out of memory", b->where);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	got = my_batch_run(b, &bt, idx, n, rc, err, e);
	free(idx);
	return got;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_batch.c -- a scheduler's batch of leases in MySQL/MariaDB
 * (mysql_batch.h): the groups from the first not yet answered in one
 * exchange, again past each refusal, their answers handed to the
 * operation's reader. */
#include <stdio.h>
#include <stdlib.h>

#include <mysqld_error.h>

#include "backend/mysql/mysql_batch.h"

/* The answers of an exchange: set k is group k's. */
struct answers {
	struct my_answer	*a;
	size_t			 n;
};

static int
answer_rows(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	struct answers *x = arg;

	if (set >= x->n || x->a[set].got)
		return -1;	/* not of the shape asked for */
	return my_answer_row(&x->a[set], 0, row, nf);
}

/* The answer to the undo of a group: whether it was the group asked. */
static int
undo_row(void *arg, size_t set, MYSQL_ROW row, unsigned int nf)
{
	(void)set;
	*(int *)arg = nf > 0 && row[0] != NULL && my_num(row[0]) == 1;
	return 0;
}

/* The server refused group k (at the head of this exchange when head),
 * or the bookkeeping of k - 1: roll back the transaction left open, let
 * go what group k took if it was its own refusal and bt->undone_if holds
 * of its variables, and say which. Returns 1 it was group k's, 0 the
 * bookkeeping's, -1 the connection closed (with e). */
static int
undo_group(struct lr_backend *b, const struct my_batch *bt, size_t k, int head,
    struct lr_err *e)
{
	struct myq q = { 0 };
	char sql[160];
	int own = 0, rc;

	snprintf(sql, sizeof(sql), "ROLLBACK;\nSELECT @lr_group <=> %zu, IF(@lr_group <=> %zu "
	    "AND (", k, k);
	myq_add(&q, sql);
	myq_add(&q, bt->undone_if ? bt->undone_if : "FALSE");
	myq_add(&q, "), RELEASE_LOCK(@name), NULL)");
	rc = my_exec(b, "roll back", &q, 1, MY_KEEP, undo_row, &own, e);
	free(q.s);
	if (rc != 0) {
		my_close(b);	/* the session's end frees what it took */
		return -1;
	}
	return own || head;	/* the head's inputs may not have been set */
}

/* The strings of n leases (groups) in one exchange: body is each group's
 * string in turn, its inputs setting @lr_group to its index (first for
 * the first), one result set, its answer, to fn (set: the group in this
 * exchange) and its bookkeeping behind it. Returns 0 when all n
 * answered; 2 when all n ran but a row was past the bound (that group's
 * answer is not given to fn: LR_ERR_DATA, its own); 1 when the server
 * refused a statement after *answered groups had answered, the
 * connection in order: the transaction left open is rolled back, and
 * *own says whether the refusal was that of the next group, before its
 * answer (when bt->undone_if holds of its variables, the session lock it
 * took is let go) rather than of the bookkeeping behind the last answer;
 * the groups after it did not run; 3 as 1, with the head group's own
 * refusal for a table or a column missing (nothing was written: each
 * alone creates them); -1 with e, the connection closed, after
 * *answered groups had answered. */
static int
exec_groups(struct lr_backend *b, const struct my_batch *bt, size_t first,
    const struct myq *body, size_t n, my_row_fn fn, void *arg, size_t *answered, int *own,
    struct lr_err *e)
{
	struct my *m = b->impl;
	struct lr_err ue;
	size_t sets = 0;
	int missing, rc;

	*answered = 0;
	*own = 0;
	m->over = 0;
	if (my_send(b, bt->what, body, e) != 0)
		return -1;
	if (my_recv_sets(b, bt->what, n, fn, arg, 1, &sets, e) == 0) {
		*answered = n;
		return 0;
	}
	*answered = sets < n ? sets : n;	/* each answered whole */
	if (m->db == NULL)
		return -1;
	if (m->over) {
		*answered = n;
		return 2;	/* all of it ran */
	}
	missing = my_api.errnum(m->db) == ER_NO_SUCH_TABLE ||
	    my_api.errnum(m->db) == ER_BAD_FIELD_ERROR;
	if ((rc = undo_group(b, bt, first + *answered, *answered == 0, &ue)) < 0) {
		if (e != NULL)
			*e = ue;
		return -1;
	}
	*own = rc;
	return missing && *answered == 0 ? 3 : 1;
}

/* One exchange for the groups at..m, their answers into rc[], err[]:
 * as exec_groups() returns, with *answered and *own. */
static int
exchange(struct lr_backend *b, const struct my_batch *bt, const size_t *idx, size_t at,
    size_t m, int *rc, struct lr_err *err, size_t *answered, int *own, struct lr_err *e)
{
	struct answers x = { calloc(m - at + 1, sizeof(struct my_answer)), m - at };
	struct myq q = { 0 };
	int got;

	*answered = 0;
	if (x.a == NULL)
		return lr_errf(e, EX_OSERR, "mysql %s: %s: out of memory", b->where, bt->what);
	for (size_t k = at; k < m; k++) {
		if (k > at)
			myq_add(&q, ";\n");
		bt->group(b, bt->arg, idx[k], k, &q);
	}
	if (bt->tail != NULL) {
		myq_add(&q, ";\n");
		myq_add(&q, bt->tail);
	}
	got = exec_groups(b, bt, at, &q, m - at, answer_rows, &x, answered, own, e);
	for (size_t k = 0; k < *answered; k++) {
		size_t i = idx[at + k];

		rc[i] = x.a[k].got ? bt->answer(b, bt->arg, i, &x.a[k], &err[i]) :
		    lr_errk(&err[i], LR_ERR_DATA, EX_UNAVAILABLE, "mysql %s: %s: a row larger "
		    "than lockrun accepts (a value of this task's grown too large?)", b->where,
		    bt->what);
	}
	free(q.s);
	free(x.a);
	return got;
}

int
my_batch_run(struct lr_backend *b, const struct my_batch *bt, const size_t *idx, size_t m,
    int *rc, struct lr_err *err, struct lr_err *e)
{
	size_t at = 0, answered;
	int got, own;

	while (at < m) {
		got = exchange(b, bt, idx, at, m, rc, err, &answered, &own, e);
		if (got == 0 || got == 2)
			return 0;
		if ((got < 0 || got == 3) && at == 0 && answered == 0)
			return got < 0 ? -1 : 1;
		if (got < 0) {		/* the rest went with the connection */
			for (size_t k = at + answered; k < m; k++) {
				rc[idx[k]] = -1;
				err[idx[k]] = *e;
			}
			return 0;
		}
		at += answered;
		if (own || got == 3) {	/* refused before its answer: its own */
			rc[idx[at]] = -1;
			err[idx[at++]] = *e;
		}
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_batch.c -- a scheduler's batch of leases in PostgreSQL (pg_batch.h):
 * the statements put in their tasks' order, sent in one pipeline, and each
 * answer handed to the operation's reader, or the batch's undoing to its
 * mender. */
#include <stdlib.h>
#include <string.h>

#include "backend/pg/pg_batch.h"

struct order {
	const char	*key;
	size_t		 i;
};

/* By key; the same key in the order asked. */
static int
by_key(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c != 0 ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* The answers: res[k] is that of statement o[k].i. */
static void
answers(struct lr_backend *b, const struct pg_batch *bt, const struct order *o,
    PGresult **res, size_t m, int *rc, struct lr_err *err)
{
	for (size_t k = 0; k < m; k++) {
		size_t i = o[k].i;

		rc[i] = res[k] == NULL ? pg_conn_too_large(b, bt->what, &err[i]) :
		    bt->answer(b, bt->arg, i, res[k], &err[i]);
	}
}

int
pg_batch_run(struct lr_backend *b, const struct pg_batch *bt, const struct pg_stmt *s,
    const char *const *key, size_t n, int *rc, struct lr_err *err, struct lr_err *e)
{
	struct order *o = calloc(n + 1, sizeof(*o));
	const struct pg_stmt **sp = calloc(n + 1, sizeof(*sp));
	PGresult **res = calloc(n + 1, sizeof(*res));
	size_t m = 0, ran = 0;
	int got;

	if (o == NULL || sp == NULL || res == NULL) {
		got = lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i].sql != NULL)
			o[m++] = (struct order){ key[i], i };
	qsort(o, m, sizeof(*o), by_key);
	for (size_t k = 0; k < m; k++)
		sp[k] = &s[o[k].i];
	got = m == 0 ? 0 : pg_conn_pipeline(b, bt->what, sp, m, bt->wait_ms, res, &ran, e);
	if (got == 0)
		answers(b, bt, o, res, m, rc, err);
	for (size_t k = 0; got == 1 && bt->undone != NULL && k < ran; k++)
		bt->undone(b, bt->arg, o[k].i);
out:
	free(o);
	free(sp);
	free(res);
	return got;
}

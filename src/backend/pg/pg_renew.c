/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_renew.c -- a lease renewed in PostgreSQL (pg_renew.h): pg_sql_renew
 * with a lease's values, one at a time (a run's own connection), or, for
 * a scheduler holding its runs' leases, all of a batch in one write and
 * one answer over libpq's pipeline mode: one round trip and one
 * transaction per renewal period however many leases, where one
 * statement each cost a round trip and a commit apiece (300 leases: 300
 * of each every third of the TTL). A statement of the batch that fails
 * undoes the rest (one transaction): the batch then goes one statement
 * at a time, so that the failure is that lease's alone. */
#include <stdio.h>
#include <stdlib.h>

#include "backend/pg/pg_batch.h"
#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_renew.h"
#include "backend/pg/pg_sql.h"

#define RENEW_PARAMS	18
#define DIGITS		24	/* a long long and its NUL */

/* pg_sql_renew's parameters for l, in buffers of their own. */
struct renew_args {
	struct pg_lockid	 id;
	char			 ttl[DIGITS], cap[DIGITS], hist_ttl[DIGITS],
				 deadline[DIGITS], host[256], pid[32];
	const char		*params[RENEW_PARAMS];
};

/* Fill a for l, its renewal window set from now (lock_renew_window()). */
static void
renew_args(struct renew_args *a, struct lr_lock *l)
{
	pg_sql_lockid(l->keys.stable, &a->id);
	snprintf(a->ttl, DIGITS, "%lld", l->ttl_ms);
	snprintf(a->cap, DIGITS, "%lld", l->hist_cap);
	snprintf(a->hist_ttl, DIGITS, "%lld", l->hist_ttl_ms);
	a->host[0] = a->pid[0] = '\0';
	sscanf(l->owner, "%255s %31s", a->host, a->pid);
	lock_renew_window(l);
	snprintf(a->deadline, DIGITS, "%lld", l->renew_deadline_ms);
	const char *p[RENEW_PARAMS] = { l->keys.stable, l->keys.fence, l->keys.hist,
	    l->keys.last, a->id.id, a->id.hi, a->id.lo, l->value, a->ttl, a->cap,
	    a->hist_ttl, a->host, a->pid, l->slot_ttl_ms ? l->keys.slot_iso : "",
	    l->token_s, l->keys.counts, a->deadline, l->keys.ended };
	for (size_t i = 0; i < RENEW_PARAMS; i++)
		a->params[i] = p[i];
}

/* The answer to l's renewal: 1 with *out, or -1 with e. Clears res. */
static int
renew_answer(struct lr_backend *b, struct lr_lock *l, PGresult *res,
    enum renew_outcome *out, struct lr_err *e)
{
	static const enum renew_outcome outcomes[] = {
		RENEW_LOST, RENEW_OK, RENEW_RETAKEN, RENEW_LOST_LATER, RENEW_LATE,
	};
	long long code;

	if (pq.ntuples(res) != 1 || (code = pg_conn_num(res, 0, 0, -1)) < 0 || code > 4) {
		pq.clear(res);
		return lr_errf(e, EX_SOFTWARE, "postgres %s: renew: unexpected answer",
		    b->where);
	}
	lock_renew_note(l, pg_conn_num(res, 0, 2, 0));
	*out = outcomes[code];
	if (pg_conn_cell(res, 0, 1) != NULL)
		snprintf(l->holder, sizeof(l->holder), "%s", pg_conn_cell(res, 0, 1));
	pq.clear(res);
	return 1;
}

int
pg_renew_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
    long long wait_ms, struct lr_err *e)
{
	struct renew_args a;

	(void)cap_ms;	/* a session lock is not carried across a new connection */
	(void)wait_ms;
	renew_args(&a, l);
	return pg_conn_send(b, "renew", pg_sql_renew, RENEW_PARAMS, a.params, e);
}

int
pg_renew_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out,
    struct lr_err *e)
{
	PGresult *res;
	int rc;

	if ((rc = pg_conn_recv(b, "renew", &res, e)) <= 0)
		return rc;
	return renew_answer(b, l, res, out, e);
}

struct renews {
	struct lr_lock *const	*l;
	enum renew_outcome	*out;
};

static int
renew_each(struct lr_backend *b, void *arg, size_t i, PGresult *res, struct lr_err *e)
{
	struct renews *r = arg;

	return renew_answer(b, r->l[i], res, &r->out[i], e);
}

int
pg_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
    struct lr_err *err, struct lr_err *e)
{
	struct renews r = { l, out };
	struct pg_batch bt = { "renew", wait_ms, renew_each, NULL, &r };
	struct renew_args *a = calloc(n + 1, sizeof(*a));
	struct pg_stmt *s = calloc(n + 1, sizeof(*s));
	const char **key = calloc(n + 1, sizeof(*key));
	int got;

	(void)cap_ms;
	if (a == NULL || s == NULL || key == NULL) {
		got = lr_errf(e, EX_OSERR, "out of memory");
	} else {
		for (size_t i = 0; i < n; i++) {
			renew_args(&a[i], l[i]);
			s[i] = (struct pg_stmt){ pg_sql_renew, RENEW_PARAMS, a[i].params };
			key[i] = l[i]->keys.stable;
		}
		got = pg_batch_run(b, &bt, s, key, n, rc, err, e);
	}
	free(a);
	free(s);
	free(key);
	return got;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_lock.c -- a lease taken and given back in MySQL/MariaDB
 * (mysql_lock.h): mysql_sql_acquire and mysql_sql_release with a lease's
 * inputs, one string of statements a run (a run's own connection), or,
 * for a scheduler that holds its runs' leases, the acquires (or the
 * releases) of a turn each in turn in one string, one exchange
 * (mysql_batch.h), the cleanup of expired rows once behind them.
 *
 * Each acquire and release is its own transactions, and its GET_LOCK or
 * RELEASE_LOCK its own: one the server refuses changes none of the
 * others. One refused before its answer lets go the GET_LOCK it took
 * (mysql_sql_acquire_undone, mysql_sql_release_undone), as alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/mysql/mysql_args.h"
#include "backend/mysql/mysql_batch.h"
#include "backend/mysql/mysql_lock.h"
#include "backend/mysql/mysql_sql.h"
#include "core/duration.h"

/* The acquire's inputs, l's, its window set from now (so this comes just
 * before the send); and its group's index in a batch (below 0: none). */
static void
acquire_vars(struct lr_backend *b, struct myq *q, MYSQL *db, struct lr_lock *l,
    long long group)
{
	my_lock_vars(q, db, l);
	myq_str(q, db, "id", l->id);
	myq_str(q, db, "owner", l->owner);
	myq_ll(q, "say_held", !l->quiet_held);
	lock_window(l, real_ms(), b->cfg.command_timeout_ms);
	myq_ll(q, "earliest", l->earliest_ms);
	myq_ll(q, "deadline", l->deadline_ms);
	myq_ll(q, "client", l->sent_ms);
	myq_ll(q, "clock_tol", l->clock_tol_ms);
	myq_str(q, db, "got", NULL);	/* mysql_sql_acquire_undo reads them */
	myq_str(q, db, "rel", NULL);
	if (group >= 0)
		myq_ll(q, "lr_group", group);
	myq_end(q);
	myq_add(q, mysql_sql_acquire);
}

/* The answer to l's acquire, a: 0 with *out, or -1 with e (closed). */
static int
acquire_answer(struct lr_backend *b, struct lr_lock *l, const struct my_answer *a,
    enum lock_outcome *out, struct lr_err *e)
{
	if (!a->got || a->code < 0 || a->code > 5 || a->code == 3)
		return my_no_answer(b, "acquire", e);
	lock_offset_note(l, a->now_ms, real_ms());
	if (a->code >= 4) {	/* refused: nothing was written */
		*out = a->code == 4 ? LOCK_LATE : LOCK_CLOCK_OFF;
		return 0;
	}
	if (a->code == 1) {
		*out = LOCK_ACQUIRED;
		lock_took(l, my_num(a->text));
	} else {
		*out = a->code == 0 ? LOCK_HELD : LOCK_SLOT_TAKEN;
		snprintf(l->holder, sizeof(l->holder), "%s", a->null ? "?" : a->text);
	}
	return 0;
}

/* Connect, unless connected. */
static int
opened(struct lr_backend *b, struct lr_err *e)
{
	return ((struct my *)b->impl)->db != NULL ? 0 :
	    my_connect(b, b->cfg.connect_timeout_ms, e);
}

int
my_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	struct myq q = { 0 };
	struct my_answer a = { 0 };
	int rc;

	if (opened(b, e) != 0)
		return -1;
	acquire_vars(b, &q, ((struct my *)b->impl)->db, l, -1);
	myq_add(&q, ";\n");
	myq_add(&q, mysql_sql_prune);
	rc = my_exec_undo(b, "acquire", &q, 1, MY_CREATE, mysql_sql_acquire_undo, my_answer_row,
	    &a, e);
	free(q.s);
	if (rc != 0) {
		/* unanswered, it may have run (its answer lost): withdrawn; a
		 * row past the bound carried another's value (a pause, a
		 * holder; ours is small): nothing was taken; refused part way
		 * (this task's row), the GET_LOCK it took was released
		 * (my_exec_undo()): the session stays either way */
		l->in_doubt = lr_err_unanswered(e);
		return -1;
	}
	return acquire_answer(b, l, &a, out, e);
}

struct acquires {
	struct lr_lock *const	*l;
	enum lock_outcome	*out;
};

static void
acquire_group(struct lr_backend *b, void *arg, size_t i, size_t group, struct myq *q)
{
	struct acquires *x = arg;

	acquire_vars(b, q, ((struct my *)b->impl)->db, x->l[i], (long long)group);
}

static int
acquire_each(struct lr_backend *b, void *arg, size_t i, const struct my_answer *a,
    struct lr_err *e)
{
	struct acquires *x = arg;

	return acquire_answer(b, x->l[i], a, &x->out[i], e);
}

/* The leases 0..n, for a batch: idx[i] = i. NULL when out of memory. */
static size_t *
all_of(size_t n)
{
	size_t *idx = calloc(n + 1, sizeof(*idx));

	for (size_t i = 0; idx != NULL && i < n; i++)
		idx[i] = i;
	return idx;
}

int
my_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	struct acquires x = { l, out };
	struct my_batch bt = { "acquire", mysql_sql_acquire_undone, mysql_sql_prune,
	    acquire_group, acquire_each, &x };
	size_t *idx = all_of(n);
	int got = -1;

	if (idx == NULL)
		lr_errf(e, EX_OSERR, "mysql %s: acquire: out of memory", b->where);
	else if (opened(b, e) == 0)
		got = my_batch_run(b, &bt, idx, n, rc, err, e);
	/* unanswered, they may have run: each run withdraws its own */
	for (size_t i = 0; i < n; i++)
		if (got < 0 || (rc[i] < 0 && got == 0))
			l[i]->in_doubt = lr_err_unanswered(got < 0 ? e : &err[i]);
	free(idx);
	return got;
}

/* The acquire went unanswered: take back what it took (mysql_sql_withdraw).
 * Returns 1 it had taken effect, 0 nothing held the id, -1 with e. */
static int
my_withdraw(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct myq q = { 0 };
	struct my_answer a = { 0 };
	MYSQL *db = ((struct my *)b->impl)->db;
	char status[16];
	int rc;

	if (db == NULL)
		return my_not_connected(b, "withdraw", e);
	snprintf(status, sizeof(status), "%d", end->status);
	my_lock_vars(&q, db, l);
	myq_str(&q, db, "id", l->id);
	myq_str(&q, db, "status", status);
	myq_end(&q);
	myq_add(&q, mysql_sql_withdraw);
	rc = my_exec(b, "withdraw", &q, 1, MY_CREATE, my_answer_row, &a, e);
	free(q.s);
	if (rc != 0)
		return -1;
	return a.got ? a.code == 1 : my_no_answer(b, "withdraw", e);
}

/* The release's inputs, l's and end's, and its statements; and its
 * group's index in a batch (below 0: none). */
static void
release_vars(struct myq *q, MYSQL *db, const struct lr_lock *l, const struct lr_ending *end,
    long long group)
{
	char status[16], dur[24], attempt[16];

	snprintf(status, sizeof(status), "%d", end->status);
	snprintf(dur, sizeof(dur), "%lld", end->duration_ms > 0 ? end->duration_ms : 0);
	snprintf(attempt, sizeof(attempt), "%d", end->attempt);
	my_lock_vars(q, db, l);
	myq_str(q, db, "val", l->value);
	myq_str(q, db, "token", l->token_s);
	myq_ll(q, "keep", end->keep_ms > 0 ? end->keep_ms : 0);
	myq_ll(q, "until", end->keep_until_ms > 0 ? end->keep_until_ms : 0);
	myq_str(q, db, "status", status);
	myq_str(q, db, "dur", dur);
	myq_str(q, db, "event", end->event);
	myq_str(q, db, "attempt", end->attempt > 0 ? attempt : NULL);
	myq_ll(q, "retries", end->attempt > 1 ? end->attempt - 1 : 0);
	myq_str(q, db, "rel", NULL);	/* mysql_sql_release_undo reads it */
	myq_str(q, db, "runs", l->keys.runs);
	myq_ll(q, "keep_ok", end->keep_runs > 0 ? end->keep_runs : 0);
	myq_ll(q, "keep_failed", end->keep_failed > 0 ? end->keep_failed : 0);
	myq_str(q, db, "reason", end->reason);
	myq_strn(q, db, "output", end->output ? end->output : "",
	    end->output ? end->output_len : 0);
	if (group >= 0)
		myq_ll(q, "lr_group", group);
	myq_end(q);
	myq_add(q, mysql_sql_release);
}

/* The answer to a release: 1 the row was ours, 0 not, -1 with e. */
static int
release_answer(struct lr_backend *b, const struct my_answer *a, struct lr_err *e)
{
	return a->got ? a->code == 1 : my_no_answer(b, "release", e);
}

/* A hook's section of the run's story, after the release
 * (mysql_sql_story_hook). Returns 1 added, 0 no story kept, -1 with e. */
static int
my_story_hook(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct myq q = { 0 };
	struct my_answer a = { 0 };
	MYSQL *db = ((struct my *)b->impl)->db;
	int rc;

	if (db == NULL)
		return my_not_connected(b, "release", e);
	my_clock_vars(&q);
	myq_str(&q, db, "runs", l->keys.runs);
	myq_str(&q, db, "token", l->token_s);
	myq_strn(&q, db, "output", end->output ? end->output : "",
	    end->output ? end->output_len : 0);
	myq_end(&q);
	myq_add(&q, mysql_sql_story_hook);
	rc = my_exec(b, "release", &q, 1, MY_CREATE, my_answer_row, &a, e);
	free(q.s);
	if (rc != 0)
		return -1;
	return a.got ? a.code == 1 : my_no_answer(b, "release", e);
}

int
my_release(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct myq q = { 0 };
	struct my_answer a = { 0 };
	MYSQL *db = ((struct my *)b->impl)->db;
	int rc;

	if (lock_end_withdrawn(end))
		return my_withdraw(b, l, end, e);
	if (lock_end_hook(end))
		return my_story_hook(b, l, end, e);
	if (l->ttl_ms == 0 && l->hist_cap == 0)
		return 0;
	if (db == NULL)
		return my_not_connected(b, "release", e);
	release_vars(&q, db, l, end, -1);
	myq_add(&q, ";\n");
	myq_add(&q, mysql_sql_release_tail);
	rc = my_exec_undo(b, "release", &q, 1, MY_CREATE, mysql_sql_release_undo, my_answer_row,
	    &a, e);
	free(q.s);
	return rc != 0 ? -1 : release_answer(b, &a, e);
}

struct releases {
	const struct lr_lock *const	*l;
	const struct lr_ending		*end;
};

static void
release_group(struct lr_backend *b, void *arg, size_t i, size_t group, struct myq *q)
{
	struct releases *x = arg;

	release_vars(q, ((struct my *)b->impl)->db, x->l[i], &x->end[i], (long long)group);
}

static int
release_each(struct lr_backend *b, void *arg, size_t i, const struct my_answer *a,
    struct lr_err *e)
{
	(void)arg;
	(void)i;
	return release_answer(b, a, e);
}

/* A withdrawal (a run's acquire taken back, which its scheduler rarely
 * carries) or a hook's lines go alone, before the batch; a release with
 * nothing to say sends nothing. */
int
my_release_many(struct lr_backend *b, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err, struct lr_err *e)
{
	struct releases x = { l, end };
	struct my_batch bt = { "release", mysql_sql_release_undone, mysql_sql_release_tail,
	    release_group, release_each, &x };
	size_t *idx = calloc(n + 1, sizeof(*idx)), m = 0;
	int got;

	if (idx == NULL)
		return lr_errf(e, EX_OSERR, "mysql %s: release: out of memory", b->where);
	for (size_t i = 0; i < n; i++) {
		rc[i] = 0;
		if (lock_end_withdrawn(&end[i]))
			rc[i] = my_withdraw(b, l[i], &end[i], &err[i]);
		else if (lock_end_hook(&end[i]))
			rc[i] = my_story_hook(b, l[i], &end[i], &err[i]);
		else if (l[i]->ttl_ms > 0 || l[i]->hist_cap > 0)
			idx[m++] = i;
	}
	got = m == 0 ? 0 : my_batch_run(b, &bt, idx, m, rc, err, e);
	for (size_t k = 0; got == 1 && k < m; k++)	/* each alone creates the tables */
		rc[idx[k]] = my_release(b, l[idx[k]], &end[idx[k]], &err[idx[k]]);
	free(idx);
	return got == 1 ? 0 : got;
}

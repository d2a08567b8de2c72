/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_lock.c -- a lease taken and given back in PostgreSQL (pg_lock.h):
 * pg_sql_acquire and pg_sql_release with a lease's values, one statement a
 * run (a run's own connection), or, for a scheduler that holds its runs'
 * leases, all the acquires (or releases) of a turn in one write, one
 * answer and one transaction (pg_batch.h): 300 runs due at once cost a
 * round trip and a commit, not 300 of each.
 *
 * Session locks are not transactional (pg.c): a statement that took one
 * and then failed leaves it held after the rollback. Alone, an acquire or
 * a release the server refused part way is followed by the statement that
 * lets go what it may have left held (pg_sql_acquire_undo,
 * pg_sql_release_undo). In a batch, a statement refused undoes the writes
 * of those that ran before it too: each of those acquires lets go the
 * lock it took (a release let its own go, as it would have), and the
 * batch goes again one statement at a time (backend/batch.c), so that the
 * failure is that run's alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/pg/pg_batch.h"
#include "backend/pg/pg_conn.h"
#include "backend/pg/pg_lock.h"
#include "backend/pg/pg_sql.h"
#include "backend/pg/pg_withdraw.h"
#include "core/duration.h"
#include "core/text.h"

#define ACQUIRE_PARAMS	25
#define RELEASE_PARAMS	26

/* The slot the history records for l: ISO 8601, or "" for none. */
static const char *
slot_iso(const struct lr_lock *l)
{
	return l->slot_ttl_ms ? l->keys.slot_iso : "";
}

/* Connect, unless connected. */
static int
opened(struct lr_backend *b, struct lr_err *e)
{
	const struct pg *p = b->impl;

	return p->conn != NULL ? 0 : pg_conn_open(b, b->cfg.connect_timeout_ms, e);
}

/* A statement refused part way, the session in order: send undo (n
 * params), which lets go a session lock it may have left held. When that
 * is not sure, the connection is closed, which lets it go with the
 * session (the refused statement's e stands either way). No tables: the
 * statement read none, and took nothing. */
static void
undo_lock(struct lr_backend *b, const char *what, const char *undo, int n,
    const char *const *params)
{
	struct pg *p = b->impl;
	struct lr_err ue = LR_ERR_INIT;
	PGresult *res;
	int missing = 0;

	if (p->conn == NULL)
		return;		/* closed, and the lock with it */
	if ((res = pg_conn_read(b, what, undo, n, params, &missing, &ue)) != NULL &&
	    pq.ntuples(res) == 1) {
		pq.clear(res);
		return;
	}
	if (res != NULL)
		pq.clear(res);
	if (!missing)
		pg_conn_close(b);
}

/* pg_sql_acquire's parameters for l, in buffers of their own; its window
 * is set from now (lock_window()), so this comes just before the send. */
struct acquire_args {
	struct pg_lockid	 id;
	char			 ttl[PG_SQL_NUM_MAX], slot_ttl[PG_SQL_NUM_MAX], cap[PG_SQL_NUM_MAX],
				 hist_ttl[PG_SQL_NUM_MAX], host[256], pid[32], earliest[PG_SQL_NUM_MAX],
				 deadline[PG_SQL_NUM_MAX], sent[PG_SQL_NUM_MAX], tol[PG_SQL_NUM_MAX];
	const char		*params[ACQUIRE_PARAMS];
};

static void
acquire_args(struct lr_backend *b, struct acquire_args *a, struct lr_lock *l)
{
	pg_sql_lockid(l->keys.stable, &a->id);
	pg_sql_num(a->ttl, l->ttl_ms);
	pg_sql_num(a->slot_ttl, l->slot_ttl_ms);
	pg_sql_num(a->cap, l->hist_cap);
	pg_sql_num(a->hist_ttl, l->hist_ttl_ms);
	pg_sql_host_pid(l->owner, a->host, a->pid);
	lock_window(l, real_ms(), b->cfg.command_timeout_ms);
	pg_sql_num(a->earliest, l->earliest_ms);
	pg_sql_num(a->deadline, l->deadline_ms);
	pg_sql_num(a->sent, l->sent_ms);
	pg_sql_num(a->tol, l->clock_tol_ms);
	const char *p[ACQUIRE_PARAMS] = { l->keys.stable, l->slot_ttl_ms ? l->keys.slot : "",
	    l->keys.fence, l->keys.hist, l->keys.last, a->id.id, a->ttl, a->slot_ttl, a->cap,
	    a->hist_ttl, l->id, l->owner, a->host, a->pid, slot_iso(l),
	    l->quiet_held ? "false" : "true", l->keys.counts, a->earliest, a->deadline,
	    a->sent, a->tol, l->keys.pause, l->triggered ? "triggered" : "ran",
	    l->triggered && l->take[0] ? l->keys.trigger : "", l->triggered ? l->take : "" };
	memcpy(a->params, p, sizeof(p));
}

/* The answer to l's acquire (res, cleared): 0 with *out, or -1 with e. */
static int
acquire_answer(struct lr_backend *b, struct lr_lock *l, PGresult *res,
    enum lock_outcome *out, struct lr_err *e)
{
	long long code;

	if (pq.ntuples(res) != 1 || (code = pg_conn_num(res, 0, 0, -1)) < 0 || code > 6 ||
	    code == 3) {
		pg_conn_unexpected(b, "acquire", res, e);
		pg_conn_close(b);	/* a session lock it may have taken goes too */
		if (e != NULL)
			e->kind = LR_ERR_PROTOCOL;	/* not the server expected */
		return -1;
	}
	lock_offset_note(l, pg_conn_num(res, 0, 5, 0), real_ms());
	if (code == 4 || code == 5) {	/* refused: nothing was written */
		*out = code == 4 ? LOCK_LATE : LOCK_CLOCK_OFF;
		pq.clear(res);
		return 0;
	}
	if (code == 1) {
		*out = LOCK_ACQUIRED;
		lock_took(l, pg_conn_num(res, 0, 1, 0));
	} else {
		*out = code == 0 ? LOCK_HELD : code == 6 ? LOCK_PAUSED : LOCK_SLOT_TAKEN;
		snprintf(l->holder, sizeof(l->holder), "%s",
		    pg_conn_cell(res, 0, 2) ? pg_conn_cell(res, 0, 2) : "?");
	}
	pq.clear(res);
	return 0;
}

/* An acquire refused part way may have taken its session lock before it
 * failed: that lock alone is let go (pg_sql_acquire_undo). */
static void
acquire_undo(struct lr_backend *b, const struct acquire_args *a, const struct lr_lock *l)
{
	const char *undo[] = { a->id.id, a->id.hi, a->id.lo, l->keys.stable };

	undo_lock(b, "acquire", pg_sql_acquire_undo, 4, undo);
}

int
pg_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
    struct lr_err *e)
{
	struct pg *p = b->impl;
	struct acquire_args a;
	PGresult *res;

	if (opened(b, e) != 0)
		return -1;
	acquire_args(b, &a, l);
	p->over = 0;
	res = pg_conn_write(b, "acquire", pg_sql_acquire, ACQUIRE_PARAMS, a.params, e);
	if (res != NULL)
		return acquire_answer(b, l, res, out, e);
	/* unanswered, it may have run (its answer lost): withdrawn */
	l->in_doubt = lr_err_unanswered(e);
	/* An answer past the bound came whole and was dropped: the statement
	 * ran to its end, which lets the session lock go when the run does
	 * not go ahead, and its answer carried another's value (a pause, a
	 * holder; ours is small): nothing was taken. A statement the server
	 * refused part way (this task's row) may have taken the session lock
	 * before it failed: that lock alone is let go. Either way the
	 * session, with every other run's lock, stays; a lost connection
	 * (lr_err_broke(): closed) took its locks with it. */
	if (!p->over && !lr_err_broke(e))
		acquire_undo(b, &a, l);
	return -1;
}

struct acquires {
	struct lr_lock *const	*l;
	enum lock_outcome	*out;
	struct acquire_args	*a;
	const char		*undone;	/* a stable key's lock let go */
};

static int
acquire_each(struct lr_backend *b, void *arg, size_t i, PGresult *res, struct lr_err *e)
{
	struct acquires *q = arg;

	return acquire_answer(b, q->l[i], res, &q->out[i], e);
}

/* Of two acquires of one task in a batch (two runs), the second saw the
 * first's row, and took no lock: one undo for the task, in key order. */
static void
acquire_undone(struct lr_backend *b, void *arg, size_t i)
{
	struct acquires *q = arg;

	if (q->undone != NULL && strcmp(q->undone, q->l[i]->keys.stable) == 0)
		return;
	q->undone = q->l[i]->keys.stable;
	acquire_undo(b, &q->a[i], q->l[i]);
}

int
pg_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e)
{
	struct acquires q = { l, out, calloc(n + 1, sizeof(struct acquire_args)), NULL };
	/* the statements past their window write nothing, and cost little:
	 * the answer comes soon after the last window closes (the command
	 * timeout from now at most). Waited for a little longer, rather
	 * than close the session, with every lease it holds, for a batch a
	 * little slow. */
	struct pg_batch bt = { "acquire", 2 * b->cfg.command_timeout_ms, acquire_each,
	    acquire_undone, &q };
	struct pg_stmt *s = calloc(n + 1, sizeof(*s));
	const char **key = calloc(n + 1, sizeof(*key));
	int got = -1;

	if (q.a == NULL || s == NULL || key == NULL)
		lr_errf(e, EX_OSERR, "out of memory");
	else if (opened(b, e) == 0) {
		((struct pg *)b->impl)->over = 0;
		for (size_t i = 0; i < n; i++) {
			acquire_args(b, &q.a[i], l[i]);
			s[i] = (struct pg_stmt){ pg_sql_acquire, ACQUIRE_PARAMS, q.a[i].params };
			key[i] = l[i]->keys.stable;
		}
		/* unanswered, they may have run (one transaction: all or
		 * none): each run withdraws its own */
		if ((got = pg_batch_run(b, &bt, s, key, n, rc, err, e)) < 0)
			for (size_t i = 0; i < n; i++)
				l[i]->in_doubt = lr_err_unanswered(e);
	}
	free(q.a);
	free(s);
	free(key);
	return got;
}

/* s as valid UTF-8 into buf[n]: a byte that is not part of a valid
 * sequence becomes '?' (a text parameter must be valid in the encoding:
 * a reason naming a file in another one must not cost the release). */
static void
utf8_copy(char *buf, size_t n, const char *s)
{
	size_t o = 0, left = strlen(s);

	while (left > 0 && o + 4 < n) {
		size_t k = text_utf8_len(s, left);

		if (k == 0) {
			buf[o++] = '?';
			k = 1;
		} else {
			memcpy(buf + o, s, k);
			o += k;
		}
		s += k;
		left -= k;
	}
	buf[o] = '\0';
}

/* pg_sql_release's parameters for l and end, in buffers of their own:
 * the run's story (the reason, the output's end as bytea's escape form)
 * goes in the same statement, no round trip more. The output is
 * malloc'd (release_args_free()). Returns 0, or -1 out of memory. */
struct release_args {
	struct pg_lockid	 id;
	char			 keep[PG_SQL_NUM_MAX], status[PG_SQL_NUM_MAX], took[PG_SQL_NUM_MAX], cap[PG_SQL_NUM_MAX],
				 hist_ttl[PG_SQL_NUM_MAX], host[256], pid[32], until[PG_SQL_NUM_MAX],
				 attempt[PG_SQL_NUM_MAX], keep_ok[PG_SQL_NUM_MAX], keep_failed[PG_SQL_NUM_MAX],
				 reason[sizeof(((struct lr_ending *)0)->reason) + 4];
	char			*output;
	const char		*params[RELEASE_PARAMS];
};

static int
release_args(struct release_args *a, const struct lr_lock *l, const struct lr_ending *end)
{
	pg_sql_lockid(l->keys.stable, &a->id);
	pg_sql_num(a->keep, l->ttl_ms == 0 ? -1 : end->keep_ms > 0 ? end->keep_ms : 0);
	pg_sql_num(a->status, end->status);
	pg_sql_num(a->took, end->duration_ms > 0 ? end->duration_ms : 0);
	pg_sql_num(a->cap, l->hist_cap);
	pg_sql_num(a->hist_ttl, l->hist_ttl_ms);
	pg_sql_num(a->until, end->keep_until_ms > 0 ? end->keep_until_ms : 0);
	pg_sql_num(a->attempt, end->attempt > 0 ? end->attempt : 0);
	pg_sql_host_pid(l->owner, a->host, a->pid);
	pg_sql_num(a->keep_ok, end->keep_runs > 0 ? end->keep_runs : 0);
	pg_sql_num(a->keep_failed, end->keep_failed > 0 ? end->keep_failed : 0);
	utf8_copy(a->reason, sizeof(a->reason), end->reason);
	a->output = NULL;
	if (end->output != NULL && end->output_len > 0 &&
	    (a->output = pg_sql_bytea(end->output, end->output_len)) == NULL)
		return -1;
	const char *p[RELEASE_PARAMS] = { l->keys.stable, l->keys.hist, l->keys.last,
	    a->id.id, a->id.hi, a->id.lo, l->value, a->keep, a->status, a->took, end->event,
	    a->cap, a->hist_ttl, a->host, a->pid, slot_iso(l), l->token_s, l->keys.counts,
	    a->until, a->attempt, l->keys.ended, l->keys.runs, a->keep_ok, a->keep_failed,
	    a->reason, a->output ? a->output : "" };
	memcpy(a->params, p, sizeof(p));
	return 0;
}

/* The answer to a release (res, cleared): 1 the row was ours, 0 not,
 * -1 with e. */
static int
release_answer(struct lr_backend *b, PGresult *res, struct lr_err *e)
{
	int released;

	if (pq.ntuples(res) != 1)
		return pg_conn_unexpected(b, "release", res, e);
	released = pg_conn_num(res, 0, 0, 0) == 1;
	pq.clear(res);
	return released;
}

/* A hook's answer: 1 when the story was there to add to, else 0. */
static int
story_hook_answer(PGresult *res)
{
	int n = pq.ntuples(res);

	pq.clear(res);
	return n > 0;
}

/* release.lua's event "hook" (pg_sql_story_hook), alone. */
static int
pg_story_hook(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	char *output = pg_sql_bytea(end->output ? end->output : "", end->output_len);
	const char *params[] = { l->keys.runs, l->token_s, output };
	PGresult *res;
	int missing;

	if (output == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	res = pg_conn_read(b, "release", pg_sql_story_hook, 3, params, &missing, e);
	free(output);
	if (res == NULL)
		return missing ? 0 : -1;	/* no table: no story to add to */
	return story_hook_answer(res);
}

int
pg_release(struct lr_backend *b, const struct lr_lock *l, const struct lr_ending *end,
    struct lr_err *e)
{
	struct release_args a;
	PGresult *res;

	if (lock_end_withdrawn(end))
		return pg_withdraw(b, l, end, e);
	if (lock_end_hook(end))
		return pg_story_hook(b, l, end, e);
	if (l->ttl_ms == 0 && l->hist_cap == 0)
		return 0;	/* a slot row is never released: nothing to say */
	if (release_args(&a, l, end) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	res = pg_conn_write(b, "release", pg_sql_release, RELEASE_PARAMS, a.params, e);
	free(a.output);
	if (res != NULL)
		return release_answer(b, res, e);
	/* refused part way: the run's lock goes all the same */
	if (l->ttl_ms > 0 && !lr_err_broke(e))
		undo_lock(b, "release", pg_sql_release_undo, 3, &a.params[3]);
	return -1;
}

/* A release's statement in a batch, a withdrawal's or a hook's. */
struct release_one {
	struct release_args	 rel;
	struct pg_withdraw_args	 wd;
	char			*hook_output;	/* pg_sql_bytea()'s, or NULL */
	const char		*hook_params[3];
};

struct releases {
	const struct lr_ending	*end;
};

static int
release_each(struct lr_backend *b, void *arg, size_t i, PGresult *res, struct lr_err *e)
{
	const struct releases *q = arg;

	return lock_end_withdrawn(&q->end[i]) ? pg_withdraw_answer(b, res, e) :
	    lock_end_hook(&q->end[i]) ? story_hook_answer(res) : release_answer(b, res, e);
}

/* Statement i of a batch of releases, into s (sql NULL: none, rc[i] 0).
 * Returns 0, or -1 out of memory. */
static int
release_stmt(const struct lr_lock *l, const struct lr_ending *end, struct release_one *a,
    struct pg_stmt *s, int *rc)
{
	*s = (struct pg_stmt){ NULL, 0, NULL };
	*rc = 0;
	if (lock_end_withdrawn(end)) {
		pg_withdraw_args(&a->wd, l, end);
		*s = (struct pg_stmt){ pg_sql_withdraw, PG_WITHDRAW_PARAMS, a->wd.params };
	} else if (lock_end_hook(end)) {
		a->hook_output = pg_sql_bytea(end->output ? end->output : "", end->output_len);
		if (a->hook_output == NULL)
			return -1;
		a->hook_params[0] = l->keys.runs;
		a->hook_params[1] = l->token_s;
		a->hook_params[2] = a->hook_output;
		*s = (struct pg_stmt){ pg_sql_story_hook, 3, a->hook_params };
	} else if (l->ttl_ms > 0 || l->hist_cap > 0) {
		if (release_args(&a->rel, l, end) != 0)
			return -1;
		*s = (struct pg_stmt){ pg_sql_release, RELEASE_PARAMS, a->rel.params };
	}
	return 0;
}

/* A release the batch undid let its session lock go, as it would have:
 * made again alone, it writes its rows and finds no lock to let go. */
int
pg_release_many(struct lr_backend *b, const struct lr_lock *const *l,
    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err, struct lr_err *e)
{
	struct releases q = { end };
	/* as the acquires are: a session closed for a slow answer would lose
	 * every lease it holds */
	struct pg_batch bt = { "release", 2 * b->cfg.command_timeout_ms, release_each, NULL,
	    &q };
	struct release_one *a = calloc(n + 1, sizeof(*a));
	struct pg_stmt *s = calloc(n + 1, sizeof(*s));
	const char **key = calloc(n + 1, sizeof(*key));
	int got = -1;
	size_t i = 0;

	if (a == NULL || s == NULL || key == NULL)
		lr_errf(e, EX_OSERR, "out of memory");
	else {
		for (; i < n; i++) {
			if (release_stmt(l[i], &end[i], &a[i], &s[i], &rc[i]) != 0)
				break;
			key[i] = l[i]->keys.stable;
		}
		got = i < n ? lr_errf(e, EX_OSERR, "out of memory") :
		    pg_batch_run(b, &bt, s, key, n, rc, err, e);
	}
	for (size_t k = 0; a != NULL && k < i; k++) {
		free(a[k].rel.output);
		free(a[k].hook_output);
	}
	free(a);
	free(s);
	free(key);
	return got;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* trigger.c -- a scheduler takes the triggers of its tasks (trigger.h):
 * a look each TRIGGER_POLL_S, from the scheduler's loop, which
 * keeps its one absolute timer (armed at the next fire time or the next
 * look, whichever is sooner). A trigger is a key (row) next to the task's
 * lock; taking it marks it as this scheduler's (ops.h, struct lr_take),
 * so one scheduler at a time takes each, and starts the run (`lockrun -t
 * NAME`, triggered: no slot, the no-overlap lock). The take carries a
 * window as the acquire does (ops.h): one this scheduler gave up on (its
 * connection stalled, and delivered it later) changes nothing, and the
 * trigger waits for a look that is answered.
 *
 * A trigger is kept on the server until a run of it has started: the
 * run's acquire deletes it in the same step as it takes the lock, or
 * skips (told the mark, lr_lock.take), so no crash between the take and
 * the start loses it. Its taker starts the run, and again when the run could not
 * reach the server (69), within the task's starting_deadline counted
 * from the take, as a slot is (crond.c, retry_later()); past it, the
 * trigger is dropped and recorded "missed" (missed.c, lr_missed.take), if
 * the mark is still ours. A taker that died holding it leaves the mark
 * to lapse, starting_deadline plus TRIGGER_TAKE_SLACK_MS after the take,
 * and the next look of any scheduler takes it again.
 *
 * A look asks first which tasks may have a trigger (ops.h's asked: on
 * Redis one SMEMBERS, whatever the task count) and takes those alone;
 * an idle scheduler sends one command a look. Where the backend keeps no
 * such list (PostgreSQL: one UPDATE over every task's key), every task's
 * trigger is taken. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/keys.h"
#include "out/log.h"
#include "sched/trigger.h"

/* Tasks whose triggers one exchange takes: a task's keys and its call
 * take some 5 KB while it is built, so 10,000 tasks at once would hold
 * 50 MB for a look every 5 s (and a reader of cron --listen's page would
 * see the scheduler's memory grow by as much); in exchanges of this many,
 * 5 MB. */
#define TAKE_CHUNK	1024

void
trigger_take_id(char *buf, size_t n, const char *host, time_t at)
{
	snprintf(buf, n, "%s/%ld/%lld", host ? host : "-", (long)getpid(), (long long)at);
}

/* One take of the n tasks' triggers, within src's window, marked as
 * taken at the second when. */
static int
take(struct trigger_src *src, const struct sched_task *t, size_t n, unsigned char *taken,
    time_t when, struct lr_err *e)
{
	size_t c = n < TAKE_CHUNK ? n : TAKE_CHUNK;
	struct lr_keys *k = calloc(c, sizeof(*k));
	long long *lease = calloc(c, sizeof(*lease));
	char id[LR_TAKE_MAX];
	struct lr_take tk = { id, lease };
	int rc = 0;

	if (k == NULL || lease == NULL) {
		free(k);
		free(lease);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	trigger_take_id(id, sizeof(id), src->host, when);
	for (size_t at = 0; rc == 0 && at < n; at += TAKE_CHUNK) {
		size_t m = n - at < TAKE_CHUNK ? n - at : TAKE_CHUNK;

		for (size_t i = 0; i < m; i++) {
			keys_build(&k[i], src->prefix, t[at + i].name, (time_t)-1, 60000);
			lease[i] = t[at + i].deadline_ms + TRIGGER_TAKE_SLACK_MS;
		}
		rc = src->be->ops->take(src->be, k, m, &tk, &src->win, taken + at, e);
	}
	free(k);
	free(lease);
	if (rc == 0 && src->win.offset_known)	/* the next take's window */
		src->win.offset_used_ms = src->win.offset_ms;
	return rc;
}

/* The names a look was given (ops.h's asked). */
struct asked {
	char	**name;
	size_t	 n, cap;
	int	 failed;
};

static void
asked_add(void *arg, const char *name)
{
	struct asked *a = arg;
	char **grown;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 8;
		if ((grown = realloc(a->name, a->cap * sizeof(*grown))) == NULL) {
			a->failed = 1;
			return;
		}
		a->name = grown;
	}
	if ((a->name[a->n] = strdup(name)) == NULL)
		a->failed = 1;
	else
		a->n++;
}

static int
asked_has(const struct asked *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->name[i], name) == 0)
			return 1;
	return 0;
}

/* The tasks of t the backend named as maybe triggered, into pick[0..]
 * (indexes into t); all n where it keeps no list. Returns how many, or
 * -1 with e. */
static long
narrow(struct trigger_src *src, const struct sched_task *t, size_t n, size_t *pick,
    struct lr_err *e)
{
	struct asked a = { 0 };
	long m = 0;

	if (src->be->ops->asked == NULL) {
		for (size_t i = 0; i < n; i++)
			pick[m++] = i;
		return m;
	}
	if (src->be->ops->asked(src->be, src->prefix, asked_add, &a, e) != 0)
		m = -1;
	else if (a.failed)
		m = lr_errf(e, EX_OSERR, "out of memory");
	else
		for (size_t i = 0; a.n > 0 && i < n; i++)
			if (asked_has(&a, t[i].name))
				pick[m++] = i;
	for (size_t i = 0; i < a.n; i++)
		free(a.name[i]);
	free(a.name);
	return m;
}

/* Take the triggers of the m tasks t[pick[...]], into taken[] by t's
 * indexes; a take refused by its window (the clocks further apart than
 * we thought) once more at once, the window moved by the offset its
 * answer measured. */
static int
take_picked(struct trigger_src *src, const struct sched_task *t, const size_t *pick,
    size_t m, unsigned char *taken, time_t when, struct lr_err *e)
{
	struct sched_task *sub = calloc(m + 1, sizeof(*sub));
	unsigned char *got = calloc(m + 1, 1), *again = calloc(m + 1, 1);
	int rc = -1, refused = 0;

	if (sub == NULL || got == NULL || again == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m; i++)
		sub[i] = t[pick[i]];
	rc = take(src, sub, m, got, when, e);
	for (size_t i = 0; rc == 0 && i < m; i++)
		refused |= got[i] == 2;
	if (refused && (rc = take(src, sub, m, again, when, e)) == 0)
		for (size_t i = 0; i < m; i++)
			got[i] = got[i] == 1 || again[i] == 1;
	for (size_t i = 0; i < m; i++)	/* a look that failed part way took these */
		taken[pick[i]] = got[i] == 1;
out:
	free(sub);
	free(got);
	free(again);
	return rc;
}

int
trigger_take(void *arg, const struct sched_task *t, size_t n, unsigned char *taken, time_t at)
{
	struct trigger_src *src = arg;
	struct lr_err e = LR_ERR_INIT;
	size_t *pick;
	long m;
	int rc = 0;

	if (n == 0 || src->be->ops->take == NULL)
		return 0;
	if ((pick = calloc(n, sizeof(*pick))) == NULL)
		rc = lr_errf(&e, EX_OSERR, "out of memory");
	else if ((m = narrow(src, t, n, pick, &e)) < 0)
		rc = -1;
	else if (m > 0)
		rc = take_picked(src, t, pick, (size_t)m, taken, at, &e);
	free(pick);
	if (rc != 0) {
		src->be->ops->close(src->be);	/* what is left of the answer goes too */
		if (!src->failing)
			lr_event(LOG_WARNING, "trigger", NULL, "cannot look for triggered "
			    "runs: %s; looking again every %ds", e.msg, TRIGGER_POLL_S);
		src->failing = 1;
		return -1;
	}
	src->failing = 0;
	return 0;
}

void
trigger_check(struct trigger_look *l, long long now_ms, const struct sched_task *t,
    size_t n, void (*start)(void *sarg, size_t i, time_t slot), void *sarg)
{
	const long long every = TRIGGER_POLL_S * 1000LL;
	time_t at = (time_t)(now_ms / 1000);
	unsigned char *taken;

	if (l->poll == NULL || (now_ms < l->next && l->next - now_ms <= every))
		return;
	l->next = now_ms + every;
	if ((taken = calloc(n + 1, 1)) == NULL)
		return;
	/* a look that failed part way may have taken some: they start */
	(void)l->poll(l->arg, t, n, taken, at);
	for (size_t i = 0; i < n; i++)
		if (taken[i] == 1)
			start(sarg, i, -at);
	free(taken);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* away.c -- the starts held while the lock server is away (away.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/away.h"

/* One round trip over the scheduler's connection. A session the server
 * ended while idle is found first, as a batch finds it (leases.c); a
 * connection found broken since its last use (at once: not a timeout) is
 * opened again once: only a server that does not answer a new connection
 * is away. */
static int
ask(struct lr_backend *be, struct lr_err *e)
{
	long long t0 = mono_ms();
	int was_open;

	if (be->ops->idle_read && be->ops->fd(be) >= 0)
		(void)be->ops->idle_read(be, e);
	was_open = be->ops->fd(be) >= 0;
	if (be->ops->ping(be, e) == 0)
		return 0;
	if (lr_err_broke(e))	/* what is left of the answer goes too */
		be->ops->close(be);
	if (!was_open || !lr_err_broke(e) || mono_ms() - t0 >= be->cfg.command_timeout_ms / 2)
		return -1;
	*e = (struct lr_err)LR_ERR_INIT;
	if (be->ops->ping(be, e) == 0)
		return 0;
	if (lr_err_broke(e))
		be->ops->close(be);
	return -1;
}

/* The next ask: the backoff, up to half of it off at random. */
static void
backoff(struct away *a, long long now)
{
	long long w = a->wait_ms;

	a->next_ms = now + w - random() % (w / 2 + 1);
	a->wait_ms = 2 * w < AWAY_MAX_MS ? 2 * w : AWAY_MAX_MS;
}

static void
went(struct away *a, const struct lr_err *e, size_t due, long long now)
{
	const struct lr_backend *be = a->ls->be;

	a->down = 1;
	a->down_ms = now;
	a->wait_ms = AWAY_FIRST_MS;
	a->quiet = 0;
	backoff(a, now);
	lr_event(LOG_WARNING, "server-away", NULL, "cron: %s %s does not answer (%s); starting "
	    "nothing until it does, %zu due held, asking again from %ds on, up to every "
	    "%ds; runs in progress go on", be->ops->title, be->where, e->msg, due,
	    AWAY_FIRST_MS / 1000, AWAY_MAX_MS / 1000);
}

static void
back(struct away *a, size_t due, long long now)
{
	const struct lr_backend *be = a->ls->be;
	char took[32];

	duration_human(now - a->down_ms, took, sizeof(took));
	if (a->quiet == 0)
		lr_event(LOG_INFO, "server-back", NULL, "cron: %s %s answers again after %s; "
		    "of the %zu starts held, those still within their starting_deadline go",
		    be->ops->title, be->where, took, due);
	else
		lr_event(LOG_INFO, "server-back", NULL, "cron: %s %s answers again after %s; "
		    "of the %zu starts held, those still within their starting_deadline go; "
		    "%lu more fire time%s given up meanwhile", be->ops->title, be->where, took,
		    due, a->quiet, a->quiet == 1 ? " was" : "s were");
	for (size_t i = 0; i < a->nsaid; i++)
		free(a->said[i]);
	a->nsaid = 0;
	a->quiet = 0;
	a->down = 0;
	a->recheck = due;
}

int
away_ready(struct away *a, size_t due, long long now)
{
	struct lr_err e = LR_ERR_INIT;

	if (a->ls == NULL)
		return 1;
	if (a->ls->answered_ms > a->seen_ms)
		a->seen_ms = a->ls->answered_ms;
	if (a->down && a->seen_ms > a->down_ms) {	/* a batch was answered */
		back(a, due, now);
		return 1;
	}
	if (!a->down && (due == 0 || now - a->seen_ms < AWAY_FRESH_MS))
		return 1;
	if (a->down && now < a->next_ms)
		return 0;
	if (ask(a->ls->be, &e) == 0) {
		a->seen_ms = mono_ms();
		if (a->down)
			back(a, due, now);
		else if (a->seen_ms - now >= AWAY_FRESH_MS) {
			char took[32];

			/* a stalled server answered late: the starts it held
			 * up may be past their deadline now, as after an outage */
			a->recheck = due;
			duration_human(a->seen_ms - now, took, sizeof(took));
			snprintf(a->why, sizeof(a->why), "it answered after %s", took);
		}
		return 1;
	}
	snprintf(a->why, sizeof(a->why), "%s", e.msg);
	if (a->down)
		backoff(a, now);
	else
		went(a, &e, due, now);
	return 0;
}

void
away_gave_up(struct away *a, const struct sched_task *t, time_t slot, const char *why,
    struct missed_queue *mq)
{
	char at[TEXT_ISO_MAX];
	char **v;

	missed_note(mq, t, slot);
	for (size_t i = 0; a->down && i < a->nsaid; i++)
		if (strcmp(a->said[i], t->name) == 0) {
			a->quiet++;
			return;
		}
	if (TRIGGERED(slot))	/* dropped on the server when it answers */
		snprintf(at, sizeof(at), "triggered");
	else
		text_iso((long long)slot * 1000, TEXT_ISO_S, at, sizeof(at));
	lr_event(LOG_ERR, "missed", NULL, "%s %s: missed: %s while the lock server did not "
	    "answer (%s); not started%s", t->name, at, why, a->why, a->down ? "; its next ones "
	    "likewise until the server is back, counted then" : "");
	if (!a->down || (v = realloc(a->said, (a->nsaid + 1) * sizeof(*v))) == NULL)
		return;
	a->said = v;
	if ((v[a->nsaid] = strdup(t->name)) != NULL)
		a->nsaid++;
}

/* Why a start of slot of t held until now_ms can start no more, or NULL
 * (it can). A triggered start's deadline counts from its take (the slot,
 * negated), as its retries' do (away_retry()). */
static const char *
too_late(const struct sched_task *t, time_t slot, long long now_ms)
{
	time_t next;

	if (TRIGGERED(slot))
		return now_ms + (long long)slot * 1000 > t->deadline_ms ?
		    "its starting_deadline passed" : NULL;
	next = schedule_next(&t->sched, slot);

	if (now_ms - (long long)slot * 1000 > t->deadline_ms)
		return "its starting_deadline passed";
	if (next != (time_t)-1 && (long long)next * 1000 <= now_ms)
		return "its next fire time came";
	return NULL;
}

int
away_late(struct away *a, const struct sched_task *t, time_t slot, long long now_ms,
    struct missed_queue *mq)
{
	const char *why;

	if (a->recheck == 0)
		return 0;
	a->recheck--;
	if ((why = too_late(t, slot, now_ms)) == NULL)
		return 0;
	away_gave_up(a, t, slot, why, mq);
	return 1;
}

void
away_expire(struct away *a, struct start_queue *q, const struct sched_task *t, size_t n,
    long long now_ms, struct missed_queue *mq)
{
	size_t k = q->head;

	for (size_t i = q->head; i < q->head + q->n; i++) {
		const struct sched_task *x = NULL;
		const char *why = NULL;

		for (size_t j = 0; j < n && x == NULL; j++)
			if (strcmp(t[j].name, q->v[i].task) == 0)
				x = &t[j];
		if (x && (why = too_late(x, q->v[i].slot, now_ms)) != NULL)
			away_gave_up(a, x, q->v[i].slot, why, mq);
		else
			q->v[k++] = q->v[i];
	}
	q->n = k - q->head;
	if (q->n == 0)
		q->head = 0;
}

int
away_retry(struct away *a, struct heap *h, const struct sched_task *t, size_t n,
    const struct running *r)
{
	/* the precise wall clock, rounded up: time() may be a second behind
	 * the timer that fired, and the retry due at once */
	time_t now = (time_t)((real_ms() + 999) / 1000);
	/* a triggered run's deadline counts from when its trigger was taken:
	 * the trigger is kept until a run of it has started */
	time_t from = TRIGGERED(r->slot_t) ? -r->slot_t : r->slot_t;
	time_t again = now + (time_t)due_retry_s(from, now, random());
	char at[TEXT_ISO_MAX];
	struct log_fields f;

	if (r->outcome.ran || r->outcome.skipped || r->outcome.too_late ||
	    r->status != EX_UNAVAILABLE)
		return 0;
	a->seen_ms = 0;		/* asked before the next start, unless a batch
				 * was answered since */
	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].name, r->task) != 0)
			continue;
		if ((long long)again * 1000 > (long long)from * 1000 + t[i].deadline_ms ||
		    heap_push(h, again, i, r->slot_t) != 0)
			return 0;
		log_fields_init(&f);
		f.task = r->task;
		f.slot = r->slot;
		f.status = r->status;
		lr_event(LOG_WARNING, "retry", &f, "%s %s: the run took no lock (status %d)%s%s; "
		    "trying again at %s, within its starting_deadline", r->task, r->slot,
		    r->status, r->outcome.why[0] ? ": " : "", r->outcome.why,
		    text_iso((long long)again * 1000, TEXT_ISO_S, at, sizeof(at)));
		return 1;
	}
	return 0;
}

long long
away_wake_ms(const struct away *a, long long now_real, long long now_mono)
{
	if (a->ls == NULL || !a->down)
		return 0;
	return now_real + (a->next_ms > now_mono ? a->next_ms - now_mono : 0);
}

void
away_free(struct away *a)
{
	for (size_t i = 0; i < a->nsaid; i++)
		free(a->said[i]);
	free(a->said);
	a->said = NULL;
	a->nsaid = 0;
}

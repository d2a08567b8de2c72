/* SPDX-License-Identifier: BSD-2-Clause */
/* missed.c -- record the slots that ran nowhere (missed.h). A scheduler
 * notices a fire time past its starting_deadline (started late: a clock
 * step, a stop; started after every scheduler was down; a server that
 * could not be reached until the deadline passed). Whether any server ran
 * it is the slot key's to say: the record claims that key, so a slot is
 * either run or recorded as missed, once, whichever comes first, and the
 * scheduler that claims it runs on_missed. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/missed.h"
#include "sched/report.h"
#include "sched/trigger.h"

void
missed_note(struct missed_queue *q, const struct sched_task *t, time_t slot)
{
	struct missed_slot *v;

	/* a trigger its taker gave up on is dropped on the server, whatever
	 * the task's settings (crond.c: a triggered slot is below 0) */
	/* run_on: all records none: a slot a server missed is its own (the
	 * others ran theirs, and cannot tell it was due there), and the
	 * scheduler that missed it says so in its log (missed_if_passed()) */
	if (slot >= 0 && (!t->one_server || schedule_subminute(&t->sched) || t->history == 0 ||
	    t->run_on_all))
		return;
	for (size_t i = 0; i < q->n; i++)
		if (q->v[i].slot == slot && strcmp(q->v[i].task, t->name) == 0)
			return;
	if (q->n == MISSED_QUEUE_MAX) {
		lr_event(LOG_ERR, "missed", NULL, "%s: %zu missed slots are waiting to be "
		    "recorded already; this one is not", t->name, q->n);
		return;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 8;
		if ((v = realloc(q->v, cap * sizeof(*v))) == NULL)
			return;
		q->v = v;
		q->cap = cap;
	}
	if ((q->v[q->n].task = strdup(t->name)) == NULL)
		return;
	q->v[q->n].slot = slot;
	q->v[q->n++].due_ms = slot < 0 ? 0 : (long long)slot * 1000 + t->deadline_ms;
	q->next_ms = 0;		/* look at once */
}

int
missed_if_passed(struct missed_queue *q, const struct sched_task *t, time_t slot,
    time_t last)
{
	time_t next = slot < 0 ? (time_t)-1 : schedule_next(&t->sched, slot);	/* < 0: triggered */
	char at[TEXT_ISO_MAX];

	if (!t->one_server || next == (time_t)-1 || (long long)next * 1000 > real_ms())
		return 0;
	text_iso((long long)slot * 1000, TEXT_ISO_S, at, sizeof(at));
	report_unstarted(t->name, at, "its next fire time passed before it could be "
	    "started");
	if (last == slot)
		missed_note(q, t, slot);
	return 1;
}

/* The task named name among t[n], or n. */
static size_t
task_index(const struct sched_task *t, size_t n, const char *name)
{
	size_t i = 0;

	while (i < n && strcmp(t[i].name, name) != 0)
		i++;
	return i;
}

/* Record s, whose task is *t. Returns ops.h's won (1 recorded here, 2
 * by another scheduler, 0 not missed), or -1 with e. */
static int
record_one(struct missed_src *src, const struct missed_slot *s, const struct sched_task *t,
    long long now_ms, struct lr_err *e)
{
	char at[TEXT_ISO_MAX];
	struct lr_keys k;
	struct lr_missed m = { .slot_ttl_ms = s->slot < 0 ? 0 :
	    schedule_slot_ttl_ms(&t->sched, now_ms, s->slot),
	    .host = src->host, .pid = (long long)getpid(),
	    .at = text_iso(now_ms, TEXT_ISO_S, at, sizeof(at)), .hist_cap = t->history,
	    .hist_ttl_ms = t->history_ttl_ms };
	unsigned char won = 0;
	char take[LR_TAKE_MAX];

	if (s->slot < 0) {	/* a trigger we took: its mark (trigger.h) */
		trigger_take_id(take, sizeof(take), src->host, -s->slot);
		m.take = take;
	}
	keys_build(&k, src->prefix, t->name, s->slot < 0 ? (time_t)-1 : s->slot, 60000);
	if (src->be->ops->missed(src->be, &k, 1, &m, &won, e) != 0)
		return -1;
	return won;
}

/* What the record of slot of task t found (ops.h's won[]): a slot that
 * ran nowhere is said, and where it was recorded here, the task's
 * on_missed started; one that ran says nothing (at a start, most tasks'
 * latest fire time is past its deadline, and ran). */
static void
recorded(const struct sched_task *t, time_t slot, int won, const struct sched_spawner *sp)
{
	struct lr_err e = LR_ERR_INIT;
	char at[TEXT_ISO_MAX];

	if (won == 0)		/* a server ran it, or the task never ran */
		return;
	if (slot < 0) {		/* a trigger dropped, its mark still ours */
		lr_event(LOG_ERR, "missed", NULL, "%s triggered: missed: not started by its "
		    "starting_deadline; the trigger is dropped, recorded for the fleet here",
		    t->name);
		return;
	}
	text_iso((long long)slot * 1000, TEXT_ISO_S, at, sizeof(at));
	lr_event(LOG_ERR, "missed", NULL, "%s %s: missed: no server ran it by its "
	    "starting_deadline; %s", t->name, at, won == 1 ? "recorded for the fleet here" :
	    "another scheduler recorded it");
	if (won == 1 && t->on_missed &&
	    starter_spawn(sp, t, SPAWN_MISSED - (long long)slot * 1000, "", NULL, &e) < 0)
		lr_event(LOG_WARNING, "hook-failed", NULL, "%s: on_missed: %s", t->name, e.msg);
}

void
missed_flush(struct missed_queue *q, struct missed_src *src, long long now_ms,
    const struct sched_task *t, size_t n, const struct sched_spawner *sp)
{
	struct lr_err e = LR_ERR_INIT;
	long long next = 0;
	int broke = 0, can = src != NULL && src->be->ops->missed != NULL;
	size_t kept = 0;

	if (q->n == 0 || now_ms < q->next_ms)
		return;
	for (size_t j = 0; j < q->n; j++) {
		struct missed_slot *s = &q->v[j];
		size_t i = task_index(t, n, s->task);
		int rc;

		if (!can || i == n) {		/* nowhere to record it; a task gone */
			free(s->task);
			continue;
		}
		if (!broke && s->due_ms <= now_ms) {
			if ((rc = record_one(src, s, &t[i], now_ms, &e)) >= 0) {
				recorded(&t[i], s->slot, rc, sp);
				free(s->task);
				continue;
			}
			broke = 1;
		}
		if (s->due_ms > now_ms && (next == 0 || s->due_ms < next))
			next = s->due_ms;
		q->v[kept++] = *s;
	}
	q->n = kept;
	if (broke) {
		src->be->ops->close(src->be);	/* what is left of the answer goes too */
		if (!src->failing)
			lr_event(LOG_WARNING, "record", NULL, "cannot ask the server whether %zu "
			    "fire time%s past %s starting_deadline ran: %s; asking again every %ds",
			    q->n, q->n == 1 ? "" : "s", q->n == 1 ? "its" : "their", e.msg,
			    TRIGGER_POLL_S);
		src->failing = 1;
		next = now_ms + TRIGGER_POLL_S * 1000LL;
	} else if (can)
		src->failing = 0;
	q->next_ms = next;
}

void
missed_free(struct missed_queue *q)
{
	for (size_t j = 0; j < q->n; j++)
		free(q->v[j].task);
	free(q->v);
	*q = (struct missed_queue){ 0 };
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* run_table.c -- the scheduler's table of its runs in progress. */
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "sched/run_table.h"

struct running *
run_table_add(struct run_table *t)
{
	struct running *r;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct running **v = realloc(t->v, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	if ((r = calloc(1, sizeof(*r))) != NULL)
		t->v[t->n++] = r;
	return r;
}

void
run_table_free(struct run_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		lines_free(&t->v[i]->out);
		free(t->v[i]);
	}
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

void
run_table_start(struct run_table *t, const struct sched_spawner *sp, const struct sched_task *task,
    time_t slot, const char *claim)
{
	struct lr_err e = LR_ERR_INIT;
	struct running *r = run_table_add(t);
	/* output: inherit: the run writes to our stdout and stderr itself */
	struct spawn_pipes io = { .relay = !task->output_inherit };
	char at[TEXT_ISO_MAX], take[64];
	const char *when = TRIGGERED(slot) ? "triggered" :
	    text_iso((long long)slot * 1000, TEXT_ISO_S, at, sizeof(at));

	/* a triggered run is told the take's mark but for the host, which is
	 * its own too (trigger.h, trigger_take_id()): the slot is the take's
	 * second, negated */
	if (TRIGGERED(slot)) {
		snprintf(take, sizeof(take), "%ld/%lld", (long)getpid(), -(long long)slot);
		claim = take;
	}

	if (r == NULL) {
		report_unstarted(task->name, when, "out of memory");
		return;
	}
	snprintf(r->task, sizeof(r->task), "%s", task->name);
	snprintf(r->slot, sizeof(r->slot), "%s", when);
	r->slot_t = slot;
	r->started_ms = mono_ms();
	if ((r->pid = starter_spawn(sp, task, TRIGGERED(slot) ? SPAWN_TRIGGERED :
	    (long long)slot * 1000, claim, &io, &e)) < 0) {
		report_unstarted(r->task, r->slot, e.msg);
		free(t->v[--t->n]);
		return;
	}
	r->was = r->pid;
	r->out = (struct line_stream){ .fd = io.relay ? io.out : -1 };
	r->lease = io.lease;
	report_started(r->task, r->slot, r->pid);
}

void
run_table_reap(struct run_table *t)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0 || (pid < 0 && errno == EINTR))
		for (size_t i = 0; pid > 0 && i < t->n; i++)
			if (t->v[i]->pid == pid) {
				t->v[i]->pid = 0;
				t->v[i]->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) :
				    WEXITSTATUS(st);
				t->v[i]->took_ms = mono_ms() - t->v[i]->started_ms;
			}
	/* ECHILD: none left. Else the ended stay unreaped until the next
	 * SIGCHLD asks again: said */
	if (pid < 0 && errno != ECHILD)
		report_fault(&t->said, errno, "cron: cannot learn which runs ended, until "
		    "the next one does: waitpid");
}

size_t
run_table_live(const struct run_table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i]->pid > 0;
	return n;
}

size_t
run_table_starting(const struct run_table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i]->pid > 0 && t->v[i]->lease >= 0 && !t->v[i]->outcome.ran &&
		    !t->v[i]->outcome.skipped && !t->v[i]->outcome.waiting;
	return n;
}

int
run_table_was(const struct run_table *t, long pid)
{
	for (size_t i = 0; i < t->n; i++)
		if ((long)t->v[i]->was == pid)
			return 1;
	return 0;
}

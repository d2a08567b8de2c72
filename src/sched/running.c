/* SPDX-License-Identifier: BSD-2-Clause */
/* running.c -- the scheduler's table of its runs in progress. */
#include <sys/wait.h>

#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "sched/running.h"

struct running *
running_add(struct run_table *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct running *v = realloc(t->v, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	return memset(&t->v[t->n++], 0, sizeof(struct running));
}

void
running_reap(struct run_table *t)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].pid == pid) {
				t->v[i].pid = 0;
				t->v[i].status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) :
				    WEXITSTATUS(st);
				t->v[i].took_ms = mono_ms() - t->v[i].started_ms;
			}
}

size_t
running_live(const struct run_table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].pid > 0;
	return n;
}

size_t
running_starting(const struct run_table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].pid > 0 && t->v[i].rep.fd >= 0 && !t->v[i].rep.ran &&
		    !t->v[i].rep.skipped && !t->v[i].rep.waiting;
	return n;
}

int
running_was(const struct run_table *t, long pid)
{
	for (size_t i = 0; i < t->n; i++)
		if ((long)t->v[i].was == pid)
			return 1;
	return 0;
}

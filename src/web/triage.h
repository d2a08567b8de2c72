/* SPDX-License-Identifier: BSD-2-Clause */
/* triage.h -- which tasks want a look, for the status page: what is wrong
 * with a task's row, the order that lists those tasks first, and the one
 * line that counts them. */
#ifndef LR_WEB_TRIAGE_H
#define LR_WEB_TRIAGE_H

#include <stddef.h>

#include "web/rows.h"

/* What can be wrong with a task, in the order the summary names them. */
enum triage_kind {
	TRIAGE_FAILING,		/* its last run ended with a status other than 0 */
	TRIAGE_LOST,		/* its last run lost its lock: lost, unlocked,
				 * or its end never recorded (unknown) */
	TRIAGE_PAUSED,		/* `lockrun pause` */
	TRIAGE_MISSED,		/* a slot ran nowhere, and no run started since */
	TRIAGE_STALE,		/* its lock is held past --stale-after */
	TRIAGE_UNREADABLE,	/* its records could not be read */
	NTRIAGE
};

/* What is wrong with row w: a bit (1u << enum triage_kind) for each. */
unsigned	triage_of(const struct row *w);

/* The order in which to show rows[0..n), into idx[0..n): first the tasks
 * with anything but a pause wrong, then the paused, then the rest, each
 * group in the order given. */
void	triage_order(const struct row *rows, size_t n, size_t *idx);

/* How many of rows[0..n) have each kind of trouble, into count[]; a task
 * with two counts in both. */
void	triage_count(const struct row *rows, size_t n, size_t count[NTRIAGE]);

/* The summary of total tasks with count[] troubles, into buf of size n:
 * "12 tasks: 2 failing, 1 paused, 1 missed", or "3 tasks, none failing,
 * lost, paused or missed". Returns buf. */
char	*triage_summary(const size_t count[NTRIAGE], size_t total, char *buf, size_t n);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* run_table.h -- the scheduler's table of its runs in progress: each run's
 * pid, how it ended, its pipes and its lease socket, from its fork until
 * its end is said (crond.c). */
#ifndef LR_SCHED_RUN_TABLE_H
#define LR_SCHED_RUN_TABLE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "core/text.h"
#include "sched/due.h"
#include "sched/lines.h"
#include "sched/outcome.h"
#include "sched/report.h"
#include "sched/starter.h"

/* A triggered run (`lockrun trigger`) claims no slot: where a slot is
 * kept (the start queue, a run, a retry in the heap) it is minus the
 * second this scheduler took its trigger, from which its starting_deadline
 * counts when it is started again (away_retry()). */
#define TRIGGERED(slot)	((slot) < 0)

/* A run started and not yet gone: its pid (0 once reaped), end, pipes. */
struct running {
	pid_t			pid;
	pid_t			was;		/* its pid, still known once reaped */
	int			status;		/* lockrun's exit status, once reaped */
	long long		started_ms;	/* mono_ms() at the start's ask */
	long long		took_ms;	/* from then to the end */
	char			task[256];
	char			slot[TEXT_ISO_MAX];
	time_t			slot_t;
	struct line_stream	out;		/* its stdout and stderr */
	int			lease;		/* its socket: its lock requests, how
						 * it goes and its log; or -1 */
	struct run_outcome	outcome;	/* how it goes, as it told (outcome.h) */
};

struct run_table {
	struct running		**v;	/* each its own allocation: an entry
					 * stays where it is, and the array of
					 * pointers grows without copying runs */
	size_t			 n, cap;
	struct report_once	 said;	/* waitpid(2) failed (run_table_reap()) */
};

/* A new entry at the end, zeroed; NULL when out of memory. */
struct running	*run_table_add(struct run_table *t);

/* Free every entry (and what its output still holds) and the table. */
void	run_table_free(struct run_table *t);

/* Start task's run for slot, into t, and say so; a slot no run could be
 * started for is missed (said). Slot -1: a triggered run (`lockrun
 * trigger`), which claims no slot. claim: the nonce of the claim made of
 * the slot for it (claim.h), or "". */
void	run_table_start(struct run_table *t, const struct sched_spawner *sp,
	    const struct sched_task *task, time_t slot, const char *claim);

/* Reap every child that ended (as PID 1 or subreaper, orphans too), and
 * note each run's status and duration; a waitpid(2) failure but ECHILD
 * is said (report_fault()), those ended then reaped at the next call. */
void	run_table_reap(struct run_table *t);

/* How many runs are alive (not reaped yet). */
size_t	run_table_live(const struct run_table *t);

/* How many runs are still getting ready: alive, and not yet told that
 * they took their lock, skipped, wait for a held one (wait:), or ended
 * (their socket open). */
size_t	run_table_starting(const struct run_table *t);

/* Was pid one of these runs' (reaped or not)? */
int	run_table_was(const struct run_table *t, long pid);

#endif

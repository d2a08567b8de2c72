/* SPDX-License-Identifier: BSD-2-Clause */
/* claim.h -- claim before fork. Every scheduler of a fleet starts each
 * one-server task at each of its fire times, and all but one are told the
 * slot is taken: five schedulers forked five runs for each slot, four of
 * them only to hear that. So before it forks the runs of a turn, the
 * scheduler claims their slots itself, all in one round trip (ops.h,
 * claim), and forks only the runs whose slot it won, each told the
 * claim's nonce (starter.h, CLAIM_VAR) so that its acquire takes the
 * slot key holding that claim as its own. A slot another holds costs a
 * log line and a "skipped-slot" entry in the history, as the run's skip
 * did, and no process. Anything undecided (no answer, a clock off by
 * more than the tolerance, a paused task, a backend without claims)
 * forks the run as before, and its acquire decides as it always did.
 *
 * The claims are spread among the fleet's schedulers: each notes itself
 * in the lock server at its start and at fire times (ops.h, schedulers,
 * at most every CLAIM_FLEET_EVERY_MS), and learns the others noted within
 * a window (twice its tasks' longest gap between fire times, a minute at
 * least, a day at most). For each task and fire time, the schedulers rank
 * by a hash of their name, the task's and the slot's (rendezvous
 * hashing): the first claims at once; the others put the start off a
 * little (defer.h: a quarter of the task's gap, at most DEFER_MAX_MS,
 * never past its starting_deadline), and then claim, and mostly find it
 * taken. A scheduler alone, or one whose fleet is not known (the server
 * keeps none, the note failed), claims everything at once. So each
 * scheduler of n runs about 1/n of the slots, whichever clock is ahead,
 * and a slot whose first-ranked scheduler died meanwhile runs that little
 * later, on another. A scheduler whose host a task's hosts: or
 * host_match: leave out is not ranked for it (it never claims it), and a
 * run_on: all task is not ranked at all: each scheduler claims its own
 * slot key (keys_slot_host()) at once, which no other races for. */
#ifndef LR_SCHED_CLAIM_H
#define LR_SCHED_CLAIM_H

#include <stddef.h>
#include <time.h>

#include "backend/ops.h"
#include "sched/due.h"

/* Where the claims go: the scheduler's own backend (its runs' one, when
 * they share it), the keys' prefix, and this host as runs name it. */
#define CLAIM_FLEET_EVERY_MS	10000
#define CLAIM_FLEET_CAP_MS	500	/* the loop waits no longer for a note */

struct claim_src {
	struct lr_backend	*be;
	const char		*prefix;
	const char		*host;
	int			 failing;	/* the last batch failed (said once) */
	long long		 offset_ms;	/* the server's clock minus ours, as
						 * the last answer had it */
	int			 offset_known;
	/* the fleet's schedulers, as last noted (claim_fleet()) */
	char			 me[320];	/* "host pid" */
	char			**fleet;
	size_t			 nfleet, capfleet;
	long long		 fleet_ms;	/* mono ms of the last note, 0: none */
	int			 notes;		/* how many were made */
	int			 fleet_failing;	/* the last note failed (said once) */
};

/* A start of a turn, and what its claim found. */
struct claim_start {
	const struct sched_task	*task;
	time_t			 slot;		/* below 0: triggered (no slot) */
	char			 nonce[CLAIM_NONCE_MAX];	/* won: tell the run */
	int			 lost;		/* another holds the slot: fork nothing */
};

/* Note this scheduler among the fleet's and learn the others, for the n
 * tasks t (their gaps set the window): at its start and first fire, then
 * no more often than CLAIM_FLEET_EVERY_MS (mono_ms now). No-op with src
 * NULL or a backend that keeps none. */
void	claim_fleet(struct claim_src *src, const struct sched_task *t, size_t n,
	    long long now_ms);

/* Does this scheduler rank first among the fleet's for t's slot (claim at
 * once)? 1 also when it cannot tell (alone, the fleet unknown). */
int	claim_first(const struct claim_src *src, const struct sched_task *t, time_t slot);

void	claim_free(struct claim_src *src);

/* Claim the slots of the n starts s[] that claim_can() allows, in one
 * round trip over src (NULL: none claimed), at now_ms (Unix ms): nonce set
 * where won, lost set (and the skip said) where another holds the slot.
 * Returns how many were lost. */
size_t	claim_slots(struct claim_src *src, struct claim_start *s, size_t n, long long now_ms);

#endif

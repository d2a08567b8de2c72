/* SPDX-License-Identifier: BSD-2-Clause */
/* supervise.h -- run the command while holding the lease. */
#ifndef LR_SUPERVISE_H
#define LR_SUPERVISE_H

#include "core/duration.h"
#include "proc/capture.h"
#include "proc/child.h"
#include "core/err.h"
#include "backend/backend.h"
#include "backend/lock.h"

struct lr_supervise {
	/* in */
	struct lr_child		 *child;	/* child_init()ed; closed by the caller */
	const struct lr_child_spec *spec;	/* the command */
	const struct lr_vars	 *vars;		/* the LOCKRUN_ variables */
	long long		  kill_after_ms;
	struct lr_backend	 *be;		/* NULL: nothing to renew */
	struct lr_lock		 *lock;
	long long		  acquired_at;	/* mono_ms() when the acquire was sent */
	long long		  timeout_ms;	/* 0: none */
	int			  on_lost;	/* enum lr_on_lost */
	struct lr_capture	 *capture;	/* the command's output passed on
						 * through lockrun, its end kept;
						 * NULL: it writes there itself */
	/* out */
	char			  why[200];	/* why lockrun stopped the command
						 * (the first reason), or "" */
	long long		  confirmed;	/* when the last request the server
						 * confirmed was sent (the acquire, or a
						 * renewal): for a next attempt's
						 * acquired_at */
	int			  timed_out;	/* --timeout stopped the command */
	long long		  wait_med_ms;	/* the renewals' answers: how long one
						 * was waited for, the median and the */
	long long		  wait_max_ms;	/* longest (-1: none answered) */
	int			  lost;		/* LOST_TAKEN: another run holds the
						 * key; LOST_SESSION: a session lock
						 * went with its connection, no one
						 * known to have it; LOST_FREED: unlock
						 * freed it (its tombstone is ours to
						 * delete), or it was freed and a later
						 * token drawn since */
};

enum { LOST_TAKEN = 1, LOST_SESSION = 2, LOST_FREED = 3 };

/* Start the command and wait for it (with kill_mode tree, for its whole
 * process tree), in one poll(2) loop without threads: forward signals,
 * renew the lease every ttl/3 (be != NULL), stop the command when the
 * lock is lost or the lease runs out unconfirmed (on_lost: term) or
 * --timeout passes, and reap it. Returns the exit status for lockrun (the
 * command's, 128+N, or 124 on timeout), or -1 with e when the command
 * could not be started. */
int	supervise(struct lr_supervise *s, struct lr_err *e);

#endif

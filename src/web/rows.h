/* SPDX-License-Identifier: BSD-2-Clause */
/* rows.h -- what a reader of the fleet (`lockrun status`, the scheduler's
 * web page and metrics) knows of each task's lock and last run. */
#ifndef LR_WEB_ROWS_H
#define LR_WEB_ROWS_H

#include <limits.h>

#include "backend/ops.h"
#include "backend/record.h"
#include "core/err.h"
#include "core/keys.h"

#define ABSENT		LLONG_MIN	/* a number the backend did not give */

/* One task's lock and last run, as read from the backend. Strings borrow
 * from the states, which live as long as the struct status. */
struct row {
	const char	*name;
	int		 held;
	int		 stale;
	char		 host[256];	/* the holder's, from the stable key's value */
	int		 phase;		/* enum key_phase: running, unlocked, released */
	long long	 pid;
	long long	 token;
	long long	 since_ms;	/* when the holder started */
	long long	 held_ms;	/* for how long, by the server's clock */
	long long	 ttl_ms;	/* PTTL; ABSENT when the key never expires */
	int		 session;	/* ...or when it is a session lock */
	int		 has_last;	/* the last-run hash exists */
	const char	*l_event, *l_host, *l_slot;
	const char	*l_reason;	/* why lockrun ended it, in words; NULL */
	long long	 l_pid, l_token, l_start, l_end, l_status, l_duration;
	long long	 success_ms;	/* the last run that ended with status 0 */
	int		 paused;	/* `lockrun pause`: the pause's value read */
	char		 p_host[256], p_user[64];	/* who paused it */
	const char	*p_reason;	/* why ("" none), in the state's value */
	long long	 p_since, p_until;	/* when, until when (ABSENT: resumed) */
	long long	 missed;	/* slots recorded as missed (ops.h) */
	const char	*missed_slot;	/* the last of them, ISO 8601, or NULL */
	long long	 missed_ms;	/* ...as ms; ABSENT: none */
	int		 counted;	/* the server's counters were read */
	long long	 count[NCOUNTERS];
	size_t		 nplaces;	/* limit: N: the places held (the holder
					 * above is the first); 0: a plain lock */
	char *const	*places;	/* their values (lr_state's) */
	const long long	*places_ttl;
	const char	*error;		/* the task's records could not be read
					 * (rows_states()): why, one line; all
					 * above unknown. NULL: read */
};

/* Fill w from r, the state of task name (borrowed, as are r's strings)
 * read when the server's clock said now_ms; session: the backend's locks
 * are session locks (ops->session); stale: --stale-after (LR_UNSET:
 * none). */
void	rows_read(struct row *w, const char *name, const struct lr_state *r,
	    long long now_ms, int session, long long stale);

/* A run freed by `lockrun unlock` has its last-run record ended there,
 * "unlocked" (unlock.lua): its own end, recorded once its tree was
 * stopped, finds the record no longer running and leaves it, so how it
 * ended (lost, 143) is in the history only. rows_needs_history(): is w
 * such a run? rows_outcome(): take its end from h, the task's history
 * (newest first): the entry with the run's token that ends a run; w's
 * event, status, duration and end become that entry's (borrowed from
 * h, which must live as long as w). Returns 1 found, else 0 (w as it
 * was: the holder never told its end, or the history is off). */
int	rows_needs_history(const struct row *w);
int	rows_outcome(struct row *w, const struct lr_hist *h);

/* Does history event ev end a run? A skip carries the holder's token, an
 * unlock its victim's: neither is a run's own end. */
int	rows_ends_run(const char *ev);

/* be->ops->states() of the n tasks k (counts as there) into out and
 * *now_ms. When that read fails for one task's data (LR_ERR_DATA: a value
 * past what lockrun reads, a key of the wrong type), each task is read
 * alone, the connection opened again within reopen_ms first when the
 * failure closed it: a task whose own read fails so has its error in
 * bad[i] (status set) and an empty state, and the others are read as
 * usual. Returns 0, or -1 with e when the server failed (transport,
 * timeout, refusal: nothing is known). */
int	rows_states(struct lr_backend *be, const struct lr_keys *k, size_t n, int counts,
	    struct lr_state *out, long long *now_ms, long long reopen_ms, struct lr_err *bad,
	    struct lr_err *e);

#endif

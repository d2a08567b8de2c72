/* SPDX-License-Identifier: BSD-2-Clause */
/* record.h -- the records every backend returns (a run's fields, a
 * task's history and state), and the helpers that build and free them:
 * the backends depend on these, never on the dispatcher (backend.c). */
#ifndef LR_RECORD_H
#define LR_RECORD_H

#include <stddef.h>

#define LR_FIELDS_MAX	16

/* Field/value pairs, as the history and the last-run record hold them:
 * event, host, pid, slot, token, holder, status, duration_ms; the last
 * run also start_ms, end_ms, success_ms. Strings are owned (malloc). */
struct lr_fields {
	size_t	 n;
	char	*f[LR_FIELDS_MAX];
	char	*v[LR_FIELDS_MAX];
};

/* Add a copy of f and v (v NULL or "": left out). Returns 0, or -1 when
 * out of memory or full. */
int	record_field_add(struct lr_fields *fl, const char *f, const char *v);
/* The value of field f, or NULL. */
const char *record_field_get(const struct lr_fields *fl, const char *f);
void	record_fields_free(struct lr_fields *fl);

/* One history entry: when it was written (the server's clock, ms) and
 * its fields. */
struct lr_hist_entry {
	long long		at_ms;
	struct lr_fields	fields;
};

struct lr_hist {
	size_t			 n;
	struct lr_hist_entry	*e;	/* newest first */
};

void	record_hist_free(struct lr_hist *h);

/* A task's counters, kept by the server in the statements (scripts)
 * that write the history, with the history's life: runs started, skips
 * (a held lock recorded, a slot already run), runs that ended with a
 * non-zero status (timeouts among them; not lost ones), lost locks,
 * runs stopped by --timeout, and attempts after a run's first (retries:,
 * added by the release that ends the run). */
enum lr_counter { CNT_RUNS, CNT_SKIPPED_HELD, CNT_SKIPPED_SLOT, CNT_FAILURES,
	CNT_LOST, CNT_TIMEOUTS, CNT_RETRIES, NCOUNTERS };

/* Each counter's name, as the Redis hash and the SQL table call it. */
extern const char *const record_counter_names[NCOUNTERS];

/* The index of counter name, or -1. */
int	record_counter_index(const char *name);

/* A task's lock and last run, for `lockrun status`. */
struct lr_state {
	char		*value;		/* the stable key's holder value; NULL: free */
	long long	 ttl_ms;	/* what is left of its lease; -1: none (a
					 * session lock, or no expiry) */
	struct lr_fields last;		/* the last-run record; n 0: none */
	char		*paused;	/* the pause's value (lock.h, LOCK_PAUSED);
					 * NULL: not paused */
	long long	 missed;	/* slots recorded as missed (ops.h) */
	char		*missed_slot;	/* the last of them, ISO 8601; NULL: none */
	int		 counted;	/* the counters were read (and exist) */
	long long	 count[NCOUNTERS];
	/* limit: N: the stable key is a set of places (Redis: places.lua);
	 * value and ttl_ms above are then the first place held's */
	size_t		 nplaces;	/* places held; 0: a plain key */
	char		**places;	/* their values, in the order their leases end */
	long long	*places_ttl;	/* what is left of each lease */
};

void	record_state_free(struct lr_state *s);

#endif

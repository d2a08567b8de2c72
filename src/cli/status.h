/* SPDX-License-Identifier: BSD-2-Clause */
/* status.h -- what `lockrun status` read of each task, shared by its table
 * and JSON (status.c) and its Prometheus metrics (status_prom.c). */
#ifndef LR_STATUS_H
#define LR_STATUS_H

#include <limits.h>
#include <stdio.h>

#include "backend/record.h"

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
	long long	 l_pid, l_token, l_start, l_end, l_status, l_duration;
	long long	 success_ms;	/* the last run that ended with status 0 */
	int		 counted;	/* the server's counters (prometheus only) */
	long long	 count[NCOUNTERS];
};

/* Row w as one JSON object on a line (the fields are listed in
 * lockrun(1)); prefix names its key. */
void	status_json_print(const char *prefix, const struct row *w, FILE *fp);

/* The rows as Prometheus text exposition: each family's HELP and TYPE,
 * then a sample per task that has a value. */
void	status_prom_print(const struct row *rows, size_t n, FILE *fp);

#endif

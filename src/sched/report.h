/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h -- what the scheduler says of its runs. (What a run says of
 * itself comes over its socket: its log's records, passed on where the
 * scheduler's JSON lines go, and how it went, as typed messages:
 * leases.h, outcome.h.) */
#ifndef LR_REPORT_H
#define LR_REPORT_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

struct lr_config;
struct run_outcome;

/* What a scheduler says of its runs, by default (lockrun(7), LOG RECORDS):
 * a run started (event started), no run could be started for a slot
 * (missed, an error, with why), and how a run went (r, what it told of
 * itself: outcome.h) once it is gone and its pipes and socket are read to
 * the end: ended (its status, took_ms from its fork; a
 * warning if the status is not 0), skipped (its own reason: held by whom
 * since when, or the slot taken by whom), clock-off (it claimed no slot,
 * this host's clock being off: the run's own line, said once a minute
 * for all runs -- *clock_said is when it was last said, mono_ms(), 0
 * never -- and otherwise an info line), or missed (it took no lock and
 * ran nothing: an error, with its last error). */
void	report_started(const char *task, const char *slot, pid_t pid);
void	report_unstarted(const char *task, const char *slot, const char *why);
void	report_ended(const struct run_outcome *r, const char *task, const char *slot,
	    pid_t pid, int status, long long took_ms, long long *clock_said);

/* The clock-off line is said at most this often. */
#define REPORT_CLOCK_EVERY_MS	60000

/* cron is ready: n tasks from path, their server, and the next to start
 * (next_at, Unix s), or NULL: none. */
/* What the config's crontabs could not take (config/types.h's notes):
 * a line each, at every read of the config (start, SIGHUP, tick). */
void	report_notes(const struct lr_config *cfg);

struct sched_task;

/* A line for each task whose schedule has six fields, the first a
 * second: how often it fires (cron_per_day()), so that a schedule
 * written for another reading of six fields shows itself at the start. */
void	report_six_fields(const struct sched_task *t, size_t n);

/* A system call that failed where the scheduler goes on (cron's loop,
 * tick's pass): a warning, event system-error, "WHAT: strerror(err)",
 * said at most once every REPORT_FAULT_EVERY_MS for each place (o, zero
 * at first): the first at once, those after it in that time counted and
 * their number said with the next, never one a turn, never none. */
struct report_once {
	long long		said_ms;	/* mono_ms() when last said; 0 never */
	unsigned long long	more;		/* not said since */
};
#define REPORT_FAULT_EVERY_MS	60000
void	report_fault(struct report_once *o, int err, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

void	report_ready(size_t n, const char *path, const char *server, const char *next,
	    time_t next_at);

#endif

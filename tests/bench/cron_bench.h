/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_bench.h -- the bench's figures for lockrun cron and a tasks_dir. */
#ifndef LR_CRON_BENCH_H
#define LR_CRON_BENCH_H

#include "../integ/redis_fixture.h"

/* A run of one task from a tasks_dir of 10,000 files against a config of
 * that one task: medians and their ratio. Returns the failures seen. */
int	tasksdir_cost(const char *lockrun, const struct redis_fixture *fx);

/* lockrun check of a tasks_dir of 1,000, 10,000 and 100,000 files: the
 * time of each, a task's share, and their ratio (linear: 100). Reported,
 * never asserted. Returns the failures seen. */
int	check_cost(const char *lockrun, const struct redis_fixture *fx);

/* lockrun cron: idle CPU and wake-ups over a real minute, RSS with 1,000
 * tasks, start latency after a fire time, 1,000 tasks due at once.
 * Reported, never asserted. Returns the failures seen. */
int	cron_cost_all(const char *lockrun, const struct redis_fixture *fx);

/* Tasks every second under lockrun cron (seconds_bench.c): round trips per
 * second per task on 1 and on 5 schedulers, and a scheduler's CPU over a
 * minute with 100 of them. Reported, never asserted. Returns the failures
 * seen. */
int	seconds_cost(const char *lockrun, const struct redis_fixture *fx);

/* Commands Redis received for uncontended runs and for skips
 * (rt_bench.c): round trips per run and per skip, with one-server,
 * no-overlap and the clock check on. Returns the failures seen. */
int	round_trip_cost(const char *lockrun, const struct redis_fixture *fx);

/* A run whose output is kept (keep_output 16K) against the same with it
 * off: median wall times and round trips, printed; failed runs counted. */
int	capture_cost(const char *lockrun, const struct redis_fixture *fx);

/* LD_PRELOAD=libfaketime and FAKETIME, the offset that makes the clock
 * read at now (running on), into env[0..3], NULL after. 0, or -1 when
 * libfaketime is not installed. */
int	cron_fake_env(char *env[5], char buf[2][128], double at);

/* Start argv with env added ("NAME=value", NULL-terminated, or NULL),
 * stdin and stdout on /dev/null, stderr to err (or /dev/null). */
pid_t	cron_spawn(char *const argv[], char *const env[], const char *err);
/* Wait for pid; its exit status, or 128 + the signal that ended it. */
int	cron_reap(pid_t pid);
/* The lines of path as numbers into v (at most n); how many. */
int	cron_read_times(const char *path, double *v, int n);

/* lockrun cron at a fleet's size (fleet_bench.c): N tasks due at once,
 * each running long, on Redis, PostgreSQL (max_connections = 100) and
 * MariaDB: connections, commands per renewal period, tasks run in their
 * slot, the starts' spread against a bare fork-and-exec. Reported, never
 * asserted. Returns the failures seen. */
int	fleet_cost(const char *lockrun);

/* What a run in flight costs its scheduler (inflight_bench.c): RSS and
 * descriptors with 1,000 runs in flight, against the same scheduler
 * before its fire time. Reported, never asserted. Returns the failures
 * seen. */
int	inflight_cost(const char *lockrun);

/* The scheduler's answers to its runs' renewals (loop_bench.c): how long
 * they wait, with one task flooding its output and without. Reported,
 * never asserted. Returns the failures seen. */
int	loop_cost(const char *lockrun, const struct redis_fixture *fx);

#endif

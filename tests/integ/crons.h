/* SPDX-License-Identifier: BSD-2-Clause */
/* crons.h -- what the `lockrun cron` suites share: clocks that a test can
 * step or speed up for lockrun and everything it starts, a fleet of cron
 * processes on one such clock, and counting lines of logs. */
#ifndef LR_CRONS_H
#define LR_CRONS_H

#include <sys/types.h>


/* How many lines of the file (of pid's stderr) match re. */
int	lines_matching(const char *path, const char *re);
int	stderr_matching(pid_t pid, const char *re);
/* The lines of pid's stderr that match re, in buf[n] (cut at n). */
const char *stderr_lines(pid_t pid, const char *re, char *buf, size_t n);
/* A config of n tasks t00.., each minutely, on the server at url, with
 * defaults (YAML lines under defaults:, after clock_tolerance: 0) and the
 * command cmd, in which %1$s is the task's name. The tests start their
 * schedulers' clocks 2 s before a minute and give a starting_deadline
 * shorter than the 58 s since the one before, so that no scheduler catches
 * that one up at its start (crond.c, plan()): the first slot is the
 * minute's. */
const char *tasks_config(const char *url, int n, const char *defaults, const char *cmd);
/* The same on another schedule than every minute. */
const char *tasks_config_on(const char *url, int n, const char *schedule,
	    const char *defaults, const char *cmd);

/* How many starts of the tasks names (an ERE alternation: "a|b")
 * scheduler pid decided: its runs of them that released or skipped, and
 * the starts it forked nothing for, their slot another's (sched/claim.h). */
int	sched_decided(pid_t pid, const char *names);

/* How many of the pids listed in path, one a line, are alive. */
int	alive_in(const char *path);

/* Start lockrun cron -v on cfg, its clock running from `at` (libfaketime). */
pid_t	cron_at(const char *cfg, double at);

/* A stepped clock: libfaketime reads its offset from the file path on
 * every call (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE), so lockrun, the
 * runs it starts and their commands all see one wall clock, and the test
 * moves it while they run. clock_file_set() makes it read unix_time now
 * (the file is replaced whole, never seen half written); clock_file_env()
 * fills env[6] for lr_start_env(), NULL-terminated. The monotonic clock
 * stays real; and, as with every faked clock, the kernel is not told: a
 * timerfd armed on the wall clock keeps its instant on the real one. */
void	clock_file_set(const char *path, double unix_time);
void	clock_file_env(const char *env[6], char buf[2][256], const char *path);
/* Move that clock by seconds (back if negative). */
void	clock_file_step(const char *path, double seconds);

/*
 * Several `lockrun cron -v -c CFG` as the fleet's servers, on one clock
 * that starts at unix_time and runs rate times as fast as the real one
 * (libfaketime's "+OFFSET xRATE"). They share it, and so do the runs they
 * start, because one shell started under libfaketime starts them all:
 * libfaketime measures a sped-up clock from the start of the first
 * process, and hands that start on to its descendants. env (or NULL) adds
 * "NAME=value" strings to their environment.
 */
#define FLEET_MAX	4
struct fleet {
	int	n;
	pid_t	sh;			/* the shell that started them, our child */
	pid_t	pid[FLEET_MAX];		/* the crons, the shell's children */
	char	err[FLEET_MAX][256];	/* their stderr */
};
void	fleet_start(struct fleet *f, int n, const char *cfg, double unix_time, int rate,
	    const char *const env[]);
/* How many lines of server i's stderr match re. */
int	fleet_matching(const struct fleet *f, int i, const char *re);
/* SIGTERM to each server; assert each exits 0. */
void	fleet_stop(struct fleet *f);
/* lockrun cron -v -c cfg as server i (below FLEET_MAX), its clock running
 * from unix_time (libfaketime), with SERVER=i in its environment for its
 * runs to say, and more ("NAME=value") when not NULL. */
pid_t	cron_server_at(int i, const char *cfg, double unix_time, const char *more);
/* The same with lockrun's arguments args (NULL-terminated) instead. */
pid_t	cron_server_args(int i, double unix_time, const char *more,
	    const char *const args[]);

/* SIGTERM to a scheduler (or any lockrun), which must then exit 0; its
 * stderr in the failure's message. */
void	cron_stop(pid_t pid);
/* A test's .fini: SIGKILL the servers of a fleet a failed test left. */
void	fleet_cleanup(void);

#endif

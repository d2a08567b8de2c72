/* SPDX-License-Identifier: BSD-2-Clause */
/* proc.h -- the clock, poll step and exit checks the fixtures and the
 * tests share; plain libc, no Criterion (the bench and the demo link it). */
#ifndef LR_PROC_H
#define LR_PROC_H

#include <sys/types.h>

/* The monotonic clock, in milliseconds: deadlines of bounded polls. */
long long fixture_ms(void);

/* The real clock (what a faked lockrun is set against) and the monotonic
 * one, in seconds with a fraction: for bench figures and faked clocks. */
double	fixture_real_s(void);
double	fixture_mono_s(void);

/* One step of a bounded poll loop: sleep ms milliseconds. */
void	fixture_tick(long ms);

/* Has our child *pid exited? Then it is reaped, *pid is 0, and this
 * returns 1; 0 while it runs (or when *pid is 0 already). */
int	fixture_reaped(pid_t *pid);

/* A wait status as a shell says it: the exit status, or 128+N if killed
 * by signal N. */
int	exit_code(int wait_status);

/* Reap our child pid, however long it runs: its exit_code(), or -1; its
 * peak RSS in KiB into *maxrss_kib (the largest of it and the children
 * it reaped: a run's guard, its command's processes). */
int	proc_wait_peak(pid_t pid, long *maxrss_kib);

/* The state letter /proc gives pid ('R', 'S', 'T', 'Z', ...), or '?' when
 * there is no such process. */
char	proc_state(pid_t pid);

#endif

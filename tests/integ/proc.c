/* SPDX-License-Identifier: BSD-2-Clause */
/* proc.c -- the clock, poll step and exit checks the fixtures and the
 * tests share (see proc.h). */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proc.h"

long long
fixture_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

double
fixture_real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double
fixture_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
fixture_tick(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

int
fixture_reaped(pid_t *pid)
{
	if (*pid <= 0 || waitpid(*pid, NULL, WNOHANG) != *pid)
		return 0;
	*pid = 0;
	return 1;
}

int
exit_code(int wait_status)
{
	return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) :
	    WEXITSTATUS(wait_status);
}

int
proc_wait_peak(pid_t pid, long *maxrss_kib)
{
	struct rusage ru;
	int st = 0;

	*maxrss_kib = -1;
	while (wait4(pid, &st, 0, &ru) == -1)
		if (errno != EINTR)
			return -1;
	*maxrss_kib = ru.ru_maxrss;
	return exit_code(st);
}

/* The third field of /proc/PID/stat: after the command's name, which is
 * in parentheses and may hold spaces and parentheses itself. */
char
proc_state(pid_t pid)
{
	char path[64], line[512];
	const char *name_end;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return '?';
	if (fgets(line, sizeof(line), fp) == NULL)
		line[0] = '\0';
	fclose(fp);
	if ((name_end = strrchr(line, ')')) == NULL || name_end[1] != ' ' ||
	    name_end[2] == '\0')
		return '?';
	return name_end[2];
}

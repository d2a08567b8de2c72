/* SPDX-License-Identifier: BSD-2-Clause */
/* blast_test.c -- one task's fault stays its own under `lockrun cron`:
 * a task that prints as fast as it can, or a log sink that reads slowly,
 * delays none of the scheduler's answers to its other runs (their
 * renewals, their starts). */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

TestSuite(blast, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

/* A reader of the FIFO path that takes 2 KB every 100 ms (20 KB/s), as a
 * log shipper that falls behind, until end of file. */
static pid_t
slow_reader(const char *path)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		char buf[2048];
		int fd = open(path, O_RDONLY);
		const struct timespec pace = { 0, 100 * 1000000L };

		if (fd < 0)
			_exit(1);
		while (read(fd, buf, sizeof(buf)) > 0)
			nanosleep(&pace, NULL);
		_exit(0);
	}
	return pid;
}

/* Under one scheduler whose stdout is sink: a task printing "y" lines as
 * fast as it can for 20 s (`yes`), a task holding a 3 s lease for 20 s,
 * and a task every 2 s that notes its slot, each under a flock of its
 * own so a second copy shows. While the flood lasts, every renewal is
 * answered (no LOST LOCK: the holder ends on its own) and the 2 s task
 * starts in all of its slots but one at most. */
static pid_t
flood_under(const char *sink)
{
	const char *ticks = scratch("ticks.log"), *marks = scratch("flood.marks");
	char body[2048], err[65536];
	long first = 0, last = 0, slot, from, to;
	int in = 0, st;
	pid_t pid;
	FILE *fp;

	snprintf(body, sizeof(body), "tasks:\n"
	    "  flood:\n    schedule: '@reboot'\n"
	    "    command: 'date +%%s >> %1$s; timeout 20 yes; date +%%s >> %1$s'\n"
	    "  holder:\n    schedule: '@reboot'\n    ttl: 3s\n"
	    "    command: 'flock -n %2$s.holder sleep 20 || echo overlap >> %2$s'\n"
	    "  tick:\n    every: 2s\n"
	    "    command: 'flock -n %2$s.tick sh -c ''date -d \"$LOCKRUN_SLOT\" +%%s "
	    ">> %2$s'' || echo overlap >> %2$s'\n",
	    marks, ticks);
	cr_assert(strlen(body) < sizeof(body) - 1);
	write_config(body);
	pid = lr_start_out(NULL, (const char *const[]){ "cron", "-v", "-c",
	    scratch("lockrun.yaml"), NULL }, sink);
	POLL_UNTIL(file_lines(marks) == 2 || !alive(pid));
	POLL_UNTIL(stderr_matching(pid, "^holder: lockrun: (released|LOST)") >= 1 ||
	    !alive(pid));
	/* stopped before any assertion, so that a failure leaves none behind
	 * (a loop held by the flood reads no SIGTERM) */
	kill(pid, SIGTERM);
	POLL_UNTIL(!alive(pid));
	kill(pid, SIGKILL);
	st = lr_wait(pid);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(eq(int, file_lines(marks), 2), "the flood did not end by itself:\n%s", err);
	cr_assert(not(matches(err, "LOST LOCK")), "a renewal went unanswered:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^holder: lockrun: released"), 1), "%s", err);
	cr_assert(not(matches(file_peek(ticks), "overlap")), "%s", file_peek(ticks));
	cr_assert(eq(int, st, 0), "the scheduler did not stop on SIGTERM");

	fp = fopen(marks, "r");
	cr_assert(fp && fscanf(fp, "%ld %ld", &from, &to) == 2);
	fclose(fp);
	/* the 2 s slots wholly inside the flood, and how many of them ran */
	fp = fopen(ticks, "r");
	cr_assert(fp != NULL);
	while (fscanf(fp, "%ld", &slot) == 1)
		if (slot > from && slot + 2 < to) {
			in++;
			first = first ? first : slot;
			last = slot;
		}
	fclose(fp);
	cr_assert(to - from >= 18, "the flood ran %ld s", to - from);
	/* the slots from the flood's start + 1 s to its end - 2 s: 2 s apart */
	cr_assert(ge(int, in, (int)((to - 2 - (from + 1)) / 2) - 1),
	    "%d of the 2 s slots in %ld..%ld ran (first %ld, last %ld):\n%s", in, from, to,
	    first, last, err);
	return pid;
}

Test(blast, a_task_printing_as_fast_as_it_can_delays_no_other_run)
{
	flood_under("/dev/null");
}

Test(blast, a_sink_read_at_20_kb_a_second_delays_no_run)
{
	const char *sink = fifo("sink");
	pid_t reader = slow_reader(sink);
	int st;

	pid_t pid = flood_under(sink);

	/* the scheduler is gone: the reader sees end of file */
	cr_assert(eq(int, waitpid(reader, &st, 0), reader));
	/* what the sink could not take was dropped, and said */
	cr_assert(ge(int, stderr_matching(pid, "lines? of the tasks' output dropped"), 1));
}

/* The pid of the scheduler's starter ("lockrun-starter", its child), or 0. */
static pid_t
starter_of(pid_t scheduler)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	cr_assert(proc != NULL);
	while (found == 0 && (de = readdir(proc)) != NULL) {
		char path[300], stat[512], *close;
		int ppid;
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		/* pid (comm) state ppid ... */
		if (fgets(stat, sizeof(stat), fp) && strstr(stat, "(lockrun-starter)") &&
		    (close = strrchr(stat, ')')) && sscanf(close + 1, " %*c %d", &ppid) == 1 &&
		    ppid == scheduler)
			found = (pid_t)atoi(de->d_name);
		fclose(fp);
	}
	closedir(proc);
	return found;
}

/* How many of the Unix times in path, one a line, are after since. */
static int
times_after(const char *path, long since)
{
	FILE *fp = fopen(path, "r");
	int n = 0;
	long t;

	if (fp == NULL)
		return 0;
	while (fscanf(fp, "%ld", &t) == 1)
		n += t > since;
	fclose(fp);
	return n;
}

/* 20 runs holding 6 s leases, and a task every 2 s; the scheduler's starter
 * stopped (SIGSTOP) and never continued: the fire times during the stop
 * start late (by a new starter), and every lease is renewed throughout. */
Test(blast, a_stopped_starter_holds_no_renewal_up)
{
	const char *held = scratch("held.log"), *ticks = scratch("ticks.log");
	char body[8192], err[65536];
	size_t k;
	long stopped_at;
	int after, st;
	pid_t pid, starter;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n"
	    "  tick:\n    every: 2s\n    command: 'date +%%s >> %s'\n", ticks);
	for (int i = 0; i < 20; i++)
		k += (size_t)snprintf(body + k, sizeof(body) - k, "  hold%02d:\n"
		    "    schedule: '@reboot'\n    ttl: 6s\n"
		    "    command: 'echo $$ >> %s; sleep 25'\n", i, held);
	cr_assert(k < sizeof(body));
	write_config(body);
	pid = LR_START("cron", "-v", "-c", scratch("lockrun.yaml"));
	POLL_UNTIL(file_lines(held) == 20 || !alive(pid));
	POLL_UNTIL((starter = starter_of(pid)) != 0 || !alive(pid));
	cr_assert(gt(int, (int)starter, 0), "no starter found");
	stopped_at = (long)time(NULL);
	kill(starter, SIGSTOP);
	/* three of the 2 s task's runs after the stop: started by another */
	POLL_UNTIL((after = times_after(ticks, stopped_at)) >= 3 || !alive(pid));
	POLL_UNTIL(stderr_matching(pid, "^hold[0-9]+: lockrun: (released|LOST)") == 20 ||
	    !alive(pid));
	kill(pid, SIGTERM);
	POLL_UNTIL(!alive(pid));
	kill(pid, SIGKILL);
	st = lr_wait(pid);
	kill(starter, SIGKILL);
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(ge(int, after, 3), "the 2 s task started %d times after the stop:\n%s",
	    after, err);
	cr_assert(not(matches(err, "LOST LOCK")), "a renewal went unanswered:\n%s", err);
	cr_assert(eq(int, stderr_matching(pid, "^hold[0-9]+: lockrun: released"), 20), "%s", err);
	cr_assert(ge(int, stderr_matching(pid, "starter took a run of tick and did not answer"), 1),
	    "%s", err);
	cr_assert(eq(int, st, 0));
}

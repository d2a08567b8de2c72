/* SPDX-License-Identifier: BSD-2-Clause */
/* blast_test.c -- one task's fault stays its own under `lockrun cron`:
 * a task that prints as fast as it can, or a log sink that reads slowly,
 * delays none of the scheduler's answers to its other runs (their
 * renewals, their starts). */
#include <sys/stat.h>
#include <sys/wait.h>

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

/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_retry_test.c -- a retried run under `lockrun cron` keeps the lock's
 * promise: its lease counts from the send of the request the server
 * confirmed, however that confirmation reached it (the scheduler's lease
 * table answers a run's renewal with a batch sent before the run asked:
 * sched/leases.c), so the next attempt is gone before the server's lease
 * ends. Real binary, real redis-server, the scheduler's connection through
 * a proxy the test freezes, a contender straight to Redis; every job holds
 * a local flock for its whole tree, so a second copy is seen exactly. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "proxy.h"

static pid_t cron;	/* the test's scheduler, for teardown */

/* A failed test leaves its scheduler: kill it before Redis goes (its runs,
 * cut off, end with their leases). */
static void
teardown(void)
{
	if (cron > 0 && alive(cron)) {
		kill(cron, SIGKILL);
		lr_wait(cron);
	}
	cron = 0;
	suite_teardown();
}

TestSuite(cron_retry, .init = suite_setup, .fini = teardown, .timeout = 180);

/* The scratch path name, kept: scratch() reuses its buffers. */
static const char *
path_of(char buf[256], const char *name)
{
	snprintf(buf, 256, "%s", scratch(name));
	return buf;
}

/*
 * Task "a" (ttl 24s, retries: 1, retry_delay 10s) and task "b" (ttl 1s),
 * both started by one scheduler at one fire time, its connection to Redis
 * through a proxy. a's first attempt fails at once; it waits holding the
 * lock. b renews every third of a second, and each of b's renewals is a
 * batch with every lease past a sixth of its TTL: 4s after a's acquire,
 * one of them renews a's lease too (the test sees a's key renewed), and
 * b ends then. At 8s a asks for its renewal and the scheduler answers it
 * from its table: renewed by that batch, 4s before a asked. At 10s
 * attempt 2 starts, ignoring SIGTERM, and the proxy freezes: nothing more
 * reaches Redis from the scheduler, and the key expires 24s after the
 * batch. A contender straight to Redis, waiting for the lock, takes it
 * then and looks at the job's flock: it must find it free (attempt 2
 * stopped by its own lease's end, before the server's). Before, the retry
 * counted the lease from its ask, 4s late: attempt 2's kill point came 3s
 * after the key expired, and the contender found the flock held.
 */
Test(cron_retry, a_retried_attempt_is_gone_before_the_lease_from_the_table_ends)
{
	char lockb[256], marksb[256], attb[256], seenb[256], err[8192],
	    cerr[16384];
	const char *lockf = path_of(lockb, "job.lock"), *marks = path_of(marksb, "marks");
	const char *attempts = path_of(attb, "attempts"), *seen = path_of(seenb, "seen");
	char body[8192], before[1024], look[1024];
	struct proxy px;
	struct gate gb;
	long long low, p, guard = 0;
	char when[64];
	struct tm tm;
	time_t fire;
	pid_t contender;
	int status;

	/* both once, 3 s from now: a timerfd waits on the real clock, so the
	 * scheduler's clock is the real one (a start later than that, on a
	 * loaded machine, is still within starting_deadline) */
	fire = (time_t)fixture_real_s() + 3;
	gmtime_r(&fire, &tm);
	snprintf(when, sizeof(when), "%d %d %d * * *", tm.tm_sec, tm.tm_min, tm.tm_hour);
	cr_assert(eq(int, proxy_start(&px, fx.port), 0));
	gate_open_file(&gb, "b");
	snprintf(before, sizeof(before), "exec 9>%s.b; flock -n 9 || echo OVERLAP b >> %s; ",
	    lockf, marks);
	/* YAML single quotes around each command: the scripts use double */
	snprintf(body, sizeof(body), "redis:\n  url: %s\n  command_timeout: 1s\n"
	    "tasks:\n"
	    "  a:\n    schedule: '%s'\n    timezone: UTC\n    ttl: 24s\n    kill_after: 1s\n"
	    "    retries: 1\n    retry_delay: 10s\n"
	    "    command: 'exec 9>%s; flock -n 9 || echo OVERLAP a >> %s; "
	    "echo $LOCKRUN_ATTEMPT >> %s; [ $LOCKRUN_ATTEMPT -ge 2 ] || exit 1; "
	    "trap \"\" TERM; exec sleep 300'\n"
	    "  b:\n    schedule: '%s'\n    timezone: UTC\n    ttl: 1s\n    command: '%s'\n",
	    px.url, when, lockf, marks, attempts, when, gate_sh_around(&gb, before, ""));
	write_scratch("lockrun.yaml", body);
	cron = LR_START("cron", "-v", "-c", scratch("lockrun.yaml"));
	gate_started(&gb, cron);
	POLL_UNTIL(file_lines(attempts) >= 1);
	cr_assert(eq(int, file_lines(attempts), 1), "attempt 1 did not run: %s",
	    lr_stderr_of(cron, err, sizeof(err)));
	/* a's key renewed by a batch of b's, while a waits to retry */
	low = key_pttl("lockrun:{a}");
	while ((p = key_pttl("lockrun:{a}")) <= low + 1000 && file_lines(attempts) == 1 &&
	    poll_tick(&guard))
		low = p < low ? p : low;
	cr_assert(gt(i64, p, low + 1000), "a's lease was not renewed by a batch "
	    "before its retry: %s", lr_stderr_of(cron, err, sizeof(err)));
	cr_assert(eq(int, file_lines(attempts), 1), "attempt 2 came early");
	gate_release(&gb);
	/* attempt 2 starts: the scheduler's connection freezes */
	POLL_UNTIL(file_lines(attempts) >= 2);
	cr_assert(eq(int, file_lines(attempts), 2), "attempt 2 did not run: %s",
	    lr_stderr_of(cron, err, sizeof(err)));
	proxy_freeze(&px);
	snprintf(look, sizeof(look), "exec 9>%s; if flock -n 9; then echo free; "
	    "else echo held; fi >> %s", lockf, seen);
	contender = LR_START("--redis", fx.url, "--no-overlap", "-k", "a", "--wait", "2m",
	    "--", "sh", "-c", look);
	status = lr_wait(contender);
	lr_stderr_of(contender, err, sizeof(err));
	proxy_thaw(&px);
	kill(cron, SIGTERM);
	lr_wait(cron);
	lr_stderr_of(cron, cerr, sizeof(cerr));
	cron = 0;
	cr_assert(eq(int, status, 0), "the contender: %s", err);
	cr_assert(eq(str, (char *)file_peek(seen), "free\n"), "the contender took the "
	    "lock while attempt 2 still ran (its flock held): %s", cerr);
	cr_assert(eq(int, file_lines(marks), 0), "%s", file_peek(marks));
	/* stopped by its own lease's end, not by the contender's take: the
	 * run's line, or its guard's keeping the kill point (a starved run) */
	cr_assert(matches(cerr, "\na: lockrun: LOST LOCK lockrun:\\{a\\}: (Redis has not "
	    "confirmed the lease|lockrun did not renew the lease in time)"), "%s", cerr);
	proxy_cut(&px);
}

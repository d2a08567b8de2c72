/* SPDX-License-Identifier: BSD-2-Clause */
/* hostile_test.c -- a server that answers with replies that never end, or
 * that announce more than lockrun could ever hold: lockrun refuses them
 * within its deadlines and its memory stays small, on the acquire, on a
 * renewal (the command is stopped before its lease ends) and in status's
 * SCAN. The bounds are rreader.h's. */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "fakeredis.h"
#include "harness.h"

TestSuite(hostile, .init = suite_setup, .fini = suite_teardown, .timeout = 120);

/* What lockrun may grow to: 16 MiB, or under AddressSanitizer (make check
 * SANITIZE=1, which builds lockrun and these tests alike) 64 MiB, as its
 * shadow memory and allocator take about 20 MiB of a run that does
 * nothing; without the bounds lockrun grew past 1 GB either way. */
#ifdef __SANITIZE_ADDRESS__
#define RSS_MAX_KIB	(64 * 1024)
#else
#define RSS_MAX_KIB	(16 * 1024)
#endif

struct ending {
	int	status;		/* lockrun's, as the harness reports it */
	long	maxrss_kib;	/* its peak RSS (its reaped children's too) */
	double	seconds;	/* for the log only: never asserted */
	char	err[4096];
};

/* Wait for pid with wait4() (for its peak RSS), polling so that a lockrun
 * that never ends fails the test instead of hanging it. */
static void
wait_ending(pid_t pid, struct ending *e)
{
	long long guard = 0;
	struct timespec t0, t1;
	struct rusage ru;
	int st = 0;
	pid_t w;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((w = wait4(pid, &st, WNOHANG, &ru)) == 0 && poll_tick(&guard))
		;
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		cr_fatal("lockrun did not end: it kept reading a reply that never ends");
	}
	cr_assert(eq(int, w, pid));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	e->status = exit_code(st);
	e->maxrss_kib = ru.ru_maxrss;
	e->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	lr_stderr_of(pid, e->err, sizeof(e->err));
	cr_log_info("lockrun ended %d after %.2fs, peak RSS %ld KiB: %s", e->status,
	    e->seconds, e->maxrss_kib, e->err);
}

/* A run whose acquire is answered with answer: one line naming the
 * refused reply, 69, the command not run, memory bounded. A reply past
 * the bound is the request's (LR_ERR_DATA: one task's value grown too
 * large), not the server out of reach: no settings' sources after it. */
static void
acquire_refused(const char *answer)
{
	const char *script[] = { answer, NULL };
	struct fakeredis f;
	struct ending e;
	pid_t pid;

	cr_assert(eq(int, fakeredis_start(&f, script), 0));
	pid = LR_START("--url", f.url, "--command-timeout", "2s", "-k", "hostile", "--",
	    "touch", scratch("ran"));
	wait_ending(pid, &e);
	fakeredis_stop(&f);
	cr_assert(eq(int, e.status, 69));
	cr_assert(matches(e.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: acquire: a reply "
	    "larger than lockrun accepts \\([0-9]+ objects or [0-9]+ KiB\\)\n$"),
	    "%s", e.err);
	cr_assert(eq(int, file_lines(scratch("ran")), 0), "the command ran");
	cr_assert(lt(long, e.maxrss_kib, RSS_MAX_KIB));
}

Test(hostile, an_endless_bulk_string_for_the_acquire) { acquire_refused("!endless-bulk"); }
Test(hostile, an_endless_array_for_the_acquire) { acquire_refused("!endless-array"); }
Test(hostile, an_array_of_two_billion_for_the_acquire) { acquire_refused("!huge-array"); }

/* A run that acquires, and whose renewals are answered with answer: the
 * lease is never confirmed, so the command is stopped before it ends
 * (SIGTERM: 143) and the lost lease is said; memory bounded. */
static void
renewal_refused(const char *answer)
{
	const char *script[] = { FAKE_ACQUIRED, answer, NULL };
	struct fakeredis f;
	struct ending e;
	pid_t pid;

	cr_assert(eq(int, fakeredis_start(&f, script), 0));
	pid = LR_START("--url", f.url, "--ttl", "3s", "--kill-after", "1s", "-k", "hostile",
	    "--", "sleep", "60");
	wait_ending(pid, &e);
	fakeredis_stop(&f);
	cr_assert(eq(int, e.status, 143), "%s", e.err);
	cr_assert(matches(e.err, "LOST LOCK lockrun:\\{hostile\\}: Redis has not confirmed "
	    "the lease \\(redis 127\\.0\\.0\\.1:[0-9]+: renew: a reply larger than lockrun "
	    "accepts"), "%s", e.err);
	cr_assert(lt(long, e.maxrss_kib, RSS_MAX_KIB));
}

Test(hostile, an_endless_bulk_string_for_a_renewal) { renewal_refused("!endless-bulk"); }
Test(hostile, an_endless_array_for_a_renewal) { renewal_refused("!endless-array"); }
Test(hostile, an_array_of_two_billion_for_a_renewal) { renewal_refused("!huge-array"); }

/* status without task names SCANs the prefix: a cursor that never comes
 * back to 0 ends at the command timeout or the key cap, not in an
 * out-of-memory kill. */
Test(hostile, a_scan_that_never_ends)
{
	const char *script[] = { "!scan-forever", NULL };
	struct fakeredis f;
	struct ending e;
	pid_t pid;

	cr_assert(eq(int, fakeredis_start(&f, script), 0));
	pid = LR_START("--url", f.url, "--command-timeout", "2s", "status");
	wait_ending(pid, &e);
	fakeredis_stop(&f);
	cr_assert(eq(int, e.status, 69), "%s", e.err);
	cr_assert(matches(e.err, "^lockrun: redis 127\\.0\\.0\\.1:[0-9]+: status: SCAN for "
	    "lockrun:\\* did not finish within (the command timeout|100,000 keys); name the "
	    "tasks \\(lockrun status TASK\\.\\.\\.\\)\n$"), "%s", e.err);
	cr_assert(lt(long, e.maxrss_kib, RSS_MAX_KIB));
}

/* --- text from elsewhere never drives the terminal -------------------- */

#define OSC	"\x1b]0;PWNED\x07"	/* sets the terminal's title */
#define CSI	"\x1b[2J"		/* clears the screen */

static void
no_escape(const char *what, const char *s)
{
	cr_assert(strchr(s, '\x1b') == NULL && strchr(s, '\x07') == NULL,
	    "%s prints a terminal escape: %s", what, s);
}

/* A holder value and a last-run record written by hand (or by a hostile
 * server): status, and a -v skip behind it, print them with '?'. */
Test(hostile, a_lock_value_cannot_drive_the_terminal)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{esc} %s", "ab12 7 h" OSC "ost" CSI " 42 1700000000"));
	freeReplyObject(rcmd("HSET lockrun:{esc}:last event %s host %s pid 1", "run" CSI,
	    "h" OSC));
	LR(&r, "--redis", fx.url, "status", "esc");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "h\\?\\]0;PWNED\\?ost\\?\\[2J"), "%s", r.out);
	no_escape("status", r.out);
	LR(&r, "--redis", fx.url, "-v", "-k", "esc", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "h\\?\\]0;PWNED\\?ost"), "%s", r.err);
	no_escape("a -v skip", r.err);
}

/* A server's error text is printed with '?' for its control bytes. */
Test(hostile, a_servers_error_cannot_drive_the_terminal)
{
	const char *script[] = { "-ERR " OSC CSI "\r\n", NULL };
	struct fakeredis f;
	struct result r;

	cr_assert(eq(int, fakeredis_start(&f, script), 0));
	LR(&r, "--url", f.url, "-k", "esc", "--", "true");
	fakeredis_stop(&f);
	cr_assert(matches(r.err, "\\?\\]0;PWNED\\?\\?\\[2J"), "%s", r.err);
	no_escape("an error", r.err);
}

/* What the command line gave is echoed in a usage error on one line,
 * without its control bytes. */
Test(hostile, a_usage_error_echoes_no_control_byte)
{
	struct result r;

	LR(&r, "--kill-after", "1" CSI "s\nfake: line", "-k", "x", "--", "true");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	no_escape("a usage error", r.err);
	cr_assert(matches(r.err, "^lockrun: [^\n]*1\\?\\[2Js\\?fake: line[^\n]*\nTry "), "%s",
	    r.err);
}

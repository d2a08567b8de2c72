/* SPDX-License-Identifier: BSD-2-Clause */
/* backends_test.c -- one table of behaviours, run against each backend:
 * Redis, PostgreSQL and MariaDB (MySQL's protocol). Every test below is
 * written once, as a function, and THREE() makes a Test of it for each
 * backend, on its own throwaway server: redis_NAME, pg_NAME, mysql_NAME.
 * Real binary, real servers; what a test looks at (held or free, the
 * history) it asks lockrun itself, so the same assertion holds for each.
 * What only the SQL backends have: backends_sql_test.c and
 * backends_session_test.c; what the three share: backends.c. */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"

/* suite_setup() starts a redis-server: the Redis backend's, and fx.dir,
 * the scratch dir every test uses. */
TestSuite(backends, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

#define THREE(name)							\
	Test(backends, redis_##name) { use(BE_REDIS); name(); }		\
	Test(backends, pg_##name) { use(BE_PG); name(); }		\
	Test(backends, mysql_##name) { use(BE_MYSQL); name(); }

/* How many of the n processes have exited. */
static int
exited(const pid_t *pid, int n)
{
	int dead = 0;

	for (int i = 0; i < n; i++)
		dead += !alive(pid[i]);
	return dead;
}

/* Ten lockruns started together for one key: one runs the command, nine
 * skip; the winner is kept running until all nine have decided. Their
 * timeouts are long: ten connections and statements at once on a loaded
 * machine (make check SANITIZE=1 at 4 jobs on 2 cores) took PostgreSQL
 * past the default 2s, and a racer that gave up was a 69, not a skip. */
static void
ten_racers_run_once(void)
{
	struct gate g;
	pid_t pid[10];
	int ok = 0, skipped = 0;

	gate_open_file(&g, "");		/* each racer that ran appends to it */
	for (int i = 0; i < 10; i++)
		pid[i] = START("--connect-timeout", "10s", "--command-timeout", "10s", "-k",
		    "race", "-E", "75", "--", "sh", "-c", gate_sh(&g));
	/* a racer that ran would wait for go: nine gone are nine skips */
	POLL_UNTIL(exited(pid, 10) == 9);
	cr_assert(eq(int, exited(pid, 10), 9), "nine skipped while the tenth runs");
	POLL_UNTIL(file_lines(g.ready) > 0);
	cr_assert(eq(int, file_lines(g.ready), 1), "one command ran");
	gate_release(&g);
	for (int i = 0; i < 10; i++) {
		int st = lr_wait(pid[i]);

		ok += st == 0;
		skipped += st == 75;
	}
	cr_assert(eq(int, ok, 1));
	cr_assert(eq(int, skipped, 9));
	cr_assert(eq(int, file_lines(g.ready), 1));
	cr_assert(eq(int, held("race"), 0), "released");
}
THREE(ten_racers_run_once)

/* A copy still running: the next run skips without running its command,
 * and runs once the first has ended. */
static void
a_held_lock_is_skipped_then_free(void)
{
	const char *mark = scratch("mark");
	char buf[512];
	struct result r;
	struct gate g;
	pid_t first;

	gate_open(&g, "");
	first = START("-k", "job", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	cr_assert(eq(int, held("job"), 1));
	RUN(&r, "-k", "job", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the skipped command did not run");
	RUN(&r, "-k", "job", "--", "touch", mark);
	cr_assert(eq(int, r.status, 0), "a skip exits 0 by default");
	cr_assert(eq(int, access(mark, F_OK), -1));

	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	cr_assert(eq(int, held("job"), 0));
	RUN(&r, "-k", "job", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), 0), "the lock was free again");
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)),
	    "released ran released skipped-held skipped-held ran"));
}
THREE(a_held_lock_is_skipped_then_free)

/* --one-server: a slot runs once, wherever it starts; the next slot runs
 * again. The clock is frozen (libfaketime) at two instants of one slot,
 * then in the next. */
static void
a_slot_runs_once(void)
{
	const char *ran = scratch("ran");
	const double t0 = 1772359200.0;		/* 2026-03-01T10:00:00Z */
	const double at[] = { t0 + 1.5, t0 + 42.0, t0 + 61.0 };
	const int want[] = { 0, 75, 0 };
	char cmd[256], buf[3][128], evbuf[512];
	const char *fake[6];
	struct result r;

	snprintf(cmd, sizeof(cmd), "echo run >> %s", ran);
	for (int i = 0; i < 3; i++) {
		faketime_frozen_env(fake, buf, at[i]);
		lr_run_env(&r, env_with(fake), (const char *const[]){ "--url", url,
		    "--one-server", "--clock-tolerance", "0", "--every", "1m", "-k",
		    "slot", "-E", "75", "--", "sh",
		    "-c", cmd, NULL });
		cr_assert(eq(int, r.status, want[i]), "run %d: stderr: %s", i, r.err);
		cr_assert(eq(int, file_lines(ran), i == 0 ? 1 : i), "run %d", i);
	}
	cr_assert(eq(str, (char *)events("slot", evbuf, sizeof(evbuf)),
	    "released ran skipped-slot released ran"));
	cr_assert(eq(dbl, metric("slot", "lockrun_skips_total", "reason=\"slot_taken\""),
	    1.0));
	cr_assert(eq(dbl, metric("slot", "lockrun_skips_total", "reason=\"held\""), 0.0));
	cr_assert(eq(dbl, metric("slot", "lockrun_runs_total", NULL), 2.0));
}
THREE(a_slot_runs_once)

/* SIGTERM to lockrun reaches the command; lockrun exits with the
 * command's status and frees the lock before it exits. */
static void
sigterm_is_forwarded_and_the_lock_released(void)
{
	const char *got = scratch("got");
	char trap[512], buf[512];
	struct gate g;
	pid_t lr;

	gate_open(&g, "");
	snprintf(trap, sizeof(trap), "trap 'echo TERM > %s; exit 3' TERM; ", got);
	lr = START("-k", "term", "--ttl", "1h", "--", "sh", "-c",
	    gate_sh_then(&g, trap, "while :; do sleep 1 & wait $!; done"));
	gate_wait(&g);
	kill(lr, SIGTERM);
	cr_assert(eq(int, lr_wait(lr), 3), "the command's status");
	cr_assert(eq(int, file_lines(got), 1), "the command had SIGTERM");
	cr_assert(eq(int, held("term"), 0), "freed when lockrun exited");
	cr_assert(eq(str, (char *)events("term", buf, sizeof(buf)), "released ran"));
}
THREE(sigterm_is_forwarded_and_the_lock_released)

/* SIGKILL of lockrun: the guard stops the command's whole tree -- this one
 * ignores SIGTERM, so that takes --kill-after -- and only then frees the
 * lock, long before its hour-long lease (the poll's guard is 30 s), and
 * records the run as killed (the history shows the newest 50 entries). A newcomer meanwhile skips: the commands hold
 * a file lock, and a second copy alongside would write OVERLAP. */
static void
sigkill_frees_the_lock_once_the_tree_is_gone(void)
{
	const char *lockf = scratch("job.lock"), *overlap = scratch("overlap");
	char before[512], again[512], buf[512];
	struct result r;
	long long guard = 0;
	struct gate g;
	pid_t lr;
	long sleeper;

	gate_open(&g, "");
	snprintf(before, sizeof(before), "trap '' TERM; exec 9>%s; flock -n 9 || "
	    "echo OVERLAP >> %s; ", lockf, overlap);
	lr = START("-k", "kill", "--ttl", "1h", "--kill-after", "1s", "--", "sh", "-c",
	    gate_sh_child(&g, before));
	sleeper = gate_wait(&g);
	cr_assert(alive((pid_t)sleeper));
	kill(lr, SIGKILL);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGKILL));
	snprintf(again, sizeof(again), "exec 9>%s; flock -n 9 || echo OVERLAP >> %s",
	    lockf, overlap);
	/* bounded poll: runs skip until the tree is gone and the lock freed */
	do
		RUN(&r, "-k", "kill", "-E", "75", "--", "sh", "-c", again);
	while (r.status == 75 && poll_tick(&guard));
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, alive((pid_t)sleeper), 0), "the command's child is gone");
	cr_assert(eq(int, file_lines(overlap), 0), "no two copies at once");
	/* the guard records the kill on a connection of its own, a session
	 * lock's after closing the one that held it: the newcomer's run may
	 * come before it, or around it; and the server lets that session's
	 * lock go only as it notices the close, so newcomers may still be
	 * skipped after the kill is recorded (never run beside the command:
	 * the file lock above says so) */
	cr_assert(matches(events("kill", buf, sizeof(buf)), "^(killed released ran|"
	    "released killed ran|released ran killed|released ran (skipped-held )+killed)"
	    "( |$)"), "history: %s", buf);
}
THREE(sigkill_frees_the_lock_once_the_tree_is_gone)

/* --timeout: the command is stopped, lockrun exits 124, the lock is free
 * and the history says why. */
static void
a_timeout_stops_the_command(void)
{
	char buf[512];
	struct result r;

	RUN(&r, "-k", "slow", "--timeout", "200ms", "--", "sleep", "60");
	cr_assert(eq(int, r.status, 124), "stderr: %s", r.err);
	cr_assert(eq(int, held("slow"), 0));
	cr_assert(eq(str, (char *)events("slow", buf, sizeof(buf)),
	    "stopped-timeout ran"));
}
THREE(a_timeout_stops_the_command)

/* --wait: a run that finds the lock held waits, and runs when it is
 * freed. It has said it waits (its skipped-held entry) before the holder
 * lets go. */
static void
wait_runs_after_the_holder(void)
{
	const char *mark = scratch("mark");
	char buf[512];
	struct gate g;
	pid_t first, waiter;

	gate_open(&g, "");
	first = START("-k", "queue", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	waiter = START("-k", "queue", "--wait", "1h", "--", "touch", mark);
	POLL_UNTIL(strstr(events("queue", buf, sizeof(buf)), "skipped-held") != NULL);
	cr_assert(eq(str, buf, "skipped-held ran"));
	cr_assert(eq(int, access(mark, F_OK), -1), "it waits");
	cr_assert(eq(int, alive(waiter), 1));
	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	cr_assert(eq(int, lr_wait(waiter), 0));
	cr_assert(eq(int, access(mark, F_OK), 0), "it ran after the holder");
	cr_assert(eq(str, (char *)events("queue", buf, sizeof(buf)),
	    "released ran released skipped-held ran"));
}
THREE(wait_runs_after_the_holder)

/* --min-hold: the lock outlives a quick command; `lockrun unlock` frees
 * it, and says so in the history. */
static void
min_hold_keeps_the_lock_until_unlocked(void)
{
	const char *mark = scratch("mark");
	char buf[512];
	struct result r;

	RUN(&r, "-k", "hold", "--min-hold", "1h", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, held("hold"), 1), "held after the command ended");
	RUN(&r, "-k", "hold", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(int, access(mark, F_OK), -1));

	VERB(&r, "unlock", "--yes", "--host", "ops", "hold");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "^key +lockrun:\\{hold\\}\n"), "stdout: %s", r.out);
	cr_assert(matches(r.out, "\nfreed +lockrun:\\{hold\\}\n$"), "stdout: %s", r.out);
	cr_assert(eq(int, held("hold"), 0));
	RUN(&r, "-k", "hold", "-E", "75", "--", "touch", mark);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), 0));
	cr_assert(eq(str, (char *)events("hold", buf, sizeof(buf)),
	    "released ran unlocked skipped-held released ran"));
}
THREE(min_hold_keeps_the_lock_until_unlocked)

/* `lockrun unlock` of a running holder: at its next keep-alive it finds
 * the lock lost and stops its command; it does not take the lock back. */
static void
unlock_stops_a_running_holder(void)
{
	char err[1024], buf[512];
	struct result r;
	struct gate g;
	pid_t holder;

	gate_open(&g, "");
	holder = START("-k", "run", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 1000"));
	gate_wait(&g);
	VERB(&r, "unlock", "--yes", "--host", "ops", "run");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, be == BE_REDIS ? "\nttl +[0-9]s left \\([0-9]+ms\\)\n" :
	    "\nttl +none: a session lock, held while its holder is connected\n"),
	    "stdout: %s", r.out);
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "the command got SIGTERM");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{run}")
	    != NULL, "stderr: %s", err);
	cr_assert(eq(int, held("run"), 0), "not taken back");
	cr_assert(eq(str, (char *)events("run", buf, sizeof(buf)), "lost unlocked ran"));
}
THREE(unlock_stops_a_running_holder)

/* A holder frozen mid-run (SIGSTOP) sends no keep-alive: its lock ends
 * with its lease (2 s), and another run takes it -- on Redis as the key
 * expires, on a database as the server ends the idle session
 * (idle_session_timeout, wait_timeout), not hours later. */
static void
a_frozen_holders_lock_ends_with_its_lease(void)
{
	char err[1024];
	struct result r;
	long long guard = 0;
	struct gate g;
	pid_t holder;

	gate_open(&g, "");
	holder = START("-k", "frozen", "--ttl", "2s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 1000"));
	gate_wait(&g);
	kill(holder, SIGSTOP);
	/* bounded poll: a run skips until the lease is over */
	do
		RUN(&r, "-k", "frozen", "-E", "75", "--", "true");
	while (r.status == 75 && poll_tick(&guard));
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	kill(holder, SIGCONT);
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, alive(holder), 0), "the thawed holder found it lost and ended");
	cr_assert(eq(int, lr_wait(holder), 128 + SIGTERM), "its command was stopped");
	cr_assert(strstr(lr_stderr_of(holder, err, sizeof(err)), "LOST LOCK lockrun:{frozen}")
	    != NULL, "stderr: %s", err);
}
THREE(a_frozen_holders_lock_ends_with_its_lease)

/* `lockrun status` names the holder while it runs, and the last run's
 * end after; `lockrun check` reaches the server and the records. */
static void
status_and_check_see_the_run(void)
{
	struct result r;
	struct gate g;
	pid_t lr;

	gate_open(&g, "");
	lr = START("--host", "alpha", "-k", "seen", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	VERB(&r, "status", "--json", "seen");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "\"held\":true") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"host\":\"alpha\"") != NULL, "%s", r.out);
	/* the TTL column: a session lock has none, a lease what is left */
	VERB(&r, "status", "-l", "seen");
	cr_assert(matches(r.out, be == BE_REDIS ? "\nseen +held +alpha:[0-9]+ +[-0-9T:Z]+ "
	    "+[0-9a-z]+ +[0-9]+s +" : "\nseen +held +alpha:[0-9]+ +[-0-9T:Z]+ +[0-9a-z]+ "
	    "+session +"), "%s", r.out);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
	VERB(&r, "status", "--json", "seen");
	cr_assert(strstr(r.out, "\"held\":false") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"event\":\"released\"") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"status\":0") != NULL, "%s", r.out);

	VERB(&r, "check", "-k", "seen", "--", "true");
	cr_assert(eq(int, r.status, 0), "stdout: %s stderr: %s", r.out, r.err);
	cr_assert(strstr(r.out, ": reachable\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "types and permissions ok") != NULL, "%s", r.out);
}
THREE(status_and_check_see_the_run)

/* A slot key given in full to `lockrun unlock`: freed, and its history
 * entry names the slot, as each backend reads it from the key's stamp. */
static void
unlock_of_a_slot_key_names_the_slot(void)
{
	const double t0 = 1772359200.0;		/* 2026-03-01T10:00:00Z */
	char buf[3][128];
	const char *fake[6];
	struct result r;

	faketime_frozen_env(fake, buf, t0 + 5);
	lr_run_env(&r, env_with(fake), (const char *const[]){ "--url", url,
	    "--one-server", "--clock-tolerance", "0",
	    "--every", "1h", "--no-overlap", "-k", "hourly", "--", "true", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	VERB(&r, "unlock", "--yes", "lockrun:{hourly}:slot:20260301T1000Z");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.out, "\nfreed +lockrun:\\{hourly\\}:slot:20260301T1000Z\n"),
	    "stdout: %s", r.out);
	VERB(&r, "history", "--json", "-n", "1", "hourly");
	cr_assert(matches(r.out, "\"event\":\"unlocked\".*\"slot\":\"2026-03-01T10:00:00Z\""),
	    "%s", r.out);
}
THREE(unlock_of_a_slot_key_names_the_slot)

/* The counters the server keeps (`status --format prometheus`): each
 * goes up with what it counts, and only with that -- runs, a skip while
 * held, a failure, a timeout (a failure too), a lost lock (not a
 * failure). */
static void
counters_go_up_with_runs_skips_failures_and_losses(void)
{
	static const char *const names[] = { "lockrun_runs_total", "lockrun_skips_total",
	    "lockrun_failures_total", "lockrun_timeouts_total", "lockrun_lost_total" };
	double c[5], was[5];
	struct result r;
	struct gate g;
	pid_t pid;

#define READ(into) for (int i = 0; i < 5; i++) \
	(into)[i] = metric("cnt", names[i], i == 1 ? "reason=\"held\"" : NULL)
#define WANT(runs, skips, fails, outs, lost) do {				\
	memcpy(was, c, sizeof(c));						\
	READ(c);								\
	const double d[5] = { runs, skips, fails, outs, lost };			\
	for (int i = 0; i < 5; i++)						\
		cr_assert(eq(dbl, c[i] - was[i], d[i]), "%s went from %g to %g",	\
		    names[i], was[i], c[i]);					\
} while (0)
	RUN(&r, "-k", "cnt", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	READ(c);
	cr_assert(eq(dbl, c[0], 1.0));
	for (int i = 1; i < 5; i++)
		cr_assert(eq(dbl, c[i], 0.0), "%s", names[i]);
	RUN(&r, "-k", "cnt", "--", "true");
	WANT(1, 0, 0, 0, 0);
	RUN(&r, "-k", "cnt", "--", "sh", "-c", "exit 3");
	WANT(1, 0, 1, 0, 0);

	gate_open(&g, "");
	pid = START("-k", "cnt", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	RUN(&r, "-k", "cnt", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(pid), 0));
	WANT(1, 1, 0, 0, 0);

	RUN(&r, "-k", "cnt", "--timeout", "200ms", "--", "sleep", "60");
	cr_assert(eq(int, r.status, 124), "stderr: %s", r.err);
	WANT(1, 0, 1, 1, 0);

	/* unlocked while it runs: at its next keep-alive the holder finds
	 * the lock lost and stops */
	gate_open(&g, "");
	pid = START("-k", "cnt", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 1000"));
	gate_wait(&g);
	VERB(&r, "unlock", "--yes", "cnt");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	POLL_UNTIL(!alive(pid));
	cr_assert(eq(int, lr_wait(pid), 128 + SIGTERM));
	WANT(1, 0, 0, 0, 1);
#undef WANT
#undef READ
}
THREE(counters_go_up_with_runs_skips_failures_and_losses)

/* history and status of a task no config names and the server has no
 * record of: said, and exit 1; once it ran, both answer. */
static void
an_unknown_task_is_1(void)
{
	struct result r;

	VERB(&r, "history", "typo");
	cr_assert(eq(int, r.status, 1), "stdout: %s", r.out);
	cr_assert(strstr(r.err, "history: typo: no such task") != NULL, "%s", r.err);
	VERB(&r, "status", "typo");
	cr_assert(eq(int, r.status, 1), "stdout: %s", r.out);
	cr_assert(strstr(r.err, "typo: no such task (") != NULL, "%s", r.err);
	cr_assert(eq(str, r.out, ""));
	RUN(&r, "-k", "typo", "--", "true");
	VERB(&r, "history", "typo");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	VERB(&r, "status", "typo");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
}
THREE(an_unknown_task_is_1)

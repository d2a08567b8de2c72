/* SPDX-License-Identifier: BSD-2-Clause */
/* contain_test.c -- the command's whole process tree is held under the lock
 * and stopped with it: grandchildren after a SIGKILLed lockrun, children
 * left by the main process, daemons, stopped commands, ignored signals,
 * kill_mode process, a killed guard. Real binary, real redis-server. */
#include <sys/file.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(contain, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

static long
read_pid(const char *path)
{
	FILE *fp = fopen(path, "r");
	long pid = 0;

	cr_assert(fp != NULL, "%s: %s", path, strerror(errno));
	cr_assert(fscanf(fp, "%ld", &pid) == 1);
	fclose(fp);
	return pid;
}

/* Can the test take an exclusive flock on path right now? */
static int
flock_free(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT, 0600), ok;

	cr_assert(fd >= 0);
	ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return ok;
}

/* Issue case 1: lockrun SIGKILLed while the command's child holds a file
 * lock. When the key has expired -- the moment another server could take
 * the lock -- no process of the first run may be left. */
Test(contain, sigkill_of_lockrun_leaves_no_process_past_the_lease)
{
	const char *lockf = scratch("job.lock");
	char before[512];
	struct gate g;
	pid_t lr;
	long sleeper;

	gate_open(&g, "");
	snprintf(before, sizeof(before), "exec 9>%s; flock -n 9 || echo OVERLAP; ", lockf);
	lr = LR_START("--redis", fx.url, "-k", "k9", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_child(&g, before));
	sleeper = gate_wait(&g);
	cr_assert(alive((pid_t)sleeper));
	cr_assert(eq(int, flock_free(lockf), 0), "the job holds its file lock");
	kill(lr, SIGKILL);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGKILL));
	/* bounded poll: until the lease has ended in Redis */
	POLL_UNTIL(!key_exists("lockrun:{k9}"));
	cr_assert(eq(int, key_exists("lockrun:{k9}"), 0), "the key expired");
	cr_assert(eq(int, alive((pid_t)sleeper), 0),
	    "the command's child outlived the lease of a SIGKILLed lockrun");
	cr_assert(eq(int, flock_free(lockf), 1), "the job's file lock is free");
}

/* Issue case 2: the main process exits, a child it started lives on and
 * ignores SIGTERM. The lock stays held while it lives. */
Test(contain, the_lock_is_held_until_the_last_process_of_the_tree_is_gone)
{
	const char *armed = fifo("armed"), *mainf = scratch("main");
	char before[256], script[1024];
	struct result probe;
	struct gate g;
	pid_t lr;
	long left, main_pid;

	gate_open(&g, "");
	/* the main process exits only once its child (the gated one) ignores
	 * SIGTERM */
	snprintf(before, sizeof(before), "trap \"\" TERM; echo > %s; ", armed);
	snprintf(script, sizeof(script), "echo $$ > %s; sh -c '%s' & read x < %s; exit 3",
	    mainf, gate_sh_around(&g, before, ""), armed);
	lr = LR_START("--redis", fx.url, "-k", "left", "--ttl", "60s", "--kill-after", "20s",
	    "--", "sh", "-c", script);
	left = gate_wait(&g);
	main_pid = read_pid(mainf);
	POLL_UNTIL(!alive((pid_t)main_pid));	/* bounded: the main process has exited */
	cr_assert(eq(int, alive((pid_t)main_pid), 0));
	LR(&probe, "--redis", fx.url, "-k", "left", "-E", "75", "--", "true");
	cr_assert(eq(int, probe.status, 75), "held while a process of the tree lives");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 3), "the main process's status");
	cr_assert(eq(int, alive((pid_t)left), 0));
	cr_assert(eq(int, key_exists("lockrun:{left}"), 0), "released after the last one");
}

/* The same, with a child that does not ignore SIGTERM: it is stopped as
 * soon as the main process is gone, and reaped before the release. */
Test(contain, children_left_by_the_main_process_are_stopped)
{
	const char *pidf = scratch("child");
	char script[256];
	struct result r;

	snprintf(script, sizeof(script), "sleep 60 & echo $! > %s; exit 0", pidf);
	LR(&r, "--redis", fx.url, "-k", "kids", "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(int, alive((pid_t)read_pid(pidf)), 0), "reaped before lockrun exited");
	cr_assert(eq(int, key_exists("lockrun:{kids}"), 0));
}

/* Issue case 3: a daemon (double fork and setsid: a new session, outside
 * the command's process group) is contained too. */
Test(contain, a_daemonizing_descendant_is_stopped)
{
	const char *handoff = fifo("handoff"), *pidf = scratch("daemon");
	char script[512];
	struct result r;
	long daemon;

	snprintf(script, sizeof(script), "(setsid sh -c 'echo $$ > %s; exec sleep 60' &); "
	    "read pid < %s; echo $pid > %s", handoff, handoff, pidf);
	LR(&r, "--redis", fx.url, "-k", "daemon", "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 0));
	daemon = read_pid(pidf);
	cr_assert(daemon > 0);
	cr_assert(eq(int, alive((pid_t)daemon), 0), "the daemon was stopped");
	cr_assert(eq(int, key_exists("lockrun:{daemon}"), 0));
}

/* --timeout stops the whole tree, daemon included. */
Test(contain, timeout_stops_a_daemon_too)
{
	const char *handoff = fifo("handoff"), *pidf = scratch("daemon");
	char script[512];
	struct result r;

	snprintf(script, sizeof(script), "(setsid sh -c 'echo $$ > %s; exec sleep 60' &); "
	    "read pid < %s; echo $pid > %s; exec sleep 60", handoff, handoff, pidf);
	LR(&r, "--redis", fx.url, "-k", "dto", "--timeout", "300ms", "--",
	    "sh", "-c", script);
	cr_assert(eq(int, r.status, 124));
	cr_assert(eq(int, alive((pid_t)read_pid(pidf)), 0));
}

/* kill_mode process: what the main process leaves is left alone, and the
 * lock goes with the main process -- the documented risk. */
Test(contain, kill_mode_process_leaves_descendants_alone)
{
	const char *pidf = scratch("child");
	char script[256];
	struct result r;
	long child;

	snprintf(script, sizeof(script), "sleep 60 & echo $! > %s; exit 0", pidf);
	LR(&r, "--redis", fx.url, "-k", "pm", "--kill-mode", "process", "--",
	    "sh", "-c", script);
	cr_assert(eq(int, r.status, 0));
	child = read_pid(pidf);
	cr_assert(eq(int, alive((pid_t)child), 1), "left running");
	cr_assert(eq(int, key_exists("lockrun:{pm}"), 0), "released with the main process");
	kill((pid_t)child, SIGKILL);
}

Test(contain, kill_mode_is_checked)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--kill-mode", "group", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: --kill-mode: expected tree or process, got "
	    "\"group\"\nTry 'lockrun --help' for more information.\n"));
}

/* The pid of lockrun's only child: the guard. */
static pid_t
child_of(pid_t parent)
{
	char path[64];
	FILE *fp;
	long pid = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
	fp = fopen(path, "r");
	cr_assert(fp != NULL);
	cr_assert(fscanf(fp, "%ld", &pid) == 1);
	fclose(fp);
	return (pid_t)pid;
}

/* Should the guard itself be killed, what it contained comes to lockrun,
 * which kills it before the release and says so. */
Test(contain, a_killed_guard_is_reported_and_the_tree_still_goes)
{
	char err[2048];
	struct gate g;
	pid_t lr, guard;
	long sleeper;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "gd", "--", "sh", "-c", gate_sh_child(&g, ""));
	sleeper = gate_wait(&g);
	guard = child_of(lr);
	kill(guard, SIGKILL);
	cr_assert(eq(int, lr_wait(lr), 71));
	cr_assert(eq(int, alive((pid_t)sleeper), 0));
	cr_assert(eq(str, (char *)lr_stderr_of(lr, err, sizeof(err)),
	    "lockrun: the guard process was killed by signal 9; killed what was left "
	    "of the command\n"));
	cr_assert(eq(int, key_exists("lockrun:{gd}"), 0));
}

/* Issue item 11: a stopped command (SIGSTOP, SIGTTIN) gets SIGCONT after a
 * forwarded SIGTERM. A stopped process dies of a default-action SIGTERM at
 * once, but one that handles it (a shell trap, any real service) cannot run
 * its handler until continued: without SIGCONT it, and lockrun renewing
 * for it, would wait forever. */
Test(contain, a_stopped_command_is_continued_to_take_sigterm)
{
	struct gate g;
	pid_t lr;
	long child;
	int ended;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "stp", "--", "sh", "-c",
	    gate_sh_around(&g, "trap 'exit 7' TERM; ", ""));
	child = gate_wait(&g);
	kill((pid_t)child, SIGSTOP);
	kill(lr, SIGTERM);
	POLL_UNTIL(!alive(lr));		/* bounded: stuck forever without SIGCONT */
	ended = !alive(lr);
	if (!ended)
		kill((pid_t)child, SIGCONT);	/* let the failing case end */
	cr_assert(ended, "the stopped command never acted on SIGTERM");
	cr_assert(eq(int, lr_wait(lr), 7), "the trap ran: the command's status");
	cr_assert(eq(int, key_exists("lockrun:{stp}"), 0));
}

/* Start lockrun by hand, not through the harness: with sig ignored, as
 * its parent left it (0: none; SIGINT also ignores SIGQUIT, as sh does for
 * a job started with & in a script), and in a process group of its own if
 * own_group, as a shell job is. */
static pid_t
start_raw(int sig, int own_group, const char *const args[])
{
	const char *bin = getenv("LOCKRUN_BIN");
	const char *argv[32] = { bin ? bin : "./lockrun" };
	size_t n = 1;
	pid_t pid;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(NULL);
	if ((pid = fork()) == 0) {
		if (sig != 0)
			signal(sig, SIG_IGN);
		if (sig == SIGINT)
			signal(SIGQUIT, SIG_IGN);
		if (own_group)
			setpgid(0, 0);
		execv(argv[0], (char *const *)argv);
		_exit(121);
	}
	return pid;
}

/* Reap pid if it ends within the poll bound; else SIGKILL and reap it.
 * Returns whether it ended by itself, its wait status in *st. */
static int
reaped_in_time(pid_t pid, int *st)
{
	int ended = 0;

	POLL_UNTIL((ended = waitpid(pid, st, WNOHANG) == pid));
	if (!ended) {
		kill(pid, SIGKILL);
		waitpid(pid, st, 0);
	}
	return ended;
}

Test(contain, sigint_inherited_as_ignored_still_reaches_the_command)
{
	struct gate g;
	pid_t lr;
	int st = 0;

	gate_open(&g, "");
	lr = start_raw(SIGINT, 0, (const char *const[]){ "--redis", fx.url, "-k", "ign",
	    "--", "sh", "-c", gate_sh_then(&g, "", "exec sleep 60"), NULL });
	gate_wait(&g);
	kill(lr, SIGINT);
	/* bounded: with SIGINT ignored it would never end */
	cr_assert(reaped_in_time(lr, &st), "lockrun did not act on SIGINT");
	cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : -1, 128 + SIGINT));
}

/* SIGCHLD inherited ignored (a parent that set SIG_IGN to reap its children
 * automatically) would never reach lockrun's signalfd: it would wait for
 * its command forever. */
Test(contain, sigchld_inherited_as_ignored_does_not_hang)
{
	int st = 0;
	pid_t lr;

	lr = start_raw(SIGCHLD, 0, (const char *const[]){ "--redis", fx.url, "-k", "chld",
	    "--", "sh", "-c", "exit 5", NULL });
	/* bounded: it would wait forever */
	cr_assert(reaped_in_time(lr, &st), "lockrun never saw its command end");
	cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : -1, 5));
	cr_assert(eq(int, key_exists("lockrun:{chld}"), 0));
}

/* SIGKILL sent to lockrun's whole process group (timeout -s KILL, kill -9
 * -PGID, a shell's kill %job) must not take the guard with it: the tree is
 * still gone before the lease can end. */
Test(contain, sigkill_of_lockruns_process_group_leaves_no_process_past_the_lease)
{
	struct gate g;
	pid_t lr;
	long sleeper;

	gate_open(&g, "");
	lr = start_raw(0, 1, (const char *const[]){ "--redis", fx.url, "-k", "pg9",
	    "--ttl", "3s", "--", "sh", "-c", gate_sh_child(&g, "trap '' TERM; "), NULL });
	sleeper = gate_wait(&g);
	cr_assert(alive((pid_t)sleeper));
	kill(-lr, SIGKILL);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGKILL));
	/* bounded poll: until the lease has ended in Redis */
	POLL_UNTIL(!key_exists("lockrun:{pg9}"));
	cr_assert(eq(int, key_exists("lockrun:{pg9}"), 0), "the key expired");
	cr_assert(eq(int, alive((pid_t)sleeper), 0),
	    "the command's child outlived the lease of a SIGKILLed process group");
}

/* Issue 18: lockrun SIGSTOPped (not its guard) past the lease. The guard
 * keeps the lease's deadline itself: it stops the tree before the lease
 * ends, so a newcomer that runs once the key has expired never finds the
 * job's file lock held. Continued, lockrun reports the stopped command. */
Test(contain, sigstop_of_lockrun_the_guard_stops_the_tree_before_the_lease_ends)
{
	const char *lockf = scratch("job.lock");
	char before[512], probe[256], err[4096];
	struct result r = { 0 };
	struct gate g;
	pid_t lr, guard;
	long sleeper;

	gate_open(&g, "");
	snprintf(before, sizeof(before), "exec 9>%s; flock -n 9 || echo OVERLAP; ", lockf);
	snprintf(probe, sizeof(probe), "exec 9>%s; flock -n 9 || exit 99", lockf);
	lr = LR_START("--redis", fx.url, "-k", "stp", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_child(&g, before));
	sleeper = gate_wait(&g);
	guard = child_of(lr);
	cr_assert(guard > 0 && alive(guard), "the guard is lockrun's child");
	kill(lr, SIGSTOP);
	/* newcomers, again and again until one runs (the lease has ended):
	 * each must find the job's file lock free if it runs at all */
	r.status = 75;
	POLL_UNTIL((LR(&r, "--redis", fx.url, "-k", "stp", "-E", "75", "--", "sh", "-c",
	    probe), r.status != 75));
	cr_assert(eq(int, r.status, 0), "a newcomer ran while the stopped holder's "
	    "command still held the file lock (99), or never ran");
	cr_assert(eq(int, alive((pid_t)sleeper), 0), "the tree outlived the lease");
	kill(lr, SIGCONT);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGTERM), "the command was stopped");
	lr_stderr_of(lr, err, sizeof(err));
	cr_assert(matches(err, "guard-deadline|the guard is stopping the command"),
	    "the guard says it stopped the tree: %s", err);
	cr_assert(matches(err, "LOST LOCK"), "lockrun reports the lease: %s", err);
}

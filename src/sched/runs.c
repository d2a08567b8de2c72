/* SPDX-License-Identifier: BSD-2-Clause */
/* runs.c -- fork a child that is `lockrun -t NAME`: the run is exactly a
 * run, with its own lock, guard, history and hooks.
 *
 * Why not exec this program again: a run started that way spends most of
 * its start-up loading the program and reading the config once more (the
 * whole file, when its tasks are not in a tasks_dir), and 1,000 tasks due
 * at once then start over many seconds. The forked child already has the
 * config as the scheduler loaded it, which is also the one a run must
 * use: a file edited since, and not yet re-read on SIGHUP, is not in
 * force. What exec would have reset is reset by hand: the signal state,
 * and the scheduler's own descriptors. */
#include <sys/signalfd.h>

#include <sys/socket.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/log.h"
#include "sched/lease_client.h"
#include "sched/runs.h"

/* The child's argv: ours (without the verb), then -t NAME: a run with the
 * task's schedule has its protections as any -t NAME has (task_finish()).
 * Free the array only. */
static char **
task_argv(const struct sched_spawner *sp, const struct sched_task *t)
{
	static char dash_t[] = "-t";
	size_t n = 0, k = 0;
	char **v;

	while (sp->argv[n])
		n++;
	if ((v = calloc(n + 3, sizeof(*v))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[k++] = sp->argv[i];
	v[k++] = dash_t;
	v[k++] = (char *)t->name;
	return v;
}

/* A pipe whose read end is ours (close-on-exec, non-blocking). */
static int
out_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	return 0;
}

int
sched_signalfd(int flags)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	return signalfd(-1, &set, flags | SFD_CLOEXEC);
}

void
spawn_fds_given(struct spawn_given *g)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int fd, self;

	g->n = 0;
	if (d == NULL)
		return;
	self = dirfd(d);
	while ((de = readdir(d)) != NULL && g->n < SPAWN_GIVEN_MAX) {
		struct stat st;

		if ((fd = atoi(de->d_name)) > 2 && fd != self && fstat(fd, &st) == 0) {
			size_t k = g->n++;	/* in order: readdir's need not be */
			for (; k > 0 && g->fd[k - 1] > fd; k--) {
				g->fd[k] = g->fd[k - 1];
				g->dev[k] = g->dev[k - 1];
				g->ino[k] = g->ino[k - 1];
			}
			g->fd[k] = fd;
			g->dev[k] = st.st_dev;
			g->ino[k] = st.st_ino;
		}
	}
	closedir(d);
}

/* Close every descriptor from 3 up but those given (g) that are still
 * what they were, and x and y (-1: none), allocating nothing: the child of
 * a process with threads. */
static void
close_but(const struct spawn_given *g, int x, int y)
{
	int keep[SPAWN_GIVEN_MAX + 2] = { 0 }, lo = 3;
	size_t n = 0;

	for (size_t i = 0; i < g->n + 2; i++) {
		int fd = i < g->n ? g->fd[i] : i == g->n ? x : y;
		size_t k = n;
		struct stat st;	/* fstat(2) is async-signal-safe */

		if (fd < lo)
			continue;	/* none, or 0 to 2 */
		if (i < g->n && (fstat(fd, &st) != 0 || st.st_dev != g->dev[i] ||
		    st.st_ino != g->ino[i]))
			continue;	/* the number given, since reused */
		for (; k > 0 && keep[k - 1] > fd; k--)
			keep[k] = keep[k - 1];
		keep[k] = fd;
		n++;
	}
	for (size_t k = 0; k < n; k++) {
		if (keep[k] < lo)
			continue;	/* kept twice */
		if (keep[k] > lo)
			close_range((unsigned)lo, (unsigned)keep[k] - 1, 0);
		lo = keep[k] + 1;
	}
	close_range((unsigned)lo, ~0U, 0);
}

/* In the child: the pipes onto 1 and 2, the report pipe (rep, or -1) for
 * its log's records, the lease socket (lease, or -1) for its lock
 * requests, the signal state we were given, the slot's instant; then the
 * run. Never returns. */
static void __attribute__((noreturn))
child(const struct sched_spawner *sp, char **argv, const int *po, const int *pe,
    int rep, int lease, long long at_ms)
{
	char at[32];
	int argc = 0, status;

	if (po && (dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0))
		_exit(EX_OSERR);
	/* the scheduler's timer and signal descriptors and the other runs'
	 * pipes are not this run's to hold (a pipe held here would outlive
	 * its run); what the scheduler was given stays, as through exec, and
	 * so do the report pipe's write end and the lease socket
	 * (close-on-exec: lockrun's, not the command's) */
	close_but(&sp->given, rep, lease);
	if (rep >= 0)
		log_report(rep);
	if (lease >= 0)
		lease_client_set(lease, sp->lease_url);
	child_signals_restore(sp->saved);
	snprintf(at, sizeof(at), "%lld", at_ms <= SPAWN_MISSED ? (SPAWN_MISSED - at_ms) / 1000 :
	    at_ms);
	if (setenv(at_ms == SPAWN_TRIGGERED ? TRIGGERED_VAR : at_ms <= SPAWN_MISSED ? MISSED_VAR :
	    SLOT_AT_VAR, at, 1) != 0)
		_exit(EX_OSERR);
	while (argv[argc])
		argc++;
	status = sp->run(argc, argv, sp->cfg);
	fflush(stdout);		/* as main() does: no libc teardown after a fork */
	_exit(status);
}

/* Close both ends of each pipe that is open. */
static void
pipes_close(int (*p)[2], size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < 2; k++)
			if (p[i][k] >= 0) {
				close(p[i][k]);
				p[i][k] = -1;
			}
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

void
spawn_gate_enter(void)
{
	pthread_mutex_lock(&gate);
}

void
spawn_gate_leave(void)
{
	pthread_mutex_unlock(&gate);
}

pid_t
spawn_task(const struct sched_spawner *sp, const struct sched_task *t, long long at_ms,
    struct spawn_pipes *io, struct lr_err *e)
{
	int p[4][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };	/* out, err,
									 * report, lease */
	char **argv = task_argv(sp, t);
	pid_t pid = -1;

	if (argv == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (io && ((io->relay && (out_pipe(p[0]) != 0 || out_pipe(p[1]) != 0)) ||
	    out_pipe(p[2]) != 0 || (sp->lease_url && socketpair(AF_UNIX,
	    SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p[3]) != 0))) {
		lr_errf(e, EX_OSERR, "pipe: %s", strerror(errno));
		goto done;
	}
	if (p[3][0] >= 0)
		fcntl(p[3][0], F_SETFL, O_NONBLOCK);
	fflush(NULL);
	spawn_gate_enter();
	if ((pid = fork()) == 0) {
		spawn_gate_leave();	/* this thread's, in the child too */
		child(sp, argv, p[0][0] >= 0 ? p[0] : NULL, p[1], p[2][1], p[3][1], at_ms);
	}
	spawn_gate_leave();
	if (pid < 0)
		lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
done:
	free(argv);
	for (size_t i = 0; i < 4; i++)	/* the write ends are the child's */
		if (p[i][1] >= 0) {
			close(p[i][1]);
			p[i][1] = -1;
		}
	if (pid > 0 && io) {
		io->out = p[0][0];
		io->err = p[1][0];
		io->report = p[2][0];
		io->lease = p[3][0];
	} else
		pipes_close(p, 4);
	return pid;
}

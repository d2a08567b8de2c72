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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/runs.h"

/* The child's argv: ours (without the verb), the protections the task
 * left to us, then -t NAME. Free the array only. */
static char **
task_argv(const struct sched_spawner *sp, const struct sched_task *t)
{
	static char one[] = "--one-server", none[] = "--no-overlap", dash_t[] = "-t";
	size_t n = 0, k = 0;
	char **v;

	while (sp->argv[n])
		n++;
	if ((v = calloc(n + 5, sizeof(*v))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[k++] = sp->argv[i];
	if (t->pin_one_server)
		v[k++] = one;
	if (t->pin_no_overlap)
		v[k++] = none;
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

int
spawn_fd_floor(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int fd, self, top = 2;

	if (d == NULL)
		return -1;
	self = dirfd(d);
	while ((de = readdir(d)) != NULL)
		if ((fd = atoi(de->d_name)) > top && fd != self)
			top = fd;
	closedir(d);
	return top + 1;
}

/* In the child: the pipes onto 1 and 2, the signal state we were given,
 * the slot's instant; then the run. Never returns. */
static void __attribute__((noreturn))
child(const struct sched_spawner *sp, char **argv, const int *po, const int *pe,
    long long at_ms)
{
	char at[32];
	int argc = 0, status;

	if (po && (dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0))
		_exit(EX_OSERR);
	/* the scheduler's timer and signal descriptors and the other runs'
	 * pipes are not this run's to hold (a pipe held here would outlive
	 * its run); what the scheduler was given stays, as through exec */
	if (sp->own_fds_from > 2)
		close_range((unsigned)sp->own_fds_from, ~0U, 0);
	child_signals_restore(sp->saved);
	snprintf(at, sizeof(at), "%lld", at_ms);
	if (setenv(SLOT_AT_VAR, at, 1) != 0)
		_exit(EX_OSERR);
	while (argv[argc])
		argc++;
	status = sp->run(argc, argv, sp->cfg);
	fflush(stdout);		/* as main() does: no libc teardown after a fork */
	_exit(status);
}

pid_t
spawn_task(const struct sched_spawner *sp, const struct sched_task *t, long long at_ms,
    int *out, int *err, struct lr_err *e)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	char **argv = task_argv(sp, t);
	pid_t pid;

	if (argv == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (out && (out_pipe(po) != 0 || out_pipe(pe) != 0)) {
		lr_errf(e, EX_OSERR, "pipe: %s", strerror(errno));
		pid = -1;
		goto done;
	}
	fflush(NULL);
	if ((pid = fork()) == 0)
		child(sp, argv, out ? po : NULL, out ? pe : NULL, at_ms);
	if (pid < 0)
		lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
done:
	free(argv);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (pid > 0 && out) {
		*out = po[0];
		*err = pe[0];
	} else {
		if (po[0] >= 0)
			close(po[0]);
		if (pe[0] >= 0)
			close(pe[0]);
	}
	return pid;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* child.c -- lockrun's side of the running command: start it (directly, or
 * through the guard), forward signals, stop it, reap it, and map the wait
 * status to lockrun's exit status. */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/task.h"
#include "out/log.h"
#include "proc/child.h"
#include "proc/guard.h"

/* Fork the guard, which starts the command (guard.c). lockrun becomes a
 * subreaper too, so that if the guard itself is killed, what is left of
 * the tree comes to lockrun, which can then kill it. */
static int
start_guard(struct lr_child *ch, long long deadline, struct lr_err *e)
{
	int ctl[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) != 0)
		return lr_errf(e, EX_OSERR, "socketpair: %s", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((ch->pid = fork()) == -1) {
		close(ctl[0]);
		close(ctl[1]);
		return lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
	}
	if (ch->pid == 0) {
		/* lockrun's end of the pair and its signals are not the
		 * guard's; its server connection stays (child.h, orphaned) */
		close(ctl[1]);
		close(ch->sfd);
		guard_run(ch->spec, ch->envp, deadline, ctl[0]);
	}
	close(ctl[0]);
	ch->ctl = ctl[1];
	return 0;
}

void
child_init(struct lr_child *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->pid = -1;
	ch->sfd = ch->ctl = -1;
	ch->status = -1;
}

int
child_start(struct lr_child *ch, const struct lr_child_spec *spec,
    const struct lr_vars *vars, long long deadline, struct lr_err *e)
{
	sigset_t set;

	spawn_forwarded_set(&set);
	sigaddset(&set, SIGCHLD);
	ch->spec = spec;
	ch->exec_err = 0;
	if ((ch->sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1)
		return lr_errf(e, EX_OSERR, "signalfd: %s", strerror(errno));
	/* built here, before any fork: the guard then allocates nothing (no
	 * copy-on-write faults), and the vfork child only execs */
	if ((ch->envp = spawn_envp(spec, vars)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	fflush(NULL);
	if (spec->kill_mode == KILL_MODE_TREE)
		return start_guard(ch, deadline, e);
	/* the child has set its own group before vfork returns: no signal
	 * can beat it */
	if ((ch->pid = spawn_child(spec, ch->envp, &ch->exec_err)) == -1)
		return lr_errf(e, EX_OSERR, "vfork: %s", strerror(errno));
	return 0;
}


static void
tell_guard(const struct lr_child *ch, int op, int sig, long long at)
{
	struct guard_msg m = { .op = op, .sig = sig, .at = at };

	/* never block on the guard: a stopped guard must not stop lockrun
	 * from renewing or stopping the command. If the message cannot go,
	 * lockrun, an ancestor of the whole tree, signals it itself. */
	if (send(ch->ctl, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(m) &&
	    op != GUARD_DEADLINE)
		guard_signal(getpid(), sig);
}

/* A signal lockrun received, passed on as timeout(1) does: to the
 * command's group (kill_mode tree, not foreground) or its main process,
 * with SIGCONT after one that ends a job. */
static void
forward(const struct lr_child *ch, int sig)
{
	if (ch->ctl >= 0) {
		tell_guard(ch, GUARD_FORWARD, sig, 0);
		return;
	}
	kill(ch->pid, sig);
	if (spawn_ends_a_job(sig))
		kill(ch->pid, SIGCONT);
}

void
child_stop(const struct lr_child *ch, int sig)
{
	if (ch->ctl >= 0) {
		tell_guard(ch, GUARD_STOP, sig, 0);
		return;
	}
	kill(ch->pid, sig);
	if (sig != SIGKILL)
		kill(ch->pid, SIGCONT);
}

void
child_deadline(const struct lr_child *ch, long long at)
{
	if (ch->ctl >= 0)
		tell_guard(ch, GUARD_DEADLINE, 0, at);
}

int
child_event(struct lr_child *ch)
{
	struct signalfd_siginfo si;
	int st;
	pid_t w;

	if (read(ch->sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return 0;
	if (si.ssi_signo != SIGCHLD) {
		/* in foreground mode a signal typed at the terminal already went
		 * to the whole foreground group, command included */
		if (!ch->spec->foreground || si.ssi_code != SI_KERNEL)
			forward(ch, (int)si.ssi_signo);
		ch->forwarded = (int)si.ssi_signo;
		return 0;
	}
	if (ch->ctl >= 0)
		return 0;		/* the guard reports on ctl */
	while ((w = waitpid(ch->pid, &st, WNOHANG)) == -1 && errno == EINTR)
		;
	if (w != ch->pid)
		return 0;		/* stopped, or another child's SIGCHLD */
	ch->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	ch->pid = -1;
	return 1;
}

int
child_guard_event(struct lr_child *ch)
{
	struct guard_end end;
	int st;
	ssize_t n = read(ch->ctl, &end, sizeof(end));

	if (n == (ssize_t)sizeof(end)) {
		ch->status = end.status;	/* the tree is gone; the guard exits with lockrun */
		ch->exec_err = end.exec_err;
		return 1;
	}
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	/* end-of-file: the guard died without a word; its orphans, if any,
	 * came to lockrun */
	while (waitpid(ch->pid, &st, 0) == -1 && errno == EINTR)
		;
	ch->pid = -1;
	ch->guard_died = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	ch->status = WIFSIGNALED(st) ? EX_OSERR : WEXITSTATUS(st);
	guard_kill_all();
	return 1;
}

void
child_close(struct lr_child *ch)
{
	if (ch->sfd >= 0)
		close(ch->sfd);
	if (ch->ctl >= 0)
		close(ch->ctl);
	ch->sfd = ch->ctl = -1;
	free(ch->envp);
	ch->envp = NULL;
}

/* child.c -- run the command under the lock: fork, exec, forward signals,
 * reap, and map the wait status to lockrun's exit status. */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "guard.h"
#include "task.h"

static const int forwarded[] = { SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2 };
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static void
forwarded_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(set, forwarded[i]);
}

int
child_signals_block(struct lr_sigstate *saved, struct lr_err *e)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	sigset_t set;

	forwarded_set(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &saved->mask) != 0 ||
	    sigaction(SIGPIPE, &ign, &saved->pipe) != 0)
		return lr_errf(e, EX_OSERR, "cannot set up signals: %s", strerror(errno));
	/* as timeout(1) does: lockrun and the command act on them again */
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &dfl, NULL);
	return 0;
}

int
child_signal_pending(void)
{
	sigset_t pending;

	if (sigpending(&pending) != 0)
		return 0;
	for (size_t i = 0; i < NFORWARDED; i++)
		if (sigismember(&pending, forwarded[i]) == 1)
			return forwarded[i];
	return 0;
}

/* Is path a regular file we may execute? Returns 0, or the errno. */
static int
runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	return access(path, X_OK) == 0 ? 0 : errno;
}

int
child_find(const char *argv0, const char *path, struct lr_err *e)
{
	const char *p;
	char buf[PATH_MAX];
	int err, seen = ENOENT;

	if (strchr(argv0, '/') != NULL) {
		if ((err = runnable(argv0)) == 0)
			return 0;
		return lr_errf(e, err == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC,
		    "cannot run %s: %s", argv0, strerror(err));
	}
	if (path == NULL)
		path = "/bin:/usr/bin";		/* execvp(3)'s default */
	for (p = path; ; p += strcspn(p, ":") + 1) {
		int len = (int)strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s%s%s", len, p, len ? "/" : "", argv0);
		if ((err = runnable(buf)) == 0)
			return 0;
		if (err == EACCES)
			seen = EACCES;
		if (p[len] == '\0')
			break;
	}
	if (seen == EACCES)
		return lr_errf(e, LR_EXIT_NOEXEC, "cannot run %s: found in PATH, "
		    "but not an executable file", argv0);
	return lr_errf(e, LR_EXIT_NOTFOUND, "cannot run %s: command not found in PATH",
	    argv0);
}

int
child_sleep(long long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };
	sigset_t set;
	int sig;

	forwarded_set(&set);
	while ((sig = sigtimedwait(&set, NULL, &ts)) == -1 && errno == EINTR)
		;
	return sig > 0 ? sig : 0;
}

void
child_exec(const struct lr_child_spec *spec, pid_t parent)
{
	int err;

	/* (0) the task's environment: here, so it never changes lockrun's own
	 * settings (TZ would move the schedule); the strings outlive exec */
	for (size_t i = 0; spec->env && spec->env[i]; i++)
		putenv(spec->env[i]);
	/* (1) give the command the signal state lockrun was started with */
	sigaction(SIGPIPE, &spec->saved->pipe, NULL);
	sigprocmask(SIG_SETMASK, &spec->saved->mask, NULL);
	/* (2) lead a process group, so a forwarded signal reaches a whole
	 * pipeline (timeout(1) does the same); --foreground keeps the
	 * terminal's group so the command can read the terminal */
	if (!spec->foreground)
		setpgid(0, 0);
	/* (3) die with the parent (lockrun, or the guard): nothing would
	 * renew the lock or contain the command. If it died before this
	 * line, getppid() has already changed. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(128 + SIGTERM);
	/* (4) the Redis socket, the signalfds and the control pipe are
	 * close-on-exec */
	execvp(spec->argv[0], spec->argv);
	err = errno;
	dprintf(STDERR_FILENO, "lockrun: cannot run %s: %s\n", spec->argv[0], strerror(err));
	_exit(err == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC);
}

/* Fork the guard, which forks the command (guard.c). lockrun becomes a
 * subreaper too, so that if the guard itself is killed, what is left of
 * the tree comes to lockrun, which can then kill it. */
static int
start_guard(struct lr_child *ch, struct lr_err *e)
{
	int ctl[2];

	if (pipe2(ctl, O_CLOEXEC) != 0)
		return lr_errf(e, EX_OSERR, "pipe: %s", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((ch->pid = fork()) == -1) {
		close(ctl[0]);
		close(ctl[1]);
		return lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
	}
	if (ch->pid == 0) {
		/* lockrun's descriptors are not the guard's to keep open */
		close(ctl[1]);
		close(ch->sfd);
		if (ch->spec->close_fd >= 0)
			close(ch->spec->close_fd);
		guard_run(ch->spec, ctl[0]);
	}
	close(ctl[0]);
	ch->ctl = ctl[1];
	return 0;
}

int
child_start(struct lr_child *ch, const struct lr_child_spec *spec, struct lr_err *e)
{
	sigset_t set;
	pid_t parent = getpid();

	forwarded_set(&set);
	sigaddset(&set, SIGCHLD);
	ch->spec = spec;
	ch->status = -1;
	ch->ctl = -1;
	ch->guard_died = 0;
	if ((ch->sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1)
		return lr_errf(e, EX_OSERR, "signalfd: %s", strerror(errno));
	fflush(NULL);
	if (spec->kill_mode == KILL_MODE_TREE) {
		if (start_guard(ch, e) != 0) {
			child_close(ch);
			return -1;
		}
		return 0;
	}
	if ((ch->pid = fork()) == -1) {
		child_close(ch);
		return lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
	}
	if (ch->pid == 0)
		child_exec(spec, parent);
	if (!spec->foreground)
		setpgid(ch->pid, ch->pid);	/* also here: no signal may beat the child's own call */
	return 0;
}

static void
tell_guard(const struct lr_child *ch, int op, int sig, long long at)
{
	struct guard_msg m = { .op = op, .sig = sig, .at = at };

	/* one write under PIPE_BUF arrives whole; if the guard has already
	 * exited there is nobody to tell (EPIPE: SIGPIPE is ignored) */
	if (write(ch->ctl, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return;
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
	if (sig == SIGTERM || sig == SIGINT || sig == SIGQUIT || sig == SIGHUP)
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
		return 0;
	}
	while ((w = waitpid(ch->pid, &st, WNOHANG)) == -1 && errno == EINTR)
		;
	if (w != ch->pid)
		return 0;		/* stopped, or another child's SIGCHLD */
	ch->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	if (ch->ctl >= 0 && WIFSIGNALED(st)) {
		/* the guard itself was killed: its orphans came to lockrun */
		ch->guard_died = WTERMSIG(st);
		ch->status = EX_OSERR;
		tree_kill_all();
	}
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
}

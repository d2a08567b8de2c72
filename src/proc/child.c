/* SPDX-License-Identifier: BSD-2-Clause */
/* child.c -- run the command under the lock: fork, exec, forward signals,
 * reap, and map the wait status to lockrun's exit status. */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
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

#include "proc/child.h"
#include "proc/guard.h"
#include "out/log.h"
#include "core/task.h"

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
	/* as timeout(1) does: lockrun and the command act on them again; and
	 * SIGCHLD inherited ignored would be discarded, never reaching the
	 * signalfd, and would have the kernel reap children unasked */
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	return 0;
}

void
child_signals_restore(const struct lr_sigstate *saved)
{
	sigaction(SIGPIPE, &saved->pipe, NULL);
	sigprocmask(SIG_SETMASK, &saved->mask, NULL);
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
child_find(const char *argv0, const char *path, char *found, size_t n, struct lr_err *e)
{
	const char *p;
	int err, seen = ENOENT;

	if (strchr(argv0, '/') != NULL) {
		snprintf(found, n, "%s", argv0);
		if ((err = runnable(argv0)) == 0)
			return 0;
		return lr_errf(e, err == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC,
		    "cannot run %s: %s", argv0, strerror(err));
	}
	if (path == NULL)
		path = "/bin:/usr/bin";		/* execvp(3)'s default */
	for (p = path; ; p += strcspn(p, ":") + 1) {
		int len = (int)strcspn(p, ":");
		snprintf(found, n, "%.*s%s%s", len, p, len ? "/" : "", argv0);
		if ((err = runnable(found)) == 0)
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

static int
reserved(const char *var)
{
	static const char *const names[] = {
		"LOCKRUN_KEY=", "LOCKRUN_TOKEN=", "LOCKRUN_TASK=", "LOCKRUN_SLOT=",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

char **
child_envp(const struct lr_child_spec *spec, const struct lr_vars *vars)
{
	extern char **environ;
	const char *mine[] = { vars->key, vars->token, vars->task, vars->slot };
	char *const *add = spec->env;
	size_t n = 0, m = 0, k = 0;
	char **envp;

	while (environ[n])
		n++;
	while (add && add[m])
		m++;
	if ((envp = calloc(n + m + 5, sizeof(*envp))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		int replaced = reserved(environ[i]);
		for (size_t j = 0; j < m && !replaced; j++)
			replaced = strncmp(add[j], environ[i], len + 1) == 0;
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		envp[k++] = add[j];
	for (size_t j = 0; j < 4; j++)
		if (mine[j][0] != '\0')
			envp[k++] = (char *)mine[j];
	return envp;
}

/* In the vfork(2) child, which shares the parent's memory until it execs:
 * only system calls on its own state, then exec. If exec fails, leave its
 * errno in *failed, which is the parent's to read (and to log: no line is
 * written from here, where stdio or syslog(3) would change the parent's
 * state), and exit. Never returns. */
static void __attribute__((noreturn))
spawned(const struct lr_child_spec *spec, char *const envp[], pid_t parent,
    volatile int *failed)
{
	int err;

	/* (1) give the command the signal state lockrun was started with */
	child_signals_restore(spec->saved);
	/* (2) lead a process group, so a forwarded signal reaches a whole
	 * pipeline (timeout(1) does the same); --foreground keeps the
	 * terminal's group so the command can read the terminal */
	setpgid(0, spec->foreground ? spec->pgid : 0);
	/* (3) die with the parent (lockrun, or the guard): nothing would
	 * renew the lock or contain the command. If it died before this
	 * line, getppid() has already changed. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(128 + SIGTERM);
	/* (4) the Redis socket, the signalfds and the control socket are
	 * close-on-exec; the task's environment is in envp, so a task TZ
	 * never moves lockrun's own schedule. The path was found before
	 * (child_find()): no search of $PATH again, one failed execve(2) per
	 * directory; a script without #! still goes to the shell. */
	execve(spec->path, spec->argv, envp);
	if (errno == ENOEXEC)	/* a path with a slash: glibc runs /bin/sh path */
		execvpe(spec->path, spec->argv, envp);
	err = errno;
	*failed = err ? err : ENOEXEC;
	_exit(err == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC);
}

pid_t
child_spawn(const struct lr_child_spec *spec, char *const envp[])
{
	pid_t parent = getpid(), pid;
	volatile int failed = 0;
	struct log_fields f;

	/* vfork: on a virtual machine fork(2) of even a small process costs a
	 * millisecond copying page tables, paid before every job. The parent
	 * resumes once the child has exec'd or exited, so failed is set by
	 * then if exec failed. */
	if ((pid = vfork()) == 0)
		spawned(spec, envp, parent, &failed);
	if (pid > 0 && failed != 0) {
		log_fields_init(&f);
		f.status = failed == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC;
		lr_event(LOG_ERR, "exec-failed", &f, "cannot run %s: %s", spec->argv[0],
		    strerrordesc_np(failed) ? strerrordesc_np(failed) : "exec failed");
	}
	return pid;
}

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

	forwarded_set(&set);
	sigaddset(&set, SIGCHLD);
	ch->spec = spec;
	if ((ch->sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1)
		return lr_errf(e, EX_OSERR, "signalfd: %s", strerror(errno));
	/* built here, before any fork: the guard then allocates nothing (no
	 * copy-on-write faults), and the vfork child only execs */
	if ((ch->envp = child_envp(spec, vars)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	fflush(NULL);
	if (spec->kill_mode == KILL_MODE_TREE)
		return start_guard(ch, deadline, e);
	/* the child has set its own group before vfork returns: no signal
	 * can beat it */
	if ((ch->pid = child_spawn(spec, ch->envp)) == -1)
		return lr_errf(e, EX_OSERR, "vfork: %s", strerror(errno));
	return 0;
}

int
child_ends_a_job(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGQUIT || sig == SIGHUP;
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
		tree_signal(getpid(), sig);
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
	if (child_ends_a_job(sig))
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
	int status, st;
	ssize_t n = read(ch->ctl, &status, sizeof(status));

	if (n == (ssize_t)sizeof(status)) {
		ch->status = status;	/* the tree is gone; the guard exits with lockrun */
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
	tree_kill_all();
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

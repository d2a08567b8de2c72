/* SPDX-License-Identifier: BSD-2-Clause */
/* spawn.c -- start the command: the signals it inherits, where its program
 * is, its environment, and the vfork(2) and exec. Shared by lockrun and the
 * guard (guard.c), which each may start it. */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/task.h"
#include "out/log.h"
#include "proc/capture.h"
#include "proc/spawn.h"
static const int forwarded[] = { SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2 };
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

void
spawn_forwarded_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(set, forwarded[i]);
}

int
spawn_signals_block(struct lr_sigstate *saved, struct lr_err *e)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	sigset_t set;

	spawn_forwarded_set(&set);
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
spawn_signals_restore(const struct lr_sigstate *saved)
{
	sigaction(SIGPIPE, &saved->pipe, NULL);
	sigprocmask(SIG_SETMASK, &saved->mask, NULL);
}

int
spawn_signal_pending(void)
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
spawn_find(const char *argv0, const char *path, char *found, size_t n, struct lr_err *e)
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
spawn_sleep(long long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };
	sigset_t set;
	int sig;

	spawn_forwarded_set(&set);
	while ((sig = sigtimedwait(&set, NULL, &ts)) == -1 && errno == EINTR)
		;
	return sig > 0 ? sig : 0;
}

/* Is var one of the run's own variables, set below from vars? */
static int
reserved(const char *var)
{
	static const char *const names[] = {
		"LOCKRUN_KEY=", "LOCKRUN_TOKEN=", "LOCKRUN_TASK=", "LOCKRUN_SLOT=",
		"LOCKRUN_ATTEMPT=",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

/* Is var the scheduler's own, not its tasks': what systemd hands the
 * service (its notify socket, the sockets it passed, the watchdog), and
 * what told lockrun where its config and lock server are and their
 * passwords. A task started by cron must not notify systemd in the
 * scheduler's name, nor find the scheduler's secrets. */
static int
scheduler_own(const char *var)
{
	static const char *const names[] = {
		"NOTIFY_SOCKET=", "LISTEN_", "WATCHDOG_", "LOCKRUN_CONFIG=",
		"LOCKRUN_URL=", "LOCKRUN_REDIS_URL=", "LOCKRUN_REDIS_PASSWORD=",
		"LOCKRUN_SENTINEL_PASSWORD=", "LOCKRUN_SLOT_AT=", "LOCKRUN_SLOT_CLAIM=",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

char **
spawn_envp(const struct lr_child_spec *spec, const struct lr_vars *vars)
{
	extern char **environ;
	const char *mine[] = { vars->key, vars->token, vars->task, vars->slot,
	    vars->attempt };
	char *const *add = spec->env;
	size_t n = 0, m = 0, k = 0;
	char **envp;

	static char user_path[] = "PATH=" LR_USER_PATH;
	int has_path = 0;

	/* another user's command is given nothing of lockrun's: not its
	 * secrets (PGPASSWORD, a token), not root's PATH */
	while (!spec->creds && environ[n])
		n++;
	while (add && add[m])
		has_path |= strncmp(add[m++], "PATH=", 5) == 0;
	if ((envp = calloc(n + m + 7, sizeof(*envp))) == NULL)
		return NULL;
	if (spec->creds && !has_path)
		envp[k++] = user_path;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		int replaced = reserved(environ[i]) ||
		    (spec->scheduled && scheduler_own(environ[i]));
		for (size_t j = 0; j < m && !replaced; j++)
			replaced = strncmp(add[j], environ[i], len + 1) == 0;
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		envp[k++] = add[j];
	for (size_t j = 0; j < sizeof(mine) / sizeof(mine[0]); j++)
		if (mine[j][0] != '\0')
			envp[k++] = (char *)mine[j];
	return envp;
}

/* In the vfork(2) child, after the switch to another user: find the
 * command in the user's PATH (envp's) with the user's rights, as
 * execvp(3) would, and exec it. The path root found (spawn_find()) is not
 * the user's: a directory only root may search, or root's own PATH. Returns
 * only if no exec succeeded, errno EACCES if a candidate was there but not
 * the user's to run, else why the search ended. Allocates nothing. */
static void
exec_as_user(const struct lr_child_spec *spec, char *const envp[])
{
	const char *name = spec->argv[0], *p = LR_USER_PATH;
	size_t nlen = strlen(name);
	char path[PATH_MAX];
	int seen = ENOENT;

	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0) {
			p = envp[i] + 5;
			break;
		}
	for (;;) {
		size_t len = strcspn(p, ":");

		if (len + nlen + 2 <= sizeof(path)) {
			size_t k = len;

			memcpy(path, p, len);
			if (k > 0)
				path[k++] = '/';
			memcpy(path + k, name, nlen + 1);
			execve(path, spec->argv, envp);
			if (errno == ENOEXEC)	/* no #!: glibc runs /bin/sh path */
				execvpe(path, spec->argv, envp);
			if (errno == EACCES)
				seen = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
			    errno != ENODEV && errno != ETIMEDOUT) {
				seen = errno;
				break;
			}
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	errno = seen;
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

	/* (0) output: the command writes there (or into lockrun's pipes,
	 * which pass it on there), lockrun's lines stay where they are; the
	 * descriptors themselves are close-on-exec */
	if (spec->capture && (dup2(spec->capture->wr[0], 1) < 0 ||
	    dup2(spec->capture->wr[1], 2) < 0)) {
		*failed = errno;
		_exit(LR_EXIT_NOEXEC);
	}
	if (!spec->capture && spec->output_fd > 2 && (dup2(spec->output_fd, 1) < 0 ||
	    dup2(spec->output_fd, 2) < 0)) {
		*failed = errno;
		_exit(LR_EXIT_NOEXEC);
	}
	/* (0b) a task's user: its groups, then its gid and uid, by system
	 * call: glibc's wrappers would change every thread of the parent
	 * whose memory this child shares. Before (3), which a change of
	 * credentials clears. */
	if (spec->creds && (syscall(SYS_setgroups, spec->creds->ngroups,
	    spec->creds->groups) != 0 ||
	    syscall(SYS_setresgid, spec->creds->gid, spec->creds->gid, spec->creds->gid) != 0 ||
	    syscall(SYS_setresuid, spec->creds->uid, spec->creds->uid, spec->creds->uid) != 0)) {
		*failed = errno;
		_exit(LR_EXIT_NOEXEC);
	}
	/* (0c) another user's command holds none of lockrun's descriptors
	 * (a file root opened, a socket it was given): 0 to 2 alone */
	if (spec->creds)
		close_range(3, ~0U, 0);
	/* (1) give the command the signal state lockrun was started with */
	spawn_signals_restore(spec->saved);
	/* (2) lead a process group, so a forwarded signal reaches a whole
	 * pipeline (timeout(1) does the same); --foreground keeps the
	 * terminal's group so the command can read the terminal. A hook, or
	 * another user's command, leads a session of its own instead (and
	 * so its group): no controlling terminal, none to push input into
	 * (TIOCSTI) or to read; a signal to lockrun's group does not reach
	 * it. setsid(2) cannot fail in a new process, but if it did the
	 * command would keep the terminal: it does not run. */
	if (spec->session || spec->creds) {
		if (setsid() == -1) {
			*failed = errno;
			_exit(LR_EXIT_NOEXEC);
		}
	} else
		setpgid(0, spec->foreground ? spec->pgid : 0);
	/* (3) die with the parent (lockrun, or the guard): nothing would
	 * renew the lock or contain the command. If it died before this
	 * line, getppid() has already changed. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(128 + SIGTERM);
	/* (4) the Redis socket, the signalfds and the control socket are
	 * close-on-exec; the task's environment is in envp, so a task TZ
	 * never moves lockrun's own schedule. The path was found before
	 * (spawn_find()): no search of $PATH again, one failed execve(2) per
	 * directory; a script without #! still goes to the shell. */
	if (spec->creds && strchr(spec->argv[0], '/') == NULL)
		exec_as_user(spec, envp);
	else {
		execve(spec->path, spec->argv, envp);
		if (errno == ENOEXEC)	/* a path with a slash: glibc runs /bin/sh path */
			execvpe(spec->path, spec->argv, envp);
	}
	err = errno;
	*failed = err ? err : ENOEXEC;
	_exit(err == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC);
}

pid_t
spawn_child(const struct lr_child_spec *spec, char *const envp[], int *exec_err)
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
	if (exec_err)
		*exec_err = pid > 0 ? failed : 0;
	if (pid > 0 && failed != 0) {
		log_fields_init(&f);
		f.status = failed == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC;
		lr_event(LOG_ERR, "exec-failed", &f, "cannot run %s%s%s: %s", spec->argv[0],
		    spec->creds ? " as user " : "", spec->creds ? spec->creds->name : "",
		    strerrordesc_np(failed) ? strerrordesc_np(failed) : "exec failed");
	}
	return pid;
}

int
spawn_ends_a_job(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGQUIT || sig == SIGHUP;
}

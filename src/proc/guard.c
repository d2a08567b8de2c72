/* SPDX-License-Identifier: BSD-2-Clause */
/* guard.c -- keep the command's whole process tree contained.
 *
 * With kill_mode: tree, lockrun forks the guard and the guard forks the
 * command, so everything the command starts stays below the guard: it is
 * a child subreaper (PR_SET_CHILD_SUBREAPER), so a descendant whose parent
 * exits -- a daemon's double fork and setsid included -- is re-parented to
 * the guard, not to init, and the guard has no child left exactly when no
 * process of the tree is left. The guard
 *  - passes on the signals lockrun forwards, and stops the tree when told;
 *  - when the main process ends, stops what is left of the tree (SIGTERM,
 *    then SIGKILL after kill_after);
 *  - when lockrun dies, SIGKILL included (its control socket reads EOF),
 *    stops the tree the same way, with SIGKILL no later than the deadline
 *    lockrun last sent: before the lease can end;
 *  - keeps that deadline on its own while lockrun lives (on_lost: term):
 *    should lockrun fall silent (SIGSTOP, wedged, starved of CPU), the
 *    guard stops the tree by lockrun's rule, SIGTERM at the term point
 *    (the deadline less kill_after) and SIGKILL at the deadline, so it is
 *    gone before the lease ends; it frees nothing, lockrun being alive;
 *  - once no process of the tree is left, sends lockrun the main
 *    process's status, which lockrun takes as the command's, and only then
 *    releases the lock; and exits. Should lockrun have died, the guard
 *    frees the lock itself then (spec->orphaned), rather than leave it to
 *    expire; a session lock's connection it keeps open until then. */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/capture.h"
#include "proc/spawn.h"
#include "core/duration.h"
#include "core/err.h"
#include "proc/guard.h"
#include "out/log.h"

#define NEVER		(1LL << 62)
#define KILL_ROUND_MS	20	/* SIGKILL again this often, for late forks */

struct proc {
	pid_t		pid;
	pid_t		ppid;
	signed char	below;	/* below root: 1 yes, 0 no, -1 not known yet */
};

/* The parent of pid, from /proc/PID/stat ("pid (comm) state ppid ..."; comm
 * may hold spaces and parentheses, so look after the last ')'). */
static int
proc_ppid(pid_t pid, pid_t *ppid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %d", ppid) != 1)
		return -1;
	return 0;
}

static int
by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;

	return (x > y) - (x < y);
}

/* Every process on the system with its parent, sorted by pid; *n set.
 * NULL when /proc cannot be read or memory runs out. */
static struct proc *
proc_list(size_t *n)
{
	DIR *d = opendir("/proc");
	struct proc *v = NULL;
	struct dirent *de;
	size_t cap = 0;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10), ppid;
		if (pid <= 0 || proc_ppid(pid, &ppid) != 0)
			continue;
		if (*n == cap) {
			struct proc *w = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
			if (w == NULL)
				break;
			v = w;
		}
		v[(*n)++] = (struct proc){ pid, ppid, -1 };
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), by_pid);
	return v;
}

/* Is v[i] below root? Walks up the parents, remembering the answers. */
static int
below(struct proc *v, size_t n, size_t i, pid_t root)
{
	size_t chain[64], len = 0;
	int answer = 0;

	while (v[i].below < 0) {
		struct proc key = { .pid = v[i].ppid }, *up;
		if (v[i].ppid == root) {
			answer = 1;
			break;
		}
		if (len == sizeof(chain) / sizeof(chain[0]))
			return 0;	/* too deep to tell: do not remember a guess */
		if (v[i].ppid <= 1 || (up = bsearch(&key, v, n, sizeof(*v), by_pid)) == NULL)
			break;
		chain[len++] = i;
		i = (size_t)(up - v);
	}
	if (v[i].below >= 0)
		answer = v[i].below;
	v[i].below = (signed char)answer;
	while (len > 0)
		v[chain[--len]].below = (signed char)answer;
	return answer;
}

int
guard_signal(pid_t root, int sig)
{
	size_t n;
	struct proc *v = proc_list(&n);
	int hit = 0;

	for (size_t i = 0; v && i < n; i++) {
		if (v[i].pid == root || !below(v, n, i, root))
			continue;
		kill(v[i].pid, sig);
		if (sig != SIGKILL && sig != SIGCONT)
			kill(v[i].pid, SIGCONT);
		hit++;
	}
	free(v);
	return hit;
}

void
guard_kill_all(void)
{
	struct timespec round = { 0, KILL_ROUND_MS * 1000000L };

	for (;;) {
		pid_t w;
		guard_signal(getpid(), SIGKILL);
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0 || (w == -1 && errno == EINTR))
			;
		if (w == -1)
			return;		/* ECHILD: nothing left */
		nanosleep(&round, NULL);
	}
}

struct guard {
	const struct lr_child_spec *spec;
	pid_t		self;
	pid_t		main;		/* the command's main process */
	int		status;		/* its status once reaped, else -1 */
	int		exec_err;	/* it could not be executed: errno, else 0 */
	int		sfd;		/* signalfd: SIGCHLD */
	int		ctl;		/* lockrun's control socket; -1 once it is gone */
	int		stopping;	/* the tree was sent SIGTERM */
	long long	kill_at;	/* next SIGKILL round, or NEVER */
	long long	deadline;	/* lockrun's: the tree is gone by then */
	int		kept;		/* the guard acted on deadline itself */
};

/* SIGTERM the whole tree (once), and SIGKILL it at kill_at at the latest. */
static void
stop_tree(struct guard *g, long long kill_at)
{
	if (!g->stopping) {
		g->stopping = 1;
		guard_signal(g->self, SIGTERM);
	}
	if (kill_at < g->kill_at)
		g->kill_at = kill_at;
}

/* Reap what has ended. Returns 1 when no process of the tree is left. */
static int
reap(struct guard *g)
{
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);

		if (w == g->main)
			g->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
		if (w > 0 || (w == -1 && errno == EINTR))
			continue;
		if (w == -1)
			return 1;	/* ECHILD */
		/* some are left: once the main process has ended, they must go */
		if (g->status >= 0)
			stop_tree(g, mono_ms() + g->spec->kill_after_ms);
		return 0;
	}
}

static void
obey(struct guard *g, const struct guard_msg *m)
{
	pid_t to = g->spec->foreground ? g->main : -g->main;

	switch (m->op) {
	case GUARD_FORWARD:
		/* once the main process is reaped its pid, and so its group's
		 * number, may be reused: reach what is left through the tree */
		if (g->status >= 0) {
			guard_signal(g->self, m->sig);
			break;
		}
		kill(to, m->sig);
		if (spawn_ends_a_job(m->sig))
			kill(to, SIGCONT);	/* a stopped command would never act */
		break;
	case GUARD_STOP:
		/* one SIGTERM only: the guard may have sent it at the lease's
		 * term point, as lockrun does (keep_deadline) */
		if (m->sig == SIGTERM && g->stopping)
			break;
		if (m->sig == SIGTERM)
			g->stopping = 1;
		guard_signal(g->self, m->sig);
		if (m->sig == SIGKILL)
			g->kill_at = mono_ms() + KILL_ROUND_MS;
		break;
	case GUARD_DEADLINE:
		g->deadline = m->at;
		break;
	}
}

/* lockrun is gone: nothing renews the lease any more. */
static void
orphaned(struct guard *g)
{
	long long at = mono_ms() + g->spec->kill_after_ms;

	close(g->ctl);
	g->ctl = -1;
	stop_tree(g, at < g->deadline ? at : g->deadline);
}

/* Read one message from lockrun (flags: 0, or MSG_DONTWAIT) and act on
 * it; end-of-file or an error means lockrun is gone. Returns 1 when a
 * message was read. */
static int
ctl_read(struct guard *g, int flags)
{
	struct guard_msg m;
	ssize_t n = recv(g->ctl, &m, sizeof(m), flags);

	if (n == (ssize_t)sizeof(m)) {
		obey(g, &m);
		return 1;
	}
	if (n == 0 || (n == -1 && errno != EINTR && errno != EAGAIN))
		orphaned(g);
	return 0;
}

/* lockrun, alive, confirms each lease's end with GUARD_DEADLINE; past the
 * term point with no later one, it has not renewed the lease in time to
 * stop the tree before the lease ends -- or it is stopped, wedged or
 * starved and can stop nothing. Stop the tree by its rule (lease.h):
 * SIGTERM now, SIGKILL at the deadline. With on_lost: ignore the command
 * is meant to run on unprotected: nothing then. Returns when the term
 * point is due, or NEVER. */
static long long
keep_deadline(struct guard *g, long long now)
{
	long long term = g->deadline - g->spec->kill_after_ms;
	char left[32];

	if (!g->spec->keeps_deadline || g->deadline == NEVER || g->ctl < 0 || g->kept)
		return NEVER;
	if (now < term)
		return term;
	/* a deadline lockrun sent in the same instant counts */
	while (g->ctl >= 0 && ctl_read(g, MSG_DONTWAIT))
		;
	term = g->deadline - g->spec->kill_after_ms;
	if (g->ctl < 0 || now < term)
		return g->ctl < 0 ? NEVER : term;
	g->kept = 1;
	if (!g->stopping) {
		duration_human(g->deadline - now, left, sizeof(left));
		lr_event(LOG_ERR, "guard-deadline", NULL, "the lease was not renewed in "
		    "time (lockrun stopped, wedged or starved?); the guard is stopping the "
		    "command, SIGKILL in %s, before the lease ends", left);
	}
	stop_tree(g, g->deadline);
	return NEVER;
}

/* The tree is gone: tell lockrun the main process's status, so it can
 * release the lock; then wait for lockrun to close ctl, so that this
 * process's exit overlaps lockrun's own instead of the release. */
static void __attribute__((noreturn))
finish(struct guard *g)
{
	int status = g->status >= 0 ? g->status : EX_SOFTWARE;
	struct guard_end end = { .status = status, .exec_err = g->exec_err };
	char byte;

	/* lockrun died: no one else will free the lock, and no process that
	 * ran under it is left */
	if (g->ctl < 0 && g->spec->orphaned)
		g->spec->orphaned(g->spec->orphaned_arg, status);

	if (g->ctl >= 0 && write(g->ctl, &end, sizeof(end)) == (ssize_t)sizeof(end))
		while (read(g->ctl, &byte, 1) == -1 && errno == EINTR)
			;
	_exit(status);
}

static void __attribute__((noreturn))
serve(struct guard *g)
{
	for (;;) {
		long long now = mono_ms(), term = keep_deadline(g, now), next;
		struct pollfd pfd[2] = {
			{ .fd = g->sfd, .events = POLLIN }, { .fd = g->ctl, .events = POLLIN },
		};
		struct signalfd_siginfo si;

		if (now >= g->kill_at) {
			guard_signal(g->self, SIGKILL);
			g->kill_at = now + KILL_ROUND_MS;
		}
		next = term < g->kill_at ? term : g->kill_at;
		if (poll(pfd, 2, next == NEVER ? -1 :
		    (int)(next - now < (1 << 30) ? next - now : 1 << 30)) == -1 &&
		    errno != EINTR)
			_exit(EX_OSERR);
		if (pfd[0].revents & POLLIN) {
			while (read(g->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
			if (reap(g))
				finish(g);
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
			ctl_read(g, 0);
	}
}

void
guard_run(const struct lr_child_spec *spec, char *const envp[], long long deadline,
    int ctl)
{
	struct guard g = { .spec = spec, .self = getpid(), .status = -1, .ctl = ctl,
	    .kill_at = NEVER, .deadline = deadline };
	sigset_t chld;

	/* (1) orphans of the tree come here, not to init (nor to lockrun);
	 * and a process group of its own: a SIGKILL sent to lockrun's group
	 * (timeout -s KILL, kill -9 -PGID) must not take the guard with it */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	setpgid(0, 0);
	/* (2) the command first: nothing else is on its way to starting */
	if ((g.main = spawn_child(spec, envp, &g.exec_err)) == -1) {
		lr_error("vfork: %s", strerror(errno));
		_exit(EX_OSERR);
	}
	/* the pipes are the command's and lockrun's: a copy kept here would
	 * keep a reader lockrun let go of (capture.c, gone()) */
	for (int i = 0; spec->capture && i < 2; i++) {
		close(spec->capture->rd[i]);
		close(spec->capture->wr[i]);
	}
	/* (3) SIGCHLD, blocked since lockrun's start, is read from a signalfd
	 * (one that arrived already is reported too); the forwarded signals
	 * stay blocked: lockrun forwards them */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if ((g.sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) == -1)
		_exit(EX_OSERR);
	/* (4) if lockrun dies from now on, ctl reads EOF: the tree is stopped */
	serve(&g);
}

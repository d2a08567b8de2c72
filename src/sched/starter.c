/* SPDX-License-Identifier: BSD-2-Clause */
/* starter.c -- fork a child that is `lockrun -t NAME`: the run is exactly a
 * run, with its own lock, guard, history and hooks.
 *
 * Why not exec this program again: a run started that way spends most of
 * its start-up loading the program and reading the config once more (the
 * whole file, when its tasks are not in a tasks_dir), and 1,000 tasks due
 * at once then start over many seconds. The forked child already has the
 * config as the scheduler loaded it, which is also the one a run must
 * use: a file edited since, and not yet re-read on SIGHUP, is not in
 * force. What exec would have reset is reset by hand: the signal state,
 * and the scheduler's own descriptors. cron's runs are forked by its
 * starter (starter.h), tick's by tick itself. */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/keys.h"
#include "out/log.h"
#include "sched/lease_client.h"
#include "sched/mux.h"
#include "sched/outcome.h"
#include "sched/report.h"
#include "sched/starter.h"

/* The child's argv: ours (without the verb), then -t NAME: a run with the
 * task's schedule has its protections as any -t NAME has (task_finish()).
 * Free the array only. */
static char **
task_argv(const struct sched_spawner *sp, const char *name)
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
	v[k++] = (char *)name;
	return v;
}

/* p[0], the read end the loop reads, made non-blocking (a blocking read
 * would hang the loop, and every run's lock with it); if it cannot be,
 * both ends closed and -1 with errno, *what the call that failed. */
static int
nonblock(int p[2], const char **what)
{
	int fl = fcntl(p[0], F_GETFL), err;

	if (fl >= 0 && fcntl(p[0], F_SETFL, fl | O_NONBLOCK) == 0)
		return 0;
	err = errno;
	close(p[0]);
	close(p[1]);
	p[0] = p[1] = -1;
	*what = "fcntl(O_NONBLOCK)";
	errno = err;
	return -1;
}

/* A pipe whose read end is ours (close-on-exec, non-blocking), or -1 with
 * errno and none, *what the call that failed. */
static int
out_pipe(int p[2], const char **what)
{
	if (pipe2(p, O_CLOEXEC) != 0) {
		*what = "pipe";
		return -1;
	}
	return nonblock(p, what);
}

/* The same for the run's lock requests: a socket pair, ours p[0]. */
static int
lease_pair(int p[2], const char **what)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) != 0) {
		*what = "socketpair";
		return -1;
	}
	return nonblock(p, what);
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
starter_fds_given(struct spawn_given *g)
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

/* In the child: its 1 and 2 relayed to the pipe fd[0] in frames (mux.h;
 * -1: ours), the lease socket fd[1] (or -1) for how it goes, its log's
 * records and its lock requests, the signal state we were given, the
 * slot's instant; then the run, and its exit status told, and what is
 * left of its output. Never returns. */
static void __attribute__((noreturn))
child(const struct sched_spawner *sp, char **argv, const int fd[SPAWN_FDS], long long at_ms,
    const char *claim)
{
	char at[32];
	int argc = 0, status;

	/* a session of its own: no controlling terminal (a scheduler run
	 * from a shell has one, which no run may read or push input into),
	 * and out of the scheduler's process group: a signal sent to that
	 * group (a supervisor's, timeout(1)'s, Ctrl-C) reaches the
	 * scheduler, which decides what its runs get (crond.c, on_signal) */
	if (setsid() == -1)
		_exit(EX_OSERR);
	/* the scheduler's timer and signal descriptors and the other runs'
	 * pipes are not this run's to hold (a pipe held here would outlive
	 * its run); what the scheduler was given stays, as through exec, and
	 * so do the output's pipe and the lease socket (close-on-exec:
	 * lockrun's, not the command's) */
	close_but(&sp->given, fd[0], fd[1]);
	if (fd[0] >= 0 && mux_start(fd[0]) != 0)
		_exit(EX_OSERR);
	if (fd[1] >= 0) {
		lease_client_set(fd[1], sp->lease_url);
		log_report(lease_client_log);
	}
	spawn_signals_restore(sp->saved);
	snprintf(at, sizeof(at), "%lld", at_ms <= SPAWN_MISSED ? (SPAWN_MISSED - at_ms) / 1000 :
	    at_ms);
	if (at_ms == SPAWN_TRIGGERED) {		/* the take's mark, or -1 */
		if (setenv(TRIGGERED_VAR, claim[0] ? claim : at, 1) != 0)
			_exit(EX_OSERR);
	} else if (setenv(at_ms <= SPAWN_MISSED ? MISSED_VAR : SLOT_AT_VAR, at, 1) != 0 ||
	    (claim[0] && setenv(CLAIM_VAR, claim, 1) != 0))
		_exit(EX_OSERR);
	while (argv[argc])
		argc++;
	status = sp->run(argc, argv, sp->cfg);
	lease_client_tell(OUTCOME_EXITED, status, NULL);
	fflush(stdout);		/* as main() does: no libc teardown after a fork */
	mux_finish(MUX_FINISH_MS);
	_exit(status);
}

/* The starter (starter.h): what the scheduler asks of it, with the run's
 * ends of its pipes (those has[] says) as SCM_RIGHTS, and its answer. */
struct start_ask {
	long long	at_ms;
	char		claim[64];	/* the slot's claim, or a take's mark (starter.h), or "" */
	unsigned char	has[SPAWN_FDS];	/* out, lease */
	char		name[KEY_NAME_MAX + 1];
};
struct start_answer {
	pid_t	pid;			/* the run's, or -1 */
	int	err;			/* then fork(2)'s errno */
};

/* Send ask on sock, with the descriptors fd[] that ask->has says. */
static int
ask_send(int sock, const struct start_ask *ask, const int fd[SPAWN_FDS])
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(SPAWN_FDS * sizeof(int))];
	} u;
	struct iovec iov = { (void *)ask, sizeof(*ask) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int n = 0, v[SPAWN_FDS];

	for (size_t i = 0; i < SPAWN_FDS; i++)
		if (ask->has[i])
			v[n++] = fd[i];
	if (n > 0) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
		u.hdr.cmsg_level = SOL_SOCKET;
		u.hdr.cmsg_type = SCM_RIGHTS;
		u.hdr.cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
		memcpy(CMSG_DATA(&u.hdr), v, (size_t)n * sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)sizeof(*ask) ? 0 : -1;
}

/* Receive an ask on sock into *ask, its descriptors into fd[] (-1 where
 * none came). Returns 0, or -1 at the scheduler's end or on a malformed
 * ask (its descriptors closed). */
static int
ask_recv(int sock, struct start_ask *ask, int fd[SPAWN_FDS])
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(SPAWN_FDS * sizeof(int))];
	} u;
	struct iovec iov = { ask, sizeof(*ask) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int got[SPAWN_FDS] = { -1, -1 }, n = 0, k = 0, want = 0;
	ssize_t len;

	while ((len = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	for (c = len > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int x;

				memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (n < SPAWN_FDS)
					got[n++] = x;
				else
					close(x);
			}
	for (size_t i = 0; i < SPAWN_FDS; i++) {
		int has = len == (ssize_t)sizeof(*ask) && ask->has[i];

		want += has;
		fd[i] = has && k < n ? got[k++] : -1;
	}
	/* all the descriptors asked, none cut off (MSG_CTRUNC: at our limit) */
	if (len != (ssize_t)sizeof(*ask) || want != n || (m.msg_flags & MSG_CTRUNC) ||
	    memchr(ask->name, '\0', sizeof(ask->name)) == NULL) {
		while (n > 0)
			close(got[--n]);
		return -1;
	}
	return 0;
}

/* The starter's life: for each ask, a run forked with clone(2)'s
 * CLONE_PARENT, so it is the scheduler's child, as if the scheduler had
 * forked it: the scheduler is told of its end and reaps it as any run's.
 * (A child that forked the run and exited would cost a second fork and
 * an exit per run, and leave the re-parenting to the scheduler being a
 * subreaper.) Not glibc's fork(): the run's thread descriptor keeps the
 * starter's thread id, which the run, one thread, never reads (glibc's
 * raise() asks the kernel, since 2.34; getpid() is not cached, since
 * 2.25), and no pthread_atfork() handler runs in it (lockrun has none;
 * OpenSSL 3 tells a fork by getpid()). Ends when the scheduler closes its
 * end, or dies.
 * The log file (json:FILE) opened again on SIGHUP is not a descriptor the
 * scheduler was given, but the starter keeps it open: a run's ends,
 * received, never take its number, which the run closes in log_open(). */
static void __attribute__((noreturn))
starter_main(const struct sched_spawner *sp, int sock, pid_t scheduler)
{
	struct start_ask ask;
	char comm[16] = "";
	int fd[SPAWN_FDS];

	close_but(&sp->given, sock, log_file_fd());
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != scheduler)
		_exit(0);
	prctl(PR_GET_NAME, comm);	/* the runs' name, as ps(1) shows it; ours: */
	prctl(PR_SET_NAME, "lockrun-starter");
	while (ask_recv(sock, &ask, fd) == 0) {
		char **argv = task_argv(sp, ask.name);
		struct start_answer a = { -1, ENOMEM };

		if (argv && (a.pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL,
		    NULL, NULL)) == 0) {
			prctl(PR_SET_NAME, comm);
			child(sp, argv, fd, ask.at_ms, ask.claim);
		}
		if (argv && a.pid < 0)
			a.err = errno;
		if (send(sock, &a, sizeof(a), MSG_NOSIGNAL) != (ssize_t)sizeof(a))
			_exit(0);
		free(argv);
		for (size_t i = 0; i < SPAWN_FDS; i++)
			if (fd[i] >= 0)
				close(fd[i]);
	}
	_exit(0);
}

/* Fork the starter, with the gate held: its copy of us has this thread
 * alone. Returns 0, or -1. */
static int
starter_up(const struct sched_spawner *sp)
{
	struct run_starter *s = sp->starter;
	pid_t self = getpid(), pid;
	int p[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) != 0)
		return -1;
	fflush(NULL);
	starter_gate_enter();
	if ((pid = fork()) == 0) {
		starter_gate_leave();
		starter_main(sp, p[1], self);
	}
	starter_gate_leave();
	close(p[1]);
	if (pid < 0) {
		int err = errno;

		close(p[0]);
		errno = err;
		return -1;
	}
	s->sock = p[0];
	/* before any waitpid(2) of ours could reap it: never another's pid */
	if ((s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
		report_fault(&s->said, errno, "the runs' starter, pid %ld, is stopped by "
		    "closing its socket only, not killed: pidfd_open", (long)pid);
	return 0;
}

void
starter_stop(struct run_starter *s)
{
	if (s == NULL)
		return;
	if (s->pidfd >= 0) {
		/* ESRCH: it ended already */
		if (syscall(SYS_pidfd_send_signal, s->pidfd, SIGKILL, NULL, 0) != 0 &&
		    errno != ESRCH)
			report_fault(&s->said, errno, "the runs' starter is stopped by closing "
			    "its socket only, not killed: pidfd_send_signal");
		close(s->pidfd);
		s->pidfd = -1;
	}
	if (s->sock >= 0) {
		close(s->sock);		/* and without a pidfd, it reads the end */
		s->sock = -1;
	}
}

/* Ask the starter for a run of name: its pid, or -1 with errno. A starter
 * found gone (killed: the ask cannot be sent) is started again and asked
 * again, twice at most; one that took the ask and did not answer within
 * s->answer_ms (stopped, wedged) is killed, and -1 with ETIMEDOUT: the
 * run may have been started with fd[], so the caller asks the next
 * starter with new ones (starter_spawn()). */
static pid_t
starter_fork(const struct sched_spawner *sp, const char *name, const int fd[SPAWN_FDS],
    long long at_ms, const char *claim)
{
	struct run_starter *s = sp->starter;
	struct start_ask ask = { .at_ms = at_ms };
	struct start_answer a;
	struct pollfd pfd;
	ssize_t got = -1;
	int ready;

	snprintf(ask.name, sizeof(ask.name), "%s", name);
	snprintf(ask.claim, sizeof(ask.claim), "%s", claim);
	for (size_t i = 0; i < SPAWN_FDS; i++)
		ask.has[i] = fd[i] >= 0;
	for (int tries = 0; s->sock < 0 || ask_send(s->sock, &ask, fd) != 0; tries++) {
		if (s->sock >= 0) {
			if (errno != EPIPE && errno != ECONNRESET)
				return -1;	/* not for want of a starter */
			lr_warn("the runs' starter is gone (%s); starting another",
			    strerror(errno));
			starter_stop(s);
		}
		if (tries == 2 || starter_up(sp) != 0)
			return -1;
	}
	pfd = (struct pollfd){ .fd = s->sock, .events = POLLIN };
	while ((ready = poll(&pfd, 1, (int)(s->answer_ms > 0 ? s->answer_ms :
	    STARTER_ANSWER_MAX_MS))) < 0 && errno == EINTR)
		;
	if (ready == 1)
		got = recv(s->sock, &a, sizeof(a), 0);
	if (got != (ssize_t)sizeof(a)) {
		int err = ready == 0 ? ETIMEDOUT : got == 0 ? EPIPE : errno;

		lr_warn("the runs' starter took a run of %s and did not answer: %s", name,
		    ready == 0 ? "no answer in time" : got == 0 ? "it ended" : strerror(err));
		starter_stop(s);
		errno = err;
		return -1;
	}
	if (a.pid < 0)
		errno = a.err;
	return a.pid;
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
starter_gate_enter(void)
{
	pthread_mutex_lock(&gate);
}

void
starter_gate_leave(void)
{
	pthread_mutex_unlock(&gate);
}

/* starter_spawn() once; *timed_out set when the starter did not answer. */
static pid_t
spawn_once(const struct sched_spawner *sp, const struct sched_task *t, long long at_ms,
    const char *claim, struct spawn_pipes *io, int *timed_out, struct lr_err *e)
{
	int p[SPAWN_FDS][2] = { { -1, -1 }, { -1, -1 } };	/* out, lease */
	int fd[SPAWN_FDS];
	char **argv = NULL;
	const char *what = "pipe";
	pid_t pid = -1;

	/* a read end left blocking is refused: the run is not started. The
	 * socket pair always: with no connection of the scheduler's for the
	 * run's lock requests (sp->lease_url NULL), it carries how the run
	 * goes (outcome.h) */
	if (io && ((io->relay && out_pipe(p[0], &what) != 0) || lease_pair(p[1], &what) != 0)) {
		lr_errf(e, EX_OSERR, "%s: %s", what, strerror(errno));
		goto done;
	}
	for (size_t i = 0; i < SPAWN_FDS; i++)
		fd[i] = p[i][1];
	if (sp->starter) {
		if ((pid = starter_fork(sp, t->name, fd, at_ms, claim)) < 0) {
			*timed_out = errno == ETIMEDOUT;
			lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
		}
		goto done;
	}
	if ((argv = task_argv(sp, t->name)) == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto done;
	}
	fflush(NULL);
	starter_gate_enter();
	if ((pid = fork()) == 0) {
		starter_gate_leave();	/* this thread's, in the child too */
		child(sp, argv, fd, at_ms, claim);
	}
	starter_gate_leave();
	if (pid < 0)
		lr_errf(e, EX_OSERR, "fork: %s", strerror(errno));
done:
	free(argv);
	for (size_t i = 0; i < SPAWN_FDS; i++)	/* the write ends are the child's */
		if (p[i][1] >= 0) {
			close(p[i][1]);
			p[i][1] = -1;
		}
	if (pid > 0 && io) {
		io->out = p[0][0];
		io->lease = p[1][0];
	} else
		pipes_close(p, SPAWN_FDS);
	return pid;
}

pid_t
starter_spawn(const struct sched_spawner *sp, const struct sched_task *t, long long at_ms,
    const char *claim, struct spawn_pipes *io, struct lr_err *e)
{
	int timed_out = 0;
	pid_t pid = spawn_once(sp, t, at_ms, claim, io, &timed_out, e);

	/* a starter that did not answer was killed: the next one is asked,
	 * with new pipes. A run the killed one may have started holds the old
	 * ones, whose other ends are closed now: its lock requests go nowhere,
	 * and it ends without its lock (a run that connects itself finds the
	 * slot taken by the one started here, or takes it first) */
	if (pid < 0 && timed_out)
		pid = spawn_once(sp, t, at_ms, claim, io, &timed_out, e);
	return pid;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* proxy.c -- a TCP relay in a forked process, to freeze, thaw or cut the
 * network between lockrun and Redis. One poll() loop, no threads, a
 * bounded buffer per direction. */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "proc.h"
#include "proxy.h"

#define PROXY_CONNS	32		/* relayed connections at once */
#define PROXY_BUF	16384		/* bytes held per direction */
#define PROXY_BACKLOG	64		/* connections that wait while frozen */

/* Bytes read from one side, not yet written to the other. */
struct half {
	char	buf[PROXY_BUF];
	size_t	off, len;		/* written up to off, read up to len */
};

/* fd[0] the client, fd[1] Redis; h[i] holds what was read from fd[i]. */
struct pair {
	int		fd[2];
	struct half	h[2];
	int		closing;	/* one side ended: flush, then close both */
};

static struct pair pairs[PROXY_CONNS];

static int
nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A blocking connect to 127.0.0.1:port: on loopback it succeeds or is
 * refused at once, even with Redis stopped (its backlog completes it). */
static int
upstream(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || nonblock(fd) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
pair_close(struct pair *p)
{
	close(p->fd[0]);
	close(p->fd[1]);
	p->fd[0] = p->fd[1] = -1;
}

static void
accept_one(int lfd, int target)
{
	int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), r;

	if (c < 0)
		return;
	for (int i = 0; i < PROXY_CONNS; i++) {
		struct pair *p = &pairs[i];
		if (p->fd[0] != -1)
			continue;
		if ((r = upstream(target)) < 0)
			break;		/* Redis refuses: so does the relay */
		memset(p, 0, sizeof(*p));
		p->fd[0] = c;
		p->fd[1] = r;
		return;
	}
	close(c);			/* full, or no upstream */
}

/* Read from side s into h[s] (POLLIN), or write h[!s] out to side s
 * (POLLOUT). Returns -1 when the pair must be dropped at once. */
static int
pair_io(struct pair *p, int s, short revents)
{
	struct half *in = &p->h[s], *out = &p->h[!s];
	ssize_t n;

	if ((revents & POLLIN) && !p->closing && in->len < PROXY_BUF) {
		n = read(p->fd[s], in->buf + in->len, PROXY_BUF - in->len);
		if (n > 0)
			in->len += (size_t)n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			p->closing = 1;
	} else if (revents & (POLLHUP | POLLERR))
		p->closing = 1;
	if ((revents & POLLOUT) && out->off < out->len) {
		n = send(p->fd[s], out->buf + out->off, out->len - out->off, MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n > 0 && (out->off += (size_t)n) == out->len)
			out->off = out->len = 0;
	}
	return 0;
}

/* The relay's loop; never returns. */
static void
relay(int lfd, int target)
{
	struct pollfd pfd[1 + 2 * PROXY_CONNS];
	int who[1 + 2 * PROXY_CONNS];

	for (int i = 0; i < PROXY_CONNS; i++)
		pairs[i].fd[0] = pairs[i].fd[1] = -1;
	for (;;) {
		int n = 1;

		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < PROXY_CONNS; i++) {
			struct pair *p = &pairs[i];
			if (p->fd[0] == -1)
				continue;
			for (int s = 0; s < 2; s++) {
				short ev = 0;
				if (!p->closing && p->h[s].len < PROXY_BUF)
					ev |= POLLIN;
				if (p->h[!s].off < p->h[!s].len)
					ev |= POLLOUT;
				who[n] = 2 * i + s;
				pfd[n++] = (struct pollfd){ .fd = p->fd[s], .events = ev };
			}
		}
		if (poll(pfd, (nfds_t)n, -1) < 0)
			continue;	/* EINTR: after a SIGCONT, say */
		for (int k = 1; k < n; k++) {
			struct pair *p = &pairs[who[k] / 2];
			if (p->fd[0] != -1 && pair_io(p, who[k] % 2, pfd[k].revents) != 0)
				pair_close(p);
		}
		for (int i = 0; i < PROXY_CONNS; i++) {
			struct pair *p = &pairs[i];
			if (p->fd[0] != -1 && p->closing &&
			    p->h[0].off == p->h[0].len && p->h[1].off == p->h[1].len)
				pair_close(p);	/* flushed what it had: close both */
		}
		if (pfd[0].revents & POLLIN)
			accept_one(lfd, target);
	}
}

int
proxy_start(struct proxy *p, int target_port)
{
	return proxy_start_on(p, target_port, 0);
}

int
proxy_start_on(struct proxy *p, int target_port, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(a);
	pid_t parent = getpid();
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), null, one = 1;

	memset(p, 0, sizeof(*p));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* a relay started again on the port of a cut one: that one's
	 * connections may linger there (FIN_WAIT2, TIME_WAIT), and inherit
	 * this from its listening socket */
	if (lfd >= 0)
		(void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* listening before the fork: a client may connect as soon as we return */
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(lfd, PROXY_BACKLOG) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &len) != 0) {
		fprintf(stderr, "proxy: cannot listen: %s\n", strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	p->port = ntohs(a.sin_port);
	snprintf(p->url, sizeof(p->url), "redis://127.0.0.1:%d", p->port);
	fflush(NULL);
	if ((p->pid = fork()) == 0) {
		/* never outlive the test process; it may be gone already */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		signal(SIGPIPE, SIG_IGN);
		/* keep only the listening socket, so that a cut closes every
		 * connection and no pipe of the test runner's is held open */
		if (lfd != 3 && dup2(lfd, 3) == 3)
			lfd = 3;
		if (lfd == 3)
			close_range(4, ~0U, 0);
		if ((null = open("/dev/null", O_RDWR)) >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			close(null);
		}
		nonblock(lfd);
		relay(lfd, target_port);
		_exit(0);
	}
	close(lfd);
	if (p->pid < 0) {
		fprintf(stderr, "proxy: fork: %s\n", strerror(errno));
		p->pid = 0;
		return -1;
	}
	return 0;
}

void
proxy_freeze(struct proxy *p)
{
	cr_assert(p->pid > 0, "proxy_freeze: no proxy");
	kill(p->pid, SIGSTOP);
	/* bounded poll: the stop is asynchronous; 30 s only guards a hang */
	for (int i = 0; i < 30000 && proc_state(p->pid) != 'T'; i++)
		fixture_tick(1);
	cr_assert(proc_state(p->pid) == 'T', "proxy %d did not stop", (int)p->pid);
}

void
proxy_thaw(struct proxy *p)
{
	if (p->pid > 0)
		kill(p->pid, SIGCONT);
}

void
proxy_cut(struct proxy *p)
{
	if (p->pid <= 0)
		return;
	kill(p->pid, SIGKILL);		/* works on a stopped process too */
	while (waitpid(p->pid, NULL, 0) == -1 && errno == EINTR)
		;
	p->pid = 0;			/* its sockets closed before it became reapable */
}

long
proxy_pending(const struct proxy *p)
{
	FILE *fp = fopen("/proc/net/tcp", "r");
	char line[512];
	long sum = 0;

	cr_assert(fp != NULL, "/proc/net/tcp: %s", strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		unsigned lport, st;
		unsigned long rx;
		/* sl: local:port remote:port st tx_queue:rx_queue ... (hex) */
		if (sscanf(line, " %*u: %*x:%x %*x:%*x %x %*x:%lx", &lport, &st, &rx) == 3 &&
		    (int)lport == p->port && st == 0x01)	/* ESTABLISHED */
			sum += (long)rx;
	}
	fclose(fp);
	return sum;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fakeredis.c -- a scripted, hostile RESP server for the tests
 * (fakeredis.h). One process, one connection at a time, blocking I/O: the
 * client under test is the only one. */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakeredis.h"

struct conn {
	int	fd;
	char	buf[1 << 16];
	size_t	len;
};

/* Write all of s; -1 once the client has gone. */
static int
put(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The length of the command at the start of c->buf, when it has arrived
 * whole ("*N\r\n" then N "$len\r\n<bytes>\r\n"); 0 when not yet. */
static size_t
whole(const struct conn *c)
{
	const char *p = c->buf, *end = c->buf + c->len, *nl;
	long n;

	if ((nl = memchr(p, '\n', c->len)) == NULL)
		return 0;
	n = strtol(p + 1, NULL, 10);
	p = nl + 1;
	while (n-- > 0) {
		long len;
		if (p >= end || (nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return 0;
		len = strtol(p + 1, NULL, 10);
		p = nl + 1 + len + 2;
		if (p > end)
			return 0;
	}
	return (size_t)(p - c->buf);
}

/* Read the next command whole. Returns 0, or -1 once the client is gone. */
static int
next_command(struct conn *c)
{
	size_t used;

	while ((used = whole(c)) == 0) {
		ssize_t r;
		if (c->len == sizeof(c->buf))
			return -1;
		if ((r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len)) < 0 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c->len += (size_t)r;
	}
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	return 0;
}

/* Send the same bytes until the client goes away. */
static void
forever(int fd, const char *head, const char *unit)
{
	char block[8192];
	size_t n = strlen(unit), fill = 0;

	while (fill + n <= sizeof(block)) {
		memcpy(block + fill, unit, n);
		fill += n;
	}
	if (put(fd, head, strlen(head)) != 0)
		return;
	while (put(fd, block, fill) == 0)
		;
}

/* A SCAN page under cursor 1: 1,000 keys never sent before. */
static int
scan_page(int fd)
{
	static unsigned long next;
	char key[64];
	const char *head = "*2\r\n$1\r\n1\r\n*1000\r\n";
	int rc = put(fd, head, strlen(head));

	for (int i = 0; rc == 0 && i < 1000; i++) {
		int n = snprintf(key, sizeof(key), "lockrun:{fake%lu}", next++);
		char len[16];
		int h = snprintf(len, sizeof(len), "$%d\r\n", n);
		rc = put(fd, len, (size_t)h) || put(fd, key, (size_t)n) || put(fd, "\r\n", 2);
	}
	return rc;
}

/* Answer with one script entry. Returns 0 to go on reading, -1 when this
 * connection is done. */
static int
answer(int fd, const char *a)
{
	if (strcmp(a, "!endless-bulk") == 0)
		forever(fd, "$4611686018427387904\r\n", "x");
	else if (strcmp(a, "!endless-array") == 0)
		forever(fd, "*100000000\r\n", ":1\r\n");
	else if (strcmp(a, "!huge-array") == 0)
		return put(fd, "*2147483647\r\n", 13);
	else if (strcmp(a, "!scan-forever") == 0)
		return scan_page(fd);
	else
		return put(fd, a, strlen(a));
	return -1;
}

static void __attribute__((noreturn))
serve(int lfd, const char *const script[])
{
	static struct conn c;
	size_t i = 0;

	for (;;) {
		if ((c.fd = accept(lfd, NULL, NULL)) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		c.len = 0;
		while (next_command(&c) == 0) {
			const char *a = script[i];
			if (script[i + 1] != NULL)
				i++;
			if (answer(c.fd, a) != 0)
				break;
		}
		close(c.fd);
	}
}

int
fakeredis_start(struct fakeredis *f, const char *const script[])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	pid_t parent = getpid();
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(f, 0, sizeof(*f));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* listening before the fork: a client may connect as soon as we return */
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(lfd, 16) != 0 || getsockname(lfd, (struct sockaddr *)&a, &len) != 0) {
		fprintf(stderr, "fakeredis: cannot listen: %s\n", strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	f->port = ntohs(a.sin_port);
	snprintf(f->url, sizeof(f->url), "redis://127.0.0.1:%d", f->port);
	fflush(NULL);
	if ((f->pid = fork()) == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		signal(SIGPIPE, SIG_IGN);
		serve(lfd, script);
	}
	close(lfd);
	if (f->pid < 0) {
		f->pid = 0;
		return -1;
	}
	return 0;
}

void
fakeredis_stop(struct fakeredis *f)
{
	if (f->pid <= 0)
		return;
	kill(f->pid, SIGKILL);
	while (waitpid(f->pid, NULL, 0) < 0 && errno == EINTR)
		;
	f->pid = 0;
}

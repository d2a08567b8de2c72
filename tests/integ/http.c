/* SPDX-License-Identifier: BSD-2-Clause */
/* http.c -- the tests' HTTP client (http.h). */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "http.h"

/* Read the whole answer into buf[n]; its length. */
static size_t
read_all(int fd, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t r;

	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	return len;
}

/* A socket bound to from (NULL: not bound) connected to port at to;
 * timeouts of sec seconds; its fd, or -1. */
static int
dial(const char *from, const char *to, int port, int sec)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct timeval tv = { sec, 0 };
	int fd;

	inet_pton(AF_INET, to ? to : "127.0.0.1", &sa.sin_addr);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if ((from && (inet_pton(AF_INET, from, &me.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
http_open(const char *from, int port, const char *request)
{
	int fd = dial(from, NULL, port, 10), small = 4096;

	if (fd < 0)
		return -1;
	/* a slow reader's window: what it has not read stays with the server */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (send(fd, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request)) {
		close(fd);
		return -1;
	}
	return fd;
}

int
http_to(const struct http_to *t, int port, const char *path, char *body, size_t n,
    char *head, size_t hn)
{
	static char buf[1 << 20];
	char req[2048];
	int fd, code = -1, sec = t->timeout_s ? t->timeout_s : 10;
	const char *hs = t->headers ? t->headers : "";
	char *end;

	body[0] = '\0';
	if (t->unix_path) {
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		struct timeval tv = { sec, 0 };

		snprintf(su.sun_path, sizeof(su.sun_path), "%s", t->unix_path);
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return -1;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&su, sizeof(su)) != 0) {
			close(fd);
			return -1;
		}
	} else if ((fd = dial(t->from, t->to, port, sec)) < 0)
		return -1;
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n%s%s\r\n", path,
	    strncasecmp(hs, "Host:", 5) == 0 || strcasestr(hs, "\nHost:") ? "" :
	    "Host: 127.0.0.1\r\n", hs);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	read_all(fd, buf, sizeof(buf));
	close(fd);
	if (sscanf(buf, "HTTP/1.%*d %d", &code) != 1 || (end = strstr(buf, "\r\n\r\n")) == NULL)
		return -1;
	if (head)
		snprintf(head, hn, "%.*s", (int)(end - buf), buf);
	snprintf(body, n, "%s", end + 4);
	return code;
}

int
http_get(int port, const char *path, char *body, size_t n, char *head, size_t hn)
{
	return http_to(&(struct http_to){ 0 }, port, path, body, n, head, hn);
}

int
http_port_at(int pid, const char *addr)
{
	char err[16384], on[80];
	const char *at;
	int port = 0;

	snprintf(on, sizeof(on), " on %s:", addr);
	POLL_UNTIL((at = strstr(lr_stderr_of(pid, err, sizeof(err)), on)) != NULL);
	cr_assert(at != NULL, "no 'serving ... on' line: %s", err);
	port = atoi(at + strlen(on));
	cr_assert(port > 0, "%s", err);
	return port;
}

int
http_port_of(int pid)
{
	return http_port_at(pid, "127.0.0.1");
}

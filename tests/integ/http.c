/* SPDX-License-Identifier: BSD-2-Clause */
/* http.c -- the tests' HTTP client (http.h). */
#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int
http_get(int port, const char *path, char *body, size_t n, char *head, size_t hn)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { 10, 0 };
	static char buf[1 << 20];
	char req[512];
	int fd, code = -1;
	char *end;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	body[0] = '\0';
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
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
http_port_of(int pid)
{
	char err[16384];
	const char *at;
	int port = 0;

	POLL_UNTIL((at = strstr(lr_stderr_of(pid, err, sizeof(err)), " on 127.0.0.1:")) != NULL);
	cr_assert(at != NULL, "no 'serving ... on' line: %s", err);
	sscanf(at, " on 127.0.0.1:%d", &port);
	cr_assert(port > 0, "%s", err);
	return port;
}

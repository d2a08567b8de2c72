/* SPDX-License-Identifier: BSD-2-Clause */
/* web_load.c -- clients for `lockrun cron --listen` that a scheduler must
 * not wait for (web_load.h), for the bench's start-lag figure. */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "web_load.h"

/* The port a `cron -v --listen 127.0.0.1:0` said it serves on (its
 * stderr in err); 0 if it did not. */
int
web_port(const char *err)
{
	char line[1024], *at;
	FILE *fp = fopen(err, "r");
	int port = 0;

	while (fp && port == 0 && fgets(line, sizeof(line), fp))
		if ((at = strstr(line, " on 127.0.0.1:")) != NULL)
			port = atoi(at + 14);
	if (fp)
		fclose(fp);
	return port;
}

/* A TCP connection to 127.0.0.1:port with req sent on it, or -1. */
static int
web_send(int port, const char *req)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The load, in a child until it is killed: WEB_CLIENTS clients that ask for
 * the page and never read it, one that never finishes its request, and
 * one asking /metrics again and again. */
pid_t
web_clients(int port)
{
	char buf[65536];
	pid_t pid = fork();
	int fd;

	if (pid != 0)
		return pid;
	/* their descriptors stay open until the child is killed */
	for (int i = 0; i < WEB_CLIENTS; i++)
		web_send(port, "GET / HTTP/1.1\r\nHost: bench\r\n\r\n");
	web_send(port, "GET / HTTP/1.1\r\nHo");
	for (;;) {
		if ((fd = web_send(port, "GET /metrics HTTP/1.0\r\n\r\n")) < 0) {
			usleep(1000);
			continue;
		}
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

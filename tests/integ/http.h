/* SPDX-License-Identifier: BSD-2-Clause */
/* http.h -- the tests' HTTP client: one GET over a fresh TCP connection,
 * for `lockrun cron --listen` (web_test.c, the bench). */
#ifndef LR_TEST_HTTP_H
#define LR_TEST_HTTP_H

#include <stddef.h>

/* GET path from 127.0.0.1:port (HTTP/1.0, so the answer ends with the
 * connection): the status code, with the body in body[n] (cut to fit,
 * NUL-terminated) and the headers in head[hn] if head is not NULL; -1
 * when there is no answer within 10 s. */
int	http_get(int port, const char *path, char *body, size_t n, char *head, size_t hn);

/* Where and how http_to() asks: every field may be 0 or NULL. */
struct http_to {
	const char	*from;		/* the client's address; NULL: any */
	const char	*to;		/* the server's; NULL: 127.0.0.1 */
	const char	*unix_path;	/* a unix socket instead */
	const char	*headers;	/* header lines, each ending "\r\n"; one
					 * with Host replaces Host: 127.0.0.1 */
	int		 timeout_s;	/* 0: 10 */
};

/* http_get() as t says. */
int	http_to(const struct http_to *t, int port, const char *path, char *body, size_t n,
	    char *head, size_t hn);

/* A connection to port from address from (NULL: any) that sends
 * request, and then nothing: for slow clients. Its fd, or -1. */
int	http_open(const char *from, int port, const char *request);

/* `lockrun ... cron --listen 127.0.0.1:0` started as pid: the port it
 * says it serves on, read from its stderr (-v), waiting for that line. */
int	http_port_of(int pid);
/* The same for another address than 127.0.0.1 ("0.0.0.0"). */
int	http_port_at(int pid, const char *addr);

#endif

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

/* `lockrun ... cron --listen 127.0.0.1:0` started as pid: the port it
 * says it serves on, read from its stderr (-v), waiting for that line. */
int	http_port_of(int pid);

#endif

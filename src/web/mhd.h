/* SPDX-License-Identifier: BSD-2-Clause */
/* mhd.h -- an HTTP server in a thread of its own (libmicrohttpd, loaded
 * when first started) that answers GET and HEAD through one function. */
#ifndef LR_WEB_MHD_H
#define LR_WEB_MHD_H

#include <stddef.h>

#include "core/err.h"

/* Answer a GET of path: the status, with *body (malloc'd, taken over),
 * *len (0: strlen) and *type (a static string) set. Called in the
 * server's thread, one request at a time. */
typedef int mhd_answer_fn(void *arg, const char *path, char **body, size_t *len,
    const char **type);

struct mhd_server;

/* Listen on addr ("HOST:PORT", "[ADDRESS]:PORT", "PORT" or ":PORT" on the
 * loopback address, "unix:PATH" or "/PATH") and answer with fn(arg, ...)
 * from the library's thread; what names where addr came from in errors
 * ("--listen", "lockrun.yaml:3:9: listen"). Returns the server, or NULL
 * with e. */
struct mhd_server *mhd_start(const char *what, const char *addr, mhd_answer_fn *fn,
	    void *arg, struct lr_err *e);

/* Where it listens: "127.0.0.1:8080" (the port chosen for port 0),
 * "[::1]:8080", "unix:/run/lockrun.sock". */
const char *mhd_where(const struct mhd_server *s);

/* Stop answering, wait for the server's thread, free s. NULL: nothing. */
void	mhd_stop(struct mhd_server *s);

#endif

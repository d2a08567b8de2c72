/* SPDX-License-Identifier: BSD-2-Clause */
/* mhd.h -- an HTTP server in a thread of its own (libmicrohttpd, loaded
 * when first started) that answers GET and HEAD through one function. */
#ifndef LR_WEB_MHD_H
#define LR_WEB_MHD_H

#include <stddef.h>

#include "core/err.h"

/* One answer. A body can be kept and served again to the next clients
 * of the same path (one copy shared by every connection sending it):
 * the answer function is told which one is kept (have) and says whether
 * it still stands (gen == have, body NULL). */
struct mhd_body {
	unsigned long long	 have;	/* in: the kept body's generation, 0: none */
	int			 spare;	/* in: the kept bodies hold much memory:
					 * serve the kept one if there is one */
	unsigned long long	 gen;	/* out: this body's generation, 0: not
					 * to be kept; have: serve the kept one */
	char			*body;	/* out: malloc'd, taken over; NULL with
					 * gen == have: the kept one */
	size_t			 len;	/* out: 0: strlen(body) */
	const char		*type;	/* out: a static string */
};

/* Answer a GET of path: the status, with b filled. Called in the
 * server's thread, one request at a time. */
typedef int mhd_answer_fn(void *arg, const char *path, struct mhd_body *b);

struct mhd_opts {
	const char	*what;		/* where addr came from, in errors
					 * ("--listen", "lockrun.yaml:3:9: listen") */
	const char	*addr;		/* "HOST:PORT", "[ADDRESS]:PORT", "PORT" or
					 * ":PORT" on the loopback address,
					 * "unix:PATH" or "/PATH" */
	mhd_answer_fn	*fn;
	void		*arg;
	const char	*token;		/* a bearer token every path but /healthz
					 * wants; NULL: none */
	const char	*names;		/* the Host names accepted beside an IP
					 * address and localhost, separated by
					 * spaces or commas; NULL: none */
};

struct mhd_server;

/* Listen on o->addr and answer with o->fn(o->arg, ...) from the library's
 * thread. A unix socket is made 0660 and removed by mhd_stop(). o's
 * strings must outlive the server. Returns the server, or NULL with e. */
struct mhd_server *mhd_start(const struct mhd_opts *o, struct lr_err *e);

/* Where it listens: "127.0.0.1:8080" (the port chosen for port 0),
 * "[::1]:8080", "unix:/run/lockrun.sock". */
const char *mhd_where(const struct mhd_server *s);

/* Is it reachable from other hosts (bound to an address that is not a
 * loopback one)? 1 or 0. */
int	mhd_public(const struct mhd_server *s);

/* Stop answering, wait for the server's thread, remove its unix socket,
 * free s. NULL: nothing. */
void	mhd_stop(struct mhd_server *s);

#endif

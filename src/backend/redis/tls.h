/* SPDX-License-Identifier: BSD-2-Clause */
/* tls.h -- TLS on a connected socket, with OpenSSL when lockrun is built
 * with it (LR_TLS, loaded when first needed); without it, tls_open()
 * refuses. */
#ifndef LR_TLS_H
#define LR_TLS_H

#include <sys/types.h>

#include <stddef.h>

#include "core/err.h"
#include "backend/notes.h"

struct lr_tls;

/* The redis.tls: settings, for rediss:// URLs (rsettings.c reads them). */
struct lr_tls_opts {
	const char	*ca_file;	/* NULL: the system's CA store */
	const char	*cert_file;	/* client certificate, or NULL */
	const char	*key_file;	/* its key (NULL: in cert_file) */
	const char	*server_name;	/* SNI and the name verified; NULL: the host */
	int		 insecure;	/* 1: no verification of the server at all */
};

/* The shared library tls_load() opens, for --version and packagers. */
#define TLS_LIBRARY	NOTES_SSL

/* Load OpenSSL, once (a no-op when it is linked in). Returns 0, or -1 with
 * e = EX_UNAVAILABLE naming the library and the Debian package that has
 * it. */
int	tls_load(struct lr_err *e);

/* Run the TLS handshake on fd (non-blocking, connected) for host, by
 * deadline (CLOCK_MONOTONIC ms). Returns the session, or NULL with e:
 * EX_CONFIG when the fault is in the settings (an unreadable file, a key
 * that does not match, no TLS in this build), EX_UNAVAILABLE with
 * lr_err_broke(e) when it is the server's or the network's
 * ("TLS handshake: certificate verify failed: self-signed certificate"). */
struct lr_tls *tls_open(int fd, const char *host, const struct lr_tls_opts *o,
	    long long deadline, struct lr_err *e);

/* Move bytes without blocking. Return the count (0: the peer closed, on a
 * read), or -1 with *want = POLLIN/POLLOUT to wait for, or -1 with *want
 * left 0 and e (EX_UNAVAILABLE, transport) set when the session broke. */
ssize_t	tls_read(struct lr_tls *t, char *buf, size_t len, short *want,
	    struct lr_err *e);
ssize_t	tls_write(struct lr_tls *t, const char *buf, size_t len, short *want,
	    struct lr_err *e);

void	tls_free(struct lr_tls *t);

#endif

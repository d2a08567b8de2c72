/* SPDX-License-Identifier: BSD-2-Clause */
/* url.h -- the pieces every URL lockrun reads shares, whatever its scheme:
 * [user[:password]@] percent-decoded, host[:port] or [v6addr][:port], the
 * path after the authority, query parameters, and where passwords sit (to
 * mask them). Pure: libc only. No function here shows the text it reads in
 * a message: a URL may hold a password anywhere. */
#ifndef LR_URL_H
#define LR_URL_H

#include <stddef.h>

#include "core/err.h"

/* A host and a port, as a URL names a server. */
struct lr_hostport {
	char	host[256];	/* brackets stripped from [v6addr] */
	int	port;
};

/* scheme://AUTHORITY[/...]: the authority of the text after "://", split
 * at its last '@' (a password may hold an '@' or a '?'; a host cannot). */
struct url_authority {
	const char	*userinfo;	/* [user[:password]], or NULL: no '@' */
	size_t		 userinfo_len;
	const char	*host;		/* host[:port] ... up to end */
	const char	*end;		/* the first '/' after it, or the NUL */
};
void	url_authority(const char *rest, struct url_authority *a);

/* The last '@' in [s, end), or NULL. */
const char *url_last_at(const char *s, const char *end);

/* Copy [s, s+len) into dst[n], decoding %XX. Returns 0, or -1 when it
 * does not fit, an escape is malformed, or it would decode to a NUL. */
int	url_pct_decode(const char *s, size_t len, char *dst, size_t n);

/* [user[:password]] at [s, s+len), percent-decoded into user[un] and
 * password[pn] (left alone when there is no ':'). Returns 0, or -1 when
 * one is too long or has a bad escape. */
int	url_userinfo(const char *s, size_t len, char *user, size_t un, char *password,
	    size_t pn);

/* host[:port] or [v6addr][:port], all of [hp, end), into host[n] ("" when
 * there is none) and *port (left alone when there is none). Returns 0, or
 * -1 with e = EX_USAGE and a short reason ("port must be a number from 1
 * to 65535"), which the caller prefixes with what the URL is for. */
int	url_hostport(const char *hp, const char *end, char *host, size_t n, int *port,
	    struct lr_err *e);

/* The same, the port from lo up (0: a listener's, which the kernel picks). */
int	url_hostport_from(const char *hp, const char *end, char *host, size_t n, int *port,
	    int lo, struct lr_err *e);

/* The decimal that is all of [s, s+len), if it is in [lo, hi]: 0 with
 * *out set, else -1. */
int	url_decimal(const char *s, size_t len, long lo, long hi, int *out);

/* One name[=value] of a query string. */
struct url_param {
	const char	*name;
	size_t		 name_len;
	const char	*value;		/* NULL when there is no '=' */
	size_t		 value_len;
};

/* The next parameter of the query at *q (what follows the '?'): they are
 * separated by '&', and a value ends at '&' or '#'. Returns 1 with *p set
 * and *q moved past it, 0 when there is none left. */
int	url_query_next(const char **q, struct url_param *p);

/* Is p the parameter named name? */
int	url_param_is(const struct url_param *p, const char *name);

/* Where url (any scheme) holds a password: the userinfo's, after ':', and
 * each "password=" query value, as offsets into url, at most n of them.
 * Returns how many. */
struct url_span {
	size_t	off, len;
};
size_t	url_password_spans(const char *url, struct url_span *s, size_t n);

/* Does url carry a password: user:password@ before the path, or a
 * password= parameter (libpq takes one)? */
int	url_has_password(const char *url);

#endif

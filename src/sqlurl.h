/* sqlurl.h -- MySQL/MariaDB URLs:
 * mysql://[user[:password]@]host[:port]/database[?socket=/path], also
 * mariadb://; pure, libc only. */
#ifndef LR_SQLURL_H
#define LR_SQLURL_H

#include <stddef.h>

#include "err.h"

#define SQLURL_PORT	3306

struct lr_sqlurl {
	char	user[128];	/* percent-decoded; "": the client's default */
	char	password[256];	/* percent-decoded, or "" */
	char	host[256];	/* TCP host, brackets stripped from [v6] */
	int	port;		/* SQLURL_PORT when not given */
	int	is_unix;	/* a unix socket: ?socket=, or localhost without
				 * a port (as the mysql client does) */
	char	socket[108];	/* its path; "": the client library's default */
	char	database[128];	/* percent-decoded, never "" */
};

/* Parse url into u. Returns 0, or -1 with e->status EX_USAGE and a
 * message that shows no part of url but its scheme (never a password). */
int	sqlurl_parse(const char *url, struct lr_sqlurl *u, struct lr_err *e);

/* Where u points, for messages: "db.example:3306", "[::1]:3307",
 * "unix:/run/mysqld/mysqld.sock" (dflt when u names no socket path).
 * Never includes credentials. Returns buf. */
char	*sqlurl_where(const struct lr_sqlurl *u, const char *dflt, char *buf, size_t n);

#endif

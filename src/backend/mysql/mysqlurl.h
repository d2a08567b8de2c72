/* SPDX-License-Identifier: BSD-2-Clause */
/* mysqlurl.h -- MySQL/MariaDB URLs:
 * mysql://[user[:password]@]host[:port]/database[?param=value&...], also
 * mariadb://; pure, libc only. The parameters: socket=/path, and for TLS
 * ssl-mode=, ssl-ca=, ssl-cert=, ssl-key= (the mysql client's names). */
#ifndef LR_MYSQLURL_H
#define LR_MYSQLURL_H

#include <stddef.h>

#include "core/err.h"

#define MYSQLURL_PORT	3306

/* ssl-mode=, as the mysql client names them. MYSQLURL_SSL_DEFAULT: none
 * given, so lockrun sets no TLS option and the client library's default
 * holds (libmariadb 3.3: no TLS). */
enum mysqlurl_ssl {
	MYSQLURL_SSL_DEFAULT,
	MYSQLURL_SSL_DISABLED,	/* never TLS */
	MYSQLURL_SSL_PREFERRED,	/* TLS if the server offers it, unverified */
	MYSQLURL_SSL_REQUIRED,	/* TLS or no connection, unverified */
	MYSQLURL_SSL_VERIFY_CA,	/* and the server's certificate from ssl_ca */
	MYSQLURL_SSL_VERIFY_IDENTITY	/* and for the host connected to */
};

struct lr_mysqlurl {
	char	user[128];	/* percent-decoded; "": the client's default */
	char	password[256];	/* percent-decoded, or "" */
	char	host[256];	/* TCP host, brackets stripped from [v6] */
	int	port;		/* MYSQLURL_PORT when not given */
	int	is_unix;	/* a unix socket: ?socket=, or localhost without
				 * a port (as the mysql client does) */
	char	socket[108];	/* its path; "": the client library's default */
	char	database[128];	/* percent-decoded, never "" */
	enum mysqlurl_ssl ssl_mode;	/* ssl-mode=, or implied by ssl-ca= (VERIFY_CA)
				 * or ssl-cert= (REQUIRED) */
	char	ssl_ca[256];	/* absolute paths, percent-decoded, or "" */
	char	ssl_cert[256];
	char	ssl_key[256];	/* "": in ssl_cert's file, if that is set */
};

/* Parse url into u. Returns 0, or -1 with e->status EX_USAGE and a
 * message that shows no part of url but its scheme and the name of a
 * parameter (never a password). */
int	mysqlurl_parse(const char *url, struct lr_mysqlurl *u, struct lr_err *e);

/* Where u points, for messages: "db.example:3306", "[::1]:3307",
 * "unix:/run/mysqld/mysqld.sock" (dflt when u names no socket path).
 * Never includes credentials. Returns buf. */
char	*mysqlurl_where(const struct lr_mysqlurl *u, const char *dflt, char *buf, size_t n);

/* "REQUIRED" etc.; "" for MYSQLURL_SSL_DEFAULT. */
const char *mysqlurl_ssl_name(enum mysqlurl_ssl mode);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* mysqlurl.c -- parse mysql:// and mariadb:// URLs into what
 * mysql_real_connect() takes. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/url.h"
#include "backend/mysql/mysqlurl.h"

#define USAGE	"[user[:password]@]host[:port]/database[?param=value&...]"
#define KNOWN	"socket, ssl-mode, ssl-ca, ssl-cert, ssl-key"

static int
bad(struct lr_err *e, const char *scheme, const char *why)
{
	return lr_errf(e, EX_USAGE, "%s://: %s (expected %s://" USAGE ")", scheme, why,
	    scheme);
}

static const char *const ssl_names[] = {
	[MYSQLURL_SSL_DEFAULT] = "",
	[MYSQLURL_SSL_DISABLED] = "DISABLED",
	[MYSQLURL_SSL_PREFERRED] = "PREFERRED",
	[MYSQLURL_SSL_REQUIRED] = "REQUIRED",
	[MYSQLURL_SSL_VERIFY_CA] = "VERIFY_CA",
	[MYSQLURL_SSL_VERIFY_IDENTITY] = "VERIFY_IDENTITY",
};

const char *
mysqlurl_ssl_name(enum mysqlurl_ssl mode)
{
	return ssl_names[mode];
}

/* ssl-mode's value, any case, as the mysql client takes it. */
static int
ssl_mode(const char *v, size_t len, enum mysqlurl_ssl *mode)
{
	char buf[32];

	if (url_pct_decode(v, len, buf, sizeof(buf)) != 0)
		return -1;
	for (size_t m = MYSQLURL_SSL_DISABLED; m <= MYSQLURL_SSL_VERIFY_IDENTITY; m++)
		if (strcasecmp(buf, ssl_names[m]) == 0) {
			*mode = (enum mysqlurl_ssl)m;
			return 0;
		}
	return -1;
}

/* A file's path: decoded, absolute (a cron job's working directory is
 * no place to look for a CA). */
static int
path(const char *v, size_t len, char *buf, size_t n)
{
	return url_pct_decode(v, len, buf, n) != 0 || buf[0] != '/' ? -1 : 0;
}

/* The parameter named [s, s+nlen) is not one of ours: name it when the
 * name looks like one (anything else may be a secret pasted in the wrong
 * place, and stays unsaid). Returns -1 with e, as bad(). */
static int
unknown(const char *s, size_t nlen, const char *scheme, struct lr_err *e)
{
	char why[160];

	if (nlen == 0 || nlen > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") < nlen)
		return bad(e, scheme, "an unknown parameter (known: " KNOWN ")");
	snprintf(why, sizeof(why), "unknown parameter %.*s (known: " KNOWN ")", (int)nlen, s);
	return bad(e, scheme, why);
}

/* ?name=value&...: socket=, ssl-mode=, ssl-ca=, ssl-cert=, ssl-key=; the
 * last of a name counts. Returns 0, or -1 with e, as bad(). */
static int
parse_query(const char *q, struct lr_mysqlurl *u, const char *scheme, struct lr_err *e)
{
	char why[160];

	while (*q) {
		size_t len = strcspn(q, "&");
		const char *eq = memchr(q, '=', len), *v = eq ? eq + 1 : q + len;
		size_t nlen = eq ? (size_t)(eq - q) : len, vlen = (size_t)(q + len - v);
		char *dst = NULL;
		size_t dn = 0;

#define IS(name) (nlen == sizeof(name) - 1 && strncmp(q, name, nlen) == 0)
		if (IS("socket"))
			dst = u->socket, dn = sizeof(u->socket);
		else if (IS("ssl-ca"))
			dst = u->ssl_ca, dn = sizeof(u->ssl_ca);
		else if (IS("ssl-cert"))
			dst = u->ssl_cert, dn = sizeof(u->ssl_cert);
		else if (IS("ssl-key"))
			dst = u->ssl_key, dn = sizeof(u->ssl_key);
		if (IS("ssl-mode")) {
			if (ssl_mode(v, vlen, &u->ssl_mode) != 0)
				return bad(e, scheme, "bad ssl-mode (DISABLED, PREFERRED, "
				    "REQUIRED, VERIFY_CA or VERIFY_IDENTITY)");
		} else if (dst == NULL) {
			return unknown(q, nlen, scheme, e);
		} else if (path(v, vlen, dst, dn) != 0) {
			snprintf(why, sizeof(why), "bad %.*s path (an absolute one)", (int)nlen, q);
			return bad(e, scheme, why);
		}
#undef IS
		q += len + (q[len] == '&');
	}
	return 0;
}

/* What the TLS parameters mean together: a CA alone asks for VERIFY_CA,
 * a client certificate alone for REQUIRED (neither makes sense without
 * TLS); then the combinations that cannot mean what they say. */
static const char *
ssl_check(struct lr_mysqlurl *u)
{
	if (u->ssl_mode == MYSQLURL_SSL_DEFAULT && u->ssl_ca[0])
		u->ssl_mode = MYSQLURL_SSL_VERIFY_CA;
	else if (u->ssl_mode == MYSQLURL_SSL_DEFAULT && (u->ssl_cert[0] || u->ssl_key[0]))
		u->ssl_mode = MYSQLURL_SSL_REQUIRED;
	if (u->ssl_key[0] && !u->ssl_cert[0])
		return "ssl-key needs ssl-cert";
	if (u->ssl_mode == MYSQLURL_SSL_DISABLED && (u->ssl_ca[0] || u->ssl_cert[0]))
		return "ssl-mode=DISABLED takes no ssl-ca, ssl-cert or ssl-key";
	/* the client library would verify with it all the same */
	if (u->ssl_ca[0] && u->ssl_mode < MYSQLURL_SSL_VERIFY_CA)
		return "ssl-ca goes with ssl-mode=VERIFY_CA or VERIFY_IDENTITY";
	/* any server with any publicly trusted certificate would pass */
	if (u->ssl_mode == MYSQLURL_SSL_VERIFY_CA && !u->ssl_ca[0])
		return "ssl-mode=VERIFY_CA needs ssl-ca (VERIFY_IDENTITY may go without)";
	return NULL;
}

int
mysqlurl_parse(const char *url, struct lr_mysqlurl *u, struct lr_err *e)
{
	const char *scheme = strncmp(url, "mariadb://", 10) == 0 ? "mariadb" : "mysql";
	const char *rest, *slash, *at, *q, *why = NULL;
	struct lr_err hpwhy;
	int explicit_port;

	memset(u, 0, sizeof(*u));
	if (strncmp(url, "mysql://", 8) != 0 && strncmp(url, "mariadb://", 10) != 0)
		return lr_errf(e, EX_USAGE, "not a mysql:// or mariadb:// URL");
	rest = url + strlen(scheme) + 3;
	if ((slash = strchr(rest, '/')) == NULL)
		return bad(e, scheme, "no database");
	if ((at = url_last_at(rest, slash)) != NULL) {
		if (url_userinfo(rest, (size_t)(at - rest), u->user, sizeof(u->user),
		    u->password, sizeof(u->password)) != 0)
			return bad(e, scheme, "bad user or password");
		rest = at + 1;
	}
	if (url_hostport(rest, slash, u->host, sizeof(u->host), &u->port, &hpwhy) != 0)
		return bad(e, scheme, hpwhy.msg);
	if (u->host[0] == '\0')	/* as the mysql client has it */
		snprintf(u->host, sizeof(u->host), "localhost");
	explicit_port = u->port != 0;
	q = slash + 1 + strcspn(slash + 1, "?");
	if (q == slash + 1 || url_pct_decode(slash + 1, (size_t)(q - slash - 1), u->database,
	    sizeof(u->database)) != 0 || strchr(u->database, '/') != NULL)
		return bad(e, scheme, "no database, or a bad one");
	if (*q == '?' && parse_query(q + 1, u, scheme, e) != 0)
		return -1;
	if ((why = ssl_check(u)) != NULL)
		return bad(e, scheme, why);
	if (u->socket[0] && (explicit_port || strcmp(u->host, "localhost") != 0))
		return bad(e, scheme, "socket= goes with localhost (or no host) and no port");
	/* the mysql client's rule: localhost without a port is the socket */
	u->is_unix = u->socket[0] || (!explicit_port && strcmp(u->host, "localhost") == 0);
	if (!explicit_port)
		u->port = MYSQLURL_PORT;
	return 0;
}

char *
mysqlurl_where(const struct lr_mysqlurl *u, const char *dflt, char *buf, size_t n)
{
	if (u->is_unix)
		snprintf(buf, n, "unix:%s", u->socket[0] ? u->socket : dflt);
	else if (strchr(u->host, ':'))
		snprintf(buf, n, "[%s]:%d", u->host, u->port);
	else
		snprintf(buf, n, "%s:%d", u->host, u->port);
	return buf;
}

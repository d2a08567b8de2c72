/* sqlurl.c -- parse mysql:// and mariadb:// URLs into what
 * mysql_real_connect() takes. */
#include <stdio.h>
#include <string.h>

#include "rurl.h"
#include "sqlurl.h"

#define USAGE	"[user[:password]@]host[:port]/database[?socket=/path]"

static int
bad(struct lr_err *e, const char *scheme, const char *why)
{
	return lr_errf(e, EX_USAGE, "%s://: %s (expected %s://" USAGE ")", scheme, why,
	    scheme);
}

/* user[:password], the part before the last '@'. */
static int
parse_userinfo(const char *s, size_t len, struct lr_sqlurl *u)
{
	const char *colon = memchr(s, ':', len);
	size_t ulen = colon ? (size_t)(colon - s) : len;

	if (rurl_pct_decode(s, ulen, u->user, sizeof(u->user)) != 0)
		return -1;
	if (colon && rurl_pct_decode(colon + 1, len - ulen - 1, u->password,
	    sizeof(u->password)) != 0)
		return -1;
	return 0;
}

/* host[:port] or [v6][:port]; an empty host is localhost. */
static int
parse_hostport(const char *s, size_t len, struct lr_sqlurl *u, const char **why)
{
	const char *end = s + len, *port = NULL;
	size_t hlen;

	*why = "bad host";
	if (len > 0 && *s == '[') {
		const char *close = memchr(s, ']', len);
		if (close == NULL || close == s + 1)
			return -1;
		hlen = (size_t)(close - s - 1);
		s++;
		if (close + 1 < end) {
			if (close[1] != ':')
				return -1;
			port = close + 2;
		}
	} else {
		const char *colon = memchr(s, ':', len);
		hlen = colon ? (size_t)(colon - s) : len;
		if (colon)
			port = colon + 1;
	}
	if (hlen >= sizeof(u->host))
		return -1;
	memcpy(u->host, s, hlen);
	u->host[hlen] = '\0';
	if (u->host[0] == '\0')
		snprintf(u->host, sizeof(u->host), "localhost");
	*why = "bad port";
	if (port && rurl_decimal(port, (size_t)(end - port), 1, 65535, &u->port) != 0)
		return -1;
	return 0;
}

/* ?socket=/path[&...]: the only parameter there is. */
static int
parse_query(const char *q, struct lr_sqlurl *u, const char **why)
{
	while (*q) {
		size_t len = strcspn(q, "&");
		*why = "unknown parameter (only socket= is known)";
		if (len < 7 || strncmp(q, "socket=", 7) != 0)
			return -1;
		*why = "bad socket path";
		if (rurl_pct_decode(q + 7, len - 7, u->socket, sizeof(u->socket)) != 0 ||
		    u->socket[0] != '/')
			return -1;
		q += len + (q[len] == '&');
	}
	return 0;
}

int
sqlurl_parse(const char *url, struct lr_sqlurl *u, struct lr_err *e)
{
	const char *scheme = strncmp(url, "mariadb://", 10) == 0 ? "mariadb" : "mysql";
	const char *rest, *slash, *at, *q, *why = NULL;
	int explicit_port;

	memset(u, 0, sizeof(*u));
	if (strncmp(url, "mysql://", 8) != 0 && strncmp(url, "mariadb://", 10) != 0)
		return lr_errf(e, EX_USAGE, "not a mysql:// or mariadb:// URL");
	rest = url + strlen(scheme) + 3;
	if ((slash = strchr(rest, '/')) == NULL)
		return bad(e, scheme, "no database");
	at = NULL;
	for (const char *p = rest; p < slash; p++)
		if (*p == '@')
			at = p;
	if (at && parse_userinfo(rest, (size_t)(at - rest), u) != 0)
		return bad(e, scheme, "bad user or password");
	if (at)
		rest = at + 1;
	if (parse_hostport(rest, (size_t)(slash - rest), u, &why) != 0)
		return bad(e, scheme, why);
	explicit_port = u->port != 0;
	q = slash + 1 + strcspn(slash + 1, "?");
	if (q == slash + 1 || rurl_pct_decode(slash + 1, (size_t)(q - slash - 1), u->database,
	    sizeof(u->database)) != 0 || strchr(u->database, '/') != NULL)
		return bad(e, scheme, "no database, or a bad one");
	if (*q == '?' && parse_query(q + 1, u, &why) != 0)
		return bad(e, scheme, why);
	if (u->socket[0] && (explicit_port || strcmp(u->host, "localhost") != 0))
		return bad(e, scheme, "socket= goes with localhost (or no host) and no port");
	/* the mysql client's rule: localhost without a port is the socket */
	u->is_unix = u->socket[0] || (!explicit_port && strcmp(u->host, "localhost") == 0);
	if (!explicit_port)
		u->port = SQLURL_PORT;
	return 0;
}

char *
sqlurl_where(const struct lr_sqlurl *u, const char *dflt, char *buf, size_t n)
{
	if (u->is_unix)
		snprintf(buf, n, "unix:%s", u->socket[0] ? u->socket : dflt);
	else if (strchr(u->host, ':'))
		snprintf(buf, n, "[%s]:%d", u->host, u->port);
	else
		snprintf(buf, n, "%s:%d", u->host, u->port);
	return buf;
}

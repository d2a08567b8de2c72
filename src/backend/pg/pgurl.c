/* SPDX-License-Identifier: BSD-2-Clause */
/* pgurl.c -- check a postgres:// URL's values before libpq connects
 * (pgurl.h); pure, libc only. The words are libpq 15's. */
#include <string.h>

#include "backend/pg/pgurl.h"

enum kind { WORDS, INTEGER, PORTS };

static const struct {
	const char	*keyword;
	enum kind	 kind;
	const char	*words;		/* WORDS: the values, comma-separated */
} params[] = {
	{ "sslmode",		WORDS,	"disable,allow,prefer,require,verify-ca,verify-full" },
	{ "gssencmode",		WORDS,	"disable,prefer,require" },
	{ "channel_binding",	WORDS,	"disable,prefer,require" },
	{ "target_session_attrs", WORDS,
	    "any,read-write,read-only,primary,standby,prefer-standby" },
	{ "sslcompression",	WORDS,	"0,1" },
	{ "port",		PORTS,	NULL },
	{ "connect_timeout",	INTEGER, NULL },
	{ "keepalives",		INTEGER, NULL },
	{ "keepalives_idle",	INTEGER, NULL },
	{ "keepalives_interval", INTEGER, NULL },
	{ "keepalives_count",	INTEGER, NULL },
	{ "tcp_user_timeout",	INTEGER, NULL },
};

/* Is [s, s+len) one of the comma-separated words? */
static int
one_of(const char *words, const char *s, size_t len)
{
	for (const char *w = words; *w; ) {
		size_t wl = strcspn(w, ",");
		if (wl == len && strncmp(w, s, len) == 0)
			return 1;
		w += wl + (w[wl] == ',');
	}
	return 0;
}

/* Is [s, s+len) a decimal of at most 9 digits, a '-' allowed first? Its
 * value into *v. */
static int
integer(const char *s, size_t len, long *v)
{
	size_t i = len > 0 && s[0] == '-';
	long x = 0;

	if (len == i || len - i > 9)
		return 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		x = x * 10 + (s[i] - '0');
	}
	*v = s[0] == '-' ? -x : x;
	return 1;
}

/* A port per host, comma-separated; an empty one means the default. */
static int
ports(const char *s)
{
	for (;;) {
		size_t len = strcspn(s, ",");
		long v;

		if (len > 0 && (!integer(s, len, &v) || v < 1 || v > 65535))
			return 0;
		if (s[len] == '\0')
			return 1;
		s += len + 1;
	}
}

int
pgurl_check(const char *keyword, const char *value, struct lr_err *e)
{
	long v;

	if (value == NULL)
		return 0;
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (strcmp(keyword, params[i].keyword) != 0)
			continue;
		if (params[i].kind == WORDS && !one_of(params[i].words, value, strlen(value)))
			return lr_errf(e, EX_USAGE, "postgres URL: %s: \"%s\" is not one of %s",
			    keyword, value, params[i].words);
		if (params[i].kind == INTEGER && !integer(value, strlen(value), &v))
			return lr_errf(e, EX_USAGE, "postgres URL: %s: \"%s\" is not a whole "
			    "number", keyword, value);
		if (params[i].kind == PORTS && !ports(value))
			return lr_errf(e, EX_USAGE, "postgres URL: port: \"%s\" is not a port "
			    "from 1 to 65535", value);
		return 0;
	}
	return 0;
}

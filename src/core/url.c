/* SPDX-License-Identifier: BSD-2-Clause */
/* url.c -- the scheme-independent parts of URLs (url.h); pure, libc only. */
#include <string.h>

#include "core/url.h"

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
url_pct_decode(const char *s, size_t len, char *dst, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '%') {
			int hi, lo;
			if (i + 2 >= len)
				return -1;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			/* %00 would end the string early: refused, not cut */
			if (hi < 0 || lo < 0 || (hi | lo) == 0)
				return -1;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= n)
			return -1;
		dst[o++] = c;
	}
	dst[o] = '\0';
	return 0;
}

int
url_decimal(const char *s, size_t len, long lo, long hi, int *out)
{
	long v = 0;

	/* nine digits cannot overflow a long, and no bound lockrun uses is
	 * longer: no strtol, which takes signs, spaces and "0x" */
	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

const char *
url_last_at(const char *s, const char *end)
{
	const char *at = NULL;

	for (; s < end; s++)
		if (*s == '@')
			at = s;
	return at;
}

void
url_authority(const char *rest, struct url_authority *a)
{
	const char *at;

	a->end = rest + strcspn(rest, "/");
	at = url_last_at(rest, a->end);
	a->userinfo = at ? rest : NULL;
	a->userinfo_len = at ? (size_t)(at - rest) : 0;
	a->host = at ? at + 1 : rest;
}

int
url_userinfo(const char *s, size_t len, char *user, size_t un, char *password,
    size_t pn)
{
	const char *colon = memchr(s, ':', len);
	size_t ulen = colon ? (size_t)(colon - s) : len;

	if (url_pct_decode(s, ulen, user, un) != 0 ||
	    (colon && url_pct_decode(colon + 1, len - ulen - 1, password, pn) != 0))
		return -1;
	return 0;
}

/* [v6addr] at hp: the address's span, and where its port starts (NULL:
 * none). Returns 0, or -1 with e. */
static int
bracketed(const char *hp, const char *end, const char **host, size_t *len,
    const char **portp, struct lr_err *e)
{
	const char *close = memchr(hp, ']', (size_t)(end - hp));

	if (close == NULL)
		return lr_errf(e, EX_USAGE, "missing ']' after IPv6 address");
	*host = hp + 1;
	if ((*len = (size_t)(close - *host)) == 0)
		return lr_errf(e, EX_USAGE, "no address between '[' and ']'");
	*portp = NULL;
	if (close + 1 < end && close[1] == ':')
		*portp = close + 2;
	else if (close + 1 != end)
		return lr_errf(e, EX_USAGE, "expected ':port' after ']'");
	return 0;
}

int
url_hostport(const char *hp, const char *end, char *host, size_t n, int *port,
    struct lr_err *e)
{
	return url_hostport_from(hp, end, host, n, port, 1, e);
}

int
url_hostport_from(const char *hp, const char *end, char *host, size_t n, int *port,
    int lo, struct lr_err *e)
{
	const char *h = hp, *portp = NULL;
	size_t len = 0;

	if (hp < end && *hp == '[') {
		if (bracketed(hp, end, &h, &len, &portp, e) != 0)
			return -1;
	} else {
		const char *colon = memchr(hp, ':', (size_t)(end - hp));
		len = (size_t)((colon ? colon : end) - hp);
		if (colon)
			portp = colon + 1;
	}
	if (len >= n)
		return lr_errf(e, EX_USAGE, "host name is too long");
	memcpy(host, h, len);
	host[len] = '\0';
	if (portp && url_decimal(portp, (size_t)(end - portp), lo, 65535, port) != 0)
		return lr_errf(e, EX_USAGE, "port must be a number from %d to 65535", lo);
	return 0;
}

int
url_query_next(const char **q, struct url_param *p)
{
	const char *s = *q, *amp;

	if (s == NULL)
		return 0;
	p->name = s;
	p->name_len = strcspn(s, "=&");
	p->value = NULL;
	p->value_len = 0;
	if (s[p->name_len] == '=') {
		p->value = s + p->name_len + 1;
		p->value_len = strcspn(p->value, "&#");
	}
	amp = strchr(s, '&');
	*q = amp ? amp + 1 : NULL;
	return 1;
}

int
url_param_is(const struct url_param *p, const char *name)
{
	return p->name_len == strlen(name) && memcmp(p->name, name, p->name_len) == 0;
}

size_t
url_password_spans(const char *url, struct url_span *s, size_t n)
{
	const char *p = strstr(url, "://"), *colon, *q;
	struct url_authority a;
	struct url_param prm;
	size_t got = 0;

	if (p == NULL)
		return 0;
	url_authority(p + 3, &a);
	if (a.userinfo && (colon = memchr(a.userinfo, ':', a.userinfo_len)) != NULL && got < n)
		s[got++] = (struct url_span){ (size_t)(colon + 1 - url),
		    a.userinfo_len - (size_t)(colon + 1 - a.userinfo) };
	/* the query from the first '?' after the scheme, not after the
	 * path: libpq takes postgres://host?password=x, with no path */
	if ((q = strchr(p + 3, '?')) != NULL)
		q++;
	while (got < n && url_query_next(&q, &prm))
		if (url_param_is(&prm, "password") && prm.value != NULL)
			s[got++] = (struct url_span){ (size_t)(prm.value - url), prm.value_len };
	return got;
}

int
url_has_password(const char *url)
{
	struct url_span s[1];

	return url_password_spans(url, s, 1) > 0;
}

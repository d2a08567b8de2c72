/* SPDX-License-Identifier: BSD-2-Clause */
/* url_test.c -- the scheme-independent parts of URLs (core/url.h). */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/url.h"

Test(url, pct_decode_decodes_escapes_in_either_case)
{
	char buf[16];

	cr_assert(eq(int, url_pct_decode("p%40ss%3a%2F", 12, buf, sizeof(buf)), 0));
	cr_assert(eq(str, buf, "p@ss:/"));
}

Test(url, pct_decode_refuses_nul_bad_and_cut_escapes)
{
	char buf[16];

	cr_assert(eq(int, url_pct_decode("a%00b", 5, buf, sizeof(buf)), -1), "%%00");
	cr_assert(eq(int, url_pct_decode("a%G1", 4, buf, sizeof(buf)), -1), "not hex");
	cr_assert(eq(int, url_pct_decode("a%4", 3, buf, sizeof(buf)), -1), "cut short");
}

Test(url, pct_decode_refuses_what_does_not_fit)
{
	char buf[4];

	cr_assert(eq(int, url_pct_decode("abc", 3, buf, sizeof(buf)), 0));
	cr_assert(eq(int, url_pct_decode("abcd", 4, buf, sizeof(buf)), -1));
}

Test(url, decimal_takes_digits_within_bounds_only)
{
	int v = -1;

	cr_assert(eq(int, url_decimal("6379", 4, 1, 65535, &v), 0));
	cr_assert(eq(int, v, 6379));
	cr_assert(eq(int, url_decimal("0", 1, 1, 65535, &v), -1), "below");
	cr_assert(eq(int, url_decimal("65536", 5, 1, 65535, &v), -1), "above");
	cr_assert(eq(int, url_decimal("+1", 2, 0, 9, &v), -1), "sign");
	cr_assert(eq(int, url_decimal("", 0, 0, 9, &v), -1), "empty");
	cr_assert(eq(int, url_decimal("1234567890", 10, 0, 2000000000, &v), -1), "long");
	cr_assert(eq(int, v, 6379), "left alone on failure");
}

Test(url, authority_splits_at_the_last_at_before_the_path)
{
	const char *rest = "u:p@ss@h:1/db?x=a@b";
	struct url_authority a;

	url_authority(rest, &a);
	cr_assert(eq(ptr, (void *)a.userinfo, (void *)rest));
	cr_assert(eq(sz, a.userinfo_len, 6));
	cr_assert(eq(str, (char *)a.host, "h:1/db?x=a@b"));
	cr_assert(eq(str, (char *)a.end, "/db?x=a@b"));
}

Test(url, authority_without_userinfo_or_path)
{
	struct url_authority a;

	url_authority("h", &a);
	cr_assert(eq(ptr, (void *)a.userinfo, NULL));
	cr_assert(eq(str, (char *)a.host, "h"));
	cr_assert(eq(str, (char *)a.end, ""));
}

Test(url, userinfo_user_alone_or_with_a_password)
{
	char user[16] = "?", password[16] = "unset";

	cr_assert(eq(int, url_userinfo("cron", 4, user, sizeof(user), password,
	    sizeof(password)), 0));
	cr_assert(eq(str, user, "cron"));
	cr_assert(eq(str, password, "unset"), "no ':': no password");
	cr_assert(eq(int, url_userinfo(":p%3Aw", 6, user, sizeof(user), password,
	    sizeof(password)), 0));
	cr_assert(eq(str, user, ""));
	cr_assert(eq(str, password, "p:w"));
	cr_assert(eq(int, url_userinfo("u:%zz", 5, user, sizeof(user), password,
	    sizeof(password)), -1));
}

/* url_hostport() on all of s. */
static int
hostport(const char *s, char *host, size_t n, int *port, struct lr_err *e)
{
	return url_hostport(s, s + strlen(s), host, n, port, e);
}

Test(url, hostport_plain_and_bracketed)
{
	struct lr_err e = LR_ERR_INIT;
	char host[64];
	int port = 1;

	cr_assert(eq(int, hostport("cache:6380", host, sizeof(host), &port, &e), 0));
	cr_assert(eq(str, host, "cache"));
	cr_assert(eq(int, port, 6380));
	cr_assert(eq(int, hostport("[fe80::1]:7000", host, sizeof(host), &port, &e), 0));
	cr_assert(eq(str, host, "fe80::1"));
	cr_assert(eq(int, port, 7000));
	port = 42;
	cr_assert(eq(int, hostport("[::1]", host, sizeof(host), &port, &e), 0));
	cr_assert(eq(int, port, 42), "no port: left alone");
	cr_assert(eq(int, hostport("", host, sizeof(host), &port, &e), 0));
	cr_assert(eq(str, host, ""), "no host is the caller's to refuse");
}

/* A listener's address (web/mhd.c) is read by the same parser, with a
 * port the kernel picks (0) allowed there only. */
Test(url, hostport_from_zero_for_a_listener)
{
	struct lr_err e = LR_ERR_INIT;
	const char *s = "0.0.0.0:0";
	char host[64];
	int port = -1;

	cr_assert(eq(int, url_hostport_from(s, s + strlen(s), host, sizeof(host), &port, 0,
	    &e), 0), "%s", e.msg);
	cr_assert(eq(str, host, "0.0.0.0"));
	cr_assert(eq(int, port, 0));
	cr_assert(eq(int, hostport(s, host, sizeof(host), &port, &e), -1));
	cr_assert(eq(str, e.msg, "port must be a number from 1 to 65535"));
}

static void
hostport_bad(const char *s, size_t n, const char *msg)
{
	struct lr_err e = { 0, "", 1 };
	char host[64];
	int port = 0;

	cr_assert(eq(int, hostport(s, host, n, &port, &e), -1), "%s", s);
	cr_assert(eq(int, e.status, EX_USAGE));
	cr_assert(eq(int, e.kind, LR_ERR_NONE));
	cr_assert(eq(str, e.msg, (char *)msg), "%s", s);
}

Test(url, hostport_errors_say_what_is_wrong)
{
	hostport_bad("[::1", 64, "missing ']' after IPv6 address");
	hostport_bad("[]:1", 64, "no address between '[' and ']'");
	hostport_bad("[::1]x", 64, "expected ':port' after ']'");
	hostport_bad("h:0", 64, "port must be a number from 1 to 65535");
	hostport_bad("h:", 64, "port must be a number from 1 to 65535");
	hostport_bad("longhost", 8, "host name is too long");
}

Test(url, query_params_in_order)
{
	const char *q = "a=1&flag&b=x#frag&c=";
	struct url_param p;

	cr_assert(eq(int, url_query_next(&q, &p), 1));
	cr_assert(url_param_is(&p, "a"));
	cr_assert(eq(sz, p.value_len, 1));
	cr_assert(eq(int, url_query_next(&q, &p), 1));
	cr_assert(url_param_is(&p, "flag"));
	cr_assert(eq(ptr, (void *)p.value, NULL));
	cr_assert(eq(int, url_query_next(&q, &p), 1));
	cr_assert(url_param_is(&p, "b"));
	cr_assert(eq(sz, p.value_len, 1), "a value ends at '#'");
	cr_assert(eq(int, url_query_next(&q, &p), 1));
	cr_assert(url_param_is(&p, "c"));
	cr_assert(eq(sz, p.value_len, 0));
	cr_assert(eq(int, url_query_next(&q, &p), 0));
}

Test(url, param_is_matches_the_whole_name)
{
	const char *q = "passwordx=1";
	struct url_param p;

	cr_assert(eq(int, url_query_next(&q, &p), 1));
	cr_assert(eq(int, url_param_is(&p, "password"), 0));
	cr_assert(eq(int, url_param_is(&p, "passwordx"), 1));
}

/* Which URLs hold a password, as lockrun keeps it out of the command's
 * environment: before the last '@' of the authority (a '?' or '@' may be
 * in it), or as a password= parameter. */
Test(url, has_password_finds_it_where_parsing_does)
{
	cr_assert(eq(int, url_has_password("redis://:s3cret@host:6379/0"), 1));
	cr_assert(eq(int, url_has_password("redis://:pa?ss@host/0"), 1));
	cr_assert(eq(int, url_has_password("redis://u:p@ss@host/0"), 1));
	cr_assert(eq(int, url_has_password("postgres://u@h/db?password=x"), 1));
	cr_assert(eq(int, url_has_password("postgres://h/db?sslmode=require&password=x"), 1));
	cr_assert(eq(int, url_has_password("postgres://h?password=x"), 1), "no path");
	cr_assert(eq(int, url_has_password("redis://user@host/0"), 0));
	cr_assert(eq(int, url_has_password("redis://host:6379/0"), 0));
	cr_assert(eq(int, url_has_password("postgres://u@h/db?passwordx=1"), 0));
	cr_assert(eq(int, url_has_password("postgres://u@h/db?host=/a:b@c"), 0));
	cr_assert(eq(int, url_has_password("not a url"), 0));
}

/* What secret_url_mask() overwrites: each password's bytes, nothing else. */
static void
masked(const char *url, const char *expect)
{
	char buf[256];
	struct url_span s[4];
	size_t n = url_password_spans(url, s, 4);

	snprintf(buf, sizeof(buf), "%s", url);
	for (size_t i = 0; i < n; i++)
		memset(buf + s[i].off, 'x', s[i].len);
	cr_assert(eq(str, buf, (char *)expect));
}

Test(url, password_spans_cover_each_password_exactly)
{
	masked("redis://:s3cret@host:6379/0", "redis://:xxxxxx@host:6379/0");
	masked("redis://u:p@ss@host/0", "redis://u:xxxx@host/0");
	masked("redis+sentinel://:pw@h1,h2/mymaster", "redis+sentinel://:xx@h1,h2/mymaster");
	masked("postgres://u:a@h/db?sslmode=require&password=bb&x=1",
	    "postgres://u:x@h/db?sslmode=require&password=xx&x=1");
	masked("mysql://u@h/db?password=a&password=bc", "mysql://u@h/db?password=x&password=xx");
	masked("redis://user@host/0", "redis://user@host/0");
}

Test(url, password_spans_stop_at_n)
{
	struct url_span s[1];

	cr_assert(eq(sz, url_password_spans("pg://u:a@h/d?password=b", s, 1), 1));
	cr_assert(eq(sz, s[0].off, 7));
	cr_assert(eq(sz, s[0].len, 1));
}

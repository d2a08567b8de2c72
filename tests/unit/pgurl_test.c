/* SPDX-License-Identifier: BSD-2-Clause */
/* pgurl_test.c -- the postgres:// values libpq would refuse only when it
 * connects. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/pg/pgurl.h"

#define PREFIX "postgres URL: "

/* pgurl_check()'s message after its prefix, or NULL when v passes. */
static const char *
problem(const char *k, const char *v)
{
	static struct lr_err e;

	if (pgurl_check(k, v, &e) == 0)
		return NULL;
	cr_assert(eq(int, e.status, EX_USAGE));
	cr_assert(eq(int, strncmp(e.msg, PREFIX, strlen(PREFIX)), 0), "%s", e.msg);
	return e.msg + strlen(PREFIX);
}

Test(pgurl, good_values_pass)
{
	cr_assert(eq(ptr, (void *)problem("sslmode", "verify-full"), NULL));
	cr_assert(eq(ptr, (void *)problem("port", "5432"), NULL));
	cr_assert(eq(ptr, (void *)problem("port", "5432,,5433"), NULL));
	cr_assert(eq(ptr, (void *)problem("connect_timeout", "10"), NULL));
	cr_assert(eq(ptr, (void *)problem("target_session_attrs", "read-write"), NULL));
	cr_assert(eq(ptr, (void *)problem("application_name", "anything at all"), NULL));
	cr_assert(eq(ptr, (void *)problem("sslmode", NULL), NULL), "not given");
}

Test(pgurl, ports_outside_1_to_65535_are_named)
{
	cr_assert(eq(str, (char *)problem("port", "99999"),
	    "port: \"99999\" is not a port from 1 to 65535"));
	cr_assert(ne(ptr, (void *)problem("port", "0"), NULL));
	cr_assert(ne(ptr, (void *)problem("port", "abc"), NULL));
	cr_assert(ne(ptr, (void *)problem("port", "5432,x"), NULL));
	cr_assert(ne(ptr, (void *)problem("port", "-1"), NULL));
}

Test(pgurl, words_are_libpqs)
{
	cr_assert(eq(str, (char *)problem("sslmode", "verify_full"), "sslmode: \"verify_full\" "
	    "is not one of disable,allow,prefer,require,verify-ca,verify-full"));
	cr_assert(ne(ptr, (void *)problem("gssencmode", "yes"), NULL));
	cr_assert(ne(ptr, (void *)problem("sslcompression", "2"), NULL));
}

Test(pgurl, numbers_are_whole)
{
	cr_assert(eq(str, (char *)problem("connect_timeout", "abc"),
	    "connect_timeout: \"abc\" is not a whole number"));
	cr_assert(ne(ptr, (void *)problem("keepalives_idle", "1.5"), NULL));
	cr_assert(ne(ptr, (void *)problem("keepalives", ""), NULL));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* backend_test.c -- which backend a URL names; the field lists every
 * backend fills. */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/backend.h"

Test(backend, every_redis_scheme_is_redis)
{
	const char *urls[] = { "redis://h", "rediss://h:6380/1", "unix:///run/r.sock",
	    "redis+sentinel://h:26379/m", "redis+cluster://a:1,b:2" };

	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++)
		cr_assert(eq(str, (char *)backend_kind(urls[i]), "redis"), "%s", urls[i]);
}

Test(backend, sql_schemes_name_their_backend)
{
	cr_assert(eq(str, (char *)backend_kind("postgres://u@h/db"), "postgres"));
	cr_assert(eq(str, (char *)backend_kind("postgresql:///db?host=/tmp"), "postgres"));
	cr_assert(eq(str, (char *)backend_kind("mysql://u@h:3306/db"), "mysql"));
	cr_assert(eq(str, (char *)backend_kind("mariadb://u@h/db"), "mysql"));
}

Test(backend, anything_else_is_no_backend)
{
	cr_assert(eq(ptr, (void *)backend_kind("http://h"), NULL));
	cr_assert(eq(ptr, (void *)backend_kind("redis:/h"), NULL), "no ://");
	cr_assert(eq(ptr, (void *)backend_kind("postgres"), NULL));
	cr_assert(eq(ptr, (void *)backend_kind("mysqlx://h/db"), NULL), "a prefix is not it");
}

Test(backend, fields_leave_out_empty_values_and_are_found_by_name)
{
	struct lr_fields f = { 0 };

	cr_assert(eq(int, fields_add(&f, "event", "ran"), 0));
	cr_assert(eq(int, fields_add(&f, "slot", ""), 0));
	cr_assert(eq(int, fields_add(&f, "holder", NULL), 0));
	cr_assert(eq(int, fields_add(&f, "token", "17"), 0));
	cr_assert(eq(sz, f.n, 2), "the empty slot and holder are left out");
	cr_assert(eq(str, (char *)fields_get(&f, "token"), "17"));
	cr_assert(eq(ptr, (void *)fields_get(&f, "slot"), NULL));
	fields_free(&f);
	cr_assert(eq(sz, f.n, 0));
}

Test(backend, fields_refuse_more_than_they_hold)
{
	struct lr_fields f = { 0 };
	char name[8];

	for (int i = 0; i < LR_FIELDS_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert(eq(int, fields_add(&f, name, "v"), 0));
	}
	cr_assert(eq(int, fields_add(&f, "one-more", "v"), -1));
	fields_free(&f);
}

Test(backend, counters_are_found_by_their_stored_name)
{
	cr_assert(eq(int, counter_index("runs"), CNT_RUNS));
	cr_assert(eq(int, counter_index("skipped_slot"), CNT_SKIPPED_SLOT));
	cr_assert(eq(int, counter_index("timeouts"), CNT_TIMEOUTS));
	cr_assert(eq(int, counter_index("skips"), -1), "0.1.0's name is no counter");
	for (int i = 0; i < NCOUNTERS; i++)
		cr_assert(eq(int, counter_index(lr_counter_names[i]), i));
}

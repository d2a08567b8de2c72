/* SPDX-License-Identifier: BSD-2-Clause */
/* backend_test.c -- which backend a URL names; the field lists every
 * backend fills. */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/backend.h"
#include "backend/lock.h"

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

	cr_assert(eq(int, record_field_add(&f, "event", "ran"), 0));
	cr_assert(eq(int, record_field_add(&f, "slot", ""), 0));
	cr_assert(eq(int, record_field_add(&f, "holder", NULL), 0));
	cr_assert(eq(int, record_field_add(&f, "token", "17"), 0));
	cr_assert(eq(sz, f.n, 2), "the empty slot and holder are left out");
	cr_assert(eq(str, (char *)record_field_get(&f, "token"), "17"));
	cr_assert(eq(ptr, (void *)record_field_get(&f, "slot"), NULL));
	record_fields_free(&f);
	cr_assert(eq(sz, f.n, 0));
}

Test(backend, fields_refuse_more_than_they_hold)
{
	struct lr_fields f = { 0 };
	char name[8];

	for (int i = 0; i < LR_FIELDS_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert(eq(int, record_field_add(&f, name, "v"), 0));
	}
	cr_assert(eq(int, record_field_add(&f, "one-more", "v"), -1));
	record_fields_free(&f);
}

Test(backend, counters_are_found_by_their_stored_name)
{
	cr_assert(eq(int, record_counter_index("runs"), CNT_RUNS));
	cr_assert(eq(int, record_counter_index("skipped_slot"), CNT_SKIPPED_SLOT));
	cr_assert(eq(int, record_counter_index("timeouts"), CNT_TIMEOUTS));
	cr_assert(eq(int, record_counter_index("retries"), CNT_RETRIES), "the hash field and "
	    "column release.lua and the statements add a run's retries to");
	cr_assert(eq(int, record_counter_index("skips"), -1), "0.1.0's name is no counter");
	for (int i = 0; i < NCOUNTERS; i++)
		cr_assert(eq(int, record_counter_index(record_counter_names[i]), i));
}

/* A backend reads its own settings; one of another backend's section, or
 * one from the command line that the URL's backend does not take, is
 * refused at its place, before anything is loaded. */
Test(backend, settings_belong_to_the_urls_backend)
{
	struct lr_settings s = { NULL, 0 };
	struct lr_backend b;
	struct lr_backend_cfg c = { .url = "postgres://u@h/db", .password = "",
	    .connect_timeout_ms = 1000, .command_timeout_ms = 1000, .own = &s };
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, settings_add(&s, "redis", "wait_replicas", "1", "x.yaml:3:18",
	    "redis.wait_replicas", EX_CONFIG, &e), 0));
	cr_assert(eq(int, backend_init(&b, &c, &e), -1));
	cr_assert(eq(int, e.status, EX_CONFIG));
	cr_assert(eq(str, e.msg, "x.yaml:3:18: redis.wait_replicas: a setting of redis, but "
	    "the URL in use is postgres:// (nothing would read it); remove it, or use a "
	    "redis URL"));
	settings_free(&s);
	cr_assert(eq(int, settings_add(&s, NULL, "wait_replicas", "1", NULL,
	    "--wait-replicas", EX_USAGE, &e), 0));
	c.url = "mysql://u@h/db";
	cr_assert(eq(int, backend_init(&b, &c, &e), -1));
	cr_assert(eq(int, e.status, EX_USAGE));
	cr_assert(eq(str, e.msg, "--wait-replicas: does not apply to mysql:// URLs"));
	settings_free(&s);
}

Test(backend, a_backend_checks_its_own_settings)
{
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, backend_setting("redis", "wait_replicas", "3", &e), 1));
	cr_assert(eq(int, backend_setting(NULL, "tls.ca_file", "/ca", &e), 1));
	cr_assert(eq(int, backend_setting("redis", "tls", NULL, &e), 1), "a mapping");
	cr_assert(eq(int, backend_setting("redis", "host", "h", &e), 0), "not Redis's");
	cr_assert(eq(int, backend_setting("postgres", "wait_replicas", "3", &e), 0));
	cr_assert(eq(int, backend_setting(NULL, "wait_timeout", "soon", &e), -1));
	cr_assert(eq(str, e.msg, "\"soon\" is not a positive duration (e.g. 500ms, 90s, 10m, "
	    "1h30m)"));
	cr_assert(eq(int, backend_section("redis"), 1));
	cr_assert(eq(int, backend_section("tls"), 0));
}

Test(backend, a_pause_value_reads_back_with_its_reason)
{
	struct lr_pause_view v;

	cr_assert(eq(int, lock_pause_parse("1000 4000 web1 alice disk swap, back at 6",
	    &v), 0));
	cr_assert(eq(i64, v.since_ms, 1000));
	cr_assert(eq(i64, v.until_ms, 4000));
	cr_assert(eq(str, v.host, "web1"));
	cr_assert(eq(str, v.user, "alice"));
	cr_assert(eq(str, (char *)v.reason, "disk swap, back at 6"));
	cr_assert(eq(int, lock_pause_parse("1000 0 web1 -", &v), 0));
	cr_assert(eq(i64, v.until_ms, 0));
	cr_assert(eq(str, (char *)v.reason, ""));
	cr_assert(eq(int, lock_pause_parse("1000 0 web1 - ", &v), 0));
	cr_assert(eq(str, (char *)v.reason, ""));
	cr_assert(eq(int, lock_pause_parse("paused by hand", &v), -1));
	cr_assert(eq(int, lock_pause_parse("1000 0 web1", &v), -1));
}

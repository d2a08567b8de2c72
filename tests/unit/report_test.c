/* SPDX-License-Identifier: BSD-2-Clause */
/* report_test.c -- reading a member of a run's log record (sched/report.c),
 * as out/log.c writes it. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/report.h"

static const char rec[] = "{\"time\":\"2026-06-15T12:00:00.000Z\",\"level\":\"info\","
    "\"event\":\"skipped-held\",\"task\":\"a\\\"b\",\"pid\":42,\"token\":1795432160690488,"
    "\"message\":\"held by \\\"x\\\"\\\\ \\u00e9\\ud83d\\ude00\\n,}:\\\"event\\\":1\"}";

Test(report, reads_strings_with_their_escapes_undone)
{
	char out[128];

	cr_assert(eq(int, report_member(rec, "event", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "skipped-held"));
	cr_assert(eq(int, report_member(rec, "task", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "a\"b"));
	cr_assert(eq(int, report_member(rec, "message", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "held by \"x\"\\ \xc3\xa9\xf0\x9f\x98\x80\n,}:\"event\":1"));
}

Test(report, reads_numbers_as_their_digits)
{
	char out[32];

	cr_assert(eq(int, report_member(rec, "token", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "1795432160690488"));
	cr_assert(eq(int, report_member(rec, "pid", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "42"));
}

Test(report, a_name_inside_a_value_is_no_member)
{
	char out[32] = "";

	cr_assert(eq(int, report_member(rec, "holder", out, sizeof(out)), -1));
	cr_assert(eq(int, report_member("{\"a\":\"\\\"b\\\":\\\"c\\\"\"}", "b", out,
	    sizeof(out)), -1));
}

Test(report, cuts_a_long_value_short_and_refuses_what_is_no_record)
{
	char out[6];

	cr_assert(eq(int, report_member(rec, "message", out, sizeof(out)), 0));
	cr_assert(eq(str, out, "held "));
	cr_assert(eq(int, report_member("not json", "a", out, sizeof(out)), -1));
	cr_assert(eq(int, report_member("{\"a\":\"unterminated", "a", out, sizeof(out)), -1));
	cr_assert(eq(int, report_member("{\"a\":\"\\u12\"}", "a", out, sizeof(out)), -1));
}

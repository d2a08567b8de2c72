/* SPDX-License-Identifier: BSD-2-Clause */
/* duration_test.c -- parse and format durations. */
#include <limits.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "core/duration.h"

struct good { char text[16]; long long ms; };

ParameterizedTestParameters(duration, parses)
{
	static struct good cases[] = {
		{ "500ms", 500 }, { "90s", 90000 }, { "10m", 600000 },
		{ "1h30m", 5400000 }, { "2d", 172800000 }, { "30", 30000 },
		{ "0", 0 }, { "1h1m1s1ms", 3661001 }, { "1m30s", 90000 },
		{ "366d", DURATION_MAX_MS },
	};
	return cr_make_param_array(struct good, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct good *c, duration, parses)
{
	long long ms = -1;

	cr_assert(eq(int, duration_parse(c->text, &ms), 0), "%s", c->text);
	cr_assert(eq(i64, ms, c->ms), "%s", c->text);
}

struct bad { char text[24]; };

ParameterizedTestParameters(duration, rejects)
{
	static struct bad cases[] = {
		{ "" }, { "-3s" }, { "s" }, { "10x" }, { "1.5s" }, { "30m1h" },
		{ "1s1s" }, { "5 minutes" }, { " 5s" }, { "5s " }, { "1h30" },
		{ "367d" }, { "99999999999999999999" }, { "1msm" },
	};
	return cr_make_param_array(struct bad, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad *c, duration, rejects)
{
	long long ms = 7;

	cr_assert(eq(int, duration_parse(c->text, &ms), -1), "\"%s\"", c->text);
	cr_assert(eq(i64, ms, 7), "untouched on error");
}

Test(duration, formats_shortest_form_that_parses_back)
{
	static const struct { long long ms; const char *text; } cases[] = {
		{ 0, "0s" }, { 500, "500ms" }, { 1500, "1500ms" }, { 90000, "1m30s" },
		{ 5400000, "1h30m" }, { 86400000, "1d" }, { 2000, "2s" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long back = -1;
		cr_assert(eq(str, duration_format(cases[i].ms, buf, sizeof(buf)),
		    (char *)cases[i].text));
		cr_assert(eq(int, duration_parse(buf, &back), 0));
		cr_assert(eq(i64, back, cases[i].ms));
	}
}

Test(duration, human_form_is_for_people)
{
	static const struct { long long ms; const char *text; } cases[] = {
		{ 0, "0ms" }, { 850, "850ms" }, { 1000, "1s" }, { 1500, "1.5s" },
		{ 1099, "1s" }, { 12345, "12.3s" }, { 59999, "59.9s" }, { 60000, "1m" },
		{ 90500, "1m30s" }, { 600000, "10m" }, { 5400999, "1h30m" }, { -5, "0ms" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert(eq(str, duration_human(cases[i].ms, buf, sizeof(buf)),
		    (char *)cases[i].text), "%lld", cases[i].ms);
}

Test(duration, relative_form_says_how_long_ago_or_until)
{
	static const struct { long long ms; const char *text; } cases[] = {
		{ 0, "now" }, { 999, "now" }, { -999, "now" }, { 1000, "in 1 s" },
		{ -12500, "12 s ago" }, { 59999, "in 59 s" }, { 60000, "in 1 min" },
		{ -3 * 60000 - 59999, "3 min ago" }, { 3600000, "in 1 h" },
		{ -47 * 3600000LL, "47 h ago" }, { 48 * 3600000LL, "in 2 days" },
		{ -400 * 86400000LL, "400 days ago" }, { LLONG_MIN, "106751991167 days ago" },
	};
	char buf[DURATION_RELATIVE_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert(eq(str, duration_relative(cases[i].ms, buf, sizeof(buf)),
		    (char *)cases[i].text), "%lld", cases[i].ms);
}

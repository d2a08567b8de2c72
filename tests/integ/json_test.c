/* SPDX-License-Identifier: BSD-2-Clause */
/* json_test.c -- the tests' strict JSON parser (json.c); needs no Redis. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "json.h"

TestSuite(json, .timeout = 30);

struct text {
	char	s[96];
};

ParameterizedTestParameters(json, accepts)
{
	static struct text cases[] = {
		{ "{}" }, { "[]" }, { "0" }, { "-0" }, { "1.5e10" }, { "-0.0E-0" },
		{ "1E+2" }, { "\"\"" }, { "true" }, { "false" }, { "null" },
		{ " \t\r\n[ 1 , { \"a\" : [ ] } ] \n" }, { "\"\\u00e9\\ud83d\\ude00\"" },
		{ "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"" }, { "{\"a\":{\"a\":1}}" },
		{ "[[[[[[[[[[[]]]]]]]]]]]" }, { "\"\\/\\\\\\\"\\b\\f\\n\\r\\t\"" },
	};

	return cr_make_param_array(struct text, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct text *t, json, accepts)
{
	char err[256] = "";
	struct json *j = json_parse(t->s, err, sizeof(err));

	cr_assert(j != NULL, "'%s': %s", t->s, err);
	json_free(j);
}

ParameterizedTestParameters(json, rejects)
{
	static struct text cases[] = {
		{ "" }, { " " }, { "[1,]" }, { "{\"a\":1,}" }, { "[,1]" }, { "01" },
		{ "-01" }, { "00" }, { "1." }, { ".5" }, { "+1" }, { "1e" }, { "1e+" },
		{ "-" }, { "0x10" }, { "NaN" }, { "Infinity" }, { "-Infinity" },
		{ "\"a\tb\"" }, { "\"a\nb\"" }, { "\"\x01\"" }, { "\"\\x41\"" },
		{ "\"\\u12\"" }, { "\"\\ud83d\"" }, { "\"\\ude00\"" },
		{ "\"\\ud83d\\u0041\"" }, { "\"abc" }, { "'a'" }, { "{a:1}" },
		{ "{\"a\" 1}" }, { "{\"a\":1 \"b\":2}" }, { "[1 2]" }, { "[1" },
		{ "{\"a\":1" }, { "1 2" }, { "{} x" }, { "truex" }, { "tru" },
		{ "nul" }, { "True" }, { "\"\xc3\"" }, { "\"\xc0\x80\"" },
		{ "\"\xed\xa0\x80\"" }, { "\"\xf4\x90\x80\x80\"" }, { "\"\xff\"" },
		{ "{\"a\":1,\"a\":2}" }, { "\f1" }, { "[1]\v" }, { "// c\n1" },
	};

	return cr_make_param_array(struct text, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct text *t, json, rejects)
{
	char err[256] = "";
	struct json *j = json_parse(t->s, err, sizeof(err));

	cr_assert(j == NULL, "'%s' was accepted", t->s);
	cr_assert(strncmp(err, "at byte ", 8) == 0, "'%s': error '%s'", t->s, err);
}

Test(json, a_nul_ends_the_text)
{
	char err[256];

	/* json_parse() reads a C string: a NUL inside a string value ends
	 * the text there, and the string is then unterminated. */
	cr_assert(json_parse("\"a\0b\"", err, sizeof(err)) == NULL);
	cr_assert(strstr(err, "unterminated") != NULL, "%s", err);
}

Test(json, limits_nesting_to_256)
{
	char deep[700];
	char err[256];
	struct json *j;

	memset(deep, '[', 257);
	memset(deep + 257, ']', 257);
	deep[514] = '\0';
	cr_assert(json_parse(deep, err, sizeof(err)) == NULL);
	cr_assert(strstr(err, "nested deeper") != NULL, "%s", err);
	memset(deep, '[', 256);
	memset(deep + 256, ']', 256);
	deep[512] = '\0';
	j = json_parse(deep, err, sizeof(err));
	cr_assert(j != NULL, "%s", err);
	json_free(j);
}

Test(json, reads_objects_in_document_order)
{
	char err[256];
	struct json *j = json_parse("{\"b\":1,\"a\":\"x\",\"c\":null,\"d\":[true,false]}",
	    err, sizeof(err));
	double d;
	int b;

	cr_assert(j != NULL, "%s", err);
	cr_assert(json_is(j, "object"));
	cr_assert(eq(sz, json_keys(j), 4));
	cr_assert(eq(str, (char *)json_key(j, 0), "b"));
	cr_assert(eq(str, (char *)json_key(j, 3), "d"));
	cr_assert(eq(int, json_num(json_get(j, "b"), &d), 0));
	cr_assert(eq(dbl, d, 1.0));
	cr_assert(eq(str, (char *)json_str(json_get(j, "a")), "x"));
	cr_assert(json_is(json_get(j, "c"), "null"));
	cr_assert(json_get(j, "e") == NULL);
	cr_assert(json_str(json_get(j, "b")) == NULL);
	cr_assert(eq(int, json_num(json_get(j, "a"), &d), -1));
	cr_assert(eq(sz, json_len(json_get(j, "d")), 2));
	cr_assert(eq(int, json_bool(json_at(json_get(j, "d"), 0), &b), 0));
	cr_assert(eq(int, b, 1));
	cr_assert(json_at(json_get(j, "d"), 2) == NULL);
	cr_assert(json_get(json_get(j, "d"), "x") == NULL);
	cr_assert(json_is(j, "array") == 0);
	json_free(j);
}

Test(json, decodes_escapes_and_surrogate_pairs)
{
	char err[256];
	struct json *j = json_parse("\"q\\\"b\\\\s\\/n\\nt\\tu\\u00e9\\uD83D\\uDE00\\u0041\"",
	    err, sizeof(err));

	cr_assert(j != NULL, "%s", err);
	cr_assert(eq(str, (char *)json_str(j), "q\"b\\s/n\nt\tu\xc3\xa9\xf0\x9f\x98\x80" "A"));
	json_free(j);
}

Test(json, reads_numbers_exactly)
{
	static const struct { const char *s; double v; } nums[] = {
		{ "0", 0 }, { "-12", -12 }, { "3.25", 3.25 }, { "1e3", 1000 },
		{ "2.5E-1", 0.25 }, { "1781524800000", 1781524800000.0 },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct json *j = json_parse(nums[i].s, err, sizeof(err));
		double d = NAN;

		cr_assert(j != NULL, "%s: %s", nums[i].s, err);
		cr_assert(eq(int, json_num(j, &d), 0));
		cr_assert(eq(dbl, d, nums[i].v), "%s", nums[i].s);
		json_free(j);
	}
}

/* Count objects that have a string "task". */
static int
count_tasks(const struct json *j, void *arg)
{
	if (json_str(json_get(j, "task")) == NULL)
		return -1;
	(*(int *)arg)++;
	return 0;
}

Test(json, reads_lines)
{
	char err[256];
	int n = 0;

	cr_assert(eq(long, json_lines("{\"task\":\"a\"}\n{\"task\":\"b\"}\n", count_tasks,
	    &n, err, sizeof(err)), 2), "%s", err);
	cr_assert(eq(int, n, 2));
	cr_assert(eq(long, json_lines("", count_tasks, &n, err, sizeof(err)), 0));
	cr_assert(eq(long, json_lines("{\"task\":\"a\"}", count_tasks, &n, err,
	    sizeof(err)), 1));
}

Test(json, lines_rejects_a_bad_line_and_names_it)
{
	char err[256];
	int n = 0;

	cr_assert(eq(long, json_lines("{\"task\":\"a\"}\n{\"task\":}\n", count_tasks,
	    &n, err, sizeof(err)), -1));
	cr_assert(strncmp(err, "line 2: ", 8) == 0, "%s", err);
	cr_assert(eq(long, json_lines("{\"task\":\"a\"}\n\n{\"task\":\"b\"}\n", count_tasks,
	    &n, err, sizeof(err)), -1));
	cr_assert(strncmp(err, "line 2: ", 8) == 0, "%s", err);
	cr_assert(eq(long, json_lines("{\"task\":\"a\"} {\"task\":\"b\"}\n", count_tasks,
	    &n, err, sizeof(err)), -1));
	cr_assert(eq(long, json_lines("{\"x\":1}\n", count_tasks, &n, err,
	    sizeof(err)), -1));
	cr_assert(strstr(err, "rejected") != NULL, "%s", err);
}

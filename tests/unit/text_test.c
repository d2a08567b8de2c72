/* SPDX-License-Identifier: BSD-2-Clause */
/* text_test.c -- JSON strings, ISO 8601 times, text made visible. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/text.h"

#define FFFD	"\\ufffd"	/* what a byte that is not UTF-8 becomes */

/* text_json() of the len bytes at s into a buffer of n bytes, returned as
 * a string (static: one at a time). Checks that nothing is written past
 * n and that the length returned is what was written. */
static char *
json_n(const char *s, size_t len, size_t n)
{
	static char out[1024];
	size_t w;

	cr_assert(n < sizeof(out));
	memset(out, '#', sizeof(out));
	w = text_json(out, n, s, len);
	cr_assert(w <= n, "wrote %zu into %zu", w, n);
	cr_assert(eq(chr, out[n], '#'), "nothing past the buffer");
	out[w] = '\0';
	return out;
}

/* The string literal s (its NULs too), with room to spare. */
#define JSON(s)		json_n((s), sizeof(s) - 1, 512)

Test(text, json_escapes_quote_and_backslash)
{
	cr_assert(eq(str, JSON("say \"hi\" \\o/"), "\"say \\\"hi\\\" \\\\o/\""));
}

Test(text, json_writes_control_bytes_as_u00xx)
{
	cr_assert(eq(str, JSON("a\nb\tc\rd\x01\x1f"),
	    "\"a\\u000ab\\u0009c\\u000dd\\u0001\\u001f\""));
}

Test(text, json_writes_a_nul_byte_and_goes_on)
{
	cr_assert(eq(str, JSON("a\0b"), "\"a\\u0000b\""));
}

Test(text, json_escapes_del)
{
	cr_assert(eq(str, JSON("x\x7fy"), "\"x\\u007fy\""));
}

Test(text, json_escapes_c1_and_bidi_controls)
{
	/* U+0085, U+009B, U+202E, U+2066, U+2069; U+00A0 and U+2070 kept */
	cr_assert(eq(str, JSON("a\xc2\x85" "b\xc2\x9b" "c\xe2\x80\xae" "d\xe2\x81\xa6"
	    "e\xe2\x81\xa9" "f\xc2\xa0\xe2\x81\xb0"),
	    "\"a\\u0085b\\u009bc\\u202ed\\u2066e\\u2069f\xc2\xa0\xe2\x81\xb0\""));
	/* cut short at a character: never inside the escape */
	cr_assert(eq(str, json_n("ab\xe2\x80\xae", 7, 8), "\"ab\""));
}

Test(text, json_keeps_printable_ascii)
{
	cr_assert(eq(str, JSON(" ~/{}[]:,'"), "\" ~/{}[]:,'\""));
	cr_assert(eq(str, JSON(""), "\"\""));
}

Test(text, json_keeps_valid_multibyte_utf8)
{
	/* U+00E9, U+0800, U+20AC, U+D7FF, U+E000, U+FFFF, U+1F512, U+10FFFF */
	static const char s[] = "\xc3\xa9 \xe0\xa0\x80 \xe2\x82\xac \xed\x9f\xbf "
	    "\xee\x80\x80 \xef\xbf\xbf \xf0\x9f\x94\x92 \xf4\x8f\xbf\xbf";

	cr_assert(eq(str, JSON(s), "\"" "\xc3\xa9 \xe0\xa0\x80 \xe2\x82\xac "
	    "\xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbf \xf0\x9f\x94\x92 \xf4\x8f\xbf\xbf" "\""));
}

Test(text, json_replaces_each_stray_byte)
{
	/* continuation bytes alone, and lead bytes no UTF-8 has */
	cr_assert(eq(str, JSON("a\x80" "b\xbf" "c\xff\xfe\xf5"),
	    "\"a" FFFD "b" FFFD "c" FFFD FFFD FFFD "\""));
}

Test(text, json_replaces_each_byte_of_an_overlong_form)
{
	cr_assert(eq(str, JSON("\xc0\xaf"), "\"" FFFD FFFD "\""), "/ in two bytes");
	cr_assert(eq(str, JSON("\xc1\xbf"), "\"" FFFD FFFD "\""));
	cr_assert(eq(str, JSON("\xe0\x80\xaf"), "\"" FFFD FFFD FFFD "\""), "/ in three");
	cr_assert(eq(str, JSON("\xe0\x9f\xbf"), "\"" FFFD FFFD FFFD "\""), "U+07FF in three");
	cr_assert(eq(str, JSON("\xf0\x8f\xbf\xbf"), "\"" FFFD FFFD FFFD FFFD "\""),
	    "U+FFFF in four");
}

Test(text, json_replaces_each_byte_of_an_encoded_surrogate)
{
	cr_assert(eq(str, JSON("\xed\xa0\x80"), "\"" FFFD FFFD FFFD "\""), "U+D800");
	cr_assert(eq(str, JSON("\xed\xbf\xbf"), "\"" FFFD FFFD FFFD "\""), "U+DFFF");
}

Test(text, json_replaces_what_lies_past_u10ffff)
{
	cr_assert(eq(str, JSON("\xf4\x90\x80\x80"), "\"" FFFD FFFD FFFD FFFD "\""));
}

Test(text, json_replaces_a_sequence_cut_short)
{
	/* the euro sign missing its last byte: before another character,
	 * before a quote, and at the end */
	cr_assert(eq(str, JSON("\xe2\x82" "a"), "\"" FFFD FFFD "a\""));
	cr_assert(eq(str, JSON("\xe2\x82\""), "\"" FFFD FFFD "\\\"\""));
	cr_assert(eq(str, JSON("\xe2\x82"), "\"" FFFD FFFD "\""));
	cr_assert(eq(str, json_n("\xf0\x9f\x94\x92", 3, 512), "\"" FFFD FFFD FFFD "\""),
	    "the length given is the end");
}

Test(text, json_cuts_at_a_character_and_closes_the_string)
{
	/* "ab" then U+1F512 (4 bytes), then \u0001 (6 bytes of JSON) */
	static const char s[] = "ab\xf0\x9f\x94\x92\x01";

	cr_assert(eq(str, json_n(s, sizeof(s) - 1, 4), "\"ab\""));
	cr_assert(eq(str, json_n(s, sizeof(s) - 1, 7), "\"ab\""), "not half a character");
	cr_assert(eq(str, json_n(s, sizeof(s) - 1, 8), "\"ab\xf0\x9f\x94\x92\""));
	cr_assert(eq(str, json_n(s, sizeof(s) - 1, 13), "\"ab\xf0\x9f\x94\x92\""),
	    "not half an escape");
	cr_assert(eq(str, json_n(s, sizeof(s) - 1, 14), "\"ab\xf0\x9f\x94\x92\\u0001\""));
	cr_assert(eq(str, json_n("\"", 1, 3), "\"\""), "nor half of \\\"");
	cr_assert(eq(str, json_n("\xff", 1, 7), "\"\""), "nor half of \\ufffd");
}

Test(text, json_needs_room_for_the_quotes)
{
	cr_assert(eq(str, json_n("abc", 3, 2), "\"\""));
	cr_assert(eq(str, json_n("abc", 3, 1), ""));
	cr_assert(eq(sz, text_json(NULL, 0, "abc", 3), 0));
}

Test(text, json_fput_writes_the_same_whole)
{
	static const char s[] = "q\"b\\s\x01\n\x7f\xff\xc3\xa9\xed\xa0\x80\0z";
	char *mem = NULL, *want;
	size_t len = 0;
	FILE *fp = open_memstream(&mem, &len);

	cr_assert(fp != NULL);
	text_json_fput(fp, s, sizeof(s) - 1);
	cr_assert(eq(int, fclose(fp), 0));
	want = JSON(s);
	cr_assert(eq(sz, len, strlen(want)));
	cr_assert(eq(str, mem, want));
	free(mem);
}

Test(text, utf8_len_measures_one_character)
{
	cr_assert(eq(sz, text_utf8_len("a", 1), 1));
	cr_assert(eq(sz, text_utf8_len("\xc3\xa9", 2), 2));
	cr_assert(eq(sz, text_utf8_len("\xe2\x82\xac", 3), 3));
	cr_assert(eq(sz, text_utf8_len("\xf0\x9f\x94\x92", 4), 4));
	cr_assert(eq(sz, text_utf8_len("\xf0\x9f\x94\x92", 3), 0), "cut short");
	cr_assert(eq(sz, text_utf8_len("\xe2\x82" "a", 3), 0), "not a continuation");
	cr_assert(eq(sz, text_utf8_len("\x80", 1), 0));
}

/* --- ISO 8601 --------------------------------------------------------- */

/* text_iso() of ms to unit, as a string (static: one at a time). */
static char *
iso(long long ms, enum text_iso_unit unit)
{
	static char buf[TEXT_ISO_MAX];

	return text_iso(ms, unit, buf, sizeof(buf));
}

Test(text, iso_writes_the_epoch)
{
	cr_assert(eq(str, iso(0, TEXT_ISO_MS), "1970-01-01T00:00:00.000Z"));
	cr_assert(eq(str, iso(0, TEXT_ISO_S), "1970-01-01T00:00:00Z"));
}

Test(text, iso_writes_an_instant_to_the_millisecond)
{
	cr_assert(eq(str, iso(1781524800123LL, TEXT_ISO_MS), "2026-06-15T12:00:00.123Z"));
	cr_assert(eq(str, iso(1781524800007LL, TEXT_ISO_MS), "2026-06-15T12:00:00.007Z"));
}

Test(text, iso_writes_leap_days)
{
	cr_assert(eq(str, iso(1709251199999LL, TEXT_ISO_MS), "2024-02-29T23:59:59.999Z"));
	cr_assert(eq(str, iso(951827696789LL, TEXT_ISO_MS), "2000-02-29T12:34:56.789Z"),
	    "2000 is a leap year");
	cr_assert(eq(str, iso(-2203891200000LL, TEXT_ISO_S), "1900-03-01T00:00:00Z"),
	    "1900 is not");
}

Test(text, iso_drops_the_milliseconds_never_rounding_up)
{
	cr_assert(eq(str, iso(1999, TEXT_ISO_S), "1970-01-01T00:00:01Z"));
	cr_assert(eq(str, iso(1999, TEXT_ISO_MS), "1970-01-01T00:00:01.999Z"));
	cr_assert(eq(str, iso(1709251199999LL, TEXT_ISO_S), "2024-02-29T23:59:59Z"),
	    "not March");
}

Test(text, iso_rounds_down_before_the_epoch)
{
	cr_assert(eq(str, iso(-1, TEXT_ISO_MS), "1969-12-31T23:59:59.999Z"));
	cr_assert(eq(str, iso(-1, TEXT_ISO_S), "1969-12-31T23:59:59Z"));
	cr_assert(eq(str, iso(-1000, TEXT_ISO_MS), "1969-12-31T23:59:59.000Z"));
	cr_assert(eq(str, iso(-1001, TEXT_ISO_MS), "1969-12-31T23:59:58.999Z"));
}

Test(text, iso_writes_the_last_millisecond_of_9999)
{
	cr_assert(eq(str, iso(253402300799999LL, TEXT_ISO_MS), "9999-12-31T23:59:59.999Z"));
}

Test(text, iso_fits_in_text_iso_max_at_the_extremes)
{
	char buf[TEXT_ISO_MAX + 8];

	memset(buf, '#', sizeof(buf));
	text_iso(LLONG_MAX, TEXT_ISO_MS, buf, sizeof(buf));
	cr_assert(strlen(buf) < TEXT_ISO_MAX, "%s", buf);
	text_iso(LLONG_MIN, TEXT_ISO_MS, buf, sizeof(buf));
	cr_assert(strlen(buf) < TEXT_ISO_MAX, "%s", buf);
}

Test(text, decimal_takes_all_of_a_signed_integer)
{
	long long v = 7;

	cr_assert(eq(int, text_decimal("0", &v), 0));
	cr_assert(eq(i64, v, 0));
	cr_assert(eq(int, text_decimal("-42", &v), 0));
	cr_assert(eq(i64, v, -42));
	cr_assert(eq(int, text_decimal("9223372036854775807", &v), 0));
	cr_assert(eq(i64, v, LLONG_MAX));
}

Test(text, decimal_refuses_anything_else)
{
	const char *bad[] = { "", "-", "+1", " 1", "1 ", "12a", "0x10", "1.5",
	    "9223372036854775808", "-9223372036854775809" };
	long long v = 7;

	cr_assert(eq(int, text_decimal(NULL, &v), -1));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert(eq(int, text_decimal(bad[i], &v), -1), "\"%s\"", bad[i]);
	cr_assert(eq(i64, v, 7), "*v is left alone");
}

Test(text, one_line_folds_a_server_message)
{
	char buf[64], small[6];

	cr_assert(eq(str, text_one_line(buf, sizeof(buf), "  FATAL:\tno\r\n  such   db \n"),
	    "FATAL: no such db"));
	cr_assert(eq(str, text_one_line(small, sizeof(small), "abcdefgh"), "abcde"));
	snprintf(buf, sizeof(buf), "a\n\nb");
	cr_assert(eq(str, text_one_line(buf, sizeof(buf), buf), "a b"), "in place");
}

/* text_visible() of s, in a copy (static: one at a time). */
static char *
visible(const char *s)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s", s);
	return text_visible(buf);
}

Test(text, visible_hides_c0_and_del)
{
	cr_assert(eq(str, visible("a\x1b[31mb\x07\x7f\r\n"), "a?[31mb????"));
}

Test(text, visible_hides_a_c1_control_as_one_character)
{
	/* U+009B, CSI in C1: one '?' for its two bytes */
	cr_assert(eq(str, visible("x\xc2\x9b" "31my"), "x?31my"));
	cr_assert(eq(str, visible("\xc2\x80\xc2\x9f"), "??"));
}

Test(text, visible_hides_the_direction_marks)
{
	/* U+200E, U+200F, U+061C; U+200D (a joiner) and U+061B are kept */
	cr_assert(eq(str, visible("a\xe2\x80\x8e" "b\xe2\x80\x8f" "c\xd8\x9c" "d"),
	    "a?b?c?d"));
	cr_assert(eq(str, visible("\xe2\x80\x8d\xd8\x9b"), "\xe2\x80\x8d\xd8\x9b"));
	cr_assert(eq(str, JSON("\xe2\x80\x8f\xd8\x9c"), "\"\\u200f\\u061c\""));
}

Test(text, visible_hides_a_raw_c1_byte)
{
	cr_assert(eq(str, visible("x\x9b" "31m"), "x?31m"));
}

Test(text, visible_hides_bidi_controls)
{
	cr_assert(eq(str, visible("a\xe2\x80\xae" "cba"), "a?cba"));	/* U+202E */
	cr_assert(eq(str, visible("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), "???"));
}

Test(text, visible_hides_each_byte_of_invalid_utf8)
{
	cr_assert(eq(str, visible("a\xff\xfe" "b\xc0\xaf"), "a??b??"));
	cr_assert(eq(str, visible("cut \xe2\x82"), "cut ??"));
}

Test(text, visible_keeps_printable_text)
{
	/* U+00A0 and above, U+202F and U+2065 are not controls */
	cr_assert(eq(str, visible("caf\xc3\xa9 \xc2\xa0\xe2\x80\xaf\xe2\x81\xa5 \xe2\x82\xac"),
	    "caf\xc3\xa9 \xc2\xa0\xe2\x80\xaf\xe2\x81\xa5 \xe2\x82\xac"));
}

Test(text, visible_put_writes_what_visible_makes)
{
	static const char s[] = "h\xc2\x9bi\x9b\xe2\x80\xaej\x01k\xc3\xa9";
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);

	cr_assert(fp != NULL);
	text_visible_put(fp, s, sizeof(s) - 1);
	fclose(fp);
	cr_assert(eq(str, buf, visible(s)));
	cr_assert(eq(str, buf, "h?i??j?k\xc3\xa9"));
	free(buf);
}

Test(text, has_control_finds_what_visible_hides)
{
	cr_assert(eq(int, text_has_control("web-1.example"), 0));
	cr_assert(eq(int, text_has_control("caf\xc3\xa9"), 0));
	cr_assert(eq(int, text_has_control("x\xc2\x9b" "31m"), 1));
	cr_assert(eq(int, text_has_control("x\x9b"), 1));
	cr_assert(eq(int, text_has_control("\xe2\x81\xa8"), 1));
	cr_assert(eq(int, text_has_control("tab\there"), 1));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* text.h -- text that other programs read or write: JSON strings, made
 * valid whatever bytes they hold, ISO 8601 UTC times, and the decimal
 * numbers servers send back; pure, libc only. */
#ifndef LR_TEXT_H
#define LR_TEXT_H

#include <stddef.h>
#include <stdio.h>

#define TEXT_ISO_MAX	32	/* room for any text_iso() result and its NUL */

/* How finely text_iso() writes an instant. */
enum text_iso_unit {
	TEXT_ISO_S,		/* 2026-06-15T12:00:00Z */
	TEXT_ISO_MS,		/* 2026-06-15T12:00:00.123Z */
};

/* The length (1 to 4) of the valid UTF-8 sequence at s, which has left
 * bytes (left > 0), or 0 when s does not begin one: a stray continuation
 * byte, an overlong form, an encoded surrogate, a code point above
 * U+10FFFF, or a sequence cut short (RFC 3629). */
size_t	text_utf8_len(const char *s, size_t left);

/* Write the len bytes at s as a JSON string, quotes included, into
 * buf[0..n): a quotation mark or backslash is escaped with a backslash, a
 * control character (U+0000 to U+001F, U+007F, and the C1 controls U+0080
 * to U+009F) or a bidi control or mark (text_control_len()) is written
 * as \uXXXX,
 * and each byte that is not part of valid UTF-8 as \ufffd, so the result
 * parses whatever s holds. When buf is too small the string is cut short
 * at a character (never inside an escape or a UTF-8 sequence) and still
 * closed. No NUL is added. Returns the bytes written: 0 if n < 2. */
size_t	text_json(char *buf, size_t n, const char *s, size_t len);

/* The same, written whole to fp. */
void	text_json_fput(FILE *fp, const char *s, size_t len);

/* Write ms, milliseconds since the epoch (negative before it), as ISO
 * 8601 UTC to the second or the millisecond (unit) into buf[0..n); the
 * part below the unit is dropped, toward the past. Like cron_utc(), it
 * never reads the time zone. TEXT_ISO_MAX bytes always suffice. Returns
 * buf. */
char	*text_iso(long long ms, enum text_iso_unit unit, char *buf, size_t n);

/* Is all of s a decimal integer ("-" allowed first; no space, no "+")
 * that fits a long long? 0 with *v set, else -1. */
int	text_decimal(const char *s, long long *v);

/* Copy src into dst[n] as one line: line breaks and tabs become spaces,
 * runs of spaces one, none at either end (a server's message, for
 * lockrun's one-line errors). dst may be src. Returns dst. */
char	*text_one_line(char *dst, size_t n, const char *src);

/* How many bytes of s (left > 0 of them) stand for one character that a
 * person must not be shown raw, or 0 for one shown as it is: a C0
 * control or DEL (1), a C1 control, U+0080 to U+009F (2), a bidi control,
 * U+202A to U+202E or U+2066 to U+2069 (3), a direction mark, U+200E,
 * U+200F (3) or U+061C (2), or a byte that does not begin
 * valid UTF-8 (1: a raw 0x9B is a CSI to some terminals). */
size_t	text_control_len(const char *s, size_t left);

/* Does s hold any such character? 1 or 0. For values refused at parse
 * time (--host, names). */
int	text_has_control(const char *s);

/* Replace each such character of s, in place, with one '?': what came
 * from a server, a lock value, a file name or the command line cannot
 * drive the terminal (OSC, CSI, BEL), reorder a line (bidi) or break it
 * in two. The rule for every byte lockrun prints for people. Returns s,
 * which may be shorter. */
char	*text_visible(char *s);

/* The len bytes at s to fp, made visible as text_visible() does. */
void	text_visible_put(FILE *fp, const char *s, size_t len);

/* Append one line (fmt, and a newline) to the lines in buf[n], as much of
 * it as fits, and count it in *count. For `lockrun check`'s problems. */
void	text_problem(char *buf, size_t n, int *count, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* text.c -- text that other programs read or write: JSON strings, made
 * valid whatever bytes they hold, ISO 8601 UTC times, decimal numbers;
 * pure, libc only. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cron.h"
#include "core/text.h"

#define ESC_MAX		6	/* the longest a character becomes: \u00XX */

/* RFC 3629's table: the lead byte gives the length, and the range of the
 * second byte is narrowed after E0, ED, F0 and F4, which rules out the
 * overlong forms, the surrogates and what lies past U+10FFFF. */
size_t
text_utf8_len(const char *s, size_t left)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */
	size_t len;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;			/* 0xc0, 0xc1: overlong */
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;		/* below: overlong */
		else if (p[0] == 0xed)
			hi = 0x9f;		/* above: a surrogate */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90;		/* below: overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f;		/* above: past U+10FFFF */
	} else
		return 0;
	if (left < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The JSON text of the character at p, which has left bytes (left > 0):
 * put in out, its length in *outlen. Returns how many bytes of p it
 * stands for: 1 for a byte that is not UTF-8, which becomes \ufffd. */
static size_t
json_char(const unsigned char *p, size_t left, char out[ESC_MAX], size_t *outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = text_utf8_len((const char *)p, left);

	if (len == 0) {
		memcpy(out, "\\ufffd", ESC_MAX);
		*outlen = ESC_MAX;
		return 1;
	}
	if (*p == '"' || *p == '\\') {
		out[0] = '\\';
		out[1] = (char)*p;
		*outlen = 2;
	} else if (*p < 0x20 || *p == 0x7f) {
		memcpy(out, "\\u00", 4);
		out[4] = hex[*p >> 4];
		out[5] = hex[*p & 0xf];
		*outlen = ESC_MAX;
	} else if (len > 1 && text_control_len((const char *)p, left) == len) {
		/* C1, bidi: escaped too, a reader's terminal or page would
		 * act on them; \u0085, \u202e */
		unsigned c = len == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu) :
		    (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
		out[0] = '\\';
		out[1] = 'u';
		for (int i = 0; i < 4; i++)
			out[2 + i] = hex[(c >> (12 - 4 * i)) & 0xf];
		*outlen = ESC_MAX;
	} else {
		memcpy(out, p, len);
		*outlen = len;
	}
	return len;
}

/* Each character whole or not at all, one byte always kept for the
 * closing quote. */
size_t
text_json(char *buf, size_t n, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char out[ESC_MAX];
	size_t w = 0, outlen;

	if (n < 2)
		return 0;
	buf[w++] = '"';
	while (p < end) {
		size_t used = json_char(p, (size_t)(end - p), out, &outlen);

		if (outlen > n - w - 1)		/* keep room for the quote */
			break;
		memcpy(buf + w, out, outlen);
		w += outlen;
		p += used;
	}
	buf[w++] = '"';
	return w;
}

/* As text_json(), a character at a time, with no limit. */
void
text_json_fput(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char out[ESC_MAX];
	size_t outlen;

	putc('"', fp);
	while (p < end) {
		p += json_char(p, (size_t)(end - p), out, &outlen);
		fwrite(out, 1, outlen, fp);
	}
	putc('"', fp);
}

/* Split ms into whole seconds, rounded down, and the milliseconds above
 * them (0 to 999), then break the seconds down as cron_utc() does. */
char *
text_iso(long long ms, enum text_iso_unit unit, char *buf, size_t n)
{
	long long sec = ms / 1000, frac = ms % 1000;
	struct tm tm;

	if (frac < 0) {		/* C division truncates: floor it */
		sec--;
		frac += 1000;
	}
	cron_utc((time_t)sec, &tm);	/* gmtime_r would load the zone */
	if (unit == TEXT_ISO_MS)
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		    tm.tm_sec, frac);
	else
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return buf;
}

int
text_decimal(const char *s, long long *v)
{
	char *end;
	long long n;

	if (s == NULL || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		return -1;
	*v = n;
	return 0;
}

void
text_problem(char *buf, size_t n, int *count, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	if (len < n)
		vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
	len = strlen(buf);
	if (len + 1 < n) {
		buf[len] = '\n';
		buf[len + 1] = '\0';
	}
	(*count)++;
}

char *
text_one_line(char *dst, size_t n, const char *src)
{
	size_t len = 0;

	for (; *src && len + 1 < n; src++) {
		char c = *src == '\n' || *src == '\r' || *src == '\t' ? ' ' : *src;
		if (c == ' ' && (len == 0 || dst[len - 1] == ' '))
			continue;
		dst[len++] = c;
	}
	while (len > 0 && dst[len - 1] == ' ')
		len--;
	if (n > 0)
		dst[len] = '\0';
	return dst;
}

/* Bidi controls, as UTF-8: U+202A to U+202E (E2 80 AA..AE) and U+2066 to
 * U+2069 (E2 81 A6..A9); they reorder what a terminal shows after them;
 * and the marks U+200E, U+200F (E2 80 8E/8F), which set a run's
 * direction. */
static int
bidi(const unsigned char *p)
{
	return p[0] == 0xe2 && ((p[1] == 0x80 && ((p[2] >= 0xaa && p[2] <= 0xae) ||
	    p[2] == 0x8e || p[2] == 0x8f)) || (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9));
}

size_t
text_control_len(const char *s, size_t left)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = text_utf8_len(s, left);

	if (len == 0)
		return 1;		/* not UTF-8: a raw 0x9B is a CSI to some */
	if (len == 1)
		return *p < 0x20 || *p == 0x7f;
	if (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)
		return 2;		/* C1: U+0080 to U+009F */
	if (len == 2 && p[0] == 0xd8 && p[1] == 0x9c)
		return 2;		/* U+061C, the Arabic letter mark */
	if (len == 3 && bidi(p))
		return 3;
	return 0;
}

int
text_has_control(const char *s)
{
	size_t left = strlen(s), len;

	for (; left > 0; s += len, left -= len) {
		if (text_control_len(s, left) != 0)
			return 1;
		len = text_utf8_len(s, left);
	}
	return 0;
}

char *
text_visible(char *s)
{
	size_t left = strlen(s), r = 0, w = 0, hide;

	while (r < left) {
		if ((hide = text_control_len(s + r, left - r)) != 0) {
			s[w++] = '?';
			r += hide;
			continue;
		}
		for (size_t len = text_utf8_len(s + r, left - r); len > 0; len--)
			s[w++] = s[r++];
	}
	s[w] = '\0';
	return s;
}

void
text_visible_put(FILE *fp, const char *s, size_t len)
{
	size_t r = 0, hide, n;

	while (r < len) {
		if ((hide = text_control_len(s + r, len - r)) != 0) {
			putc('?', fp);
			r += hide;
			continue;
		}
		n = text_utf8_len(s + r, len - r);
		fwrite(s + r, 1, n, fp);
		r += n;
	}
}

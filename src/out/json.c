/* SPDX-License-Identifier: BSD-2-Clause */
/* json.c -- write JSON objects member by member to a stream or a buffer. */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "out/json.h"

#define JSON_TAIL	2	/* "}\n", always kept room for in a buffer */
#define SHORT_VALUE	32	/* room a number, a literal or a cut string needs */

/* Append len bytes of s, all or nothing. Returns 0, or -1 if they do not
 * fit. */
static int
put(struct lr_json *j, const char *s, size_t len)
{
	if (j->fp != NULL) {
		fwrite(s, 1, len, j->fp);
		return 0;
	}
	if (j->n + len > j->cap - JSON_TAIL)
		return -1;
	memcpy(j->buf + j->n, s, len);
	j->n += len;
	return 0;
}

/* ,"key": (no comma first in an object). Returns -1, writing nothing, when
 * the buffer cannot take the key and a short value any more. */
static int
key_put(struct lr_json *j, const char *key)
{
	size_t klen = strlen(key);

	if (j->skip > 0)
		return -1;
	if (j->fp == NULL && j->n + klen + 4 + SHORT_VALUE > j->cap - JSON_TAIL)
		return -1;
	if (!j->first)
		put(j, ",", 1);
	j->first = 0;
	put(j, "\"", 1);
	put(j, key, klen);
	put(j, "\":", 2);
	return 0;
}

void
json_begin(struct lr_json *j, FILE *fp, char *buf, size_t cap)
{
	j->fp = fp;
	j->buf = buf;
	j->cap = cap;
	j->n = 0;
	j->first = 1;
	j->skip = 0;
	put(j, "{", 1);
}

/* "key":"s" (its len bytes, JSON-escaped whatever they hold), or
 * "key":null when s is NULL. Keys are written as given. */
void
json_strn(struct lr_json *j, const char *key, const char *s, size_t len)
{
	if (key_put(j, key) == -1)
		return;
	if (s == NULL)
		put(j, "null", 4);
	else if (j->fp != NULL)
		text_json_fput(j->fp, s, len);
	else
		j->n += text_json(j->buf + j->n, j->cap - JSON_TAIL - j->n, s, len);
}

void
json_str(struct lr_json *j, const char *key, const char *s)
{
	json_strn(j, key, s, s != NULL ? strlen(s) : 0);
}

void
json_num(struct lr_json *j, const char *key, long long v)
{
	char buf[32];
	int len;

	if (key_put(j, key) == -1)
		return;
	if (v == JSON_NULL_NUM)
		put(j, "null", 4);
	else if ((len = snprintf(buf, sizeof(buf), "%lld", v)) > 0)
		put(j, buf, (size_t)len);
}

void
json_bool(struct lr_json *j, const char *key, int v)
{
	if (key_put(j, key) == 0)
		put(j, v ? "true" : "false", v ? 4 : 5);
}

/* In a buffer, the inner object's closing brace is kept room for by
 * lending one byte of the capacity until json_close(). */
void
json_open(struct lr_json *j, const char *key)
{
	if (key_put(j, key) == -1) {
		j->skip++;
		return;
	}
	put(j, "{", 1);
	if (j->fp == NULL)
		j->cap--;
	j->first = 1;
}

void
json_close(struct lr_json *j)
{
	if (j->skip > 0) {
		j->skip--;
		return;
	}
	if (j->fp == NULL)
		j->cap++;
	put(j, "}", 1);
	j->first = 0;
}

size_t
json_end(struct lr_json *j)
{
	if (j->fp != NULL) {
		fputs("}\n", j->fp);
		return 0;
	}
	memcpy(j->buf + j->n, "}\n", JSON_TAIL);	/* room was kept for it */
	j->n += JSON_TAIL;
	return j->n;
}

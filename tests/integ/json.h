/* SPDX-License-Identifier: BSD-2-Clause */
/* json.h -- a strict JSON parser for tests. */
#ifndef LR_JSON_H
#define LR_JSON_H

#include <stddef.h>

/*
 * RFC 8259, strictly: one value with optional whitespace (space, tab, LF,
 * CR) around it and nothing after; objects, arrays, strings, numbers,
 * true, false, null. Rejected as well as the grammar's own errors:
 * trailing commas, leading zeros, control characters (U+0000..U+001F) in
 * strings, unknown escapes, unpaired UTF-16 surrogates in \u escapes,
 * text that is not valid UTF-8 (overlong forms, encoded surrogates, above
 * U+10FFFF), duplicate keys in one object (RFC 8259 says names SHOULD be
 * unique; lockrun's output must not repeat one), and nesting deeper than
 * 256. Strings are decoded to UTF-8; a decoded \u0000 ends json_str()'s C
 * string early (no lockrun field should carry one).
 */

struct json;                                   /* a parsed value tree */
struct json *json_parse(const char *text, char *err, size_t n);   /* NULL + err on invalid */
void json_free(struct json *j);
const struct json *json_get(const struct json *obj, const char *key); /* NULL if absent/not object */
int json_is(const struct json *j, const char *type); /* "object","array","string","number","bool","null" */
const char *json_str(const struct json *j);     /* NULL unless string */
int json_num(const struct json *j, double *out); /* 0 ok, -1 not number */
size_t json_len(const struct json *arr);         /* array length, 0 otherwise */
const struct json *json_at(const struct json *arr, size_t i);
/* Parse every line of text as one JSON value each; calls fn for each; returns the number of lines, -1 if any line is invalid (err set). */
long json_lines(const char *text, int (*fn)(const struct json *, void *), void *arg, char *err, size_t n);

/* Also: json_bool() reads true/false (0 ok, -1 not a bool); json_keys()
 * is the number of members of an object (0 otherwise) and json_key()
 * the name of member i, in document order. */
int json_bool(const struct json *j, int *out);
size_t json_keys(const struct json *obj);
const char *json_key(const struct json *obj, size_t i);

#endif

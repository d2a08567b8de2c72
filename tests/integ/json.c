/* SPDX-License-Identifier: BSD-2-Clause */
/* json.c -- a strict RFC 8259 JSON parser for the tests (see json.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define JSON_MAX_DEPTH 256

enum jtype { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct json {
	enum jtype	  type;
	int		  b;		/* J_BOOL */
	double		  num;		/* J_NUMBER */
	char		 *s;		/* J_STRING, NUL-terminated UTF-8 */
	struct json	**items;	/* J_ARRAY elements, J_OBJECT values */
	char		**keys;		/* J_OBJECT names, parallel to items */
	size_t		  n;
	size_t		  cap;		/* room in items and keys */
};

struct parser {
	const char	*text;
	const char	*p;
	const char	*end;
	char		*err;
	size_t		 errn;
	int		 failed;
};

static struct json *parse_value(struct parser *ps, int depth);

/* Record the first error, with its byte offset; return NULL. */
static struct json *
fail(struct parser *ps, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	if (ps->failed)
		return NULL;
	ps->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ps->err != NULL && ps->errn > 0)
		snprintf(ps->err, ps->errn, "at byte %zu: %s",
		    (size_t)(ps->p - ps->text), msg);
	return NULL;
}

/* Skip the four whitespace characters RFC 8259 allows. */
static void
skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	    *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* A new node of type t, or NULL (and an error) when out of memory. */
static struct json *
node(struct parser *ps, enum jtype t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (j == NULL)
		return fail(ps, "out of memory");
	j->type = t;
	return j;
}

/* Match the literal word at p (true, false, null). */
static struct json *
parse_word(struct parser *ps)
{
	static const struct { const char *w; enum jtype t; int b; } words[] = {
		{ "true", J_BOOL, 1 }, { "false", J_BOOL, 0 }, { "null", J_NULL, 0 },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t len = strlen(words[i].w);
		struct json *j;

		if ((size_t)(ps->end - ps->p) < len ||
		    memcmp(ps->p, words[i].w, len) != 0)
			continue;
		if ((j = node(ps, words[i].t)) == NULL)
			return NULL;
		j->b = words[i].b;
		ps->p += len;
		return j;
	}
	return fail(ps, "unexpected character '%c'", *ps->p);
}

/* Skip a run of digits; return how many there were. */
static size_t
digits(struct parser *ps)
{
	const char *s = ps->p;

	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return (size_t)(ps->p - s);
}

/* number = [ minus ] int [ frac ] [ exp ]; int = zero / digit1-9 *DIGIT. */
static struct json *
parse_number(struct parser *ps)
{
	const char *start = ps->p;
	char buf[512];
	struct json *j;
	size_t len;

	if (*ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0') {
		ps->p++;
		if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			return fail(ps, "leading zero in a number");
	} else if (digits(ps) == 0)
		return fail(ps, "digit expected in a number");
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (digits(ps) == 0)
			return fail(ps, "digit expected after '.'");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (digits(ps) == 0)
			return fail(ps, "digit expected in an exponent");
	}
	if ((len = (size_t)(ps->p - start)) >= sizeof(buf))
		return fail(ps, "number too long");
	memcpy(buf, start, len);
	buf[len] = '\0';
	if ((j = node(ps, J_NUMBER)) == NULL)
		return NULL;
	j->num = strtod(buf, NULL);	/* the grammar was checked above */
	return j;
}

/* Read four hex digits at p into *u. */
static int
hex4(struct parser *ps, unsigned *u)
{
	*u = 0;
	if (ps->end - ps->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;
		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* Append code point cp to out as UTF-8; return the bytes written. */
static size_t
put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decode \uXXXX (p just past the 'u'), pairing surrogates, into out. */
static int
unicode_escape(struct parser *ps, char *out, size_t *w)
{
	unsigned hi, lo;

	if (hex4(ps, &hi) == -1)
		return fail(ps, "bad \\u escape"), -1;
	if (hi >= 0xDC00 && hi <= 0xDFFF)
		return fail(ps, "unpaired low surrogate"), -1;
	if (hi < 0xD800 || hi > 0xDBFF) {
		*w += put_utf8(out + *w, hi);
		return 0;
	}
	if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
		return fail(ps, "unpaired high surrogate"), -1;
	ps->p += 2;
	if (hex4(ps, &lo) == -1)
		return fail(ps, "bad \\u escape"), -1;
	if (lo < 0xDC00 || lo > 0xDFFF)
		return fail(ps, "high surrogate not followed by a low one"), -1;
	*w += put_utf8(out + *w,
	    0x10000 + (((unsigned long)hi - 0xD800) << 10) + (lo - 0xDC00));
	return 0;
}

/* Check one UTF-8 sequence of 2..4 bytes at p (p[0] >= 0x80), copy it to
 * out and advance; reject overlong forms, surrogates, > U+10FFFF. */
static int
utf8_seq(struct parser *ps, char *out, size_t *w)
{
	const unsigned char *u = (const unsigned char *)ps->p;
	size_t avail = (size_t)(ps->end - ps->p), len;
	unsigned long cp, min;

	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		len = 2, cp = u[0] & 0x1F, min = 0x80;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		len = 3, cp = u[0] & 0x0F, min = 0x800;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		len = 4, cp = u[0] & 0x07, min = 0x10000;
	else
		return fail(ps, "invalid UTF-8 byte 0x%02x", u[0]), -1;
	if (avail < len)
		return fail(ps, "truncated UTF-8 sequence"), -1;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return fail(ps, "invalid UTF-8 continuation"), -1;
		cp = (cp << 6) | (u[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return fail(ps, "invalid UTF-8 code point"), -1;
	memcpy(out + *w, ps->p, len);
	*w += len;
	ps->p += len;
	return 0;
}

/* Decode one escape (p just past the backslash) into out. */
static int
escape(struct parser *ps, char *out, size_t *w)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	char c;

	if (ps->p >= ps->end)
		return fail(ps, "unterminated string"), -1;
	c = *ps->p++;
	if (c == 'u')
		return unicode_escape(ps, out, w);
	if (c == '\0' || (hit = strchr(from, c)) == NULL)
		return ps->p--, fail(ps, "unknown escape"), -1;
	out[(*w)++] = to[hit - from];
	return 0;
}

/* Parse a string (p at the opening quote) into a new C string. Decoded
 * text is never longer than its source, so the source length bounds it. */
static char *
parse_cstring(struct parser *ps)
{
	const char *q;
	char *out;
	size_t w = 0;

	ps->p++;
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < ps->end)
			q++;
	if ((out = malloc((size_t)(q - ps->p) + 1)) == NULL)
		return fail(ps, "out of memory"), NULL;
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			free(out);
			return fail(ps, "unterminated string"), NULL;
		}
		c = (unsigned char)*ps->p;
		if (c == '"')
			break;
		if (c < 0x20) {
			free(out);
			return fail(ps, "control character 0x%02x in a string", c), NULL;
		}
		if ((c == '\\' && (ps->p++, escape(ps, out, &w) == -1)) ||
		    (c >= 0x80 && utf8_seq(ps, out, &w) == -1)) {
			free(out);
			return NULL;
		}
		if (c != '\\' && c < 0x80) {
			out[w++] = (char)c;
			ps->p++;
		}
	}
	ps->p++;
	out[w] = '\0';
	return out;
}

/* Grow a container to hold one more item (and key, for objects). */
static int
grow(struct parser *ps, struct json *j)
{
	struct json **items;
	char **keys;
	size_t cap;

	if (j->n < j->cap)
		return 0;
	cap = j->cap == 0 ? 4 : j->cap * 2;
	if ((items = realloc(j->items, cap * sizeof(*items))) == NULL)
		return fail(ps, "out of memory"), -1;
	j->items = items;
	if (j->type == J_OBJECT) {
		if ((keys = realloc(j->keys, cap * sizeof(*keys))) == NULL)
			return fail(ps, "out of memory"), -1;
		j->keys = keys;
	}
	j->cap = cap;
	return 0;
}

/* Expect ',' (return 1: another item) or the closing character (0). */
static int
next_item(struct parser *ps, char close, const char *what)
{
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ',') {
		ps->p++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == close)
			return fail(ps, "trailing comma in %s", what), -1;
		return 1;
	}
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	return fail(ps, "',' or '%c' expected in %s", close, what), -1;
}

/* array = [ value *( , value ) ] */
static struct json *
parse_array(struct parser *ps, int depth)
{
	struct json *j, *v;
	int more;

	if ((j = node(ps, J_ARRAY)) == NULL)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return j;
	}
	do {
		if (grow(ps, j) == -1 || (v = parse_value(ps, depth + 1)) == NULL) {
			json_free(j);
			return NULL;
		}
		j->items[j->n++] = v;
	} while ((more = next_item(ps, ']', "an array")) == 1);
	if (more == -1) {
		json_free(j);
		return NULL;
	}
	return j;
}

/* One member: string ':' value, appended to j; duplicates rejected. */
static int
parse_member(struct parser *ps, struct json *j, int depth)
{
	const char *at = ps->p;
	struct json *v;
	char *k;

	if (ps->p >= ps->end || *ps->p != '"')
		return fail(ps, "member name expected"), -1;
	if ((k = parse_cstring(ps)) == NULL)
		return -1;
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->keys[i], k) == 0) {
			ps->p = at;
			fail(ps, "duplicate key \"%s\"", k);
			free(k);
			return -1;
		}
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':') {
		free(k);
		return fail(ps, "':' expected"), -1;
	}
	ps->p++;
	if (grow(ps, j) == -1 || (v = parse_value(ps, depth + 1)) == NULL) {
		free(k);
		return -1;
	}
	j->keys[j->n] = k;
	j->items[j->n++] = v;
	return 0;
}

/* object = { [ member *( , member ) ] } */
static struct json *
parse_object(struct parser *ps, int depth)
{
	struct json *j;
	int more;

	if ((j = node(ps, J_OBJECT)) == NULL)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return j;
	}
	do {
		skip_ws(ps);
		if (parse_member(ps, j, depth) == -1) {
			json_free(j);
			return NULL;
		}
	} while ((more = next_item(ps, '}', "an object")) == 1);
	if (more == -1) {
		json_free(j);
		return NULL;
	}
	return j;
}

/* value, with the whitespace before it. */
static struct json *
parse_value(struct parser *ps, int depth)
{
	struct json *j;
	char *s;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "value expected");
	if ((*ps->p == '[' || *ps->p == '{') && depth >= JSON_MAX_DEPTH)
		return fail(ps, "nested deeper than %d", JSON_MAX_DEPTH);
	switch (*ps->p) {
	case '{':
		return parse_object(ps, depth);
	case '[':
		return parse_array(ps, depth);
	case '"':
		if ((s = parse_cstring(ps)) == NULL)
			return NULL;
		if ((j = node(ps, J_STRING)) == NULL) {
			free(s);
			return NULL;
		}
		j->s = s;
		return j;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return parse_number(ps);
	default:
		return parse_word(ps);
	}
}

/* Parse text[0..len) as one JSON text. */
static struct json *
parse_text(const char *text, size_t len, char *err, size_t n)
{
	struct parser ps = { text, text, text + len, err, n, 0 };
	struct json *j;

	if ((j = parse_value(&ps, 0)) == NULL)
		return NULL;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "trailing characters after the value");
		json_free(j);
		return NULL;
	}
	return j;
}

struct json *
json_parse(const char *text, char *err, size_t n)
{
	if (err != NULL && n > 0)
		err[0] = '\0';
	return parse_text(text, strlen(text), err, n);
}

void
json_free(struct json *j)
{
	if (j == NULL)
		return;
	for (size_t i = 0; i < j->n; i++) {
		json_free(j->items[i]);
		if (j->type == J_OBJECT)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->s);
	free(j);
}

const struct json *
json_get(const struct json *obj, const char *key)
{
	if (obj == NULL || obj->type != J_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

int
json_is(const struct json *j, const char *type)
{
	static const char *const names[] = {
		[J_NULL] = "null", [J_BOOL] = "bool", [J_NUMBER] = "number",
		[J_STRING] = "string", [J_ARRAY] = "array", [J_OBJECT] = "object",
	};

	return j != NULL && type != NULL && strcmp(names[j->type], type) == 0;
}

const char *
json_str(const struct json *j)
{
	return j != NULL && j->type == J_STRING ? j->s : NULL;
}

int
json_num(const struct json *j, double *out)
{
	if (j == NULL || j->type != J_NUMBER)
		return -1;
	*out = j->num;
	return 0;
}

int
json_bool(const struct json *j, int *out)
{
	if (j == NULL || j->type != J_BOOL)
		return -1;
	*out = j->b;
	return 0;
}

size_t
json_len(const struct json *arr)
{
	return arr != NULL && arr->type == J_ARRAY ? arr->n : 0;
}

const struct json *
json_at(const struct json *arr, size_t i)
{
	return arr != NULL && arr->type == J_ARRAY && i < arr->n ?
	    arr->items[i] : NULL;
}

size_t
json_keys(const struct json *obj)
{
	return obj != NULL && obj->type == J_OBJECT ? obj->n : 0;
}

const char *
json_key(const struct json *obj, size_t i)
{
	return obj != NULL && obj->type == J_OBJECT && i < obj->n ?
	    obj->keys[i] : NULL;
}

/*
 * Lines end at '\n'; a final line without one counts too, and text that
 * ends with '\n' has no empty line after it. An empty line elsewhere is
 * invalid (it holds no value). fn returns 0 to go on; anything else stops
 * the walk and json_lines returns -1 with err naming the line.
 */
long
json_lines(const char *text, int (*fn)(const struct json *, void *), void *arg,
    char *err, size_t n)
{
	const char *p = text;
	long lines = 0;

	if (err != NULL && n > 0)
		err[0] = '\0';
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char why[256];
		struct json *j;
		int rc;

		lines++;
		if ((j = parse_text(p, len, why, sizeof(why))) == NULL) {
			if (err != NULL && n > 0)
				snprintf(err, n, "line %ld: %s", lines, why);
			return -1;
		}
		rc = fn != NULL ? fn(j, arg) : 0;
		json_free(j);
		if (rc != 0) {
			if (err != NULL && n > 0)
				snprintf(err, n, "line %ld: rejected by the caller", lines);
			return -1;
		}
		p += len + (nl != NULL);
	}
	return lines;
}

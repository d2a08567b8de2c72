/* SPDX-License-Identifier: BSD-2-Clause */
/* json.h -- the one JSON writer: objects, one per line, for status
 * --json, history --json and the JSON log, to a stream or a bounded
 * buffer. */
#ifndef LR_JSON_H
#define LR_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * The fencing token is a JSON number in every output (status, history,
 * the log), never a string. acquire.lua refuses a fence at or above 2^53,
 * so every token is an integer a double holds exactly: JavaScript and
 * jq(1) read it unchanged, and it compares as a number. A token that is
 * not a decimal number (a value written by hand) is null.
 */

#define JSON_NULL_NUM	(-0x7fffffffffffffffLL - 1)	/* json_num(): null */

/* An object being written: to fp when fp is not NULL (whole), else into
 * buf[cap], where room is always kept for the closing "}\n". A member that
 * does not fit is left out whole, except a long string, which is cut
 * short at a character and still closed, so the line stays valid. */
struct lr_json {
	FILE	*fp;
	char	*buf;
	size_t	 cap, n;
	int	 first;		/* no member yet in the innermost object */
	int	 skip;		/* objects opened that did not fit */
};

/* Start an object: to fp, or into buf[cap] (cap > 2) when fp is NULL. */
void	json_begin(struct lr_json *j, FILE *fp, char *buf, size_t cap);


/* "key":"s", or "key":null when s is NULL. */
void	json_str(struct lr_json *j, const char *key, const char *s);

/* The same for the len bytes at s, which may hold any byte (a NUL too). */
void	json_strn(struct lr_json *j, const char *key, const char *s, size_t len);

/* "key":v, or "key":null when v is JSON_NULL_NUM. */
void	json_num(struct lr_json *j, const char *key, long long v);

/* "key":true or "key":false. */
void	json_bool(struct lr_json *j, const char *key, int v);

/* "key":{ : members until json_close() belong to the inner object. In a
 * buffer, room is kept for its closing brace; one that does not fit is
 * left out whole, members and all. */
void	json_open(struct lr_json *j, const char *key);
void	json_close(struct lr_json *j);

/* Close the object and end the line: "}\n". Returns the bytes in buf (0
 * when writing to a stream). */
size_t	json_end(struct lr_json *j);

#endif

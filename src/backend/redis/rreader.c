/* SPDX-License-Identifier: BSD-2-Clause */
/* rreader.c -- hiredis' reply reader, bounded (rreader.h).
 *
 * hiredis 0.14 builds a reply as it parses it and buffers a bulk string
 * until the whole of it has arrived: "*2147483647" makes it allocate an
 * array of two billion pointers, and "$4611686018427387904" followed by
 * endless bytes grows its buffer until the machine runs out of memory. The
 * reader's object functions are hiredis' own, each wrapped to count the
 * objects of the reply being parsed and to refuse an array announced
 * longer than the bound; the caller checks the unparsed bytes after each
 * feed. A refused reply is a protocol error: the connection is closed. */
#include <stdlib.h>

#include <hiredis/hiredis.h>

#include "backend/redis/rreader.h"

static redisReplyObjectFunctions base;		/* hiredis' own */
static redisReplyObjectFunctions bounded;	/* base, counted */

/* One more object in the reply: 0, or -1 (refused) past the bound. */
static int
count(const redisReadTask *t)
{
	struct rreader_bounds *b = t->privdata;

	if (b == NULL)
		return 0;
	if (++b->objects > b->max_objects) {
		b->refused = 1;
		return -1;
	}
	return 0;
}

static void *
bounded_string(const redisReadTask *t, char *s, size_t len)
{
	return count(t) == 0 ? base.createString(t, s, len) : NULL;
}

/* An array's announced length is refused before anything is allocated
 * for it (hiredis 0.14 hands it over as an int: a negative one is a length
 * that did not fit). */
static void *
bounded_array(const redisReadTask *t, int elements)
{
	struct rreader_bounds *b = t->privdata;

	if (b && (elements < 0 || (size_t)elements > b->max_objects)) {
		b->refused = 1;
		return NULL;
	}
	return count(t) == 0 ? base.createArray(t, elements) : NULL;
}

static void *
bounded_integer(const redisReadTask *t, long long v)
{
	return count(t) == 0 ? base.createInteger(t, v) : NULL;
}

static void *
bounded_nil(const redisReadTask *t)
{
	return count(t) == 0 ? base.createNil(t) : NULL;
}

struct redisReader *
rreader_new(struct rreader_bounds *b)
{
	redisReader *r = redisReaderCreate();

	if (r == NULL)
		return NULL;
	/* hiredis does not export its functions: take them from a reader */
	if (base.createString == NULL) {
		base = *r->fn;
		bounded = base;
		bounded.createString = bounded_string;
		bounded.createArray = bounded_array;
		bounded.createInteger = bounded_integer;
		bounded.createNil = bounded_nil;
	}
	r->fn = &bounded;
	r->privdata = b;
	if (b->max_objects == 0)
		b->max_objects = RREADER_OBJECTS_MAX;
	b->objects = 0;
	b->refused = 0;
	return r;
}

int
rreader_check(const struct redisReader *r, struct rreader_bounds *b)
{
	if (r->len - r->pos > RREADER_BYTES_MAX) {
		b->refused = 1;
		return -1;
	}
	return 0;
}

void
rreader_taken(struct rreader_bounds *b)
{
	b->objects = 0;
}

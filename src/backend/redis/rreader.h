/* SPDX-License-Identifier: BSD-2-Clause */
/* rreader.h -- hiredis' reply reader, bounded: a server (or anyone in the
 * path of a plaintext connection) cannot make lockrun hold more than a
 * few MiB for one reply, however the bytes arrive. */
#ifndef LR_RREADER_H
#define LR_RREADER_H

#include <stddef.h>

struct redisReader;

/* What one reply may hold: objects (strings, integers, nils and arrays,
 * nested ones included; an array's announced length counts against it
 * before its elements arrive), and bytes read but not parsed yet (a bulk
 * string is parsed only once it has arrived whole). lockrun's largest
 * replies are a SCAN page (1,000 keys asked for) and a history page; both
 * are far below these. */
#define RREADER_OBJECTS_MAX	65536
#define RREADER_BYTES_MAX	(1024 * 1024)

struct rreader_bounds {
	size_t	max_objects;	/* RREADER_OBJECTS_MAX unless raised */
	size_t	objects;	/* in the reply being parsed */
	int	refused;	/* a reply went past a bound */
};

/* A reader that refuses a reply past b's bounds (b is borrowed and must
 * outlive it; its count starts at 0). NULL when out of memory. */
struct redisReader *rreader_new(struct rreader_bounds *b);

/* After a feed: 0, or -1 (b->refused set) when more than RREADER_BYTES_MAX
 * bytes wait unparsed. */
int	rreader_check(const struct redisReader *r, struct rreader_bounds *b);

/* A reply was taken whole: the next one counts from 0. */
void	rreader_taken(struct rreader_bounds *b);

#endif

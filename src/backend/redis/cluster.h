/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster.h -- Redis Cluster arithmetic: which slot a key hashes to, and
 * what a MOVED or ASK reply says. Pure: libc only. */
#ifndef LR_CLUSTER_H
#define LR_CLUSTER_H

#include <stddef.h>

#define CLUSTER_SLOTS		16384
#define CLUSTER_MAX_REDIRECTS	5	/* MOVED/ASK followed for one command */

/* CRC16 as the Redis Cluster specification defines it (CCITT/XMODEM:
 * polynomial 0x1021, initial value 0, no reflection, no final xor). */
unsigned	cluster_crc16(const char *buf, size_t len);

/* The slot of key[0..len): the CRC16 of its hash tag -- what lies between
 * the first '{' and the first '}' after it, when that is not empty -- or
 * of the whole key, mod 16384. */
int	cluster_keyslot(const char *key, size_t len);

struct cluster_redirect {
	int	ask;		/* ASK (once, after ASKING); else MOVED (for good) */
	int	slot;
	char	host[256];	/* "": the host of the node that answered */
	int	port;
};

/* Parse an error reply "MOVED 3999 127.0.0.1:6381" or "ASK 3999 host:port"
 * (an IPv6 host is not bracketed: the port follows the last ':'). Returns
 * 1 with *r filled, 0 when msg is not a redirect, -1 when it names one but
 * does not parse. */
int	cluster_redirect_parse(const char *msg, struct cluster_redirect *r);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster.c -- Redis Cluster key slots and redirect replies; pure, libc
 * only. */
#include <stdio.h>
#include <string.h>

#include "backend/redis/cluster.h"
#include "core/url.h"

unsigned
cluster_crc16(const char *buf, size_t len)
{
	unsigned crc = 0;

	for (size_t i = 0; i < len; i++) {
		crc ^= (unsigned)(unsigned char)buf[i] << 8;
		for (int bit = 0; bit < 8; bit++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
		crc &= 0xffff;
	}
	return crc;
}

int
cluster_keyslot(const char *key, size_t len)
{
	const char *open = memchr(key, '{', len), *close;

	if (open != NULL) {
		size_t rest = len - (size_t)(open - key) - 1;
		close = memchr(open + 1, '}', rest);
		if (close != NULL && close > open + 1) {
			key = open + 1;
			len = (size_t)(close - key);
		}
	}
	return (int)(cluster_crc16(key, len) % CLUSTER_SLOTS);
}

int
cluster_redirect_parse(const char *msg, struct cluster_redirect *r)
{
	const char *slot, *addr, *colon;
	size_t hostlen;

	size_t code = strcspn(msg, " ");

	memset(r, 0, sizeof(*r));
	if (code == 5 && strncmp(msg, "MOVED", 5) == 0)
		slot = msg + 5;
	else if (code == 3 && strncmp(msg, "ASK", 3) == 0) {
		r->ask = 1;
		slot = msg + 3;
	} else
		return 0;
	if (*slot++ != ' ' || (addr = strchr(slot, ' ')) == NULL ||
	    url_decimal(slot, (size_t)(addr - slot), 0, CLUSTER_SLOTS - 1, &r->slot) != 0)
		return -1;
	addr++;
	if ((colon = strrchr(addr, ':')) == NULL ||
	    url_decimal(colon + 1, strcspn(colon + 1, " "), 1, 65535, &r->port) != 0)
		return -1;
	if ((hostlen = (size_t)(colon - addr)) >= sizeof(r->host) ||
	    memchr(addr, ' ', hostlen) != NULL)
		return -1;
	memcpy(r->host, addr, hostlen);
	r->host[hostlen] = '\0';
	/* "?": the node has no endpoint of the type asked for (Redis 7
	 * cluster-preferred-endpoint-type); "" is the node that answered */
	return strcmp(r->host, "?") == 0 ? -1 : 1;
}

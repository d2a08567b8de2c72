/* SPDX-License-Identifier: BSD-2-Clause */
/* peers.c -- which of the listener's clients makes room (peers.h). */
#include <string.h>

#include <netinet/in.h>

#include "web/peers.h"

static void
key_of(const struct sockaddr *sa, struct peer *p)
{
	memset(p->addr, 0, sizeof(p->addr));
	p->family = sa ? sa->sa_family : AF_UNSPEC;
	if (p->family == AF_INET)
		memcpy(p->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	else if (p->family == AF_INET6)
		memcpy(p->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
}

static int
same_addr(const struct peer *a, const struct peer *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

/* The oldest counted connection, of new's address when like is set. */
static struct peer *
oldest(struct peers *t, const struct peer *new, int like, size_t *count)
{
	struct peer *o = NULL;

	*count = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct peer *p = &t->p[i];

		if (p->dropped || (like && !same_addr(p, new)))
			continue;
		++*count;
		if (o == NULL || p->seq < o->seq)
			o = p;
	}
	return o;
}

int
peers_add(struct peers *t, int fd, const struct sockaddr *sa)
{
	struct peer new = { .fd = fd }, *o;
	size_t count;

	if (t->n == PEERS_MAX)
		return fd;
	key_of(sa, &new);
	new.seq = ++t->seq;
	if ((o = oldest(t, &new, 1, &count)) != NULL && count < t->per_addr_max)
		o = NULL;
	if (o == NULL && (o = oldest(t, &new, 0, &count)) != NULL && count < t->all_max)
		o = NULL;
	t->p[t->n++] = new;
	if (o == NULL)
		return -1;
	o->dropped = 1;
	return o->fd;
}

void
peers_remove(struct peers *t, int fd)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].fd == fd) {
			t->p[i] = t->p[--t->n];
			return;
		}
}

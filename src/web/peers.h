/* SPDX-License-Identifier: BSD-2-Clause */
/* peers.h -- the listener's clients, and which one makes room for a
 * newcomer: a cap on all of them and on those of one address, kept by
 * closing the oldest rather than refusing the newest, so that clients
 * holding their share (trickling a request, reading nothing) cannot keep
 * a monitor's /healthz out. */
#ifndef LR_WEB_PEERS_H
#define LR_WEB_PEERS_H

#include <stddef.h>

#include <sys/socket.h>

#define PEERS_MAX	256	/* connections tracked; more are refused */

struct peer {
	int			 fd;
	int			 dropped;	/* chosen to close; no longer counted */
	unsigned long long	 seq;		/* order of arrival */
	int			 family;
	unsigned char		 addr[16];	/* IPv4 or IPv6; empty for unix */
};

struct peers {
	size_t			 all_max;	/* counted connections at most... */
	size_t			 per_addr_max;	/* ...and of one address */
	size_t			 n;
	unsigned long long	 seq;
	struct peer		 p[PEERS_MAX];
};

/* Add the connection fd from sa. Returns the descriptor of a connection
 * to close so that the caps hold: the oldest of sa's address when that
 * address has per_addr_max, else the oldest of all when all_max are
 * counted, else -1; fd itself when the table is full. The one chosen is
 * marked dropped and no longer counted; it stays until peers_remove(). */
int peers_add(struct peers *t, int fd, const struct sockaddr *sa);

/* The connection fd closed. */
void peers_remove(struct peers *t, int fd);

#endif

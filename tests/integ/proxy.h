/* SPDX-License-Identifier: BSD-2-Clause */
/* proxy.h -- a TCP relay between lockrun and Redis, in a process of its own,
 * to inject network faults: freeze it (a stalled network or server), thaw
 * it, or cut it (every connection breaks, new ones are refused).
 *
 *	struct proxy p;
 *	cr_assert(proxy_start(&p, fx.port) == 0);
 *	lr = LR_START("--redis", p.url, ...);	   lockrun talks to Redis through p
 *	proxy_freeze(&p);			   bytes now wait in the kernel
 *	...					   the test still reaches Redis on fx.sock
 *	proxy_thaw(&p);				   and they flow again
 *	proxy_cut(&p);				   also safe in a teardown
 */
#ifndef LR_PROXY_H
#define LR_PROXY_H

#include <sys/types.h>

struct proxy {
	pid_t	pid;		/* the relay process; 0 before start and after a cut */
	int	port;		/* where it listens, on 127.0.0.1 */
	char	url[64];	/* redis://127.0.0.1:PORT */
};

/* Listen on a free 127.0.0.1 port and fork the relay, which connects every
 * connection it accepts to 127.0.0.1:target_port and copies bytes both
 * ways until either side closes, then closes both. The socket listens
 * before this returns, with a backlog: a client may connect at once, and
 * while the relay is frozen its connect() still succeeds and its bytes
 * wait. The relay dies with the process that started it
 * (PR_SET_PDEATHSIG). Returns 0, or -1 (and prints why) with p->pid 0. */
int	proxy_start(struct proxy *p, int target_port);

/* proxy_start(), listening on port (0: any free one): a relay started
 * again where a cut one was, for a server that comes back. */
int	proxy_start_on(struct proxy *p, int target_port, int port);

/* SIGSTOP the relay and wait until /proc shows it stopped (state 'T'),
 * so that from the return on it relays nothing. Fails the test if it does
 * not stop within 30 s. */
void	proxy_freeze(struct proxy *p);

/* SIGCONT: relaying resumes, starting with whatever waited. */
void	proxy_thaw(struct proxy *p);

/* SIGKILL the relay (frozen or not) and reap it: every relayed connection
 * breaks and new connections are refused. A no-op when p->pid is 0 (never
 * started, or already cut), so a teardown may always call it. */
void	proxy_cut(struct proxy *p);

/* Bytes that clients have sent through the relay and that it has not read
 * yet, summed over its accepted connections (from /proc/net/tcp). While
 * it is frozen, a value above 0 means a request is held in it. */
long	proxy_pending(const struct proxy *p);

#endif

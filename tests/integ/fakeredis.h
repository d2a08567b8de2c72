/* SPDX-License-Identifier: BSD-2-Clause */
/* fakeredis.h -- a server that speaks just enough RESP to be hostile: it
 * answers the commands lockrun sends from a script, one answer a command,
 * and some answers never end.
 *
 *	const char *script[] = { FAKE_ACQUIRED, "!endless-bulk", NULL };
 *	struct fakeredis f;
 *	cr_assert(fakeredis_start(&f, script) == 0);
 *	lr = LR_START("--url", f.url, ...);	acquires, then its renewal gets
 *						a bulk string that never ends
 *	fakeredis_stop(&f);
 */
#ifndef LR_FAKEREDIS_H
#define LR_FAKEREDIS_H

#include <sys/types.h>

/* acquire.lua's answer for a lock taken, with token 1 */
#define FAKE_ACQUIRED	"*2\r\n:1\r\n:1\r\n"

struct fakeredis {
	pid_t	pid;		/* the server process; 0 when not running */
	int	port;		/* where it listens, on 127.0.0.1 */
	char	url[64];	/* redis://127.0.0.1:PORT */
};

/* Listen on a free 127.0.0.1 port and fork the server. It takes one
 * connection at a time and answers the Nth command it reads (counted over
 * all connections) with script[N], and every later one with the last
 * entry. An entry is RESP sent as it is, or one of:
 *	"!endless-bulk"	a bulk string of 2^62 bytes, sent until the client
 *			goes away
 *	"!endless-array"	an array of 100,000,000 integers, likewise
 *	"!huge-array"	"*2147483647", then nothing (the connection stays)
 *	"!scan-forever"	a SCAN page of 1,000 fresh keys under cursor 1, so
 *			that a SCAN never ends
 * The server dies with the process that started it. Returns 0, or -1. */
int	fakeredis_start(struct fakeredis *f, const char *const script[]);

/* Kill the server and reap it; a no-op when it is not running. */
void	fakeredis_stop(struct fakeredis *f);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* rscript.h -- running the lock's Lua scripts over one connection, one
 * call or many pipelined (rscript.c), for rlock.c: EVALSHA, the body by
 * EVAL when Redis does not know it, a busy server asked again, WAIT
 * behind a write that must reach replicas. */
#ifndef LR_RSCRIPT_H
#define LR_RSCRIPT_H

#include <stddef.h>

#include "core/err.h"
#include "backend/lock.h"
#include "backend/redis/rconn.h"

struct redisReply;

#define SCRIPT_ARGS_MAX	10	/* keys and arguments of one call */

/* One script call: what is sent, and what came back. how and word are
 * room for arguments that argv points into. */
struct script_call {
	const char		*argv[3 + SCRIPT_ARGS_MAX];	/* EVALSHA sha nkeys ... */
	int			 argc;
	struct lr_lock		*l;	/* with l->wait_replicas: WAIT behind it */
	int			 ok;	/* WAIT's: enough replicas acknowledged */
	struct redisReply	*r;	/* the reply (not an error), or NULL with e */
	struct lr_err		 e;
	int			 again;	/* rscript_calls()'s: to send (again) */
	char			 how[1000], word[400];
	char			 story[256];	/* release: its retention and reason */
};

/* Make c the call EVALSHA sha nkeys args[0..nargs-1] (nargs at most
 * SCRIPT_ARGS_MAX), with WAIT behind it when l->wait_replicas (l may be
 * NULL). */
void	rscript_call_init(struct script_call *c, const char *sha, const char *nkeys,
	    const char **args, int nargs, struct lr_lock *l);

/* Send the n calls c[i] of one script (body: its text) in one write, and
 * read their replies in order: one round trip. The calls answered
 * NOSCRIPT (Redis restarted, or SCRIPT FLUSH) are sent again, the first
 * as EVAL with the body, which loads it, the others by EVALSHA behind
 * it: one round trip more; one that finds the server busy (BUSY, LOADING,
 * ...) is sent again, with backoff, until the command timeout has passed
 * since the first write; each sends again the same keys and arguments. Each c[i] then has its reply in r, or
 * NULL with e: a refusal (its kind rerr.h's), or a connection that broke
 * (lr_err_broke(e); for it and for every call whose reply had not come).
 * what names the script in messages. */
void	rscript_calls(struct lr_conn *rc, const char *what, const char *body,
	    struct script_call *c, size_t n);

/* Queue WAIT for l's replicas (the writes before it on this connection).
 * Returns 0, or -1 when the connection is closed. */
int	rscript_wait_append(struct lr_conn *rc, const struct lr_lock *l);

/* What WAIT answered (w): 1 when at least l->wait_replicas replicas
 * acknowledged, else 0 with why in l->unacked. */
int	rscript_acked(struct lr_lock *l, const struct redisReply *w);

/* An error reply to what, as one line into e: never flagged as a
 * transport failure, so on_server_error: run does not apply. Returns -1. */
int	rscript_refused(const struct lr_conn *rc, const char *what, const char *reply,
	    struct lr_err *e);

#endif

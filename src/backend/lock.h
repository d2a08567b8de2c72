/* SPDX-License-Identifier: BSD-2-Clause */
/* lock.h -- the lock in Redis: acquire, release, fencing token. */
#ifndef LR_LOCK_H
#define LR_LOCK_H

#include "core/err.h"
#include "core/keys.h"
#include "backend/redis/rconn.h"

enum lock_outcome {
	LOCK_ACQUIRED,
	LOCK_HELD,		/* no-overlap: a copy is still running */
	LOCK_SLOT_TAKEN,	/* one-server: this slot already ran */
	LOCK_UNCONFIRMED,	/* taken, but fewer replicas than wait_replicas
				 * acknowledged it (why in unacked): release it */
};

enum renew_outcome {
	RENEW_OK,		/* extended */
	RENEW_RETAKEN,		/* the key had vanished; it is ours again */
	RENEW_LOST,		/* another run holds the key */
	RENEW_LOST_LATER,	/* the key had vanished and a later token was
				 * drawn: another run took it and let it go */
	RENEW_UNCONFIRMED,	/* extended (or retaken) on the master, but fewer
				 * replicas than wait_replicas acknowledged it
				 * (why in unacked): the lease is not extended */
};

struct lr_lock {
	struct lr_keys	keys;
	long long	ttl_ms;		/* stable key TTL; 0: no-overlap off */
	long long	slot_ttl_ms;	/* slot key TTL; 0: one-server off */
	long long	hist_cap;	/* history entries kept; 0: no history */
	long long	hist_ttl_ms;	/* the history's life after its last write */
	int		quiet_held;	/* this acquire will be retried if the lock is
					 * held (--wait): do not record the skip */
	char		id[33];		/* 128 random bits, hex: the owner check */
	char		owner[300];	/* "host pid start", stored after id and token */
	long long	token;		/* fencing token, once acquired */
	char		token_s[24];	/* the same, in digits */
	char		value[400];	/* what acquire stored: "id token owner" */
	char		holder[512];	/* the holder's value, when skipped or lost */
	int		renew_eval;	/* the renewal in flight was sent as EVAL */
	long long	wait_replicas;	/* WAIT for them after acquire and renew; 0: no */
	long long	wait_timeout_ms;
	char		unacked[300];	/* "only 0 of 1 replicas acknowledged within
					 * 100ms", for LOCK_/RENEW_UNCONFIRMED */
	/* the renewal in flight, when a WAIT follows it */
	int		renew_skip;	/* replies to drop first: the WAIT behind a
					 * renewal that was sent again as EVAL */
	int		renew_waiting;	/* the renewal's reply is in; WAIT's is next */
	int		renew_rc;	/* lock_renew_recv()'s answer, held until then */
	enum renew_outcome renew_out;
	struct lr_err	renew_err;
};

/* Draw the owner id (getrandom(2) without blocking, else /dev/urandom,
 * else the clocks and pid) and describe this process: "host pid start". */
void	lock_init(struct lr_lock *l, const char *host);

/* The lock was taken with token: set l's token, token_s and value ("id
 * token owner"), for every backend alike. */
void	lock_took(struct lr_lock *l, long long token);

/* Decide in one round trip: check the stable key, check the slot key,
 * take what is asked for and draw a fencing token (acquire.lua); with
 * wait_replicas, WAIT follows in the same write, and a lock taken that
 * too few replicas acknowledged is LOCK_UNCONFIRMED (still held: the
 * caller releases it). A busy
 * server (BUSY, LOADING, ...) is asked again until the command timeout.
 * Returns 0 with *out set, or -1 with e = EX_UNAVAILABLE: e->transport
 * set when Redis could not be reached, clear when it refused. */
int	lock_acquire(struct lr_conn *rc, struct lr_lock *l, enum lock_outcome *out,
	    struct lr_err *e);

/* Send a renewal of the stable key (renew.lua), and WAIT behind it with
 * wait_replicas, without waiting for the answer. Returns 0, or -1 with e
 * when the connection is broken. */
int	lock_renew_send(struct lr_conn *rc, struct lr_lock *l, struct lr_err *e);

/* Read what has arrived for the renewal in flight (call when the socket is
 * readable). Returns 1 with *out set, 0 when the answer is not complete
 * (with wait_replicas: until WAIT's reply is in too)
 * (or Redis lost the script and it was sent again in full), -1 with e:
 * e->transport set when the connection broke (close it), clear when Redis
 * answered with an error (the connection is fine). */
int	lock_renew_recv(struct lr_conn *rc, struct lr_lock *l, enum renew_outcome *out,
	    struct lr_err *e);

/* How a run ended, for the history. */
struct lr_ending {
	long long	keep_ms;	/* the key must live this long yet (--min-hold) */
	int		status;		/* lockrun's exit status */
	long long	duration_ms;	/* since the lock was taken */
	const char	*event;		/* "released" or "stopped-timeout" */
};

/* Record the ending in the history and free the stable key if it is still
 * ours (release.lua): delete it, or with keep_ms > 0 let it expire after
 * keep_ms. A slot key is never released; with neither a stable key nor a
 * history there is nothing to send. Returns 1 released, 0 not ours or
 * nothing to release, -1 with e = EX_UNAVAILABLE. */
int	lock_release(struct lr_conn *rc, const struct lr_lock *l,
	    const struct lr_ending *end, struct lr_err *e);

/* `lockrun unlock`: free key (k's stable key or one of its slot keys) if
 * it still holds the value expect, and move the fencing counter past the
 * holder's token, so the holder finds its lock lost at its next renewal;
 * record who did it ("host pid") in the history. A stable key whose
 * holder may be running becomes its tombstone for the rest of the lease
 * instead (unlock.lua). Returns 1 freed, 3 tombstoned (the holder is told
 * to stop), 2 not freed as it holds another value now, each with the
 * key's value in holder[n]; 0 when the key was free; -1 with e. */
int	lock_unlock(struct lr_conn *rc, const struct lr_keys *k, const char *key,
	    const char *expect, const char *who, long long hist_cap,
	    long long hist_ttl_ms, char *holder, size_t n, struct lr_err *e);

/* `lockrun check`: ask Redis whether a run could use k's keys -- their
 * types and, on Redis 7, the user's permissions (check.lua, read-only) --
 * and whether this server takes writes (ROLE). Writes the problems found
 * to buf[n], one per line. Returns their number, or -1 with e. */
int	lock_probe(struct lr_conn *rc, const struct lr_keys *k, int one_server,
	    char *buf, size_t n, struct lr_err *e);

#endif

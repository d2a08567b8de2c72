/* SPDX-License-Identifier: BSD-2-Clause */
/* rlock.h -- the lock in Redis (rlock.c): the Lua scripts that take,
 * renew, release and unlock it over one connection, for redis.c. */
#ifndef LR_RLOCK_H
#define LR_RLOCK_H

#include <stddef.h>

#include "core/err.h"
#include "core/keys.h"
#include "backend/lock.h"
#include "backend/redis/rconn.h"

/* Decide in one round trip: check the stable key, check the slot key,
 * take what is asked for and draw a fencing token (acquire.lua); with
 * wait_replicas, WAIT follows in the same write, and a lock taken that
 * too few replicas acknowledged is LOCK_UNCONFIRMED (still held: the
 * caller releases it). A busy
 * server (BUSY, LOADING, ...) is asked again until the command timeout.
 * Returns 0 with *out set, or -1 with e = EX_UNAVAILABLE: lr_err_broke(e)
 * when Redis could not be reached, else its refusal's kind (rerr.h), or
 * LR_ERR_DATA for a reply past the bound (rlink.h). */
int	rlock_acquire(struct lr_conn *rc, struct lr_lock *l, enum lock_outcome *out,
	    struct lr_err *e);

/* The acquires of n locks in one write and one round trip
 * (rscript_calls(); with wait_replicas, WAIT behind each), each decided
 * as rlock_acquire() decides it, into rcs[i]: 0 with out[i], or -1 with
 * errs[i] (when the connection broke, every lock whose answer had not
 * come, each in doubt as rlock_acquire() says). n > 1 not on a Cluster,
 * whose redirects are followed one command at a time. rlock_acquire() is
 * its n = 1. */
void	rlock_acquire_many(struct lr_conn *rc, struct lr_lock *const *l, size_t n,
	    enum lock_outcome *out, int *rcs, struct lr_err *errs);

/* Send a renewal of the stable key (renew.lua), and WAIT behind it with
 * wait_replicas, without waiting for the answer. Returns 0, or -1 with e
 * when the connection is broken. */
int	rlock_renew_send(struct lr_conn *rc, struct lr_lock *l, struct lr_err *e);

/* Read what has arrived for the renewal in flight (call when the socket is
 * readable). Returns 1 with *out set, 0 when the answer is not complete
 * (with wait_replicas: until WAIT's reply is in too)
 * (or Redis lost the script and it was sent again in full), -1 with e:
 * lr_err_broke(e) when the connection broke (close it), not when Redis
 * answered with an error (the connection is fine). */
int	rlock_renew_recv(struct lr_conn *rc, struct lr_lock *l, enum renew_outcome *out,
	    struct lr_err *e);

/* Renew n stable keys in one round trip (renew_many.lua: renew.lua for
 * each), without WAIT and not on a Cluster (the keys are in many slots).
 * Returns 0 with each lease's answer as rlock_renew_recv()'s (rcs[i]: 1
 * with out[i], or -1 with errs[i]), or -1 with e when the call failed
 * as a whole (lr_err_broke(e) when the connection broke). */
int	rlock_renew_many(struct lr_conn *rc, struct lr_lock *const *l, size_t n,
	    enum renew_outcome *out, int *rcs, struct lr_err *errs, struct lr_err *e);

/* Record the ending in the history and free the stable key if it is still
 * ours (release.lua): delete it, or with keep_ms > 0 let it expire after
 * keep_ms. A slot key is never released; with neither a stable key nor a
 * history there is nothing to send. Returns 1 released, 0 not ours or
 * nothing to release, -1 with e = EX_UNAVAILABLE. */
int	rlock_release(struct lr_conn *rc, const struct lr_lock *l,
	    const struct lr_ending *end, struct lr_err *e);

/* The releases of n locks, l[i] ending as end[i] says, in one round trip:
 * rcs[i] as rlock_release() returns (-1 with errs[i]). rlock_release() is
 * its n = 1. */
void	rlock_release_many(struct lr_conn *rc, const struct lr_lock *const *l,
	    const struct lr_ending *end, size_t n, int *rcs, struct lr_err *errs);

/* `lockrun unlock`: free key (k's stable key or one of its slot keys) if
 * it still holds the value expect, and move the fencing counter past the
 * holder's token, so the holder finds its lock lost at its next renewal;
 * record who did it ("host pid") in the history. A stable key whose
 * holder may be running becomes its tombstone for the rest of the lease
 * instead (unlock.lua). Returns 1 freed, 3 tombstoned (the holder is told
 * to stop), 2 not freed as it holds another value now, each with the
 * key's value in holder[n]; 0 when the key was free; -1 with e. */
int	rlock_unlock(struct lr_conn *rc, const struct lr_keys *k, const char *key,
	    const char *expect, const char *who, long long hist_cap,
	    long long hist_ttl_ms, char *holder, size_t n, struct lr_err *e);

/* `lockrun pause` / `resume` (ops.h's pause; pause.lua): one round trip.
 * Returns 1 done, 0 nothing to resume or an end already past, each with
 * the value into buf[n]; -1 with e. */
int	rlock_pause(struct lr_conn *rc, const struct lr_keys *k, const struct lr_pause *p,
	    int resume, char *buf, size_t n, struct lr_err *e);
/* ops.h's missed, for one task: its won (0, 1, 2), or -1 with e. */
int	rlock_missed(struct lr_conn *rc, const struct lr_keys *k, const struct lr_missed *m,
	    struct lr_err *e);

/* `lockrun check`: ask Redis whether a run could use k's keys -- their
 * types and, on Redis 7, the user's permissions (check.lua, read-only) --
 * and whether this server takes writes (ROLE). Writes the problems found
 * to buf[n], one per line. Returns their number, or -1 with e. */
int	rlock_probe(struct lr_conn *rc, const struct lr_keys *k, int one_server,
	    char *buf, size_t n, struct lr_err *e);

#endif

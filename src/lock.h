/* lock.h -- the lock in Redis: acquire, release, fencing token. */
#ifndef LR_LOCK_H
#define LR_LOCK_H

#include "err.h"
#include "keys.h"
#include "rconn.h"

enum lock_outcome {
	LOCK_ACQUIRED,
	LOCK_HELD,		/* no-overlap: a copy is still running */
	LOCK_SLOT_TAKEN,	/* one-server: this slot already ran */
};

struct lr_lock {
	struct lr_keys	keys;
	long long	ttl_ms;		/* stable key TTL; 0: no-overlap off */
	long long	slot_ttl_ms;	/* slot key TTL; 0: one-server off */
	char		id[33];		/* 128 random bits, hex: the owner check */
	char		owner[300];	/* "host pid start", stored after id and token */
	long long	token;		/* fencing token, once acquired */
	char		holder[512];	/* the holder's value, when skipped */
};

/* Draw the owner id from getrandom(2) and describe this process. Returns
 * 0, or -1 with e = EX_OSERR. */
int	lock_init(struct lr_lock *l, struct lr_err *e);

/* Decide in one round trip: check the stable key, check the slot key,
 * take what is asked for and draw a fencing token (acquire.lua).
 * Returns 0 with *out set, or -1 with e = EX_UNAVAILABLE. */
int	lock_acquire(struct lr_conn *rc, struct lr_lock *l, enum lock_outcome *out,
	    struct lr_err *e);

/* Delete the stable key if it is still ours (release.lua); a slot key is
 * never released. Returns 1 released, 0 not ours or nothing to release,
 * -1 with e = EX_UNAVAILABLE. */
int	lock_release(struct lr_conn *rc, const struct lr_lock *l, struct lr_err *e);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* lock.h -- the lock as every backend holds it: its keys and settings,
 * the owner and fencing token, and the outcomes of taking, renewing and
 * releasing it (backend.h's operations). Redis's own calls are in
 * backend/redis/rlock.h. */
#ifndef LR_LOCK_H
#define LR_LOCK_H

#include "core/err.h"
#include "core/keys.h"

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

/* How a run ended, for the history. */
struct lr_ending {
	long long	keep_ms;	/* the key must live this long yet (--min-hold) */
	int		status;		/* lockrun's exit status */
	long long	duration_ms;	/* since the lock was taken */
	const char	*event;		/* "released" or "stopped-timeout" */
};

#endif

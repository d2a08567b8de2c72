/* SPDX-License-Identifier: BSD-2-Clause */
/* rerr.h -- what a Redis error reply means for lockrun: the one place that
 * tells a refusal from a busy server. Pure: no hiredis. */
#ifndef LR_RERR_H
#define LR_RERR_H

#include "core/err.h"

enum rerr_class {
	RERR_REFUSED,	/* a well-formed request refused (replica, cluster node,
			 * permission, wrong type, out of memory, ...): report
			 * it; never a reason to run without the lock */
	RERR_RETRY,	/* busy for now (BUSY, LOADING, TRYAGAIN, MASTERDOWN):
			 * ask again on the same connection, within the deadline */
	RERR_NOSCRIPT,	/* the script cache is empty: send the body */
};

/* Classify the error reply msg, as Redis sent it ("CODE text ..."), and
 * fill e with one line for the operator: what is wrong, in words, then
 * Redis's own text without the " script: <sha>, on @user_script:N." tail
 * that Redis 7 appends to errors raised inside a script. e->status is
 * EX_UNAVAILABLE and e->kind LR_ERR_REFUSED (Redis answered), LR_ERR_AUTH
 * for a password refused or wanted (NOAUTH, WRONGPASS), LR_ERR_DATA for
 * one task's key that holds what it should not (WRONGTYPE, BADFENCE):
 * by the reply's code word alone, never its text (a plain ERR is
 * LR_ERR_REFUSED; two are given a hint by their words, rerr.c); callers
 * put e->msg in their own line ("redis HOST: DOING: ..."). */
enum rerr_class rerr_classify(const char *msg, struct lr_err *e);

#endif

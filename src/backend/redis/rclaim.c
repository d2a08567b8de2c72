/* SPDX-License-Identifier: BSD-2-Clause */
/* rclaim.c -- a scheduler's slot claims in Redis (rclaim.h). */
#include <stdio.h>
#include <stdlib.h>

#include <hiredis/hiredis.h>

#include "backend/redis/rclaim.h"
#include "backend/redis/rscript.h"
#include "core/duration.h"
#include "scripts.h"

/* cl's claim.lua call into c. */
static void
claim_call(const struct lr_claim *cl, struct script_call *c)
{
	const char *args[] = { cl->keys->slot, cl->keys->hist, cl->keys->counts, c->how };

	snprintf(c->how, sizeof(c->how), "%lld %lld %lld %s %s %lld %s %s %lld %lld %lld",
	    cl->slot_ttl_ms, cl->hist_cap, cl->hist_ttl_ms, cl->keys->slot_iso, cl->host,
	    cl->pid, cl->at, cl->nonce, cl->deadline_ms, real_ms(), cl->clock_tol_ms);
	rscript_call_init(c, SCRIPT_CLAIM_SHA, "3", args, 4, NULL);
}

/* What c answered cl: won set (0 when the answer says nothing decided). */
static void
claim_answer(struct lr_claim *cl, struct script_call *c)
{
	redisReply *r = c->r;

	cl->won = cl->late = 0;
	cl->server_ms = 0;
	cl->holder[0] = '\0';
	if (r == NULL)
		return;
	if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
	    r->element[0]->type == REDIS_REPLY_INTEGER &&
	    r->element[2]->type == REDIS_REPLY_INTEGER) {
		cl->server_ms = r->element[2]->integer;
		cl->late = r->element[0]->integer == 4;
		if ((r->element[0]->integer == 1 || r->element[0]->integer == 2) &&
		    r->element[1]->type == REDIS_REPLY_STRING) {
			cl->won = (int)r->element[0]->integer;
			snprintf(cl->holder, sizeof(cl->holder), "%s", r->element[1]->str);
		}
	}
	freeReplyObject(r);
}

int
rclaim_many(struct lr_conn *rc, struct lr_claim *cl, size_t n, struct lr_err *e)
{
	struct script_call *c = calloc(n, sizeof(*c));
	int broke = 0;

	if (c == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < n; i++)
		claim_call(&cl[i], &c[i]);
	rscript_calls(rc, "claim", SCRIPT_CLAIM, c, n);
	for (size_t i = 0; i < n; i++) {
		if (c[i].r == NULL && !broke && lr_err_broke(&c[i].e)) {
			*e = c[i].e;
			broke = 1;
		}
		claim_answer(&cl[i], &c[i]);
	}
	free(c);
	return broke ? -1 : 0;
}

int
rclaim_schedulers(struct lr_conn *rc, const char *prefix, const char *me,
    long long window_ms, void (*cb)(void *arg, const char *name), void *arg,
    struct lr_err *e)
{
	char set[KEY_PREFIX_MAX + 16];
	struct script_call c;
	const char *args[] = { set, c.how };
	redisReply *r;

	snprintf(set, sizeof(set), "%sschedulers", prefix);
	snprintf(c.how, sizeof(c.how), "%lld %s", window_ms, me);
	rscript_call_init(&c, SCRIPT_SCHEDULERS_SHA, "1", args, 2, NULL);
	rscript_calls(rc, "schedulers", SCRIPT_SCHEDULERS, &c, 1);
	if ((r = c.r) == NULL) {
		*e = c.e;
		return -1;
	}
	if (r->type != REDIS_REPLY_ARRAY) {
		freeReplyObject(r);
		return lr_errf(e, EX_SOFTWARE, "redis %s: schedulers: unexpected reply",
		    rc->link.where);
	}
	for (size_t i = 0; i < r->elements; i++)
		if (r->element[i]->type == REDIS_REPLY_STRING)
			cb(arg, r->element[i]->str);
	freeReplyObject(r);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* rscript.c -- run Lua scripts by EVALSHA, one call or many in one write
 * (rscript.h), falling back to EVAL when Redis does not know them. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "core/lease.h"
#include "out/log.h"
#include "backend/redis/rerr.h"
#include "backend/redis/rscript.h"

int
rscript_refused(const struct lr_conn *rc, const char *what, const char *reply,
    struct lr_err *e)
{
	struct lr_err why;

	rerr_classify(reply, &why);
	return lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: %s", rc->link.where, what, why.msg);
}

int
rscript_acked(struct lr_lock *l, const redisReply *w)
{
	char within[32];
	struct lr_err why;

	if (w->type == REDIS_REPLY_INTEGER && w->integer >= l->wait_replicas)
		return 1;
	duration_format(l->wait_timeout_ms, within, sizeof(within));
	if (w->type == REDIS_REPLY_INTEGER)
		snprintf(l->unacked, sizeof(l->unacked), "only %lld of %lld replicas "
		    "acknowledged within %s", w->integer, l->wait_replicas, within);
	else if (w->type == REDIS_REPLY_ERROR) {
		rerr_classify(w->str, &why);
		/* the line is cut to fit, as before */
		snprintf(l->unacked, sizeof(l->unacked), "WAIT refused: %.*s",
		    (int)sizeof(l->unacked) - 15, why.msg);
	} else
		snprintf(l->unacked, sizeof(l->unacked), "WAIT: unexpected reply");
	return 0;
}

int
rscript_wait_append(struct lr_conn *rc, const struct lr_lock *l)
{
	char n[24], ms[24];
	const char *argv[] = { "WAIT", n, ms };

	snprintf(n, sizeof(n), "%lld", l->wait_replicas);
	snprintf(ms, sizeof(ms), "%lld", l->wait_timeout_ms);
	return rconn_append(rc, 3, argv);
}

void
rscript_call_init(struct script_call *c, const char *sha, const char *nkeys,
    const char **args, int nargs, struct lr_lock *l)
{
	c->argv[0] = "EVALSHA";
	c->argv[1] = sha;
	c->argv[2] = nkeys;
	for (int i = 0; i < nargs && i < SCRIPT_ARGS_MAX; i++)
		c->argv[3 + i] = args[i];
	c->argc = 3 + (nargs < SCRIPT_ARGS_MAX ? nargs : SCRIPT_ARGS_MAX);
	c->l = l;
	c->ok = 1;
	c->r = NULL;
}

static int
waits(const struct script_call *c)
{
	return c->l != NULL && c->l->wait_replicas > 0;
}

/* c's reply, and with WAIT behind it WAIT's (into c->ok): 0, or -1 with
 * c->e when the connection broke. */
static int
reply_read(struct lr_conn *rc, const char *what, struct script_call *c)
{
	redisReply *w;

	if ((c->r = rconn_reply(rc, what, &c->e)) == NULL)
		return -1;
	if (!waits(c))
		return 0;
	if ((w = rconn_reply(rc, what, &c->e)) == NULL) {
		freeReplyObject(c->r);
		c->r = NULL;
		return -1;
	}
	c->ok = rscript_acked(c->l, w);
	freeReplyObject(w);
	return 0;
}

/* c's reply was an error: to send again (NOSCRIPT: *lost set), or
 * refused. Returns 1 when it is to wait for a busy server, else 0. */
static int
answered_error(struct lr_conn *rc, const char *what, struct script_call *c,
    long long give_up, int *said, int *lost)
{
	struct lr_err why;
	int busy = 0;
	char d[32];

	switch (rerr_classify(c->r->str, &why)) {
	case RERR_NOSCRIPT:
		c->again = *lost = 1;
		break;
	case RERR_RETRY:
		if (!(*said)++)
			lr_event(LOG_INFO, "redis-busy", NULL, "redis %s: %s: %s; "
			    "asking again for up to %s", rc->link.where, what, why.msg,
			    duration_human(rc->link.command_timeout_ms, d, sizeof(d)));
		if (mono_ms() < give_up) {
			c->again = busy = 1;
			break;
		}
		/* FALLTHROUGH */
	case RERR_REFUSED:
		rscript_refused(rc, what, c->r->str, &c->e);
		break;
	}
	freeReplyObject(c->r);
	c->r = NULL;
	return busy;
}

/* Every call still to send failed as e. */
static void
fail_rest(struct script_call *c, size_t n, const struct lr_err *e)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].again) {
			c[i].again = 0;
			c[i].e = *e;
		}
}

void
rscript_calls(struct lr_conn *rc, const char *what, const char *body,
    struct script_call *c, size_t n)
{
	long long give_up = mono_ms() + rc->link.command_timeout_ms;
	int said = 0;

	for (size_t i = 0; i < n; i++)
		c[i].again = 1;
	for (int round = 0, lost = 0; ; round++) {
		int busy = 0, more = 0;

		/* Redis lost the script: the first call sent again takes its
		 * body (EVAL, which loads it), those behind it find it loaded */
		for (size_t i = 0; i < n && lost; i++)
			if (c[i].again) {
				c[i].argv[0] = "EVAL";
				c[i].argv[1] = body;
				lost = 0;
			}
		for (size_t i = 0; i < n; i++)
			if (c[i].again && (rconn_append(rc, c[i].argc, c[i].argv) != 0 ||
			    (waits(&c[i]) && rscript_wait_append(rc, c[i].l) != 0))) {
				struct lr_err e = LR_ERR_INIT;
				rconn_fail(rc, what, &e);
				fail_rest(c, n, &e);
				return;
			}
		for (size_t i = 0; i < n; i++) {
			if (!c[i].again)
				continue;
			c[i].again = 0;
			if (reply_read(rc, what, &c[i]) != 0) {
				struct lr_err rest = c[i].e;
				/* their replies are lost with the link, sent all
				 * the same: in doubt, whatever closed it (this
				 * call's reply over the bound is this call's) */
				if (!lr_err_unanswered(&rest))
					rest.kind = LR_ERR_TRANSPORT;
				fail_rest(c, n, &rest);
				return;
			}
			if (c[i].r->type == REDIS_REPLY_ERROR)
				busy |= answered_error(rc, what, &c[i], give_up, &said, &lost);
			more |= c[i].again;
		}
		if (!more)
			return;
		if (busy) {
			long long pause = lease_backoff_delay(round, 0.5), left = give_up - mono_ms();
			if (pause > left)
				pause = left > 0 ? left : 0;
			struct timespec ts = { pause / 1000, (pause % 1000) * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
}

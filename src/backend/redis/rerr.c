/* SPDX-License-Identifier: BSD-2-Clause */
/* rerr.c -- classify Redis error replies; pure. */
#include <string.h>

#include "backend/redis/rerr.h"

/* Error codes lockrun knows, with what each means for a run. A code is the
 * first word of the reply; the explanation is put in front of the reply's
 * own text. Codes not listed are refusals, explained by Redis's text. */
static const struct {
	const char	*code;
	enum rerr_class	 cls;
	const char	*explain;
	enum lr_err_kind kind;	/* LR_ERR_REFUSED when 0 */
} codes[] = {
	{ "NOSCRIPT",	RERR_NOSCRIPT,	"the script cache is empty", 0 },
	{ "BUSY",	RERR_RETRY,	"Redis is busy running a script", 0 },
	{ "LOADING",	RERR_RETRY,	"Redis is loading its dataset", 0 },
	{ "TRYAGAIN",	RERR_RETRY,	"the cluster asks to try again", 0 },
	{ "MASTERDOWN",	RERR_RETRY,	"this replica has lost its master", 0 },
	{ "READONLY",	RERR_REFUSED,	"this server is a read-only replica; point lockrun "
					"at the master", 0 },
	{ "MOVED",	RERR_REFUSED,	"this is a Redis Cluster node and the key lives "
					"on another node", 0 },
	{ "ASK",	RERR_REFUSED,	"this is a Redis Cluster node and the key is "
					"being moved to another node", 0 },
	{ "CLUSTERDOWN", RERR_REFUSED,	"the Redis Cluster is down", 0 },
	{ "CROSSSLOT",	RERR_REFUSED,	"this is a Redis Cluster node and the keys are "
					"on different slots", 0 },
	{ "NOPERM",	RERR_REFUSED,	"the Redis user lacks a permission lockrun needs "
					"(see lockrun(7), Redis permissions)", 0 },
	{ "NOAUTH",	RERR_REFUSED,	"Redis wants a password (password_file or "
					"LOCKRUN_REDIS_PASSWORD)", LR_ERR_AUTH },
	{ "WRONGPASS",	RERR_REFUSED,	"authentication refused", LR_ERR_AUTH },
	/* one task's keys: that task's request fails, no other's */
	{ "WRONGTYPE",	RERR_REFUSED,	"a key lockrun uses holds another type of value "
					"(does something else write under the prefix?)",
					LR_ERR_DATA },
	{ "BADFENCE",	RERR_REFUSED,	"the fencing counter is corrupt (does something "
					"else write under the prefix?)", LR_ERR_DATA },
	{ "OOM",	RERR_REFUSED,	"Redis is out of memory (maxmemory) and refuses "
					"writes", 0 },
	{ "NOREPLICAS",	RERR_REFUSED,	"Redis refuses writes: too few replicas "
					"(min-replicas-to-write)", 0 },
	{ "MISCONF",	RERR_REFUSED,	"Redis refuses writes: it cannot save to disk", 0 },
};

/* Refusals that come as a plain ERR, with no code of their own: their
 * text picks the words of the hint put in front, and nothing else. A
 * plain ERR is LR_ERR_REFUSED, whatever it says: its kind, and so what
 * lockrun does about it, is the code word's alone. Redis has no code for
 * these two, so words are all there is to name them by. */
static const struct {
	const char	*text;
	const char	*explain;
} err_texts[] = {
	/* a permission refused to redis.call() inside a script: Redis 6.2
	 * and 7.0 say "ERR The user executing the script can't run this
	 * command or subcommand", not NOPERM as outside a script */
	{ "can't run this command", "the Redis user lacks a permission lockrun needs "
	    "(see lockrun(7), Redis permissions)" },
	/* "ERR Protocol error: unauthenticated multibulk length": a client
	 * that sent more than ten arguments before AUTH; Redis closes the
	 * connection after it */
	{ "unauthenticated", "Redis wants a password (password_file or "
	    "LOCKRUN_REDIS_PASSWORD)" },
};

/* Redis's text without the tail it appends to errors inside scripts. */
static int
text_len(const char *msg)
{
	const char *tail = strstr(msg, " script: ");

	return (int)(tail ? (size_t)(tail - msg) : strlen(msg));
}

enum rerr_class
rerr_classify(const char *msg, struct lr_err *e)
{
	size_t code_len = strcspn(msg, " ");

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (strlen(codes[i].code) != code_len ||
		    strncmp(msg, codes[i].code, code_len) != 0)
			continue;
		lr_errk(e, codes[i].kind ? codes[i].kind : LR_ERR_REFUSED, EX_UNAVAILABLE,
		    "%s (%.*s)", codes[i].explain, text_len(msg), msg);
		return codes[i].cls;
	}
	for (size_t i = 0; i < sizeof(err_texts) / sizeof(err_texts[0]); i++) {
		const char *hit = strstr(msg, err_texts[i].text);
		if (hit && hit - msg < text_len(msg)) {
			lr_errk(e, LR_ERR_REFUSED, EX_UNAVAILABLE, "%s (%.*s)",
			    err_texts[i].explain, text_len(msg), msg);
			return RERR_REFUSED;
		}
	}
	lr_errk(e, LR_ERR_REFUSED, EX_UNAVAILABLE, "refused: %.*s", text_len(msg), msg);
	return RERR_REFUSED;
}

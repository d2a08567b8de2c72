/* SPDX-License-Identifier: BSD-2-Clause */
/* unlock.c -- `lockrun unlock TASK|KEY`: show who holds a lock, say what
 * unlocking will do, then do it: a running holder is told to stop at its
 * next renewal and keeps newcomers out until it has (a tombstone, see
 * backend.h); anything else is freed at once (unlock.lua). */

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/ctx.h"
#include "core/duration.h"
#include "core/keys.h"
#include "out/log.h"
#include "core/text.h"

/* What to free: the task's keys, and which of them. */
struct target {
	char		name[KEY_NAME_MAX + 1];
	struct lr_keys	k;
	const char	*key;		/* k.stable, or k.slot holding the key given */
};

/* A key given in full: prefix{name} or prefix{name}:slot:<stamp>, under
 * this prefix, as a run would have made it. Returns 0, or -1 with e. */
static int
target_key(const char *prefix, const char *word, struct target *t, struct lr_err *e)
{
	struct lr_key_parts kp;

	if (keys_parse(word, prefix, &kp) != 0 || key_name_problem(kp.name) != NULL ||
	    (kp.kind != KEY_STABLE && kp.kind != KEY_SLOT))
		return lr_errf(e, EX_USAGE, "unlock: \"%s\" is not a lock key under "
		    "the prefix \"%s\" (expected %s{NAME} or %s{NAME}:slot:STAMP)", word,
		    prefix, prefix, prefix);
	snprintf(t->name, sizeof(t->name), "%s", kp.name);
	keys_build(&t->k, prefix, t->name, (time_t)-1, 60000);
	if (kp.kind == KEY_STABLE) {
		t->key = t->k.stable;
		return 0;
	}
	keys_stamp_iso(kp.stamp, t->k.slot_iso, sizeof(t->k.slot_iso));
	snprintf(t->k.slot, sizeof(t->k.slot), "%s", word);
	t->key = t->k.slot;
	return 0;
}

/* The one word: a task name, or a key given in full (it has a brace). */
static int
target_parse(const struct lr_ctx *x, struct target *t, struct lr_err *e)
{
	char *const *w = x->cli.cmd;
	const char *why;

	memset(t, 0, sizeof(*t));
	if (w == NULL || w[0] == NULL)
		return lr_errf(e, EX_USAGE, "unlock: no task or key named");
	if (w[1] != NULL)
		return lr_errf(e, EX_USAGE, "unlock: one lock at a time, got \"%s\" and "
		    "\"%s\"", w[0], w[1]);
	if (strchr(w[0], '{') != NULL)
		return target_key(x->prefix, w[0], t, e);
	if ((why = key_name_problem(w[0])) != NULL)
		return lr_errf(e, EX_USAGE, "unlock: task \"%s\" %s", w[0], why);
	snprintf(t->name, sizeof(t->name), "%s", w[0]);
	keys_build(&t->k, x->prefix, t->name, (time_t)-1, 60000);
	t->key = t->k.stable;
	return 0;
}

/* s with control bytes as '?': a value set by hand cannot drive the
 * terminal. */
static void
print_visible(const char *s)
{
	text_visible_put(stdout, s, strlen(s));
}

/* Say who holds key: "<owner id> <token> <host> <pid> <start>" as the
 * scripts write it, or the raw value when it is not shaped so. */
static void
holder_print(const char *key, const char *value)
{
	char host[256], pid[32], since[64], token[32];

	printf("key     %s\n", key);
	if (sscanf(value, "%*s %31s %255s %31s %63s", token, host, pid, since) != 4) {
		fputs("value   ", stdout);
		print_visible(value);
		putchar('\n');
	} else {
		fputs("holder  ", stdout);
		print_visible(host);
		printf(" pid ");
		print_visible(pid);
		fputs("\nsince   ", stdout);
		print_visible(since);
		fputs("\ntoken   ", stdout);
		print_visible(token);
		putchar('\n');
	}
	if (keys_value_phase(value) == KEY_UNLOCKED)
		printf("state   unlocked: its holder was told to stop\n");
	else if (keys_value_phase(value) == KEY_RELEASED)
		printf("state   ended: kept for the rest of --min-hold\n");
}

/* Will unlocking key tombstone it rather than free it (backend.h)? A
 * stable key with a lease, holding a lockrun value not already unlocked
 * or released: its holder may be running. */
static int
tells_holder(const struct target *t, const char *value, long long pttl)
{
	char host[256], pid[32];

	return t->key == t->k.stable && pttl > 0 &&
	    keys_value_phase(value) == KEY_RUNNING &&
	    sscanf(value, "%*s %*s %255s %31s", host, pid) == 2;
}

/* Before asking: what unlocking will do. A running holder notices only
 * at its next renewal, a third of its TTL at most after its last (the
 * task's TTL as configured here, capped by what is left of the lease). */
static void
plan_print(const struct lr_ctx *x, const struct target *t, const char *value,
    long long pttl)
{
	char host[256] = "?", pid[32] = "?", within[32], left[32];
	long long renew = x->t.ttl_ms > 0 ? x->t.ttl_ms / 3 : pttl;

	if (!tells_holder(t, value, pttl)) {
		if (keys_value_phase(value) != KEY_RUNNING)
			printf("unlock  frees it at once: no holder is running under it\n");
		return;
	}
	sscanf(value, "%*s %*s %255s %31s", host, pid);
	renew = renew < pttl ? renew : pttl;
	duration_format((renew + 999) / 1000 * 1000, within, sizeof(within));
	duration_format((pttl + 999) / 1000 * 1000, left, sizeof(left));
	fputs("unlock  ", stdout);
	print_visible(host);
	fputs(" pid ", stdout);
	print_visible(pid);
	printf(" is told to stop at its next renewal, within ~%s; newcomers are "
	    "skipped until it has stopped or its lease ends (in %s); run unlock again "
	    "to free it at once\n", within, left);
}

/* What is left of the key's TTL (PTTL: -1 when it never expires, or
 * when it is a session lock, which lasts as long as its holder's
 * connection). */
static void
ttl_print(long long pttl, int session)
{
	char d[32];

	if (pttl >= 0)
		printf("ttl     %s left (%lldms)\n", duration_format(pttl / 1000 * 1000, d,
		    sizeof(d)), pttl);
	else if (session)
		printf("ttl     none: a session lock, held while its holder is connected\n");
	else
		printf("ttl     none: it never expires\n");
}

/* Ask on the terminal. Returns 1 when the answer is yes. */
static int
confirm(void)
{
	char line[64];

	fflush(stdout);
	fputs("free it? [y/N] ", stderr);
	fflush(stderr);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 0;
	line[strcspn(line, "\r\n")] = '\0';
	return strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0;
}

/* The history settings: the task's when the config has one by that name,
 * else the command line's over the config's defaults over built-in ones. */
static int
settings(struct lr_ctx *x, const char *name, struct lr_err *e)
{
	int known = config_is_set(x->cfg) && config_task(x->cfg, name) != NULL;

	return ctx_merge(x, known ? name : NULL, e);
}

/* Free the key, recording who did it. Returns lockrun's exit status. */
static int
unlock_now(struct lr_ctx *x, const struct target *t, const char *shown, struct lr_err *e)
{
	char who[HOST_MAX + 32], freed[512];
	int rc;

	snprintf(who, sizeof(who), "%s %ld", ctx_host(x), (long)getpid());
	rc = x->be.ops->unlock(&x->be, &t->k, t->key, shown, who, x->t.history,
	    x->t.history_ttl_ms, freed, sizeof(freed), e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		printf("%s is free: it expired or was released meanwhile\n", t->key);
		return 0;
	}
	if (rc == 2) {	/* only what the operator saw and agreed to is freed */
		printf("the lock changed hands since it was shown; it holds now:\n");
		holder_print(t->key, freed);
		lr_error("unlock: %s not freed: its holder changed (run unlock again to "
		    "free the new one)", t->key);
		return 1;
	}
	if (rc == 3) {	/* a tombstone: the holder deletes it once stopped */
		char host[256] = "?", pid[32] = "?";
		sscanf(freed, "%*s %*s %255s %31s", host, pid);
		fputs("told    ", stdout);
		print_visible(host);
		fputs(" pid ", stdout);
		print_visible(pid);
		printf(" to stop; %s stays held until it has\n", t->key);
		return 0;
	}
	printf("freed   %s\n", t->key);
	return 0;
}

/* No --yes and no terminal: one line, exit 1; the holder runs on. */
static int
not_done(const struct target *t, const char *value)
{
	char host[256] = "", pid[32] = "", held[320] = "";

	if (sscanf(value, "%*s %*s %255s %31s", host, pid) == 2)
		snprintf(held, sizeof(held), " (held by %s pid %s)", text_visible(host),
		    text_visible(pid));
	lr_error("unlock: not done: %s%s is not freed without a terminal to confirm "
	    "on (give --yes)", t->key, held);
	return 1;
}

int
verb_unlock(struct lr_ctx *x, struct lr_err *e)
{
	struct target t;
	char value[512];
	long long pttl = -1;
	int held;

	if (ctx_server(x, e) != 0 || target_parse(x, &t, e) != 0 ||
	    settings(x, t.name, e) != 0 || ctx_connect(x, e) != 0)
		return -1;
	if ((held = x->be.ops->peek(&x->be, t.key, value, sizeof(value), &pttl, e)) < 0)
		return -1;
	if (held == 0) {
		printf("%s is free: nothing to unlock\n", t.key);
		return 0;
	}
	/* without a terminal to confirm on, nothing is done, and nothing
	 * said of what would have been: one line, what to give */
	if (!x->cli.yes && !isatty(STDIN_FILENO))
		return not_done(&t, value);
	holder_print(t.key, value);
	ttl_print(pttl, x->be.ops->session);
	plan_print(x, &t, value, pttl);
	if (!x->cli.yes && !confirm()) {
		fflush(stdout);
		lr_error("unlock: %s not freed", t.key);
		return 1;
	}
	return unlock_now(x, &t, value, e);
}

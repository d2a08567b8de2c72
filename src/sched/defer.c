/* SPDX-License-Identifier: BSD-2-Clause */
/* defer.c -- the race a scheduler sits out (defer.h): the claims the
 * server pushes, per task, and the starts put off until they may come. */
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/defer.h"

/* Can task t use the claims: a one-server task under a minute, whose
 * slots come too often for a race per scheduler to be cheap; not run_on:
 * all, whose slot each scheduler claims for itself, another's claim
 * telling it nothing; nor a slot of many places (limit: N), which a
 * claim does not fill. */
static int
watched(const struct defer *df, const struct sched_task *t)
{
	return df->src && t->one_server && !t->sched.reboot && schedule_subminute(&t->sched) &&
	    !t->run_on_all && t->limit <= 1;
}

int
defer_fd(const struct defer *df)
{
	return df->up ? df->src->be->ops->fd(df->src->be) : -1;
}

/* The entry of task name (len bytes), or NULL; a new one if create. */
static struct defer_task *
task_of(struct defer *df, const char *name, size_t len, int create)
{
	struct defer_task *x;

	for (size_t i = 0; i < df->nt; i++)
		if (strlen(df->t[i].name) == len && memcmp(df->t[i].name, name, len) == 0)
			return &df->t[i];
	if (!create)
		return NULL;
	if (df->nt == df->capt) {
		size_t cap = df->capt ? 2 * df->capt : 16;
		if ((x = realloc(df->t, cap * sizeof(*x))) == NULL)
			return NULL;
		df->t = x;
		df->capt = cap;
	}
	x = &df->t[df->nt];
	*x = (struct defer_task){ .name = strndup(name, len) };
	if (x->name == NULL)
		return NULL;
	df->nt++;
	return x;
}

void
defer_watch(struct defer *df, const struct sched_task *t, size_t n, long long now_ms)
{
	struct lr_backend *be = df->src ? df->src->be : NULL;
	struct lr_err e = LR_ERR_INIT;
	int any = 0;

	for (size_t i = 0; i < n; i++)	/* the claims kept: of these tasks only */
		if (watched(df, &t[i]) && task_of(df, t[i].name, strlen(t[i].name), 1))
			any = 1;
	if (df->up || !any || now_ms < df->next_ms)
		return;
	if (be->ops->watch(be, df->src->prefix, &e) != 0) {
		if (!df->failing)
			lr_event(LOG_WARNING, "server-error", NULL, "cron: cannot watch the "
			    "slot claims (%s); every scheduler races for every slot meanwhile, "
			    "trying again from %ds on", e.msg, DEFER_RETRY_MS / 1000);
		df->failing = 1;
		df->retry_ms = df->retry_ms ? 2 * df->retry_ms : DEFER_RETRY_MS;
		if (df->retry_ms > DEFER_RETRY_MAX_MS)
			df->retry_ms = DEFER_RETRY_MAX_MS;
		df->next_ms = now_ms + df->retry_ms;
		return;
	}
	if (df->failing)
		lr_event(LOG_INFO, "server-back", NULL, "cron: watching the slot claims "
		    "again on %s", be->where);
	df->failing = 0;
	df->retry_ms = 0;
	df->up = 1;
}

/* A claim: key "prefix{name}:slot:STAMP", value "id token host pid start".
 * Only the claims of the tasks defer_watch() was given are kept: the name
 * between the braces after our prefix. */
static void
claimed(void *arg, const char *key, const char *value)
{
	struct defer *df = arg;
	size_t plen = strlen(df->src->prefix);
	const char *name = key + plen + 1, *end, *host;
	struct defer_task *x;
	char h[256];
	long pid;

	if (strncmp(key, df->src->prefix, plen) != 0 || key[plen] != '{' ||
	    (end = strchr(name, '}')) == NULL || strncmp(end, "}:slot:", 7) != 0 ||
	    strlen(key) >= KEY_MAX || (x = task_of(df, name, (size_t)(end - name), 0)) == NULL)
		return;
	snprintf(x->told, sizeof(x->told), "%s", key);
	/* past the id and the token */
	host = strchr(value, ' ');
	host = host ? strchr(host + 1, ' ') : NULL;
	if (host == NULL || sscanf(host + 1, "%255s %ld", h, &pid) != 2)
		return;
	x->behind = !(strcmp(h, df->src->host) == 0 && df->ours && df->ours(df->ours_arg, pid));
}

void
defer_read(struct defer *df)
{
	struct lr_backend *be = df->src->be;
	struct lr_err e = LR_ERR_INIT;

	if (be->ops->claims(be, claimed, df, &e) == 0)
		return;
	be->ops->close(be);
	df->up = 0;
	df->failing = 1;
	df->next_ms = 0;	/* at the next fire time */
	lr_event(LOG_WARNING, "server-error", NULL, "cron: the watch on the slot claims "
	    "ended (%s); every scheduler races for every slot until it is back", e.msg);
}

/* Slot of task t was claimed, as the last claim told: says so and
 * returns 1 (start nothing); else 0. */
static int
defer_told(struct defer *df, const struct sched_task *t, time_t slot)
{
	struct defer_task *x = task_of(df, t->name, strlen(t->name), 0);
	char at[TEXT_ISO_MAX];
	struct lr_keys k;

	if (x == NULL || x->told[0] == '\0')
		return 0;
	keys_build(&k, df->src->prefix, t->name, slot, schedule_stamp_ms(&t->sched));
	if (strcmp(k.slot, x->told) != 0)
		return 0;
	df->skipped++;
	lr_event(LOG_INFO, "skipped", NULL, "%s %s: already claimed, as the lock "
	    "server told; not started here", t->name,
	    text_iso((long long)slot * 1000, TEXT_ISO_S, at, sizeof(at)));
	return 1;
}

/* How long a start of t may be put off: a quarter of its gap, at most
 * DEFER_MAX_MS, never past its starting_deadline. */
static long long
defer_by(const struct sched_task *t)
{
	long long by = schedule_gap_ms(&t->sched) / 4;

	by = by < DEFER_MAX_MS ? by : DEFER_MAX_MS;
	return by < t->deadline_ms ? by : t->deadline_ms;
}

/* The start of x's slot, due at due_ms, into the waits. Returns 0, or -1
 * when out of memory. */
static int
wait_add(struct defer *df, struct defer_task *x, time_t slot, long long due_ms)
{
	if (df->nw == df->capw) {
		size_t cap = df->capw ? 2 * df->capw : 16;
		struct defer_wait *w = realloc(df->w, cap * sizeof(*w));
		if (w == NULL)
			return -1;
		df->w = w;
		df->capw = cap;
	}
	df->w[df->nw++] = (struct defer_wait){ .name = x->name, .slot = slot, .due_ms = due_ms };
	return 0;
}

int
defer_hold(struct defer *df, const struct sched_task *t, time_t slot, long long now_ms)
{
	struct defer_task *x;
	long long due = (long long)slot * 1000;

	if (!watched(df, t))
		return 0;
	if (defer_told(df, t, slot))
		return 1;
	x = task_of(df, t->name, strlen(t->name), 0);
	if (!df->up || x == NULL || !x->behind || now_ms >= due + defer_by(t))
		return 0;
	return wait_add(df, x, slot, due + defer_by(t)) == 0 ? 2 : 0;
}

int
defer_put_off(struct defer *df, const struct sched_task *t, time_t slot, long long now_ms)
{
	struct defer_task *x;

	if (defer_by(t) <= 0 || (x = task_of(df, t->name, strlen(t->name), 1)) == NULL)
		return 0;
	return wait_add(df, x, slot, now_ms + defer_by(t)) == 0;
}

int
defer_go(struct defer *df, const struct sched_task *t, time_t slot, long long now_ms)
{
	long long at = (long long)slot * 1000;

	char iso[TEXT_ISO_MAX];

	if (schedule_next(&t->sched, slot - 1) != slot) {	/* a schedule read again */
		lr_event(LOG_INFO, "late", NULL, "%s %s: put off, and its schedule changed "
		    "meanwhile: not started here", t->name,
		    text_iso(at, TEXT_ISO_S, iso, sizeof(iso)));
		return 0;
	}
	if (now_ms - at > t->deadline_ms ||
	    now_ms >= (long long)schedule_next(&t->sched, slot) * 1000) {
		lr_event(LOG_ERR, "missed", NULL, "%s %s: missed: put off, and its next fire "
		    "time or its starting_deadline passed meanwhile; not started here",
		    t->name, text_iso(at, TEXT_ISO_S, iso, sizeof(iso)));
		return -1;
	}
	return !defer_told(df, t, slot);
}

long long
defer_next_ms(const struct defer *df)
{
	long long at = 0;

	for (size_t i = 0; i < df->nw; i++)
		if (at == 0 || df->w[i].due_ms < at)
			at = df->w[i].due_ms;
	return at;
}

void
defer_due(struct defer *df, long long now_ms,
    void (*start)(void *arg, const char *name, time_t slot), void *arg)
{
	for (size_t i = 0; i < df->nw;) {
		struct defer_wait w = df->w[i];

		if (w.due_ms > now_ms) {
			i++;
			continue;
		}
		df->w[i] = df->w[--df->nw];
		start(arg, w.name, w.slot);
	}
}

void
defer_free(struct defer *df)
{
	for (size_t i = 0; i < df->nt; i++)
		free(df->t[i].name);
	free(df->t);
	free(df->w);
	*df = (struct defer){ 0 };
}

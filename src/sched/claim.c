/* SPDX-License-Identifier: BSD-2-Clause */
/* claim.c -- the slots of a turn's starts, claimed before their runs are
 * forked (claim.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "core/where.h"
#include "out/log.h"
#include "sched/claim.h"

/* Can the start of t for slot be claimed: a one-server task's fire time
 * (not a triggered run, nor one at boot), of one place: a slot of many
 * (limit: N) is N runs' to take, which their acquires do. */
static int
claim_can(const struct sched_task *t, time_t slot)
{
	return slot >= 0 && t->one_server && !t->sched.reboot && t->limit <= 1;
}

/* The claim of s, for slot key k, at now_ms (at: now, ISO 8601). */
static void
claim_of(const struct claim_src *src, const struct claim_start *s, const struct lr_keys *k,
    long long now_ms, const char *at, struct lr_claim *c)
{
	const struct sched_task *t = s->task;
	long long next = (long long)schedule_next(&t->sched, s->slot) * 1000;
	long long deadline = now_ms + src->be->cfg.command_timeout_ms;

	*c = (struct lr_claim){ .keys = k,
	    .slot_ttl_ms = schedule_slot_ttl_ms(&t->sched, (long long)s->slot * 1000, s->slot),
	    .hist_cap = t->history, .hist_ttl_ms = t->history_ttl_ms,
	    /* a claim the server sees past the slot's next fire time takes
	     * nothing: the slot's record of a run may be gone by then; by
	     * the server's clock, as far as the last answer told it */
	    .deadline_ms = (next > 0 && next < deadline ? next : deadline) +
	    (src->offset_known ? src->offset_ms : 0),
	    .clock_tol_ms = t->clock_tol_ms, .host = src->host, .pid = (long long)getpid(),
	    .at = at };
	lock_nonce(c->nonce);
}

/* A request of src failed as e: a connection broken under it is closed
 * (the next request opens it), and the failure said once while *failing
 * (what could not be done, what happens meanwhile). */
static void
failed(struct claim_src *src, const struct lr_err *e, int *failing, const char *what,
    const char *meanwhile)
{
	if (lr_err_broke(e))
		src->be->ops->close(src->be);
	if (!*failing)
		lr_event(LOG_WARNING, "server-error", NULL, "cron: cannot %s (%s); %s", what,
		    e->msg, meanwhile);
	*failing = 1;
}

/* s lost its claim to holder ("id token host pid ..."): say so. */
static void
said_lost(const struct claim_start *s, const char *holder)
{
	char at[TEXT_ISO_MAX], host[256] = "?";
	long pid = 0;
	const char *p = strchr(holder, ' ');

	if (p && (p = strchr(p + 1, ' ')) != NULL)
		sscanf(p + 1, "%255s %ld", host, &pid);
	lr_event(LOG_INFO, "skipped", NULL, "%s %s: skipped: the slot is taken (%s pid %ld); "
	    "not started here", s->task->name, text_iso((long long)s->slot * 1000,
	    TEXT_ISO_S, at, sizeof(at)), host, pid);
}

/* The server's clock against ours, from the answers to c[m], sent at
 * sent (Unix ms, ours) and answered by now. */
static void
learn(struct claim_src *src, const struct lr_claim *c, size_t m, long long sent)
{
	long long mid = sent + (real_ms() - sent) / 2;

	for (size_t j = 0; j < m; j++)
		if (c[j].server_ms > 0) {
			src->offset_ms = c[j].server_ms - mid;
			src->offset_known = 1;
		}
}

/* The m claims c in one batch (ops.h, claim), the server's clock learnt
 * from the answers. Those refused as late go again once, their deadlines
 * moved by it, when it moved (a first answer, a clock stepped): else a
 * scheduler whose clock is behind the server's by more than the command
 * timeout would claim nothing. Returns what the first batch did. */
static int
ask(struct claim_src *src, struct lr_claim *c, size_t m, struct lr_err *e)
{
	long long sent = real_ms(), was = src->offset_known ? src->offset_ms : 0;
	struct lr_claim *again;
	size_t *at, late = 0;
	struct lr_err e2 = LR_ERR_INIT;
	int rc = src->be->ops->claim(src->be, c, m, e);

	if (rc != 0)
		return rc;
	learn(src, c, m, sent);
	for (size_t j = 0; j < m; j++)
		late += c[j].late;
	if (late == 0 || src->offset_ms == was)
		return 0;
	if ((again = calloc(late, sizeof(*again))) == NULL ||
	    (at = calloc(late, sizeof(*at))) == NULL) {
		free(again);
		return 0;	/* undecided: their runs ask themselves */
	}
	late = 0;
	for (size_t j = 0; j < m; j++)
		if (c[j].late) {
			at[late] = j;
			again[late] = c[j];
			again[late++].deadline_ms += src->offset_ms - was;
		}
	sent = real_ms();
	if (src->be->ops->claim(src->be, again, late, &e2) == 0)
		learn(src, again, late, sent);
	else if (lr_err_broke(&e2))
		src->be->ops->close(src->be);
	for (size_t j = 0; j < late; j++)
		c[at[j]] = again[j];
	free(again);
	free(at);
	return 0;
}

size_t
claim_slots(struct claim_src *src, struct claim_start *s, size_t n, long long now_ms)
{
	struct lr_claim *c = NULL;
	struct lr_keys *k = NULL;
	size_t *of = NULL, m = 0, lost = 0;
	struct lr_err e = LR_ERR_INIT;
	char at[TEXT_ISO_MAX];
	int rc;

	for (size_t i = 0; i < n; i++) {
		s[i].nonce[0] = '\0';
		s[i].lost = 0;
	}
	if (src == NULL || src->be->ops->claim == NULL || n == 0)
		return 0;
	if ((c = calloc(n, sizeof(*c))) == NULL || (k = calloc(n, sizeof(*k))) == NULL ||
	    (of = calloc(n, sizeof(*of))) == NULL)
		goto out;	/* each run decides, as before */
	text_iso(now_ms, TEXT_ISO_S, at, sizeof(at));
	for (size_t i = 0; i < n; i++) {
		if (!claim_can(s[i].task, s[i].slot))
			continue;
		keys_build(&k[m], src->prefix, s[i].task->name, s[i].slot,
		    schedule_stamp_ms(&s[i].task->sched));
		if (s[i].task->run_on_all)	/* its own, as its run's (run.c) */
			keys_slot_host(&k[m], src->host);
		claim_of(src, &s[i], &k[m], now_ms, at, &c[m]);
		of[m++] = i;
	}
	if (m == 0 || (rc = ask(src, c, m, &e)) > 0)
		goto out;
	if (rc < 0)
		failed(src, &e, &src->failing, "claim the slots before starting their runs",
		    "each run asks itself");
	else
		src->failing = 0;
	for (size_t j = 0; j < m; j++) {
		struct claim_start *x = &s[of[j]];

		if (c[j].won == 1)
			memcpy(x->nonce, c[j].nonce, sizeof(x->nonce));
		else if (c[j].won == 2) {
			x->lost = 1;
			lost++;
			said_lost(x, c[j].holder);
		}
	}
out:
	free(c);
	free(k);
	free(of);
	return lost;
}

#define FLEET_WINDOW_MIN_MS	60000LL
#define FLEET_WINDOW_MAX_MS	86400000LL

static void
fleet_clear(struct claim_src *src)
{
	for (size_t i = 0; i < src->nfleet; i++)
		free(src->fleet[i]);
	src->nfleet = 0;
}

static void
fleet_add(void *arg, const char *name)	/* ops.h schedulers' cb */
{
	struct claim_src *src = arg;
	char *dup;

	if (src->nfleet == src->capfleet) {
		size_t cap = src->capfleet ? 2 * src->capfleet : 8;
		char **v = realloc(src->fleet, cap * sizeof(*v));
		if (v == NULL)
			return;
		src->fleet = v;
		src->capfleet = cap;
	}
	if ((dup = strdup(name)) != NULL)
		src->fleet[src->nfleet++] = dup;
}

void
claim_fleet(struct claim_src *src, const struct sched_task *t, size_t n, long long now_ms)
{
	struct lr_err e = LR_ERR_INIT;
	long long window = FLEET_WINDOW_MIN_MS;
	int claims = 0;

	if (src == NULL || src->be->ops->schedulers == NULL ||
	    (src->notes >= 2 && src->fleet_ms > 0 && now_ms - src->fleet_ms < CLAIM_FLEET_EVERY_MS))
		return;
	for (size_t i = 0; i < n; i++) {
		claims |= claim_can(&t[i], 0);
		if (2 * schedule_gap_ms(&t[i].sched) > window)
			window = 2 * schedule_gap_ms(&t[i].sched);
	}
	if (!claims)
		return;		/* no one-server task: nothing to spread */
	if (window > FLEET_WINDOW_MAX_MS)
		window = FLEET_WINDOW_MAX_MS;
	snprintf(src->me, sizeof(src->me), "%s %ld", src->host, (long)getpid());
	src->fleet_ms = now_ms;
	src->notes++;
	fleet_clear(src);
	if (src->be->ops->schedulers(src->be, src->prefix, src->me, window,
	    CLAIM_FLEET_CAP_MS, fleet_add, src, &e) == 0) {
		src->fleet_failing = 0;
		return;
	}
	fleet_clear(src);	/* unknown: every claim at once */
	failed(src, &e, &src->fleet_failing, "note this scheduler among the fleet's",
	    "its claims are not spread meanwhile");
}

/* The rank of scheduler name for task and slot: FNV-1a over the three,
 * then mixed (splitmix64's finish), so that near names spread. */
static uint64_t
rank(const char *name, const char *task, time_t slot)
{
	char buf[64];
	const char *part[] = { name, task, buf };
	uint64_t h = 0xcbf29ce484222325ULL;

	snprintf(buf, sizeof(buf), "%lld", (long long)slot);
	for (size_t k = 0; k < 3; k++)
		for (const unsigned char *p = (const unsigned char *)part[k]; ; p++) {
			h = (h ^ *p) * 0x100000001b3ULL;
			if (*p == '\0')
				break;
		}
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* Does the fleet's scheduler who ("host pid") run t (hosts:,
 * host_match:)? One that does not schedules it nowhere: it ranks not. */
static int
runs_it(const struct sched_task *t, const char *who)
{
	char host[256], why[8];

	if (t->hosts == NULL && t->host_match == NULL)
		return 1;
	snprintf(host, sizeof(host), "%.*s", (int)strcspn(who, " "), who);
	return where_here(t->hosts, t->host_match, host, why, sizeof(why));
}

int
claim_first(const struct claim_src *src, const struct sched_task *t, time_t slot)
{
	uint64_t mine;

	/* run_on: all: every scheduler claims its own slot key (the host's,
	 * keys_slot_host()), which no other races for: no rank, no wait */
	if (src == NULL || src->nfleet < 2 || !claim_can(t, slot) || t->run_on_all)
		return 1;
	mine = rank(src->me, t->name, slot);
	for (size_t i = 0; i < src->nfleet; i++)
		if (strcmp(src->fleet[i], src->me) != 0 && runs_it(t, src->fleet[i]) &&
		    rank(src->fleet[i], t->name, slot) > mine)
			return 0;
	return 1;
}

void
claim_free(struct claim_src *src)
{
	if (src == NULL)
		return;
	fleet_clear(src);
	free(src->fleet);
	src->fleet = NULL;
	src->capfleet = 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* when.c -- whether a run goes at all, decided before its lock is asked:
 * its times of day (between:, not_between:; core/window.c) and its
 * condition (when:), and the skip recorded when the condition says no. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/hookspec.h"
#include "cli/skip.h"
#include "cli/when.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "core/where.h"
#include "core/window.h"
#include "core/zone.h"
#include "out/log.h"
#include "proc/hooks.h"

long long
when_pinned_at(void)
{
	const char *at = getenv("LOCKRUN_SLOT_AT");
	long long now = real_ms(), pinned;
	char *end;

	if (at == NULL || *at == '\0')
		return 0;
	pinned = strtoll(at, &end, 10);
	if (*end != '\0' || pinned < now - 86400000 || pinned > now + 60000)
		return 0;
	return pinned;
}

/* When this run was started for, Unix ms: pinned by its scheduler, or now. */
static long long
started_for(void)
{
	long long at = when_pinned_at();

	return at ? at : real_ms();
}

/* The instant a window judges a run by, Unix seconds: its slot's fire
 * time (one-server), else when it was started for (when_pinned_at()),
 * else now. Every server judges a slot alike, however late it starts. */
static long long
when_window_instant(const struct lr_run *r)
{
	const struct lr_ctx *x = r->x;
	long long at = started_for();
	time_t slot;

	if (x->t.one_server == 1 && !r->triggered &&
	    (slot = schedule_slot(&x->sched, at)) != (time_t)-1)
		return (long long)slot;
	return at / 1000;
}

int
when_window(struct lr_run *r, struct lr_err *e)
{
	const struct lr_ctx *x = r->x;
	const char *zname = x->t.timezone ? x->t.timezone : "local time";
	const struct lr_zone *z;
	struct lr_err ze;
	char why[300];

	if ((x->t.between == NULL && x->t.not_between == NULL) || r->triggered)
		return 1;
	if ((z = zone_load(x->t.timezone ? x->t.timezone : "", &ze)) == NULL)
		return lr_errf(e, EX_CONFIG, "timezone: %s", ze.msg);
	if (window_allows(x->t.between, x->t.not_between, z, zname, when_window_instant(r),
	    why, sizeof(why)))
		return 1;
	run_report_window(r, why, x->t.conflict_exit);
	return 0;
}

/* The keys the run would use (as acquire.c builds them): the condition
 * is told them, and its skip is recorded under them. */
static void
condition_keys(struct lr_run *r)
{
	struct lr_ctx *x = r->x;
	struct lr_lock *l = &r->lock;
	time_t slot = (time_t)-1;

	if (x->t.one_server == 1 && !r->triggered)
		slot = schedule_slot(&x->sched, started_for());
	keys_build(&l->keys, x->prefix, r->name, slot, schedule_stamp_ms(&x->sched));
	if (x->t.run_on == RUN_ON_ALL)
		keys_slot_host(&l->keys, ctx_host(x));
	l->slot_ttl_ms = slot != (time_t)-1;	/* the entry names the slot */
}

/* Record the skip in the task's history (skipped-condition, with the
 * condition's status and how long it took), in one round trip: the
 * release's statement, for a lock that holds nothing (no stable key to
 * free, no token: nothing taken, nothing freed, no end of a run, no
 * failure counted). A failure is said, and changes nothing. */
static void
condition_record(struct lr_run *r, int status, long long took_ms)
{
	struct lr_ctx *x = r->x;
	struct lr_lock *l = &r->lock;
	struct lr_ending end = { .status = status, .event = "skipped-condition",
	    .duration_ms = took_ms };
	struct lr_err e = LR_ERR_INIT;

	if (x->t.history == 0)
		return;
	lock_init(l, ctx_host(x));
	l->hist_cap = x->t.history;
	l->hist_ttl_ms = x->t.history_ttl_ms;
	l->ttl_ms = 0;
	l->token = 0;
	l->token_s[0] = '\0';
	snprintf(l->value, sizeof(l->value), "%s - %s", l->id, l->owner);
	snprintf(end.reason, sizeof(end.reason), "when: %s exited with status %d",
	    x->t.when[0], status);
	text_visible(end.reason);
	if ((x->be.ops->fd(&x->be) < 0 &&
	    x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &e) != 0) ||
	    x->be.ops->release(&x->be, l, &end, &e) < 0)
		lr_warn("cannot record the skip in %s: %s", l->keys.hist, e.msg);
}

int
when_condition(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_hook_spec start, after;
	struct lr_hook_facts hf;
	struct lr_err ce = LR_ERR_INIT;
	long long began;
	int st, stopped = 0;
	char d[32];

	if (x->t.when == NULL)
		return 1;
	/* a user, group or cwd this host lacks: nothing runs as the task's
	 * user, the condition neither; the run says it with its lock */
	if (r->cannot_start.status != 0 && r->cannot_start.status != LR_EXIT_NOTFOUND &&
	    r->cannot_start.status != LR_EXIT_NOEXEC)
		return 1;
	condition_keys(r);
	hooks_prepare(r, 0, &start, &after, &hf);
	hf.attempt = 0;
	began = mono_ms();
	if ((st = hook_ask("when", x->t.when, &after, &hf, &stopped, &ce)) < 0)
		return lr_errf(e, ce.status, "when: %s", ce.msg);
	if (stopped)
		lr_warn("when: %s was stopped at its hook_timeout (%s): the slot is skipped",
		    x->t.when[0], duration_human(after.timeout_ms, d, sizeof(d)));
	if (st == 0) {
		lr_event(LOG_INFO, "condition-met", NULL, "when: %s exited with status 0",
		    x->t.when[0]);
		return 1;
	}
	run_report_condition(r, x->t.when[0], st, x->t.conflict_exit);
	condition_record(r, st, mono_ms() - began);
	return 0;
}

void
when_print(const struct lr_run *r)
{
	const struct lr_ctx *x = r->x;
	const char *zname = x->t.timezone ? x->t.timezone : "local time";
	const struct lr_zone *z;
	struct lr_err ze;
	char why[300], at[TEXT_ISO_MAX], cmd[300] = "";
	long long t, next;
	size_t len = 0;

	if ((x->t.between || x->t.not_between) &&
	    (z = zone_load(x->t.timezone ? x->t.timezone : "", &ze)) != NULL) {
		t = when_window_instant(r);
		if (window_allows(x->t.between, x->t.not_between, z, zname, t, why,
		    sizeof(why)))
			printf("window      a run now goes: %s\n", why);
		else if ((next = window_next_open(x->t.between, x->t.not_between, z, t)) < 0)
			printf("window      a run now skips: %s; none goes within two days\n", why);
		else
			printf("window      a run now skips: %s; runs may go from %s\n", why,
			    text_iso(next * 1000, TEXT_ISO_S, at, sizeof(at)));
	}
	if (x->t.when == NULL)
		return;
	for (size_t i = 0; x->t.when[i] && len < sizeof(cmd); i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "%s%s", i ? " " : "",
		    x->t.when[i]);
	text_visible(cmd);
	printf("when        %s, before the lock: exit 0 runs, any other status skips the "
	    "slot (recorded as skipped-condition)\n", cmd);
}

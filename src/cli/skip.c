/* SPDX-License-Identifier: BSD-2-Clause */
/* skip.c -- what a run says when it skips: who holds the lock, which run
 * took the slot (or that the slot was recorded as missed), who paused
 * the task, until when and why; or that it is not for this host, this
 * time of day or its condition. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/skip.h"
#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/lease_client.h"
#include "sched/outcome.h"

/* What to do next, for a person at a terminal. */
enum hint { HINT_NONE, HINT_TRIGGER, HINT_RESUME, HINT_STATUS };

/* The skip's event, an info line (shown with -v). On a terminal (stderr),
 * without -v or -q, the line is shown all the same with what to do next:
 * a person who ran `lockrun -t NAME` by hand is told why nothing ran and
 * how to run it now; cron, with no terminal, still gets nothing. */
static void __attribute__((format(printf, 5, 6)))
say(const struct lr_run *r, const char *event, const struct log_fields *f, enum hint h,
    const char *fmt, ...)
{
	const struct lr_ctx *x = r->x;
	const char *name = x->cli.task;
	char msg[1024], next[300] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lr_event(LOG_INFO, event, f, "%s", msg);
	lease_client_tell(OUTCOME_SKIPPED, 0, msg);	/* to its scheduler, if any */
	if (x->cli.verbose || x->cli.quiet || !log_human_stderr() || !isatty(STDERR_FILENO))
		return;
	if (h == HINT_TRIGGER && name)
		snprintf(next, sizeof(next), "; to run it again now: lockrun trigger --here %s",
		    name);
	else if (h == HINT_RESUME && name)
		snprintf(next, sizeof(next), "; lockrun resume %s lifts the pause", name);
	else if (h == HINT_STATUS)
		snprintf(next, sizeof(next), "; lockrun status %s shows it", name ? name :
		    r->name);
	text_visible(msg);	/* the holder's host and the reason are the server's */
	fprintf(stderr, "lockrun: %s%s\n", msg, next);
}

/* The task is paused (LOCK_PAUSED): the pause's value is in l->holder
 * (lock.h). One line naming who paused it, when, until when and why. */
static void
report_paused(const struct lr_run *r, struct log_fields *f)
{
	const struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;
	struct lr_pause_view p;
	char since[TEXT_ISO_MAX], until[TEXT_ISO_MAX + 8] = "until resumed", by[330];

	if (lock_pause_parse(l->holder, &p) != 0) {
		say(r, "skipped-paused", f, HINT_RESUME, "skipped: %s is paused (%s)",
		    l->keys.pause, l->holder);
		return;
	}
	if (p.until_ms > 0) {
		char at[TEXT_ISO_MAX];
		snprintf(until, sizeof(until), "until %s", text_iso(p.until_ms, TEXT_ISO_S,
		    at, sizeof(at)));
	}
	snprintf(by, sizeof(by), "%s %s", p.host, p.user);
	f->holder = by;
	say(r, "skipped-paused", f, HINT_RESUME, "skipped: %s is paused by %s on %s at %s, "
	    "%s: %s", x->cli.task ? x->cli.task : r->name, strcmp(p.user, "-") ? p.user :
	    "someone", p.host, text_iso(p.since_ms, TEXT_ISO_S, since, sizeof(since)),
	    until, *p.reason ? p.reason : "no reason given");
}

/* Why a held key is still held when no holder is running in full: its
 * holder was unlocked and is stopping, or its run ended and --min-hold
 * keeps it (keys_value_phase()). */
static const char *
skip_phase(const char *value)
{
	switch (keys_value_phase(value)) {
	case KEY_UNLOCKED:
		return " (unlocked, stopping)";
	case KEY_RELEASED:
		return " (ended, kept for --min-hold)";
	default:
		return "";
	}
}

/* Say who holds what (on stderr with -v): the value is "id token host pid
 * start". The line carries the holder's token, as the history does, and
 * status, lockrun's exit status. */
void
run_report_skip(const struct lr_run *r, enum lock_outcome out, int status)
{
	const struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;
	char host[256] = "?", start[64] = "?", holder[300];
	long long token = 0, pid = 0;
	struct log_fields f;

	log_fields_init(&f);
	f.status = status;
	if (out == LOCK_PAUSED) {
		report_paused(r, &f);
		return;
	}
	if (out == LOCK_SLOT_TAKEN && strncmp(l->holder, "missed ", 7) == 0 &&
	    sscanf(l->holder, "%*s %*s %255s %lld %63s", host, &pid, start) == 3) {
		say(r, "skipped-slot", &f, HINT_TRIGGER, "skipped: slot %s passed its "
		    "starting_deadline with no run; %s recorded it as missed at %s",
		    l->keys.slot_iso, host, start);
		return;
	}
	if (sscanf(l->holder, "%*s %lld %255s %lld %63s", &token, host, &pid, start) < 3 &&
	    x->be.ops->session) {
		/* a session lock with no row behind it: its holder was unlocked
		 * (or its row pruned) and lets go at its next keep-alive */
		say(r, out == LOCK_HELD ? "skipped-held" : "skipped-slot", &f, out == LOCK_HELD ?
		    HINT_STATUS : HINT_TRIGGER, "skipped: %s is held by a session that left no record of itself",
		    out == LOCK_HELD ? l->keys.stable : l->keys.slot);
		return;
	}
	snprintf(holder, sizeof(holder), "%s %lld", host, pid);
	f.token = token;
	f.holder = holder;
	if (out == LOCK_HELD)
		say(r, "skipped-held", &f, HINT_STATUS, "skipped: %s is held by %s pid %lld "
		    "since %s (token %lld)%s", l->keys.stable, host, pid, start, token,
		    skip_phase(l->holder));
	else
		say(r, "skipped-slot", &f, HINT_TRIGGER, "skipped: slot %s already ran on %s "
		    "pid %lld at %s (token %lld)", l->keys.slot_iso, host, pid, start, token);
}

void
run_report_elsewhere(const struct lr_run *r, const char *why, int status)
{
	const struct lr_ctx *x = r->x;
	struct log_fields f;

	log_fields_init(&f);
	f.status = status;
	say(r, "skipped-host", &f, HINT_NONE, "skipped: task %s does not run on this host: "
	    "%s", x->cli.task ? x->cli.task : r->name, why);
}

void
run_report_window(const struct lr_run *r, const char *why, int status)
{
	const struct lr_ctx *x = r->x;
	struct log_fields f;

	log_fields_init(&f);
	f.status = status;
	if (x->cli.task)
		say(r, "skipped-window", &f, HINT_NONE, "skipped: task %s runs only at some "
		    "times of day: %s", x->cli.task, why);
	else
		say(r, "skipped-window", &f, HINT_NONE, "skipped: this run goes only at some "
		    "times of day: %s", why);
}

void
run_report_condition(const struct lr_run *r, const char *prog, int cond, int status)
{
	const struct lr_ctx *x = r->x;
	struct log_fields f;

	log_fields_init(&f);
	f.status = status;
	say(r, "skipped-condition", &f, HINT_NONE, "skipped: the condition of task %s "
	    "(when: %s) exited with status %d", x->cli.task ? x->cli.task : r->name, prog,
	    cond);
}

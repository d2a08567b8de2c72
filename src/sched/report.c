/* SPDX-License-Identifier: BSD-2-Clause */
/* report.c -- what the scheduler says of its runs: started, missed,
 * ended, skipped, the clock off; and of its faults, bounded. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/types.h"
#include "core/cron.h"
#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/due.h"
#include "sched/outcome.h"
#include "sched/report.h"

/* The fields of a line about a run. */
static struct log_fields *
fields(struct log_fields *f, const char *task, const char *slot, pid_t pid)
{
	log_fields_init(f);
	f->task = task;
	f->slot = slot;
	if (pid > 0)
		f->run_pid = pid;
	return f;
}

void
report_started(const char *task, const char *slot, pid_t pid)
{
	struct log_fields f;

	lr_event(LOG_INFO, "started", fields(&f, task, slot, pid), "%s %s: started, pid %ld",
	    task, slot, (long)pid);
}

void
report_unstarted(const char *task, const char *slot, const char *why)
{
	struct log_fields f;

	lr_event(LOG_ERR, "missed", fields(&f, task, slot, 0), "%s %s: missed: no run "
	    "could be started: %s", task, slot, why);
}

/* A run claimed no slot as this host's clock is off: the line that
 * says so, once a minute for all runs; else an info line. */
static void
clock_off(const struct run_outcome *r, const struct log_fields *f, const char *task,
    const char *slot, long long *said)
{
	long long now = mono_ms();

	if (said == NULL || *said == 0 || now - *said >= REPORT_CLOCK_EVERY_MS) {
		if (said != NULL)
			*said = now;
		lr_event(LOG_ERR, "clock-off", f, "%s %s: %s", task, slot, r->why);
	} else
		lr_event(LOG_INFO, "clock-off", f, "%s %s: not claimed: this server's "
		    "clock is off against the lock server (said above)", task, slot);
}

void
report_ended(const struct run_outcome *r, const char *task, const char *slot, pid_t pid,
    int status, long long took_ms, long long *clock_said)
{
	struct log_fields f;
	char took[32];

	fields(&f, task, slot, pid);
	f.status = status;
	if (r->clock_off) {
		clock_off(r, &f, task, slot, clock_said);
		return;
	}
	if (r->skipped) {
		lr_event(LOG_INFO, "skipped", &f, "%s %s: %s", task, slot, r->why);
		return;
	}
	if (r->too_late) {
		lr_event(LOG_ERR, "missed", &f, "%s %s: missed: %s", task, slot, r->why);
		return;
	}
	if (!r->ran) {
		lr_event(LOG_ERR, "missed", &f, "%s %s: missed: the run took no lock and ran "
		    "nothing (status %d)%s%s", task, slot, status, r->why[0] ? ": " : "",
		    r->why);
		return;
	}
	f.duration_ms = took_ms;
	if (r->token > 0)
		f.token = r->token;
	duration_human(took_ms, took, sizeof(took));
	lr_event(status ? LOG_WARNING : LOG_INFO, "ended", &f, "%s %s: ended, status %d "
	    "after %s", task, slot, status, took);
}

void
report_notes(const struct lr_config *cfg)
{
	for (size_t i = 0; i < cfg->nnotes; i++)
		if (cfg->notes[i].skipped)
			lr_event(LOG_ERR, "crontab-line", NULL, "%s; the line is not run",
			    cfg->notes[i].text);
		else
			lr_event(LOG_WARNING, "crontab-line", NULL, "%s", cfg->notes[i].text);
}

void
report_six_fields(const struct sched_task *t, size_t n)
{
	char day[96];

	for (size_t i = 0; i < n; i++)
		if (t[i].sched.has_cron && t[i].sched.cron.seconds) {
			cron_per_day(&t[i].sched.cron, day, sizeof(day));
			lr_event(LOG_INFO, "schedule", NULL, "%s: six fields, the first a "
			    "second: %s", t[i].name, day);
		}
}

void
report_ready(size_t n, const char *path, const char *server, const char *next,
    time_t next_at)
{
	char at[TEXT_ISO_MAX];

	if (next)
		lr_event(LOG_INFO, "ready", NULL, "cron: %zu scheduled tasks in %s, server %s; "
		    "next: %s at %s", n, path, server, next,
		    text_iso((long long)next_at * 1000, TEXT_ISO_S, at, sizeof(at)));
	else
		lr_event(LOG_INFO, "ready", NULL, "cron: %zu scheduled tasks in %s, server %s; "
		    "nothing to start", n, path, server);
}

void
report_fault(struct report_once *o, int err, const char *fmt, ...)
{
	long long now = mono_ms();
	char what[512], more[96] = "";
	va_list ap;

	if (o->said_ms != 0 && now - o->said_ms < REPORT_FAULT_EVERY_MS) {
		o->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (o->more > 0)
		snprintf(more, sizeof(more), " (and %llu more like it since it was last said)",
		    o->more);
	lr_event(LOG_WARNING, "system-error", NULL, "%s: %s%s", what, strerror(err), more);
	o->said_ms = now > 0 ? now : 1;
	o->more = 0;
}

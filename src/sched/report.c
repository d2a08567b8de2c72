/* SPDX-License-Identifier: BSD-2-Clause */
/* report.c -- a forked run's log records: read line by line, each one
 * learnt from (did the run take its lock, skip, fail, and why) and passed
 * on whole, so that a record stays one level of JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/types.h"
#include "core/cron.h"
#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/due.h"
#include "sched/report.h"

/* Append the code point c as UTF-8 to out[*k], within n - 1. */
static void
put_utf8(char *out, size_t n, size_t *k, uint32_t c)
{
	char u[4];
	size_t len;

	if (c < 0x80)
		u[0] = (char)c, len = 1;
	else if (c < 0x800)
		u[0] = (char)(0xc0 | c >> 6), u[1] = (char)(0x80 | (c & 0x3f)), len = 2;
	else if (c < 0x10000)
		u[0] = (char)(0xe0 | c >> 12), u[1] = (char)(0x80 | ((c >> 6) & 0x3f)),
		u[2] = (char)(0x80 | (c & 0x3f)), len = 3;
	else
		u[0] = (char)(0xf0 | c >> 18), u[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f)), u[3] = (char)(0x80 | (c & 0x3f)),
		len = 4;
	if (out && *k + len < n) {
		memcpy(out + *k, u, len);
		*k += len;
	}
}

/* Four hex digits at s, or -1. */
static long
hex4(const char *s)
{
	char h[5];
	char *end;

	if (strnlen(s, 4) < 4)
		return -1;
	memcpy(h, s, 4);
	h[4] = '\0';
	if (strspn(h, "0123456789abcdefABCDEF") != 4)
		return -1;
	return strtol(h, &end, 16);
}

/* The JSON string at s (its opening quote) into out[n] (NULL: skipped).
 * Returns what follows its closing quote, or NULL if it is not one. */
static const char *
string(const char *s, char *out, size_t n)
{
	static const char esc[] = "\"\\/bfnrt", val[] = "\"\\/\b\f\n\r\t";
	size_t k = 0;

	for (s++; *s != '"'; s++) {
		const char *e;
		long c, lo;

		if (*s == '\0')
			return NULL;
		if (*s != '\\') {
			if (out && k + 1 < n)
				out[k++] = *s;
			continue;
		}
		if (*++s == 'u') {
			if ((c = hex4(s + 1)) < 0)
				return NULL;
			s += 4;
			if (c >= 0xd800 && c < 0xdc00 && s[1] == '\\' && s[2] == 'u' &&
			    (lo = hex4(s + 3)) >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
			put_utf8(out, n, &k, (uint32_t)c);
		} else if (*s != '\0' && (e = strchr(esc, *s)) != NULL) {
			if (out && k + 1 < n)
				out[k++] = val[e - esc];
		} else
			return NULL;
	}
	if (out && n > 0)
		out[k] = '\0';
	return s + 1;
}

int
report_member(const char *s, const char *key, char *out, size_t n)
{
	if (*s++ != '{')
		return -1;
	while (*s == '"') {
		char name[64];
		int match;

		if ((s = string(s, name, sizeof(name))) == NULL || *s++ != ':')
			return -1;
		match = strcmp(name, key) == 0;
		if (*s == '"') {
			if ((s = string(s, match ? out : NULL, n)) == NULL)
				return -1;
		} else {
			size_t len = strcspn(s, ",}");

			if (match && n > 0) {
				len = len < n - 1 ? len : n - 1;
				memcpy(out, s, len);
				out[len] = '\0';
			}
			s += strcspn(s, ",}");
		}
		if (match)
			return 0;
		if (*s == ',')
			s++;
	}
	return -1;
}

/* What one record says of the run. */
static void
learn(struct run_report *r, const char *rec)
{
	char ev[32], level[16], tok[32];

	if (report_member(rec, "event", ev, sizeof(ev)) != 0)
		return;
	if (strcmp(ev, "acquired") == 0 || strcmp(ev, "run-without-lock") == 0) {
		r->ran = 1;
		if (report_member(rec, "token", tok, sizeof(tok)) == 0)
			r->token = strtoll(tok, NULL, 10);
	} else if (strcmp(ev, "too-late") == 0) {
		r->too_late = 1;
		report_member(rec, "message", r->why, sizeof(r->why));
	} else if (strcmp(ev, "waiting") == 0) {
		r->waiting = 1;
	} else if (strcmp(ev, "clock-off") == 0) {
		r->clock_off = 1;
		report_member(rec, "message", r->why, sizeof(r->why));
	} else if (strncmp(ev, "skipped-", 8) == 0) {
		r->skipped = 1;
		report_member(rec, "message", r->why, sizeof(r->why));
	} else if (report_member(rec, "level", level, sizeof(level)) == 0 &&
	    strcmp(level, "error") == 0)
		report_member(rec, "message", r->why, sizeof(r->why));
}

/* Each whole line in the buffer (the buffer itself if full, or at end):
 * learnt from, then passed on. */
static void
drain(struct run_report *r, int all)
{
	static char rec[REPORT_LINE_MAX + 2];
	size_t start = 0;

	while (start < r->len) {
		char *nl = memchr(r->buf + start, '\n', r->len - start);
		size_t n = nl ? (size_t)(nl - r->buf) - start : r->len - start;

		if (nl == NULL && !all && !(start == 0 && r->len == sizeof(r->buf)))
			break;
		memcpy(rec, r->buf + start, n);
		rec[n] = '\0';
		learn(r, rec);
		rec[n] = '\n';
		log_relay(rec, n + 1);
		start += n + (nl != NULL);
	}
	memmove(r->buf, r->buf + start, r->len - start);
	r->len -= start;
}

static struct report_once read_failed;

int
report_pump(struct run_report *r)
{
	for (;;) {
		ssize_t n;

		if (r->fd < 0)
			return 0;
		n = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);
		if (n > 0) {
			r->len += (size_t)n;
			drain(r, 0);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n < 0)	/* as at its end, but said */
			report_fault(&read_failed, errno, "cannot read a run's log "
			    "records (the rest is lost): read");
		drain(r, 1);
		close(r->fd);
		r->fd = -1;
		return 0;
	}
}

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
clock_off(const struct run_report *r, const struct log_fields *f, const char *task,
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
report_ended(const struct run_report *r, const char *task, const char *slot, pid_t pid,
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

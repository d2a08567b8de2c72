/* SPDX-License-Identifier: BSD-2-Clause */
/* status_json.c -- `lockrun status --json`: each task's lock and last run
 * as one JSON object a line. */
#include <stdio.h>

#include "cli/status.h"
#include "core/keys.h"
#include "core/text.h"
#include "out/json.h"

/* A number the backend gave, or null. */
static long long
known(long long v)
{
	return v == ABSENT ? JSON_NULL_NUM : v;
}

/* "key":"<ISO 8601>","key_ms":<ms>, both null when absent. */
static void
json_time(struct lr_json *j, const char *key, long long ms)
{
	char iso[TEXT_ISO_MAX], key_ms[64];

	json_str(j, key, ms == ABSENT ? NULL : text_iso(ms, TEXT_ISO_MS, iso,
	    sizeof(iso)));
	snprintf(key_ms, sizeof(key_ms), "%s_ms", key);
	json_num(j, key_ms, known(ms));
}

/* The holder's object: host, pid, token (a number, out/json.h), times. */
static void
json_holder(struct lr_json *j, const struct row *w)
{
	json_open(j, "holder");
	json_str(j, "host", w->host[0] ? w->host : NULL);
	json_num(j, "pid", known(w->pid));
	json_num(j, "token", known(w->token));
	json_time(j, "since", w->since_ms);
	json_num(j, "held_ms", known(w->held_ms));
	json_num(j, "ttl_ms", known(w->ttl_ms));
	json_close(j);
}

/* The pause's object: who paused the task, when, until when, why. */
static void
json_pause(struct lr_json *j, const struct row *w)
{
	json_open(j, "paused");
	json_str(j, "host", w->p_host);
	json_str(j, "user", w->p_user);
	json_time(j, "since", w->p_since);
	json_time(j, "until", w->p_until);
	json_str(j, "reason", *w->p_reason ? w->p_reason : NULL);
	json_close(j);
}

/* The counters' object, each by its name (record.h), or null when the
 * server has none (never counted, or expired with the history). */
static void
json_counts(struct lr_json *j, const struct row *w)
{
	if (!w->counted) {
		json_str(j, "counts", NULL);
		return;
	}
	json_open(j, "counts");
	for (int c = 0; c < NCOUNTERS; c++)
		json_num(j, record_counter_names[c], w->count[c]);
	json_close(j);
}

/* The last run's object. */
static void
json_last_run(struct lr_json *j, const struct row *w)
{
	json_open(j, "last_run");
	json_str(j, "event", w->l_event);
	json_str(j, "host", w->l_host);
	json_num(j, "pid", known(w->l_pid));
	json_str(j, "slot", w->l_slot);
	json_num(j, "token", known(w->l_token));
	json_time(j, "start", w->l_start);
	json_time(j, "end", w->l_end);
	json_num(j, "status", known(w->l_status));
	json_num(j, "duration_ms", known(w->l_duration));
	json_str(j, "reason", w->l_reason);
	json_close(j);
}

void
status_json_print(const char *prefix, const struct row *w, FILE *fp)
{
	char key[KEY_MAX];
	struct lr_json j;

	snprintf(key, sizeof(key), "%s{%s}", prefix, w->name);
	json_begin(&j, fp, NULL, 0);
	json_str(&j, "task", w->name);
	json_str(&j, "key", key);
	json_bool(&j, "held", w->held);
	json_bool(&j, "stale", w->stale);
	if (w->held)
		json_holder(&j, w);
	else
		json_str(&j, "holder", NULL);
	if (w->nplaces > 0)	/* limit: N: how many places are held */
		json_num(&j, "places", (long long)w->nplaces);
	if (w->has_last)
		json_last_run(&j, w);
	else
		json_str(&j, "last_run", NULL);
	json_time(&j, "last_success", w->success_ms);
	json_counts(&j, w);
	if (w->paused)
		json_pause(&j, w);
	else
		json_str(&j, "paused", NULL);
	json_open(&j, "missed");	/* slots that ran nowhere */
	json_num(&j, "count", w->missed);
	json_str(&j, "last_slot", w->missed_slot);
	json_close(&j);
	if (w->error)	/* its records unread: the rest unknown */
		json_str(&j, "error", w->error);
	json_end(&j);
}

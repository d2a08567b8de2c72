/* SPDX-License-Identifier: BSD-2-Clause */
/* prom.c -- the Prometheus text exposition (prom.h): each task's lock and
 * last run as gauges and the counters the lock server keeps, for `lockrun
 * status --format prometheus` and the scheduler's /metrics alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "web/prom.h"

/* s as a Prometheus label value, quoted. The text format escapes only a
 * backslash, a quotation mark and a newline; each byte that is not part
 * of valid UTF-8 is written as U+FFFD, so the output stays valid, and so
 * is a control character, C0, C1 or bidi (text_control_len()), which a
 * task's name cannot hold (the config refuses it): no reader of the
 * exposition is handed one whatever reaches here. */
static void
prom_label(FILE *fp, const char *s)
{
	size_t left = strlen(s), len;

	fputc('"', fp);
	for (; left > 0; s += len, left -= len) {
		if ((len = text_utf8_len(s, left)) == 0 ||
		    (*s != '\n' && text_control_len(s, left) != 0)) {
			fputs("\xef\xbf\xbd", fp);
			len = len ? len : 1;
		} else if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", fp);
		else
			fwrite(s, 1, len, fp);
	}
	fputc('"', fp);
}

/* The families, in the order printed: gauges of each task's lock and last
 * run, then the counters the server keeps (record.h). A counter's index
 * in the row's count[], or -1 for a gauge. */
static const struct family {
	const char	*name;
	const char	*type;
	int		 counter;
	const char	*reason;	/* the skips' label, or NULL */
	const char	*help;
} families[] = {
	{ "lockrun_lock_held", "gauge", -1, NULL,
	  "Whether the task's lock is held (1) or free (0)." },
	{ "lockrun_lock_held_seconds", "gauge", -1, NULL, "How long the lock has been "
	  "held: the age of its holder, by the lock server's clock." },
	{ "lockrun_last_run_start_timestamp_seconds", "gauge", -1, NULL, "When the "
	  "task's last run took the lock (Unix time, lock server's clock)." },
	{ "lockrun_last_run_end_timestamp_seconds", "gauge", -1, NULL, "When the task's "
	  "last run ended (Unix time, lock server's clock)." },
	{ "lockrun_last_success_timestamp_seconds", "gauge", -1, NULL, "When a run of "
	  "the task last ended with exit status 0 (Unix time, lock server's clock)." },
	{ "lockrun_last_exit_status", "gauge", -1, NULL, "The exit status of the "
	  "task's last run that ended." },
	{ "lockrun_last_duration_seconds", "gauge", -1, NULL, "How long the task's "
	  "last run that ended held the lock." },
	{ "lockrun_paused", "gauge", -1, NULL, "Whether the task is paused (1: every "
	  "server skips it, lockrun pause) or not (0)." },
	{ "lockrun_missed_total", "counter", -1, NULL, "Slots of the task that passed "
	  "their starting_deadline with no run on any server, as a scheduler recorded "
	  "them." },
	{ "lockrun_last_missed_slot_timestamp_seconds", "gauge", -1, NULL, "The start "
	  "of the task's last slot recorded as missed (Unix time)." },
	{ "lockrun_runs_total", "counter", CNT_RUNS, NULL, "Runs of the task that "
	  "took the lock." },
	{ "lockrun_skips_total", "counter", CNT_SKIPPED_HELD, "held", "Runs of the task "
	  "skipped: its lock was held (held), or its slot had run elsewhere "
	  "(slot_taken)." },
	{ "lockrun_skips_total", NULL, CNT_SKIPPED_SLOT, "slot_taken", NULL },
	{ "lockrun_failures_total", "counter", CNT_FAILURES, NULL, "Runs of the task "
	  "that ended with a non-zero exit status (timeouts among them, lost runs "
	  "not)." },
	{ "lockrun_lost_total", "counter", CNT_LOST, NULL, "Runs of the task that "
	  "lost their lock while the command ran." },
	{ "lockrun_timeouts_total", "counter", CNT_TIMEOUTS, NULL, "Runs of the task "
	  "stopped by their --timeout." },
	{ "lockrun_retries_total", "counter", CNT_RETRIES, NULL, "Attempts of the task's "
	  "command after a run's first (retries:), counted when the run ends." },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* Gauge f's value for row w as a number of ms (secs set) or a plain
 * integer; ABSENT to leave the sample out. */
static long long
sample(size_t f, const struct row *w, int *secs)
{
	int ended = w->has_last && w->l_event && strcmp(w->l_event, "running") != 0;

	*secs = 1;
	switch (f) {
	case 0: *secs = 0; return w->held;
	case 1: return w->held ? w->held_ms : ABSENT;
	case 2: return w->l_start;
	case 3: return ended ? w->l_end : ABSENT;
	case 4: return w->success_ms;
	case 5: *secs = 0; return ended ? w->l_status : ABSENT;
	case 6: return ended ? w->l_duration : ABSENT;
	case 7: *secs = 0; return w->paused;
	case 8: *secs = 0; return w->missed;
	case 9: return w->missed_ms;
	}
	return ABSENT;
}

/* One sample line: name{task="...",reason="..."} value. ms are written
 * as seconds with three decimals. */
static void
put_sample(FILE *fp, const struct family *fam, const char *task, long long v, int secs)
{
	fprintf(fp, "%s{task=", fam->name);
	prom_label(fp, task);
	if (fam->reason != NULL)
		fprintf(fp, ",reason=\"%s\"", fam->reason);
	if (secs)
		fprintf(fp, "} %s%lld.%03lld\n", v < 0 ? "-" : "", llabs(v) / 1000,
		    llabs(v) % 1000);
	else
		fprintf(fp, "} %lld\n", v);
}

/* Each family's HELP and TYPE once (a family of several label values
 * shares them: its later entries have no type), then its samples, one
 * per task that has a value. A counter the server has no record of is 0:
 * it was never counted, or its record expired with the history, which
 * Prometheus reads as a reset. */
void
prom_tasks_print(const struct row *rows, size_t n, FILE *fp)
{
	for (size_t f = 0; f < NFAMILIES; f++) {
		const struct family *fam = &families[f];

		if (fam->type != NULL)
			fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help,
			    fam->name, fam->type);
		for (size_t i = 0; i < n; i++) {
			int secs = 0;
			long long v = fam->counter >= 0 ? rows[i].count[fam->counter] :
			    sample(f, &rows[i], &secs);

			if (v != ABSENT && rows[i].error == NULL)	/* unknown */
				put_sample(fp, fam, rows[i].name, v, secs);
		}
	}
	/* a task whose records lockrun could not read: no other sample */
	fputs("# HELP lockrun_task_read_error Whether the task's records could not be "
	    "read (1: a value past what lockrun reads, or malformed; its other samples "
	    "are left out).\n# TYPE lockrun_task_read_error gauge\n", fp);
	for (size_t i = 0; i < n; i++)
		put_sample(fp, &(struct family){ .name = "lockrun_task_read_error" },
		    rows[i].name, rows[i].error != NULL, 0);
}

/* Ms as seconds with three decimals. */
static void
put_secs(FILE *fp, long long ms)
{
	fprintf(fp, "%s%lld.%03lld\n", ms < 0 ? "-" : "", llabs(ms) / 1000, llabs(ms) % 1000);
}

/* A per-task gauge of the scheduler's. */
static void
sched_gauge(FILE *fp, const struct crond_view *v, const char *name, const char *help,
    int next)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (size_t i = 0; i < v->ntasks; i++) {
		const struct crond_task_view *t = &v->tasks[i];

		if (next && t->next_ms < 0)
			continue;
		fprintf(fp, "%s{task=", name);
		prom_label(fp, t->name);
		fputs("} ", fp);
		if (next)
			put_secs(fp, t->next_ms);
		else
			fprintf(fp, "%zu\n", t->running);
	}
}

void
prom_sched_print(const struct crond_view *v, FILE *fp)
{
	static const long long bounds[CROND_LAG_NBOUNDS] = CROND_LAG_BOUNDS;
	unsigned long long cum = 0;

	sched_gauge(fp, v, "lockrun_scheduler_runs_in_progress", "Runs of the task this "
	    "scheduler started that have not ended.", 0);
	sched_gauge(fp, v, "lockrun_scheduler_next_fire_timestamp_seconds", "The task's "
	    "next fire time on this scheduler (Unix time).", 1);
	fputs("# HELP lockrun_scheduler_start_lag_seconds How late this scheduler started "
	    "each run behind its fire time.\n"
	    "# TYPE lockrun_scheduler_start_lag_seconds histogram\n", fp);
	for (size_t b = 0; b <= CROND_LAG_NBOUNDS; b++) {
		cum += v->lag[b];
		fputs("lockrun_scheduler_start_lag_seconds_bucket{le=\"", fp);
		if (b < CROND_LAG_NBOUNDS)
			fprintf(fp, "%lld.%03lld", bounds[b] / 1000, bounds[b] % 1000);
		else
			fputs("+Inf", fp);
		fprintf(fp, "\"} %llu\n", cum);
	}
	fputs("lockrun_scheduler_start_lag_seconds_sum ", fp);
	put_secs(fp, v->lag_sum_ms);
	fprintf(fp, "lockrun_scheduler_start_lag_seconds_count %llu\n", v->starts);
	fprintf(fp, "# HELP lockrun_scheduler_missed_total Fire times this scheduler did "
	    "not start: later than their starting_deadline, or passed over by a clock "
	    "step (a run of them counts once).\n# TYPE lockrun_scheduler_missed_total "
	    "counter\nlockrun_scheduler_missed_total %llu\n", v->missed);
	fprintf(fp, "# HELP lockrun_scheduler_slots_sat_out_total Fire times this "
	    "scheduler started nothing for, their slot claimed elsewhere (as the lock "
	    "server told, or its own claim found).\n# TYPE "
	    "lockrun_scheduler_slots_sat_out_total counter\n"
	    "lockrun_scheduler_slots_sat_out_total %llu\n", v->sat_out);
	fprintf(fp, "# HELP lockrun_scheduler_config_reloads_total Times the config was "
	    "read again and taken (SIGHUP).\n# TYPE lockrun_scheduler_config_reloads_total "
	    "counter\nlockrun_scheduler_config_reloads_total %llu\n", v->reloads);
	fprintf(fp, "# HELP lockrun_scheduler_config_reload_failures_total Times the "
	    "config read again was refused and the old one kept.\n"
	    "# TYPE lockrun_scheduler_config_reload_failures_total counter\n"
	    "lockrun_scheduler_config_reload_failures_total %llu\n", v->reload_failures);
}

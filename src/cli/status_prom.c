/* SPDX-License-Identifier: BSD-2-Clause */
/* status_prom.c -- `lockrun status --format prometheus`: each task's lock
 * and last run as gauges in the Prometheus text exposition format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/status.h"
#include "core/text.h"

/* s as a Prometheus label value, quoted. The text format escapes only a
 * backslash, a quotation mark and a newline; each byte that is not part
 * of valid UTF-8 is written as U+FFFD, so the output stays valid. */
static void
put_label(FILE *fp, const char *s)
{
	size_t left = strlen(s), len;

	fputc('"', fp);
	for (; left > 0; s += len, left -= len) {
		if ((len = text_utf8_len(s, left)) == 0) {
			fputs("\xef\xbf\xbd", fp);
			len = 1;
		} else if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", fp);
		else
			fwrite(s, 1, len, fp);
	}
	fputc('"', fp);
}

static const struct family {
	const char	*name;
	const char	*help;
} families[] = {
	{ "lockrun_lock_held", "Whether the task's lock is held (1) or free (0)." },
	{ "lockrun_lock_held_seconds", "How long the lock has been held, by the "
	  "lock server's clock." },
	{ "lockrun_last_run_start_timestamp_seconds", "When the task's last run "
	  "took the lock (Unix time, lock server's clock)." },
	{ "lockrun_last_run_end_timestamp_seconds", "When the task's last run ended "
	  "(Unix time, lock server's clock)." },
	{ "lockrun_last_success_timestamp_seconds", "When a run of the task last "
	  "ended with exit status 0 (Unix time, lock server's clock)." },
	{ "lockrun_last_exit_status", "The exit status of the task's last run that "
	  "ended." },
	{ "lockrun_last_duration_seconds", "How long the task's last run that ended "
	  "held the lock." },
	{ "lockrun_history_runs", "Runs started among the entries of the task's "
	  "history kept by the lock server." },
	{ "lockrun_history_skips", "Runs skipped (lock held, or slot already run) "
	  "among the entries of the task's history kept by the lock server." },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* Family f's value for row w as a number of ms (secs set) or a plain
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
	case 7: *secs = 0; return w->runs;
	case 8: *secs = 0; return w->skips;
	}
	return ABSENT;
}

/* Each family's HELP and TYPE once, then its samples, one per task that
 * has a value. ms are written as seconds with three decimals. */
void
status_prom_print(const struct row *rows, size_t n, FILE *fp)
{
	for (size_t f = 0; f < NFAMILIES; f++) {
		fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", families[f].name,
		    families[f].help, families[f].name);
		for (size_t i = 0; i < n; i++) {
			int secs;
			long long v = sample(f, &rows[i], &secs);

			if (v == ABSENT)
				continue;
			fprintf(fp, "%s{task=", families[f].name);
			put_label(fp, rows[i].name);
			if (secs)
				fprintf(fp, "} %s%lld.%03lld\n", v < 0 ? "-" : "",
				    llabs(v) / 1000, llabs(v) % 1000);
			else
				fprintf(fp, "} %lld\n", v);
		}
	}
}

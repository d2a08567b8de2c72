/* SPDX-License-Identifier: BSD-2-Clause */
/* jitter_test.c -- random_delay: two schedulers on one clock (libfaketime)
 * put a slot off by the same delay, and the slot runs once, that long
 * after its fire time, still as the fire time's slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(jitter, .init = suite_setup, .fini = backends_teardown, .timeout = 150);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* The delay server i said it put the 12:00 slot off by, in seconds. */
static long
said_delay(const struct fleet *f, int i)
{
	const char *text = file_peek(f->err[i]);
	const char *p = strstr(text, "fire time 2026-06-15T12:00:00Z starts ");
	char *end;
	long s;

	cr_assert(p != NULL, "server %d:\n%s", i, text);
	p += strlen("fire time 2026-06-15T12:00:00Z starts ");
	s = strtol(p, &end, 10);
	cr_assert(end != p && (*end == 's' || strncmp(end, "m", 1) == 0), "%s", p);
	if (*end == 'm') {	/* "2m5s" */
		long more = strtol(end + 1, &end, 10);
		s = s * 60 + more;
	}
	return s;
}

static void
two_schedulers_one_delay(enum backend b)
{
	char logbuf[256], cfgbuf[256], body[1024];
	const char *log, *cfg;
	struct fleet f;
	long d0, d1, started = 0;
	char slot[64] = "";
	FILE *fp;

	use(b);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	snprintf(cfgbuf, sizeof(cfgbuf), "%s", scratch("jitter.yaml"));
	log = logbuf;
	cfg = cfgbuf;
	snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "tasks:\n"
	    "  spread:\n"
	    "    schedule: '0 12 * * *'\n"
	    "    random_delay: 50s\n"
	    "    command: 'echo \"$(date +%%s) $LOCKRUN_SLOT\" >> %s'\n", url, log);
	fp = fopen(cfg, "w");
	cr_assert(fp != NULL);
	fputs(body, fp);
	fclose(fp);
	fleet_start(&f, 2, cfg, T_1200 - 5, 10, b == BE_REDIS ? NULL : pw_env);
	POLL_UNTIL(file_lines(log) > 0);
	POLL_UNTIL(fleet_matching(&f, 0, "spread 2026-06-15T12:00:00Z: (ended|skipped)") +
	    fleet_matching(&f, 1, "spread 2026-06-15T12:00:00Z: (ended|skipped)") >= 2);
	fleet_stop(&f);

	d0 = said_delay(&f, 0);
	d1 = said_delay(&f, 1);
	cr_assert(eq(long, d0, d1), "both servers drew the same delay");
	cr_assert(d0 > 0 && d0 <= 50, "%ld", d0);
	cr_assert(eq(int, file_lines(log), 1), "one run:\n%s", file_peek(log));
	cr_assert(sscanf(file_peek(log), "%ld %63s", &started, slot) == 2, "%s", file_peek(log));
	cr_assert(eq(str, slot, "2026-06-15T12:00:00Z"), "the slot stays the fire time's");
	/* by the fleet's clock: not before the delay; the upper bound only
	 * tells "then" from "at some later fire time or retry" (the clock runs
	 * ten times as fast: a fork and connect 1 s late read 10 s) */
	cr_assert(started >= (long)T_1200 + d0 && started < (long)T_1200 + d0 + 30,
	    "started %ld s after the fire time, the delay is %ld s", started - (long)T_1200, d0);
}

Test(jitter, redis_two_schedulers_draw_one_delay_and_run_once, .fini = fleet_cleanup)
{
	two_schedulers_one_delay(BE_REDIS);
}
Test(jitter, pg_two_schedulers_draw_one_delay_and_run_once, .fini = fleet_cleanup)
{
	two_schedulers_one_delay(BE_PG);
}

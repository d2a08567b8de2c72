/* SPDX-License-Identifier: BSD-2-Clause */
/* slot_test.c -- one run per scheduled slot across servers whose clocks
 * disagree: each lockrun gets its own clock from libfaketime, standing
 * still at the instant the test names, so slots and TTLs are exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(slot, .init = suite_setup, .fini = suite_teardown, .timeout = 30);

#define T_1745 1795283100.0	/* 2026-11-21T17:45:00Z */
#define T_DEC1_0400 1796097600.0	/* 2026-12-01T04:00:00Z */

/* Run lockrun as a server whose clock reads at. */
static void
run_at(struct result *r, double at, const char *schedule, const char *tolerance,
    const char *out)
{
	const char *env[6];
	char buf[3][128], script[256];

	faketime_frozen_env(env, buf, at);
	snprintf(script, sizeof(script), "echo \"$LOCKRUN_SLOT\" >> %s", out);
	lr_run_env(r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--schedule", schedule, "--timezone", "UTC", "--slot-tolerance", tolerance,
	    "-k", "job", "-E", "75", "--", "sh", "-c", script, NULL });
}

/* The contents of a file ("" if it cannot be read). */
static char *
slurp_file(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "r");
	size_t len = 0;

	if (fp) {
		len = fread(buf, 1, n - 1, fp);
		fclose(fp);
	}
	buf[len] = '\0';
	return buf;
}

static int
slot_keys(void)
{
	redisReply *k = rcmd("KEYS lockrun:{job}:slot:*");
	int n = (int)k->elements;

	freeReplyObject(k);
	return n;
}

/* The slot key TTL lockrun asked for, in ms, from its acquire (EVALSHA
 * of the six-key script) as MONITOR saw it: the third word of the first
 * argument after the keys, "<owner id> <stable ttl> <slot ttl> ...". Ends
 * the watch. */
static long long
asked_slot_ttl(redisContext *mon)
{
	char line[2048];
	const char *p;
	long long ttl = -1;

	cr_assert(eq(long, monitor_until(mon, "^\"EVALSHA\" \"[0-9a-f]{40}\" \"6\" ", 1,
	    line, sizeof(line)), 1), "no acquire seen");
	redisFree(mon);
	p = line;
	for (int quotes = 0; *p && quotes < 18; p++)	/* 9 quoted words */
		quotes += *p == '"';
	cr_assert(eq(int, sscanf(p, " \"%*s %*d %lld", &ttl), 1), "in %s", line);
	return ttl;
}

static int
slot_exists(const char *stamp)
{
	redisReply *k = rcmd("EXISTS lockrun:{job}:slot:%s", stamp);
	int n = (int)k->integer;

	freeReplyObject(k);
	return n;
}

Test(slot, clocks_3s_apart_across_a_minute_boundary_run_once)
{
	const char *out = scratch("ran");
	struct result a, b;

	run_at(&a, T_1745 - 1.5, "* * * * *", "5s", out);	/* 17:44:58.5 */
	run_at(&b, T_1745 + 1.5, "* * * * *", "5s", out);	/* 17:45:01.5 */
	cr_assert(eq(int, a.status, 0), "%s", a.err);
	cr_assert(eq(int, b.status, 75), "the second server skips");
	cr_assert(eq(int, file_lines(out), 1));
	cr_assert(eq(int, slot_exists("20261121T1745Z"), 1));
	cr_assert(eq(int, slot_keys(), 1));
}

/* The same starts without tolerance split the slot, as Laravel's
 * per-minute key does: the control that shows what tolerance buys. */
Test(slot, without_tolerance_the_same_starts_run_twice)
{
	const char *out = scratch("ran");
	struct result a, b;
	char ran[256];

	run_at(&a, T_1745 - 1.5, "* * * * *", "0", out);
	run_at(&b, T_1745 + 1.5, "* * * * *", "0", out);
	cr_assert(eq(int, a.status, 0));
	cr_assert(eq(int, b.status, 0));
	/* the slots the runs claimed, as each run's command was told; not
	 * the keys: 17:44's lives only 1.5s past the first run */
	cr_assert(eq(str, slurp_file(out, ran, sizeof(ran)),
	    "2026-11-21T17:44:00Z\n2026-11-21T17:45:00Z\n"));
}

/* Seed 000: one server boots and starts at :59.5, another at :00.2. */
Test(slot, starts_at_59_5_and_00_2_run_once)
{
	const char *out = scratch("ran");
	struct result a, b;

	run_at(&a, T_1745 - 0.5, "* * * * *", "5s", out);
	run_at(&b, T_1745 + 0.2, "* * * * *", "5s", out);
	cr_assert(eq(int, a.status + b.status, 75), "one ran (0), one skipped (75)");
	cr_assert(eq(int, file_lines(out), 1));
	cr_assert(eq(int, slot_exists("20261121T1745Z"), 1));
}

Test(slot, a_start_40s_late_claims_its_own_slot)
{
	const char *out = scratch("ran");
	struct result a, b;

	run_at(&a, T_1745 - 60 + 40, "* * * * *", "5s", out);	/* 17:44:40 */
	cr_assert(eq(int, a.status, 0), "%s", a.err);
	cr_assert(eq(int, slot_exists("20261121T1744Z"), 1), "17:44's slot, not 17:45's");
	run_at(&b, T_1745 + 0.1, "* * * * *", "5s", out);	/* 17:45's own run */
	cr_assert(eq(int, b.status, 0), "17:45 still runs");
	cr_assert(eq(int, file_lines(out), 2));
}

Test(slot, a_monthly_schedule_maps_a_start_2h_late_to_its_day)
{
	const char *out = scratch("ran");
	redisContext *mon = monitor_start();
	struct result a, b;
	long long asked, t;

	run_at(&a, T_DEC1_0400 + 2 * 3600, "0 4 1 * *", "5s", out);	/* 06:00 */
	cr_assert(eq(int, a.status, 0), "%s", a.err);
	cr_assert(eq(int, slot_exists("20261201T0400Z"), 1));
	/* until 2027-01-01T04:00:05Z: 31 days less the 2h since the fire time */
	asked = asked_slot_ttl(mon);
	cr_assert(eq(i64, asked, (31LL * 86400 - 2 * 3600 + 5) * 1000));
	t = key_pttl("lockrun:{job}:slot:20261201T0400Z");
	cr_assert(t > 0 && t <= asked, "pttl %lld", t);
	run_at(&b, T_DEC1_0400 + 20 * 3600, "0 4 1 * *", "5s", out);	/* 20h late */
	cr_assert(eq(int, b.status, 75), "the same day's slot");
	cr_assert(eq(int, file_lines(out), 1));
}

Test(slot, slot_key_lives_until_the_next_fire_time_plus_tolerance)
{
	const char *out = scratch("ran");
	redisContext *mon = monitor_start();
	struct result a;
	long long t;

	run_at(&a, T_1745 + 10, "*/15 * * * *", "5s", out);	/* 17:45:10 */
	cr_assert(eq(int, a.status, 0), "%s", a.err);
	/* next fire 18:00:00, plus 5s, less 17:45:10: 14m55s */
	cr_assert(eq(i64, asked_slot_ttl(mon), 895000));
	t = key_pttl("lockrun:{job}:slot:20261121T1745Z");
	cr_assert(t > 0 && t <= 895000, "pttl %lld", t);
}

Test(slot, check_prints_the_slot_key_ttl_and_next_fire_times)
{
	const char *env[6];
	char buf[3][128];
	struct result r;

	faketime_frozen_env(env, buf, T_1745 - 1.5);	/* 17:44:58.5 */
	lr_run_env(&r, env, (const char *const[]){ "check", "--redis", fx.url,
	    "--one-server", "--clock-tolerance", "0", "--schedule", "*/15 * * * *",
	    "--timezone", "UTC", "-k", "job",
	    "--", "true", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	/* 17:44:58.5 + 5s tolerance: the 17:45 slot, whose key lives until
	 * 18:00:05, 15m6.5s from now */
	cr_assert(strstr(r.out, "slot now    2026-11-21T17:45:00Z  key "
	    "lockrun:{job}:slot:20261121T1745Z  ttl 15m6s (906500ms)\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "next        2026-11-21T17:45:00Z\n"
	    "            2026-11-21T18:00:00Z\n            2026-11-21T18:15:00Z\n"
	    "            2026-11-21T18:30:00Z\n            2026-11-21T18:45:00Z\n") != NULL,
	    "%s", r.out);
	cr_assert(strstr(r.out, "redis       127.0.0.1:") != NULL, "%s", r.out);
	cr_assert(eq(int, slot_keys(), 0), "check takes nothing");
}

Test(slot, bad_schedule_on_the_command_line_is_64)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--one-server", "--schedule", "61 * * * *", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(strstr(r.err, "lockrun: schedule \"61 * * * *\": field 1 (minute)") != NULL,
	    "%s", r.err);
}

/* The command's TZ is the command's: it must not move lockrun's own
 * reading of the schedule (Kathmandu's hours start at :15 UTC). */
Test(slot, the_commands_tz_does_not_move_the_schedule)
{
	const char *env[6];
	char buf[3][128];
	struct result r;

	faketime_frozen_env(env, buf, T_1745 - 1.5);	/* it sets lockrun's own TZ=UTC */
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--one-server",
	    "--clock-tolerance", "0",
	    "--schedule", "0 * * * *", "-e", "TZ=Asia/Kathmandu", "-k", "tz", "--",
	    "sh", "-c", "printf '%s %s' \"$LOCKRUN_SLOT\" \"$TZ\"", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, r.out, "2026-11-21T17:00:00Z Asia/Kathmandu"));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fleetops_test.c -- operating the fleet's jobs from one place, on Redis
 * and PostgreSQL: `lockrun pause` on one server skips the task on the
 * others, whichever way they start it (-t, tick, cron), naming who paused
 * it; a pause with an end lifts itself; resume restores; `lockrun
 * trigger` runs a task once across two schedulers without using a slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"
#include "json.h"

TestSuite(fleetops, .init = suite_setup, .fini = backends_teardown, .timeout = 150);

#define TWO(name)							\
	Test(fleetops, redis_##name, .fini = fleet_cleanup) { use(BE_REDIS); name(); } \
	Test(fleetops, pg_##name, .fini = fleet_cleanup) { use(BE_PG); name(); }

/* A config at path for the test's backend: task job every minute,
 * appending "job SLOT" to log; the clock check off (faked clocks). */
static const char *
job_config(char path[256], const char *log, const char *extra)
{
	FILE *fp;

	snprintf(path, 256, "%s", scratch("ops.yaml"));
	fp = fopen(path, "w");
	cr_assert(fp != NULL);
	fprintf(fp, "url: '%s'\ndefaults:\n  clock_tolerance: 0\ntasks:\n"
	    "  job:\n    schedule: '* * * * *'\n"
	    "    command: 'echo \"job $LOCKRUN_SLOT\" >> %s'\n%s", url, log, extra);
	fclose(fp);
	return path;
}

/* lockrun ARGS with the backend's environment and a config. */
#define CFG(res, cfg, ...) lr_run_env((res), env_with(NULL),		\
	(const char *const[]){ "-c", (cfg), __VA_ARGS__, NULL })

/* The pause line a skipped run says: who (alpha, by its user), until
 * resumed, and why. */
#define PAUSER_RE "skipped: job is paused by [^ ]+ on alpha at [0-9TZ:-]+, until resumed: " \
	"disk swap"

/* One tick at a fire time of a frozen clock (12:03:10 on 2026-06-15),
 * as host gamma. */
static void
tick_as_gamma(struct result *r, const char *cfg)
{
	const char *fake[6];
	char buf[3][128];

	faketime_frozen_env(fake, buf, 1781524800.0 + 3 * 60 + 10);
	lr_run_env(r, env_with(fake), (const char *const[]){ "tick", "-v", "-c", cfg,
	    "--host", "gamma", NULL });
}

static void
pause_skips_every_entry_point(void)
{
	char cfgbuf[256], logbuf[256], evs[1024];
	const char *log = strcpy(logbuf, scratch("runs.log"));
	const char *cfg = job_config(cfgbuf, log, "");
	struct result r;
	struct fleet f;

	CFG(&r, cfg, "pause", "job", "--host", "alpha", "--reason", "disk swap");
	cr_assert(eq(int, r.status, 0), "pause: %s", r.err);
	cr_assert(matches(r.out, "^paused  job until resumed; a copy running now goes on "
	    "\\(lockrun unlock job stops it\\)"), "%s", r.out);
	cr_assert(eq(dbl, metric("job", "lockrun_paused", NULL), 1.0));

	/* a crontab line on another server: skipped, exit per -E */
	CFG(&r, cfg, "-t", "job", "-v", "-E", "3", "--host", "beta");
	cr_assert(eq(int, r.status, 3), "-t: %s", r.err);
	cr_assert(matches(r.err, PAUSER_RE), "%s", r.err);

	/* tick on a third */
	tick_as_gamma(&r, cfg);
	cr_assert(eq(int, r.status, 0), "tick: %s", r.err);
	cr_assert(matches(r.err, PAUSER_RE), "%s", r.err);

	/* a scheduler on a fourth, at one of its fire times */
	fleet_start(&f, 1, cfg, 1781524800.0 - 5, 5, be == BE_REDIS ? NULL : pw_env);
	POLL_UNTIL(fleet_matching(&f, 0, PAUSER_RE) > 0);
	cr_assert(fleet_matching(&f, 0, PAUSER_RE) > 0, "%s", file_peek(f.err[0]));
	fleet_stop(&f);

	cr_assert(eq(int, file_lines(log), 0), "ran while paused:\n%s", file_peek(log));
	events("job", evs, sizeof(evs));
	cr_assert(matches(evs, "^skipped-paused skipped-paused skipped-paused( skipped-paused)* "
	    "paused$"), "%s", evs);

	/* resumed: the next run runs */
	CFG(&r, cfg, "resume", "job", "--host", "alpha");
	cr_assert(eq(int, r.status, 0), "resume: %s", r.err);
	cr_assert(matches(r.out, "^resumed job \\(paused by [^ ]+ on alpha at "), "%s", r.out);
	CFG(&r, cfg, "-t", "job", "--host", "beta");
	cr_assert(eq(int, r.status, 0), "-t: %s", r.err);
	cr_assert(eq(int, file_lines(log), 1), "%s", file_peek(log));
	cr_assert(eq(dbl, metric("job", "lockrun_paused", NULL), 0.0));
	CFG(&r, cfg, "resume", "job");
	cr_assert(eq(int, r.status, 0), "resume: %s", r.err);
	cr_assert(eq(str, r.out, "job was not paused\n"));
}
TWO(pause_skips_every_entry_point)

/* The pause --for 3s writes: until is since + 3 s, by the server's clock. */
static long long
pause_length_ms(void)
{
	struct result r;
	struct json *j;
	const struct json *p;
	char err[256];
	double since = 0, until = 0;

	VERB(&r, "status", "--json", "job");
	cr_assert(eq(int, r.status, 0), "status: %s", r.err);
	j = json_parse(r.out, err, sizeof(err));
	cr_assert(j != NULL, "%s: %s", err, r.out);
	p = json_get(j, "paused");
	cr_assert(p != NULL && json_num(json_get(p, "since_ms"), &since) == 0 &&
	    json_num(json_get(p, "until_ms"), &until) == 0, "%s", r.out);
	json_free(j);
	return (long long)(until - since);
}

/* Has job run (its log has a line)? Runs it once more if not. */
static int
ran_once_more(const char *cfg, const char *log)
{
	struct result r;

	if (file_lines(log) > 0)
		return 1;
	CFG(&r, cfg, "-t", "job", "--no-one-server");
	cr_assert(r.status == 0, "-t: %s", r.err);
	return file_lines(log) > 0;
}

static void
a_pause_for_3s_lifts_itself(void)
{
	char cfgbuf[256], logbuf[256], evs[1024];
	const char *log = strcpy(logbuf, scratch("runs.log"));
	const char *cfg = job_config(cfgbuf, log, "");
	struct result r;

	CFG(&r, cfg, "pause", "job", "--for", "3s");
	cr_assert(eq(int, r.status, 0), "pause: %s", r.err);
	cr_assert(matches(r.out, "^paused  job until [0-9TZ:-]+; "), "%s", r.out);
	long long len = pause_length_ms();
	cr_assert(eq(i64, len, 3000));
	/* nobody resumes it: runs are tried until one runs */
	POLL_UNTIL(ran_once_more(cfg, log));
	cr_assert(eq(int, file_lines(log), 1));
	cr_assert(eq(dbl, metric("job", "lockrun_paused", NULL), 0.0));
	events("job", evs, sizeof(evs));
	cr_assert(matches(evs, "^released ran (skipped-paused|paused)( |$)"), "%s", evs);
}
TWO(a_pause_for_3s_lifts_itself)

/* The pause is read by the acquire's own script: a paused run costs one
 * command, as any skip does (run_test's skip_costs_one_command), and an
 * uncontended run still two. */
Test(fleetops, redis_a_paused_run_costs_one_command)
{
	struct result r;
	redisContext *mon;
	char seen[256];

	use(BE_REDIS);
	LR(&r, "--redis", fx.url, "-k", "rt", "--", "true");	/* loads the scripts */
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "-k", "rt", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 2), "%s", seen);
	LR(&r, "pause", "--redis", fx.url, "rt");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	mon = monitor_start();
	LR(&r, "--redis", fx.url, "-k", "rt", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75), "%s", r.err);
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 1), "%s", seen);
}

/* Two schedulers, one trigger: the task runs once (a flock the command
 * holds would show a second copy at once, and a second run as a second
 * line), recorded as triggered, and the next scheduled slot still runs. */
static void
trigger_runs_once_across_two_schedulers(void)
{
	char cfgbuf[256], logbuf[256], evs[1024], tail[512];
	const char *log = strcpy(logbuf, scratch("runs.log"));
	const char *cfg;
	struct result r;
	struct fleet f;

	snprintf(tail, sizeof(tail), "  other:\n    schedule: '0 0 1 1 *'\n"
	    "    command: 'true'\n");
	cfg = job_config(cfgbuf, log, tail);
	/* the command: "job triggered" (no slot) or "job SLOT", under a flock */
	{
		FILE *fp = fopen(cfg, "w");
		cr_assert(fp != NULL);
		fprintf(fp, "url: '%s'\ndefaults:\n  clock_tolerance: 0\ntasks:\n"
		    "  job:\n    schedule: '* * * * *'\n    starting_deadline: 20s\n"
		    "    command: 'flock -n %s.lock sh -c "
		    "''echo \"job ${LOCKRUN_SLOT:-triggered}\" >> %s; sleep 1'' || "
		    "echo overlap >> %s'\n%s", url, log, log, log, tail);
		fclose(fp);
	}
	/* 12:00:30: the 12:00 fire time is past its starting_deadline, so
	 * neither scheduler catches it up at its start (a run that would hold
	 * the lock the trigger's run needs) */
	fleet_start(&f, 2, cfg, 1781524800.0 + 30, 5, be == BE_REDIS ? NULL : pw_env);
	for (int i = 0; i < 2; i++)
		POLL_UNTIL(fleet_matching(&f, i, "cron: 2 scheduled tasks") > 0);
	CFG(&r, cfg, "trigger", "job");
	cr_assert(eq(int, r.status, 0), "trigger: %s", r.err);
	cr_assert(matches(r.out, "^asked for a run of job: the first `lockrun cron` to look"),
	    "%s", r.out);
	POLL_UNTIL(lines_matching(log, "^job 2026-06-15T12:01:00Z$") > 0);
	fleet_stop(&f);
	cr_assert(eq(int, lines_matching(log, "^job triggered$"), 1), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^job 2026-06-15T12:01:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	cr_assert(eq(int, fleet_matching(&f, 0, "job triggered: started") +
	    fleet_matching(&f, 1, "job triggered: started"), 1));
	/* newest first; the other scheduler's skip of 12:01 may come after
	 * the winner's release, when its run starts later */
	events("job", evs, sizeof(evs));
	cr_assert(matches(evs, "^((skipped-held|skipped-slot) )*released ((skipped-held|"
	    "skipped-slot) )*ran ((skipped-held|skipped-slot) )*released triggered$"), "%s",
	    evs);
}
TWO(trigger_runs_once_across_two_schedulers)

/* --here: one run on this host now, no slot claimed: the slot's own run
 * still runs. */
static void
trigger_here_uses_no_slot(void)
{
	char cfgbuf[256], logbuf[256], evs[1024];
	const char *log = strcpy(logbuf, scratch("runs.log"));
	const char *cfg = job_config(cfgbuf, log, "");
	struct result r;

	CFG(&r, cfg, "trigger", "--here", "job");
	cr_assert(eq(int, r.status, 0), "trigger: %s", r.err);
	CFG(&r, cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "-t: %s", r.err);
	cr_assert(eq(int, file_lines(log), 2), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^job $"), 1), "%s", file_peek(log));
	events("job", evs, sizeof(evs));
	cr_assert(eq(str, evs, "released ran released triggered"));
}
TWO(trigger_here_uses_no_slot)

/* A name that is not in the config is refused before anything is
 * written, with the nearest name when there is one: no scheduler would
 * take its trigger, and a mistyped name asked for nothing. */
static void
trigger_refuses_a_name_not_in_the_config(void)
{
	char cfgbuf[256], logbuf[256];
	const char *log = strcpy(logbuf, scratch("runs.log"));
	const char *cfg = job_config(cfgbuf, log, "");
	struct result r;

	CFG(&r, cfg, "trigger", "jbo");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: jbo: no such task in .*ops\\.yaml "
	    "\\(did you mean job\\?\\)\n"), "%s", r.err);
	CFG(&r, cfg, "trigger", "nosuch");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: nosuch: no such task in "), "%s", r.err);
	cr_assert(eq(str, r.out, ""), "nothing asked: %s", r.out);
	CFG(&r, cfg, "trigger", "--here", "nosuch");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	CFG(&r, cfg, "trigger", "job");
	cr_assert(eq(int, r.status, 0), "trigger: %s", r.err);
}
TWO(trigger_refuses_a_name_not_in_the_config)

/* MySQL keeps no pauses or triggers: said, 64, nothing done. */
Test(fleetops, mysql_refuses_pause_and_trigger)
{
	struct result r;

	use(BE_MYSQL);
	VERB(&r, "pause", "job");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: pause: the MySQL backend keeps no pauses \\(Redis "
	    "and PostgreSQL do\\)\n"), "%s", r.err);
	VERB(&r, "trigger", "job");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: trigger: the MySQL backend keeps no triggers"),
	    "%s", r.err);
}

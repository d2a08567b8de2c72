/* SPDX-License-Identifier: BSD-2-Clause */
/* window_test.c -- whether a run goes at all, decided before its lock is
 * asked (cli/when.c): its times of day (between:, not_between:) on its
 * zone's clock, faked by libfaketime, on both sides of Berlin's clock
 * changes, for -t and tick; and its condition (when:), whose no skips the
 * slot and is recorded, for -t and through a scheduler's leases (tick), on
 * Redis and PostgreSQL (full tier). */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(window, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

#define H	3600.0
#define SPRING	1774746000.0	/* 2026-03-29T01:00Z: Berlin's 02:00 CET becomes 03:00 CEST */
#define FALL	1792890000.0	/* 2026-10-25T01:00Z: Berlin's 03:00 CEST becomes 02:00 CET */
#define NOON	1781524800.0	/* 2026-06-15T12:00Z: 14:00 in Berlin */

/* A config on the test's backend with task "job", which appends a line to
 * the file ran (its path into ran[256]) each time it runs, with the
 * task's settings more (indented by four); skips exit 75. Faked clocks
 * are far from the server's: no clock check. */
static const char *
job_config(const char *more, char *ran)
{
	char body[2048];

	snprintf(ran, 256, "%s", scratch("ran"));
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "defaults:\n  clock_tolerance: 0\n"
	    "tasks:\n"
	    "  job:\n"
	    "    command: 'echo ran >> %s'\n"
	    "    conflict_exit: 75\n%s", url, ran, more);
	return write_scratch("window.yaml", body);
}

/* lockrun -v -c cfg -t job, its clock reading at (frozen); its status. */
static int
job_at(const char *cfg, double at, struct result *r)
{
	const char *fake[6];
	char buf[3][128];

	faketime_frozen_env(fake, buf, at);
	lr_run_env(r, env_with(fake), (const char *const[]){ "-v", "-c", cfg, "-t", "job",
	    NULL });
	return r->status;
}

/* How many times job ran. */
static int
runs(const char *ran)
{
	return access(ran, F_OK) == 0 ? file_lines(ran) : 0;
}

/* Inside its window the task runs; outside it exits with its skip status
 * at once, says why in one line, and nothing reaches the server: no
 * history. Before, between was an unknown key (78). */
Test(window, between_runs_inside_and_skips_outside_without_asking)
{
	char ran[256], buf[512];
	struct result r;
	const char *cfg;

	use(BE_REDIS);
	cfg = job_config("    between: '08:00-18:00'\n    timezone: Europe/Berlin\n", ran);
	cr_assert(eq(int, job_at(cfg, NOON + 4 * H, &r), 75), "18:00 Berlin: %s", r.err);
	cr_assert(ne(ptr, strstr(r.err, "lockrun: skipped: task job runs only at some times of "
	    "day: 18:00 Europe/Berlin is outside between 08:00-18:00\n"), NULL), "%s", r.err);
	cr_assert(eq(int, runs(ran), 0));
	cr_assert(eq(int, key_exists("lockrun:{job}:history"), 0), "nothing recorded");
	cr_assert(eq(int, key_exists("lockrun:{job}:fence"), 0), "nothing asked");
	cr_assert(eq(int, job_at(cfg, NOON, &r), 0), "14:00 Berlin: %s", r.err);
	cr_assert(eq(int, runs(ran), 1));
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)), "released ran"));
	/* not_between, wrapping midnight, on the command line's clock zone */
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "check", "-c", cfg,
	    "--not-between", "22:00-06:00", "--timezone", "UTC", "-t", "job", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nwindow +a run now (goes|skips): [0-9:]+ UTC is "), "%s", r.out);
}

/* Berlin's clock goes back at 03:00 CEST on 2026-10-25: "02:00-03:00"
 * holds both of its 02:30s, an hour apart, and not the 03:00 after. */
Test(window, between_holds_the_hour_repeated_in_autumn_twice)
{
	char ran[256];
	struct result r;
	const char *cfg;

	use(BE_REDIS);
	cfg = job_config("    between: '02:00-03:00'\n    timezone: Europe/Berlin\n", ran);
	cr_assert(eq(int, job_at(cfg, FALL - H - 60, &r), 75), "01:59 CEST: %s", r.err);
	cr_assert(eq(int, job_at(cfg, FALL - 0.5 * H, &r), 0), "02:30 CEST: %s", r.err);
	cr_assert(eq(int, job_at(cfg, FALL + 0.5 * H, &r), 0), "02:30 CET: %s", r.err);
	cr_assert(eq(int, job_at(cfg, FALL + H, &r), 75), "03:00 CET: %s", r.err);
	cr_assert(ne(ptr, strstr(r.err, "03:00 Europe/Berlin is outside between "
	    "02:00-03:00"), NULL), "%s", r.err);
	cr_assert(eq(int, runs(ran), 2));
}

/* Berlin's clock jumps from 02:00 CET to 03:00 CEST on 2026-03-29:
 * "02:00-03:00" holds no instant that day, and the day before it does. */
Test(window, between_holds_nothing_of_the_hour_skipped_in_spring)
{
	char ran[256];
	struct result r;
	const char *cfg;

	use(BE_REDIS);
	cfg = job_config("    between: '02:00-03:00'\n    timezone: Europe/Berlin\n", ran);
	cr_assert(eq(int, job_at(cfg, SPRING - 60, &r), 75), "01:59 CET: %s", r.err);
	cr_assert(eq(int, job_at(cfg, SPRING, &r), 75), "03:00 CEST: %s", r.err);
	cr_assert(ne(ptr, strstr(r.err, "03:00 Europe/Berlin is outside between "
	    "02:00-03:00"), NULL), "%s", r.err);
	cr_assert(eq(int, job_at(cfg, SPRING + 0.5 * H, &r), 75), "03:30 CEST: %s", r.err);
	cr_assert(eq(int, runs(ran), 0));
	cr_assert(eq(int, job_at(cfg, SPRING - 24 * H + 0.5 * H, &r), 0),
	    "02:30 CET the day before: %s", r.err);
	cr_assert(eq(int, runs(ran), 1));
}

/* tick at 02:30 CET, the second one of 2026-10-25 in Berlin: of two tasks
 * due, the one whose window holds it runs; the other is not started, its
 * skip said by tick, nothing recorded. */
Test(window, tick_starts_only_what_its_window_holds)
{
	char log[256], body[1024], buf[256];
	const char *fake[6], *cfg;
	char fb[3][128];
	struct result r;

	use(BE_REDIS);
	snprintf(log, sizeof(log), "%s", scratch("ran"));
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "defaults:\n  clock_tolerance: 0\n  every: 1m\n  timezone: Europe/Berlin\n"
	    "tasks:\n"
	    "  in:\n    every: 1m\n    between: '02:00-03:00'\n"
	    "    command: 'echo in >> %s'\n"
	    "  out:\n    every: 1m\n    not_between: '02:00-03:00'\n"
	    "    command: 'echo out >> %s'\n", url, log, log);
	cfg = write_scratch("tick.yaml", body);
	faketime_frozen_env(fake, fb, FALL + 0.5 * H + 1);
	lr_run_env(&r, env_with(fake), (const char *const[]){ "tick", "-v", "-c", cfg,
	    NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(log), "in\n"), "%s", r.err);
	cr_assert(ne(ptr, strstr(r.err, "lockrun: out 2026-10-25T01:30:00Z: skipped: 02:30 "
	    "Europe/Berlin is within not_between 02:00-03:00\n"), NULL), "%s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{out}:history"), 0), "nothing recorded");
	cr_assert(eq(str, (char *)events("in", buf, sizeof(buf)), "released ran"));
}

/* cron at 12:00Z, 14:00 in Berlin: of two minutely tasks, the one whose
 * window holds the fire time runs it; the other is not started (its slot
 * is not even claimed), its skip said by the scheduler. */
Test(window, cron_starts_only_what_its_window_holds)
{
	char log[256], body[1024];
	const char *cfg;
	pid_t cron;

	use(BE_REDIS);
	snprintf(log, sizeof(log), "%s", scratch("ran"));
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "defaults:\n  clock_tolerance: 0\n  timezone: Europe/Berlin\n"
	    "  starting_deadline: 30s\n  schedule: '* * * * *'\n"
	    "tasks:\n"
	    "  in:\n    between: '14:00-15:00'\n    command: 'echo in >> %s'\n"
	    "  out:\n    not_between: '14:00-15:00'\n    command: 'echo out >> %s'\n",
	    url, log, log);
	cfg = write_scratch("cron.yaml", body);
	cron = cron_at(cfg, NOON - 2);
	POLL_UNTIL(stderr_matching(cron, "^lockrun: out 2026-06-15T12:00:00Z: skipped: "
	    "14:00 Europe/Berlin is within not_between 14:00-15:00$") == 1);
	POLL_UNTIL(stderr_matching(cron, "^lockrun: in 2026-06-15T12:00:00Z: ended") == 1);
	cron_stop(cron);
	cr_assert(eq(str, (char *)file_peek(log), "in\n"));
	cr_assert(eq(int, key_exists("lockrun:{out}:history"), 0), "nothing recorded");
	cr_assert(eq(int, key_exists("lockrun:{out}:slot:20260615T1200Z"), 0), "no claim");
}

/* The newest history entry of job (`history --json -n 1`). */
static const char *
newest(char *buf, size_t n)
{
	struct result r;

	VERB(&r, "history", "--json", "-n", "1", "job");
	cr_assert(eq(int, r.status, 0), "history: %s", r.err);
	snprintf(buf, n, "%s", r.out);
	return buf;
}

/* Run job of cfg: lockrun -c cfg -t job, or with tick, lockrun tick. */
static void
start(const char *cfg, int tick, struct result *r)
{
	if (tick)
		lr_run_env(r, env_with(NULL), (const char *const[]){ "tick", "-c", cfg, NULL });
	else
		lr_run_env(r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t", "job",
		    NULL });
}

/* when: exit 1 skips the slot: the command does not run, the run exits
 * with its skip status, quietly (cron mails any output), and the history
 * says skipped-condition with the condition's status, counted as no
 * failure; exit 0 runs. Started by -t, or by tick (the record then goes
 * over the scheduler's leases). Before, when was an unknown key (78). */
static void
condition_on_record(enum backend b, const char *how)
{
	char ran[256], buf[4096];
	struct result r;
	const char *cfg;
	int tick = strcmp(how, "tick") == 0;

	use(b);
	cfg = job_config("    schedule: '* * * * *'\n    when: [sh, -c, 'exit 1']\n", ran);
	start(cfg, tick, &r);
	cr_assert(eq(int, r.status, tick ? 0 : 75), "%s", r.err);
	if (!tick)
		cr_assert(eq(str, r.err, ""), "a skip is quiet");
	cr_assert(eq(int, runs(ran), 0));
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)), "skipped-condition"));
	cr_assert(matches(newest(buf, sizeof(buf)), "\"status\":1[,}]"), "%s", buf);
	cr_assert(ne(ptr, strstr(buf, "when: sh exited with status 1"), NULL), "%s", buf);

	cfg = job_config("    schedule: '* * * * *'\n    when: ['true']\n", ran);
	start(cfg, tick, &r);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, runs(ran), 1));
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)),
	    "released ran skipped-condition"));
	/* the skip counted neither as a run nor as a failure */
	cr_assert(eq(dbl, metric("job", "lockrun_runs_total", NULL), 1.0));
	cr_assert(eq(dbl, metric("job", "lockrun_failures_total", NULL), 0.0));
}

Test(window, when_exit_1_skips_and_records_it)
{
	condition_on_record(BE_REDIS, "-t");
}
Test(window, when_under_tick_records_the_skip_over_the_scheduler)
{
	condition_on_record(BE_REDIS, "tick");
}
Test(window, pg_when_exit_1_skips_and_records_it)
{
	condition_on_record(BE_PG, "-t");
}
/* a scheduler's releases go to PostgreSQL and MySQL in batches */
Test(window, pg_when_under_tick_records_the_skip_in_a_batch)
{
	condition_on_record(BE_PG, "tick");
}
Test(window, mysql_when_under_tick_records_the_skip_in_a_batch)
{
	condition_on_record(BE_MYSQL, "tick");
}

/* A condition that cannot be started is a failure, said in one line, as
 * a command not found is (127); nothing runs, nothing is recorded. */
Test(window, a_when_that_cannot_start_fails_in_one_line)
{
	char ran[256];
	struct result r;
	const char *cfg;

	use(BE_REDIS);
	cfg = job_config("    when: [/nonexistent/condition]\n", ran);
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t", "job", NULL });
	cr_assert(eq(int, r.status, 127), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: when: cannot run /nonexistent/condition: No such "
	    "file or directory\n"));
	cr_assert(eq(int, runs(ran), 0));
	cr_assert(eq(int, key_exists("lockrun:{job}:history"), 0), "nothing recorded");
}

/* A run whose user: this host lacks asks no condition: it would not run
 * as the task's user. The run goes on to its lock, says why it cannot
 * start and records it (78), as one without when: does. Before, the
 * condition ran as lockrun's own user. */
Test(window, a_when_of_a_user_this_host_lacks_is_not_asked)
{
	char ran[256], more[512], buf[4096], asked[256];
	struct result r;
	const char *cfg;

	use(BE_REDIS);
	snprintf(asked, sizeof(asked), "%s", scratch("asked"));
	snprintf(more, sizeof(more), "    user: no-such-user-xyz\n"
	    "    when: [sh, -c, 'echo asked >> %s']\n", asked);
	cfg = job_config(more, ran);
	cr_assert(eq(int, chmod(cfg, 0600), 0));
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t", "job", NULL });
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(ne(ptr, strstr(r.err, "user no-such-user-xyz: no such user on this host"),
	    NULL), "%s", r.err);
	cr_assert(eq(int, access(asked, F_OK), -1), "the condition was not run");
	cr_assert(eq(int, runs(ran), 0));
	cr_assert(ne(ptr, strstr(newest(buf, sizeof(buf)), "no such user on this host"),
	    NULL), "recorded: %s", buf);
}

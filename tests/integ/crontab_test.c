/* SPDX-License-Identifier: BSD-2-Clause */
/* crontab_test.c -- a crontab file as the fleet's tasks (config/crontab.h):
 * three `lockrun cron --crontab` on one file run each due line once a
 * slot across them, with its environment, zone, input and user; the line
 * that cannot run is said by check at file:line:col and by each cron
 * once. */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define SLOT	"2026-06-15T12:00:00Z"
#define SCHEDS	3

TestSuite(crontab, .init = suite_setup, .fini = suite_teardown, .timeout = 120);

/* The fleet's crontab, writing to log; its line 12 is broken. */
static const char *
fleet_crontab(const char *log)
{
	static char path[256];
	char body[2048];

	snprintf(body, sizeof(body),
	    "# the fleet's crontab, the same on every server\n"
	    "GREETING=\"hello there\"\n"
	    "CRON_TZ=Asia/Tokyo\n"
	    "* * * * * echo minute \"$GREETING\" $LOCKRUN_SLOT $SERVER >> %1$s\n"
	    "# lockrun: tokyo ttl=30s\n"
	    "0 21 * * * echo tokyo $LOCKRUN_SLOT $SERVER >> %1$s\n"
	    "CRON_TZ=UTC\n"
	    "@hourly   echo hourly $LOCKRUN_SLOT $SERVER >> %1$s\n"
	    "# lockrun: input\n"
	    /* one write: the other runs append to the same log */
	    "0 12 * * * x=$(tr '\\n' ' '); echo \"${x}input $LOCKRUN_SLOT $SERVER\" >> %1$s "
	    "%%one%%two\\%%\n"
	    "0 13 * * * echo not-due >> %1$s\n"
	    "61 * * * * echo broken >> %1$s\n", log);
	snprintf(path, sizeof(path), "%s", write_scratch("crontab", body));
	return path;
}

/* The /etc/crontab form: a user field. */
static const char *
system_crontab(void)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s", write_scratch("system-crontab",
	    "# lockrun: as-nobody\n* * * * * nobody echo as $(id -un) $LOCKRUN_SLOT >&2\n"));
	return path;
}

/* Lines of the schedulers' stderr that say re, in all. */
static int
said(const pid_t *cron, const char *re)
{
	int n = 0;

	for (int i = 0; i < SCHEDS; i++)
		n += stderr_matching(cron[i], re);
	return n;
}

/* Every line due at 12:00 has run somewhere. */
static int
all_ran(const char *log, const pid_t *cron)
{
	return lines_matching(log, "^minute hello there " SLOT " [0-2]$") >= 1 &&
	    lines_matching(log, "^tokyo " SLOT " [0-2]$") >= 1 &&
	    lines_matching(log, "^hourly " SLOT " [0-2]$") >= 1 &&
	    lines_matching(log, "^one two% input " SLOT " [0-2]$") >= 1 &&
	    said(cron, "^as-nobody: as nobody " SLOT "$") >= 1;
}

/* And each scheduler has decided its five starts of 12:00: no copy of a
 * slot is still on its way. */
static int
all_decided(const pid_t *cron)
{
	for (int i = 0; i < SCHEDS; i++)
		if (sched_decided(cron[i], "[^ :]+") < 5)
			return 0;
	return 1;
}

Test(crontab, three_schedulers_run_each_due_line_once_with_its_environment)
{
	char log[256], cfg[256], err[SCHEDS][8192];
	const char *ct, *sys;
	pid_t cron[SCHEDS];
	long long guard = 0;

	snprintf(log, sizeof(log), "%s", scratch("runs.log"));
	ct = fleet_crontab(log);
	sys = system_crontab();
	/* the url, and the clock check off: the lock server's clock is real;
	 * the 11:59 slot, 58 s before the start, not caught up */
	snprintf(cfg, sizeof(cfg), "%s", write_config_faked("  starting_deadline: 30s\n"));
	for (int i = 0; i < SCHEDS; i++)
		cron[i] = cron_server_args(i, T_1200 - 2, NULL, (const char *const[]){ "cron",
		    "-v", "-c", cfg, "--crontab", ct, "--system-crontab", sys, NULL });
	while (!(all_ran(log, cron) && all_decided(cron)) && poll_tick(&guard))
		;
	for (int i = 0; i < SCHEDS; i++) {
		lr_stderr_of(cron[i], err[i], sizeof(err[i]));
		cron_stop(cron[i]);
	}
	cr_assert(eq(int, all_ran(log, cron), 1), "ran:\n%s\n%s", file_peek(log), err[0]);
	/* once a slot across the three */
	cr_assert(eq(int, lines_matching(log, "^minute hello there " SLOT " [0-2]$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^tokyo " SLOT " [0-2]$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^hourly " SLOT " [0-2]$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^one two% input " SLOT " [0-2]$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, said(cron, "^as-nobody: as nobody " SLOT "$"), 1));
	cr_assert(eq(int, lines_matching(log, "not-due|broken"), 0), "%s", file_peek(log));
	/* the broken line: said once by each scheduler, at its place */
	for (int i = 0; i < SCHEDS; i++)
		cr_assert(eq(int, stderr_matching(cron[i], "crontab:12:1: field 1 \\(minute\\): "
		    "61 is out of range 0-59; the line is not run$"), 1), "%s", err[i]);
}

/* The lines of text that match re. */
static int
lines_of(const char *text, const char *re)
{
	char copy[4096], *save = NULL;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		n += matches(l, re);
	return n;
}

Test(crontab, check_lists_the_lines_tasks_and_refuses_the_broken_line)
{
	struct result r;
	const char *ct = fleet_crontab(scratch("runs.log"));

	lr_run(&r, (const char *const[]){ "--url", fx.url, "--crontab", ct, "check", NULL });
	cr_assert(eq(int, r.status, 1), "%s%s", r.out, r.err);
	cr_assert(ne(ptr, strstr(r.out, "\ntask        tokyo "), NULL), "%s", r.out);
	cr_assert(ne(ptr, strstr(r.out, "\ntask        input "), NULL), "%s", r.out);
	cr_assert(eq(int, lines_of(r.out, "^task        echo-[0-9a-f]{8} "), 3), "%s", r.out);
	cr_assert(ne(ptr, strstr(r.out, "(Asia/Tokyo)"), NULL), "%s", r.out);
	/* each schedule in words */
	cr_assert(ne(ptr, strstr(r.out, "\n            fires every minute, 1440 times a day\n"),
	    NULL), "%s", r.out);
	cr_assert(ne(ptr, strstr(r.out, "\n            fires every hour, 24 times a day\n"),
	    NULL), "%s", r.out);
	cr_assert(ne(ptr, strstr(r.err, "crontab:12:1: field 1 (minute): 61 is out of range "
	    "0-59; the line is not run"), NULL), "%s", r.err);
}

/* A crontab others may write is refused, as a config is (run as root). */
Test(crontab, a_crontab_others_may_write_is_refused)
{
	struct result r;
	const char *ct = fleet_crontab(scratch("runs.log"));

	cr_assert(eq(int, chmod(ct, 0666), 0));
	lr_run(&r, (const char *const[]){ "--url", fx.url, "--crontab", ct, "check", NULL });
	cr_assert(eq(int, r.status, 78), "%s%s", r.out, r.err);
	cr_assert(ne(ptr, strstr(r.err, "not trusted"), NULL), "%s", r.err);
	cr_assert(eq(int, lines_matching(scratch("runs.log"), "."), 0));
}

/* Six fields are read seconds first: check says how often such a
 * schedule fires, and a sixth field that can only be a year is an error
 * at its place. */
Test(crontab, check_says_what_six_fields_mean_and_refuses_a_year)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  fast:\n    schedule: '*/5 * * * * *'\n"
	    "    command: [\"true\"]\n");

	lr_run(&r, (const char *const[]){ "-c", cfg, "check", NULL });
	cr_assert(eq(int, r.status, 0), "%s%s", r.out, r.err);
	cr_assert(ne(ptr, strstr(r.out, "six fields, the first a second: every 5 seconds, "
	    "17280 times a day\n"), NULL), "%s", r.out);
	cfg = write_config("tasks:\n  yearly:\n    schedule: '0 3 * * * 2027'\n"
	    "    command: [\"true\"]\n");
	lr_run(&r, (const char *const[]){ "-c", cfg, "check", NULL });
	cr_assert(eq(int, r.status, 78), "%s%s", r.out, r.err);
	cr_assert(ne(ptr, strstr(r.err, "lockrun.yaml:5:26: tasks.yearly.schedule: field 6: "
	    "2027 can only be a year"), NULL), "%s", r.err);
}

/* The task lines and fire times check prints, the rest left out: what
 * must be the same whichever way the tasks were read. */
static void
tasks_of(const char *out, char *buf, size_t n)
{
	char copy[4096], *save = NULL;
	size_t len = 0;

	buf[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", out);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if ((strncmp(l, "task ", 5) == 0 || strncmp(l, "            ", 12) == 0) &&
		    len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s\n", l);
}

/* import-crontab's output, as a config, gives the tasks the crontab
 * gives: the same names, schedules, zones and fire times (both checks on
 * one clock that stands still: a minute passing would move the next
 * fire times of one of them). */
Test(crontab, import_crontab_fed_back_as_a_config_gives_the_same_tasks)
{
	struct result r;
	const char *ct = fleet_crontab(scratch("runs.log")), *cfg, *env[6];
	char want[4096], got[4096], buf[3][128], body[8192];

	lr_run(&r, (const char *const[]){ "import-crontab", ct, NULL });
	cr_assert(eq(int, r.status, 1), "the broken line: %s%s", r.out, r.err);
	cr_assert(ne(ptr, strstr(r.out, "# left out: "), NULL), "%s", r.out);
	snprintf(body, sizeof(body), "redis:\n  url: '%s'\n%s", fx.url, r.out);
	cfg = write_scratch("imported.yaml", body);
	faketime_frozen_env(env, buf, T_1200 + 30);
	lr_run_env(&r, env, (const char *const[]){ "-c", write_config_faked(""), "--crontab",
	    ct, "check", NULL });
	tasks_of(r.out, want, sizeof(want));
	lr_run_env(&r, env, (const char *const[]){ "-c", cfg, "check", NULL });
	cr_assert(eq(int, r.status, 0), "%s%s", r.out, r.err);
	tasks_of(r.out, got, sizeof(got));
	cr_assert(eq(int, lines_of(want, "^task "), 5), "%s", want);
	cr_assert(eq(str, got, want));
}

/* MAILTO where a mailer is: a line that prints mails its output there,
 * through "sendmail -t -oi" as cron(8) does; one that prints nothing
 * sends nothing. */
Test(crontab, mailto_mails_the_output_of_a_line_that_prints)
{
	char mailer[256], env0[300], body[1024], mail[256];
	const char *ct, *env[2];
	struct result r;

	snprintf(mail, sizeof(mail), "%s", scratch("mail.txt"));
	snprintf(body, sizeof(body), "#!/bin/sh\n{ echo \"args: $*\"; cat; } >> %s\n", mail);
	snprintf(mailer, sizeof(mailer), "%s", write_scratch("sendmail", body));
	cr_assert(eq(int, chmod(mailer, 0755), 0));
	snprintf(env0, sizeof(env0), "LOCKRUN_SENDMAIL=%s", mailer);
	env[0] = env0;
	env[1] = NULL;
	ct = write_scratch("crontab", "MAILTO=ops@example.com\n"
	    "# lockrun: talks\n0 3 * * * echo hello mail; echo oops >&2\n"
	    "# lockrun: quiet\n0 4 * * * true\n");
	lr_run_env(&r, env, (const char *const[]){ "--url", fx.url, "--crontab", ct, "-t",
	    "quiet", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, access(mail, F_OK), -1), "no output, no mail");
	lr_run_env(&r, env, (const char *const[]){ "--url", fx.url, "--host", "web3",
	    "--crontab", ct, "-t", "talks", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(mail), "args: -t -oi\nTo: ops@example.com\n"
	    "Subject: lockrun <web3> talks: status 0\nContent-Type: text/plain; charset=UTF-8\n"
	    "Auto-Submitted: auto-generated\n\nhello mail\noops\n"));
}

/* tick reads the crontab as cron does: the line due this minute runs. */
Test(crontab, tick_runs_the_line_due_this_minute)
{
	char body[1024], out[256], buf[3][128];
	const char *ct, *env[6];
	struct result r;

	snprintf(out, sizeof(out), "%s", scratch("tick.out"));
	snprintf(body, sizeof(body), "# lockrun: every\n* * * * * echo $LOCKRUN_SLOT >> %s\n"
	    "# lockrun: later\n0 3 * * * echo later >> %s\n", out, out);
	ct = write_scratch("crontab", body);
	faketime_frozen_env(env, buf, T_1200 + 1);
	lr_run_env(&r, env, (const char *const[]){ "-c", write_config_faked(""), "--crontab",
	    ct, "tick", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(out), SLOT "\n"));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* crontab_test.c -- crontab text read as tasks (config/crontab.c): the
 * job lines, VAR=value lines, zones, '%', the user field, `# lockrun:`
 * lines, derived names, and each line it cannot take said at its place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "config/config.h"
#include "config/crontab.h"

static struct lr_config cfg;

static void
parse(const char *text, int users)
{
	struct lr_err e;

	config_free(&cfg);
	config_init(&cfg);
	cr_assert(eq(int, crontab_parse(&cfg, "ct", text, users, NULL, &e), 0), "%s", e.msg);
}

static void
teardown(void)
{
	config_free(&cfg);
}

TestSuite(crontab, .fini = teardown);

/* The one task called name, with the env entry "NAME=value" looked up. */
static const char *
env_of(const struct lr_task *t, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; t->env && t->env[i]; i++)
		if (strncmp(t->env[i], name, len) == 0 && t->env[i][len] == '=')
			return t->env[i] + len + 1;
	return NULL;
}

static const char *
note_at(size_t i)
{
	cr_assert(lt(sz, i, cfg.nnotes), "only %zu notes", cfg.nnotes);
	return cfg.notes[i].text;
}

Test(crontab, job_lines_take_their_schedule_environment_and_zone)
{
	const struct lr_task *t;

	parse("# comment\n"
	    "FOO = \"a b\"\n"
	    "CRON_TZ=Europe/Berlin\n"
	    "*/5  *\t* * *   echo $FOO\n"
	    "BAR='x'\n"
	    "@daily /usr/bin/backup --all\n", 0);
	cr_assert(eq(sz, cfg.ntasks, 2));
	cr_assert(eq(sz, cfg.nnotes, 0));
	t = &cfg.tasks[0];
	cr_assert(eq(str, t->schedule, "*/5 * * * *"));
	cr_assert(eq(str, t->timezone, "Europe/Berlin"));
	cr_assert(eq(int, t->shell, 1));
	cr_assert(eq(str, t->argv[0], "echo $FOO"));
	cr_assert(eq(str, (char *)env_of(t, "FOO"), "a b"));
	cr_assert(eq(ptr, (void *)env_of(t, "BAR"), NULL));
	cr_assert(eq(ptr, (void *)env_of(t, "CRON_TZ"), NULL), "the schedule's zone only");
	cr_assert(eq(str, t->argv_at, "ct:4:16"));
	t = &cfg.tasks[1];
	cr_assert(eq(str, t->schedule, "@daily"));
	cr_assert(eq(str, (char *)env_of(t, "BAR"), "x"));
	cr_assert(eq(int, strncmp(t->name, "backup-", 7), 0), "%s", t->name);
	cr_assert(eq(sz, cfg.nnames, 2));
}

Test(crontab, tz_is_the_zone_and_the_commands_shell_is_shell)
{
	const struct lr_task *t;

	parse("TZ=Asia/Tokyo\nSHELL=/bin/bash\n0 1 * * * echo hi\n", 0);
	t = &cfg.tasks[0];
	cr_assert(eq(str, t->timezone, "Asia/Tokyo"));
	cr_assert(eq(str, (char *)env_of(t, "TZ"), "Asia/Tokyo"));
	cr_assert(eq(int, t->shell, 0));
	cr_assert(eq(str, t->argv[0], "/bin/bash"));
	cr_assert(eq(str, t->argv[1], "-c"));
	cr_assert(eq(str, t->argv[2], "echo hi"));
}

Test(crontab, percent_ends_the_command_and_the_rest_is_its_input)
{
	parse("0 3 * * * cat >> /tmp/x %one%two\\%three\n0 4 * * * date +\\%F\n", 0);
	cr_assert(eq(str, cfg.tasks[0].argv[0], "{ cat >> /tmp/x\n} <<'LOCKRUN_INPUT'\n"
	    "one\ntwo%three\nLOCKRUN_INPUT"));
	cr_assert(eq(str, cfg.tasks[1].argv[0], "date +%F"));
}

Test(crontab, the_input_delimiter_is_one_no_input_line_holds)
{
	parse("0 3 * * * cat %LOCKRUN_INPUT%x\n", 0);
	cr_assert(eq(str, cfg.tasks[0].argv[0], "{ cat\n} <<'LOCKRUN_INPUT1'\nLOCKRUN_INPUT\nx\n"
	    "LOCKRUN_INPUT1"));
}

Test(crontab, the_etc_crontab_form_has_a_user_field)
{
	parse("17 * * * * root cd / && run-parts --report /etc/cron.hourly\n"
	    "0 5 * * *\n", 1);
	cr_assert(eq(sz, cfg.ntasks, 1));
	cr_assert(eq(str, cfg.tasks[0].user, "root"));
	cr_assert(eq(str, cfg.tasks[0].argv[0], "cd / && run-parts --report /etc/cron.hourly"));
	cr_assert(eq(str, (char *)note_at(0), "ct:2:10: no user field (this file is read in "
	    "the /etc/crontab form: the schedule, a user, the command)"));
	cr_assert(eq(int, crontab_path_has_users("/etc/crontab"), 1));
	cr_assert(eq(int, crontab_path_has_users("/etc/cron.d/php"), 1));
	cr_assert(eq(int, crontab_path_has_users("/srv/crontab"), 0));
}

Test(crontab, a_lockrun_line_names_the_next_job_and_sets_its_settings)
{
	const struct lr_task *t;

	parse("# lockrun: nightly ttl=10m retries=2 one_server=false\n"
	    "MAILTO=\"\"\n"
	    "30 2 * * * /usr/bin/nightly\n"
	    "0 1 * * * echo unnamed\n", 0);
	cr_assert(eq(sz, cfg.nnotes, 0), "%s", cfg.nnotes ? cfg.notes[0].text : "");
	t = config_task(&cfg, "nightly");
	cr_assert(ne(ptr, (void *)t, NULL));
	cr_assert(eq(i64, t->ttl_ms, 600000));
	cr_assert(eq(int, t->retries, 2));
	cr_assert(eq(int, t->one_server, 0));
	cr_assert(eq(int, strncmp(cfg.tasks[1].name, "echo-", 5), 0));
}

Test(crontab, lines_it_cannot_take_are_notes_at_their_place_and_the_rest_is_read)
{
	setenv("LOCKRUN_SENDMAIL", "/nonexistent/sendmail", 1);	/* no mailer */
	parse("61 * * * * echo a\n"		/* 1 */
	    "0 3 * * *   \n"			/* 2 */
	    "MAILTO=ops@example.com\n"		/* 3 */
	    "# lockrun: x flavour=vanilla\n"	/* 4 */
	    "0 5 * * * echo b\n"		/* 5 */
	    "# lockrun: ../etc\n"		/* 6 */
	    "0 6 * * * echo c\n"		/* 7 */
	    "TZ=Nowhere/Land\n"			/* 8 */
	    "0 7 * * * echo d\n"		/* 9 */
	    "TZ=UTC\n"				/* 10 */
	    "0 8 * 13 * echo e\n"		/* 11 */
	    "0 9 * * * echo ok\n"		/* 12 */
	    "# lockrun: dangling\n", 0);	/* 13 */
	cr_assert(eq(sz, cfg.ntasks, 1));
	cr_assert(eq(str, cfg.tasks[0].argv[0], "echo ok"));
	cr_assert(eq(str, (char *)note_at(0), "ct:1:1: field 1 (minute): 61 is out of range "
	    "0-59"));
	cr_assert(eq(str, (char *)note_at(1), "ct:2:13: no command after the schedule"));
	cr_assert(eq(int, strncmp(note_at(2), "ct:3:1: MAILTO=ops@example.com: no mailer "
	    "(/usr/sbin/sendmail) on this host", 65), 0), "%s", note_at(2));
	cr_assert(eq(int, cfg.notes[2].skipped, 0));
	cr_assert(eq(int, strncmp(note_at(3), "ct:4:14: flavour: not a setting", 31), 0), "%s",
	    note_at(3));
	cr_assert(eq(int, strncmp(note_at(4), "ct:6:12: \"../etc\"", 17), 0), "%s",
	    note_at(4));
	cr_assert(eq(int, strncmp(note_at(5), "ct:8:1: TZ: ", 12), 0), "%s", note_at(5));
	cr_assert(eq(str, (char *)note_at(6), "ct:9:1: the zone set at line 8 is not one"));
	cr_assert(eq(int, strncmp(note_at(7), "ct:11:7: field 4 (month)", 24), 0), "%s",
	    note_at(7));
	cr_assert(eq(str, (char *)note_at(8), "ct:13:1: a `# lockrun:` line with no job line "
	    "after it"));
	cr_assert(eq(sz, cfg.nnotes, 9));
}

Test(crontab, a_name_taken_twice_is_a_note_for_the_second_line)
{
	parse("0 1 * * * echo a\n0  1 * * *  echo a\n", 0);
	cr_assert(eq(sz, cfg.ntasks, 1));
	cr_assert(eq(int, strncmp(note_at(0), "ct:2:1: task echo-", 18), 0), "%s", note_at(0));
	cr_assert(ne(ptr, strstr(note_at(0), "is also ct:1:11"), NULL), "%s", note_at(0));
}

/* The derived name: the same wherever the line sits and however it is
 * spaced, another for another command, schedule or user. */
Test(crontab, derived_names_are_stable_and_say_the_command)
{
	char a[128], b[128];

	crontab_name(NULL, "0 3 * * *", "/usr/local/bin/import --all", a, sizeof(a));
	cr_assert(eq(int, strncmp(a, "import-", 7), 0), "%s", a);
	cr_assert(eq(sz, strlen(a), 15));
	crontab_name(NULL, "0  3 * * *", "  /usr/local/bin/import   --all ", b, sizeof(b));
	cr_assert(eq(str, a, b));
	crontab_name(NULL, "0 3 * * *", "/usr/local/bin/import --some", b, sizeof(b));
	cr_assert(ne(str, a, b));
	crontab_name(NULL, "0 4 * * *", "/usr/local/bin/import --all", b, sizeof(b));
	cr_assert(ne(str, a, b));
	crontab_name("www", "0 3 * * *", "/usr/local/bin/import --all", b, sizeof(b));
	cr_assert(ne(str, a, b));
	crontab_name(NULL, "@daily", ".hidden x", b, sizeof(b));
	cr_assert(eq(int, strncmp(b, "job-", 4), 0), "%s", b);
	crontab_name(NULL, "@daily", "a{b}c", b, sizeof(b));
	cr_assert(eq(int, strncmp(b, "a_b_c-", 6), 0), "%s", b);
}

Test(crontab, reordered_lines_keep_their_names)
{
	char one[2][64];

	parse("0 1 * * * echo a\n5 2 * * * echo b\n", 0);
	snprintf(one[0], sizeof(one[0]), "%s", cfg.tasks[0].name);
	snprintf(one[1], sizeof(one[1]), "%s", cfg.tasks[1].name);
	parse("\n5   2 * * * echo  b\n# moved\n0 1 * * *\techo a\n", 0);
	cr_assert(eq(str, cfg.tasks[0].name, one[1]));
	cr_assert(eq(str, cfg.tasks[1].name, one[0]));
}

/* MAILTO, where a mailer is: each task after it mails its output there;
 * MAILTO="" stops that, as cron(8) reads it. */
Test(crontab, mailto_is_each_lines_mail_address)
{
	setenv("LOCKRUN_SENDMAIL", "/bin/true", 1);
	parse("MAILTO=ops@example.com\n0 1 * * * echo a\nMAILTO=\"\"\n0 2 * * * echo b\n", 0);
	cr_assert(eq(sz, cfg.nnotes, 0), "%s", cfg.nnotes ? cfg.notes[0].text : "");
	cr_assert(eq(str, cfg.tasks[0].mailto, "ops@example.com"));
	cr_assert(eq(ptr, cfg.tasks[1].mailto, NULL));
}

/* A run reads its own line's task; the others' names are listed, their
 * tasks not built (a run's start-up does not grow with the file). */
Test(crontab, only_the_task_asked_for_is_read_in_full)
{
	struct lr_err e;

	config_free(&cfg);
	config_init(&cfg);
	cr_assert(eq(int, crontab_parse(&cfg, "ct", "# lockrun: a\n0 1 * * * echo a\n"
	    "# lockrun: b\n0 2 * * * echo b\n# lockrun: a\n0 3 * * * echo c\n", 0, "b", &e), 0));
	cr_assert(eq(sz, cfg.nnames, 2));
	cr_assert(eq(sz, cfg.ntasks, 1));
	cr_assert(eq(str, cfg.tasks[0].name, "b"));
	cr_assert(eq(str, (char *)note_at(0), "ct:6:1: task a is also named before it (in the config, or by an earlier line); give "
	    "this line a name of its own with a `# lockrun: NAME` line above it"));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* trust_test.c -- what root reads to know what to run must be root's: a
 * task name cannot leave the tasks_dir, and a config, a tasks_dir, a task
 * file or a link to one that another user owns or can write is refused by
 * tick, cron and -t (78, naming the file and the rule, never its
 * content). The tests run as root, as the scheduler does; each makes a
 * user of its own with useradd(8) and removes it after. */
#include <sys/stat.h>

#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

static char user[32];		/* this test's user, "" if none */
static uid_t uid;

static void
setup(void)
{
	suite_setup();
	user[0] = '\0';
}

static void
teardown(void)
{
	char cmd[128];

	if (user[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "userdel %s >/dev/null 2>&1", user);
		if (system(cmd) != 0)
			fprintf(stderr, "trust_test: could not remove user %s\n", user);
	}
	suite_teardown();
}

TestSuite(trust, .init = setup, .fini = teardown, .timeout = 60);

/* A user of this test's own (no home, no login), its uid in uid. */
static void
make_user(void)
{
	char cmd[160];
	struct passwd *pw;

	cr_assert(geteuid() == 0, "these tests run as root");
	snprintf(user, sizeof(user), "lrtrust%ld", (long)getpid());
	snprintf(cmd, sizeof(cmd), "useradd --system --no-create-home --shell "
	    "/usr/sbin/nologin %s", user);
	cr_assert(eq(int, system(cmd), 0), "%s", cmd);
	pw = getpwnam(user);
	cr_assert(pw != NULL, "getpwnam %s", user);
	uid = pw->pw_uid;
}

/* fx.dir/NAME holding body, mode mode. */
static const char *
put_file(const char *name, const char *body, mode_t mode)
{
	const char *path = scratch(name);
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL, "%s", path);
	fputs(body, fp);
	fclose(fp);
	cr_assert(eq(int, chmod(path, mode), 0));
	return path;
}

/* A config whose task "job" (every minute, in the main file when
 * in_main, else in tasks.d/job.yaml) touches the file ran. */
static const char *
job_config(int in_main)
{
	char body[1024];

	mkdir(scratch("tasks.d"), 0755);
	if (in_main)
		snprintf(body, sizeof(body), "tasks_dir: tasks.d\ntasks:\n  job:\n"
		    "    schedule: '* * * * *'\n    command: [touch, %s]\n", scratch("ran"));
	else {
		snprintf(body, sizeof(body), "schedule: '* * * * *'\ncommand: [touch, %s]\n",
		    scratch("ran"));
		put_file("tasks.d/job.yaml", body, 0644);
		snprintf(body, sizeof(body), "tasks_dir: tasks.d\n");
	}
	return write_config_faked(body);
}

static void
tick_at(struct result *r, const char *cfg, double at)
{
	const char *env[6];
	char buf[3][128];

	faketime_frozen_env(env, buf, at);
	lr_run_env(r, env, (const char *const[]){ "tick", "-c", cfg, NULL });
}

/* -t, tick, cron and check each refuse cfg with 78, an error that names
 * bad and the rule, and run nothing. */
static void
all_refuse(const char *cfg, const char *bad)
{
	char re[512];
	struct result r;
	pid_t pid;

	snprintf(re, sizeof(re), "lockrun: %s: not trusted: .*owned by root and not "
	    "writable by group or other", bad);
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 78), "-t: %s", r.err);
	cr_assert(matches(r.err, re), "-t: %s", r.err);
	tick_at(&r, cfg, T_1200 + 1);
	cr_assert(eq(int, r.status, 78), "tick: %s", r.err);
	cr_assert(matches(r.err, re), "tick: %s", r.err);
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "check: %s", r.err);
	cr_assert(matches(r.err, re), "check: %s", r.err);
	pid = cron_at(cfg, T_1200 - 1);
	cr_assert(eq(int, lr_wait(pid), 78), "cron runs an untrusted config");
	cr_assert(eq(int, access(scratch("ran"), F_OK), -1), "nothing ran");
}

/* The same config is run when it is root's: what made it refused was
 * the change the test made, nothing else. */
static void
runs_when_trusted(const char *cfg)
{
	struct result r;

	tick_at(&r, cfg, T_1200 + 1);
	cr_assert(eq(int, r.status, 0), "tick: %s", r.err);
	cr_assert(eq(int, access(scratch("ran"), F_OK), 0), "the task ran");
}

Test(trust, a_task_name_cannot_leave_the_tasks_dir)
{
	const char *cfg = job_config(1);
	char evil[512];
	struct result r;

	mkdir(scratch("elsewhere"), 0755);
	snprintf(evil, sizeof(evil), "command: [touch, %s]\n", scratch("ran"));
	put_file("elsewhere/evil.yaml", evil, 0644);
	LR(&r, "-c", cfg, "-t", "../elsewhere/evil");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: -t: \"\\.\\./elsewhere/evil\" may not contain "
	    "'/'"), "%s", r.err);
	cr_assert(eq(int, access(scratch("ran"), F_OK), -1), "evil.yaml was run");
	LR(&r, "-c", cfg, "-t", ".hidden");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(matches(r.err, "may not begin with '\\.'"), "%s", r.err);
}

Test(trust, a_task_key_in_the_file_is_a_name_too)
{
	const char *cfg = write_config("tasks:\n  ok:\n    command: [true]\n"
	    "  ../x:\n    command: [true]\n");
	struct result r;

	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, "lockrun\\.yaml:6:3: task name \"\\.\\./x\" may not contain "
	    "'/'"), "%s", r.err);
}

Test(trust, a_config_owned_by_a_user_is_refused)
{
	const char *cfg = job_config(1);

	make_user();
	cr_assert(eq(int, chown(cfg, uid, (gid_t)-1), 0));
	all_refuse(cfg, cfg);
	cr_assert(eq(int, chown(cfg, 0, (gid_t)-1), 0));
	runs_when_trusted(cfg);
}

Test(trust, a_world_writable_config_is_refused)
{
	const char *cfg = job_config(1);

	cr_assert(eq(int, chmod(cfg, 0666), 0));
	all_refuse(cfg, cfg);
	cr_assert(eq(int, chmod(cfg, 0644), 0));
	runs_when_trusted(cfg);
}

Test(trust, a_config_in_a_folder_a_user_owns_is_refused)
{
	const char *cfg = job_config(1);

	make_user();
	cr_assert(eq(int, chown(fx.dir, uid, (gid_t)-1), 0));
	all_refuse(cfg, cfg);
	cr_assert(eq(int, chown(fx.dir, 0, (gid_t)-1), 0));
	runs_when_trusted(cfg);
}

Test(trust, a_tasks_dir_open_to_all_is_refused)
{
	const char *cfg = job_config(0);
	const char *dir = scratch("tasks.d");

	cr_assert(eq(int, chmod(dir, 0777), 0));
	all_refuse(cfg, dir);
	cr_assert(eq(int, chmod(dir, 0755), 0));
	runs_when_trusted(cfg);
}

Test(trust, a_task_file_owned_by_a_user_is_refused)
{
	const char *cfg = job_config(0);
	const char *file = scratch("tasks.d/job.yaml");

	make_user();
	cr_assert(eq(int, chown(file, uid, (gid_t)-1), 0));
	all_refuse(cfg, file);
	cr_assert(eq(int, chown(file, 0, (gid_t)-1), 0));
	runs_when_trusted(cfg);
}

/* A link in tasks_dir (root's) to a file of the user's: refused, and
 * nothing of the file's text is quoted (it is not YAML, and would be
 * shown in a syntax error). */
Test(trust, a_link_to_a_users_file_is_refused_and_its_text_never_shown)
{
	const char *cfg = job_config(0);
	const char *file = scratch("tasks.d/job.yaml"), *theirs;
	struct result r;

	make_user();
	mkdir(scratch("home"), 0755);
	theirs = put_file("home/secret.yaml", "secret-line-4711: [\n", 0644);
	cr_assert(eq(int, chown(theirs, uid, (gid_t)-1), 0));
	cr_assert(eq(int, unlink(file), 0));
	cr_assert(eq(int, symlink(theirs, file), 0));
	all_refuse(cfg, file);
	LR(&r, "check", "-c", cfg);
	cr_assert(not(matches(r.err, "secret-line")), "%s", r.err);
	cr_assert(matches(r.err, "home/secret\\.yaml is owned by uid"), "%s", r.err);
}

/* A link that root made, to a file of root's: followed. */
Test(trust, a_link_that_root_owns_to_a_file_of_roots_is_followed)
{
	const char *cfg = job_config(0);
	const char *file = scratch("tasks.d/job.yaml");
	char body[512];

	mkdir(scratch("shared"), 0755);
	snprintf(body, sizeof(body), "schedule: '* * * * *'\ncommand: [touch, %s]\n",
	    scratch("ran"));
	put_file("shared/job.yaml", body, 0644);
	cr_assert(eq(int, unlink(file), 0));
	cr_assert(eq(int, symlink("../shared/job.yaml", file), 0));
	runs_when_trusted(cfg);
}

/* The scheduler's own variables do not reach its tasks, under cron or
 * tick; a task's env: may still set one. */
static const char *
env_config(void)
{
	char body[1024];

	snprintf(body, sizeof(body), "tasks:\n  envdump:\n    schedule: '* * * * *'\n"
	    "    env:\n      LISTEN_PID: mine\n"
	    "    command: 'env > %s.tmp && mv %s.tmp %s'\n", scratch("env"),
	    scratch("env"), scratch("env"));
	return write_config_faked(body);
}

static void
no_scheduler_vars(const char *env)
{
	cr_assert(not(matches(env, "(^|\n)NOTIFY_SOCKET=")), "%s", env);
	cr_assert(not(matches(env, "(^|\n)LISTEN_FDS=")), "%s", env);
	cr_assert(not(matches(env, "(^|\n)WATCHDOG_USEC=")), "%s", env);
	cr_assert(not(matches(env, "(^|\n)LOCKRUN_CONFIG=")), "%s", env);
	cr_assert(matches(env, "(^|\n)LISTEN_PID=mine\n"), "env: wins: %s", env);
	cr_assert(matches(env, "(^|\n)LOCKRUN_TASK=envdump\n"), "%s", env);
}

Test(trust, tick_hands_its_tasks_none_of_its_own_environment)
{
	const char *cfg = env_config();
	const char *env[10];
	char buf[3][128];
	struct result r;

	faketime_frozen_env(env, buf, T_1200 + 1);
	for (int i = 0; i < 10; i++)
		if (env[i] == NULL) {
			env[i] = "NOTIFY_SOCKET=/nonexistent/notify";
			env[i + 1] = "LISTEN_FDS=3";
			env[i + 2] = "WATCHDOG_USEC=1000000";
			env[i + 3] = NULL;
			break;
		}
	setenv("LOCKRUN_CONFIG", cfg, 1);
	lr_run_env(&r, env, (const char *const[]){ "tick", NULL });
	unsetenv("LOCKRUN_CONFIG");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	no_scheduler_vars(file_peek(scratch("env")));
}

Test(trust, cron_hands_its_tasks_none_of_its_own_environment)
{
	const char *cfg = env_config();
	char buf[3][128];
	const char *env[10];
	pid_t pid;

	faketime_env(env, buf, T_1200 - 1);
	for (int i = 0; i < 10; i++)
		if (env[i] == NULL) {
			env[i] = "NOTIFY_SOCKET=/nonexistent/notify";
			env[i + 1] = "LISTEN_FDS=3";
			env[i + 2] = "WATCHDOG_USEC=1000000";
			env[i + 3] = NULL;
			break;
		}
	pid = LR_START_ENV(env, "cron", "-v", "-c", cfg);
	POLL_UNTIL(access(scratch("env"), F_OK) == 0);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	no_scheduler_vars(file_peek(scratch("env")));
}

Test(trust, an_empty_tasks_dir_passes_check)
{
	const char *cfg = write_config("tasks_dir: tasks.d\ntasks:\n  one:\n"
	    "    command: [true]\n");
	struct result r;

	cr_assert(eq(int, mkdir(scratch("tasks.d"), 0755), 0));
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
}

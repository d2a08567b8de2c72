/* SPDX-License-Identifier: BSD-2-Clause */
/* runas_test.c -- a task's user: as root: the command and its hooks run
 * with that user's uid, groups and HOME; a config someone else could write
 * is refused before it can name one; and lockrun not running as root
 * refuses a config that names a user (78, at its place). */
#include <sys/stat.h>
#include <sys/wait.h>

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(runas, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* A config (mode 0600) whose task "who" runs as nobody and writes its
 * uid, groups, HOME, USER, LOGNAME and SHELL to its output file out; its
 * on_success hook appends its own uid to hook. */
static const char *
who_config(const char *out, const char *hook)
{
	char body[1024];
	const char *cfg;

	snprintf(body, sizeof(body), "tasks:\n  who:\n    user: nobody\n"
	    "    output: %s\n    shell: true\n"
	    "    command: 'echo \"$(id -u) $(id -g) $(id -G) $HOME $USER $LOGNAME $SHELL\"'\n"
	    "    on_success: [sh, -c, 'id -u > %s']\n", out, hook);
	cfg = write_config(body);
	cr_assert(eq(int, chmod(cfg, 0600), 0));
	return cfg;
}

/* What the command must say: nobody's entry and the groups initgroups(3)
 * gives it. */
static void
nobody_line(char *buf, size_t n)
{
	struct passwd *pw = getpwnam("nobody");
	gid_t groups[64];
	int ng = 64;
	size_t k;

	cr_assert(pw != NULL, "this host has a user nobody");
	cr_assert(getgrouplist("nobody", pw->pw_gid, groups, &ng) >= 0);
	k = (size_t)snprintf(buf, n, "%u %u", (unsigned)pw->pw_uid, (unsigned)pw->pw_gid);
	for (int i = 0; i < ng; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%u", i ? " " : " ", (unsigned)groups[i]);
	snprintf(buf + k, n - k, " %s nobody nobody %s\n", pw->pw_dir, pw->pw_shell);
}

Test(runas, user_nobody_runs_the_command_and_hooks_as_nobody)
{
	char out[256], hook[256], want[512], uid[32];
	struct result r;
	const char *cfg;

	cr_assert(geteuid() == 0, "these tests run as root");
	snprintf(out, sizeof(out), "%s", scratch("who.out"));
	snprintf(hook, sizeof(hook), "%s", scratch("hook.out"));
	/* the hook writes its file itself, as nobody: a folder it may write */
	cr_assert(eq(int, chmod(fx.dir, 0777 | S_ISVTX), 0));
	cfg = who_config(out, hook);
	LR(&r, "-c", cfg, "-t", "who");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	nobody_line(want, sizeof(want));
	cr_assert(eq(str, (char *)file_peek(out), want));
	snprintf(uid, sizeof(uid), "%u\n", (unsigned)getpwnam("nobody")->pw_uid);
	cr_assert(eq(str, (char *)file_peek(hook), uid), "the hook runs as nobody too");
}

/* As root, a config its group may write is refused before anything runs,
 * user: or not (files_trusted()). */
Test(runas, a_config_writable_by_its_group_is_refused_as_root)
{
	char out[256];
	struct result r;
	const char *cfg;

	snprintf(out, sizeof(out), "%s", scratch("who.out"));
	cfg = who_config(out, scratch("hook.out"));
	cr_assert(eq(int, chmod(cfg, 0620), 0));
	LR(&r, "-c", cfg, "-t", "who");
	cr_assert(eq(int, r.status, 78), "stderr: %s", r.err);
	cr_assert(matches(r.err, "not trusted: .* is writable by its group"), "%s", r.err);
	cr_assert(eq(int, access(out, F_OK), -1), "nothing ran");
}

/* lockrun run by nobody (setpriv(1)) reading a config that names a user:
 * 78, at the key's place; nothing runs. */
Test(runas, a_user_in_the_config_of_a_lockrun_not_root_is_a_config_error)
{
	char out[256], cmd[2048], errf[256];
	const char *cfg;
	int st;

	snprintf(out, sizeof(out), "%s", scratch("who.out"));
	snprintf(errf, sizeof(errf), "%s", scratch("setpriv.err"));
	cr_assert(eq(int, chmod(fx.dir, 0755), 0));
	cfg = who_config(out, scratch("hook.out"));
	cr_assert(eq(int, chmod(cfg, 0644), 0));
	snprintf(cmd, sizeof(cmd), "setpriv --reuid nobody --regid %u --clear-groups "
	    "%s -c %s -t who --url %s 2> %s", (unsigned)getpwnam("nobody")->pw_gid,
	    getenv("LOCKRUN_BIN"), cfg, fx.url, errf);
	st = system(cmd);
	st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	cr_assert(eq(int, st, 78), "%s: %s", cmd, file_peek(errf));
	cr_assert(matches(file_peek(errf), "^lockrun: [^ ]*\\.yaml:[0-9]+:5: tasks\\.who\\.user: "
	    "lockrun runs as uid [0-9]+, not root: it cannot run a command as another "
	    "user\n$"), "%s", file_peek(errf));
	cr_assert(eq(int, access(out, F_OK), -1), "nothing ran");
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* defaultconf_test.c -- only "no such file" means "no config": a default
 * config (/etc/lockrun/lockrun.yaml) that is there but cannot be read is
 * 78 naming it, for every verb, and nothing runs or is taken.
 *
 * The test must not touch the machine's /etc: each lockrun runs in a
 * mount namespace of its own, where an overlay over /etc (its changes in
 * the suite's temp dir) holds an /etc/lockrun that root made 0700; then
 * it drops to nobody (65534) and execs the real binary, which reads the
 * default path as it does in production. Where mount namespaces or
 * overlayfs are not allowed, the test is skipped with a message. */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(defaultconf, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define NOBODY		65534
#define CHILD_NO_NS	119	/* the namespace or the overlay was refused */

enum dir_state { DIR_CLOSED, DIR_FILE_FIFO, DIR_FILE_IS_DIR };

/* In the child: a private /etc whose lockrun/ is as state says, holding a
 * config that points at the suite's server (so that a lockrun that read
 * it, or ignored it, would take its lock there). 0, or -1. */
static int
private_etc(const char *dir, enum dir_state state)
{
	char upper[512], work[512], opts[1200], yaml[512];
	FILE *fp;

	/* a fresh upper layer for each state */
	snprintf(upper, sizeof(upper), "%s/etc-upper%d", dir, (int)state);
	snprintf(work, sizeof(work), "%s/etc-work%d", dir, (int)state);
	snprintf(opts, sizeof(opts), "lowerdir=/etc,upperdir=%s,workdir=%s", upper, work);
	if ((mkdir(upper, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(work, 0755) != 0 && errno != EEXIST) ||
	    unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("overlay", "/etc", "overlay", 0, opts) != 0)
		return -1;
	if (mkdir("/etc/lockrun", 0700) != 0 && errno != EEXIST)
		_exit(120);
	if (state == DIR_FILE_FIFO) {
		chmod("/etc/lockrun", 0755);
		if (mkfifo("/etc/lockrun/lockrun.yaml", 0644) != 0 && errno != EEXIST)
			_exit(120);
		return 0;
	}
	if (state == DIR_FILE_IS_DIR) {
		chmod("/etc/lockrun", 0755);
		if (mkdir("/etc/lockrun/lockrun.yaml", 0755) != 0 && errno != EEXIST)
			_exit(120);
		return 0;
	}
	chmod("/etc/lockrun", 0700);
	snprintf(yaml, sizeof(yaml), "redis:\n  url: %s\n", fx.url);
	if ((fp = fopen("/etc/lockrun/lockrun.yaml", "w")) == NULL)
		_exit(120);
	fputs(yaml, fp);
	fclose(fp);
	return 0;
}

/* Run lockrun args as nobody with the default config as state says, the
 * suite's server given by LOCKRUN_URL (so a lockrun that fell back to
 * "no config" would find a server and run). */
static void
run_as_nobody(struct result *res, enum dir_state state, const char *const args[])
{
	const char *bin = getenv("LOCKRUN_BIN");
	const char *argv[32] = { bin ? bin : "./lockrun" };
	char out[256], err[256], url[256];
	size_t n = 1;
	pid_t pid;
	int st;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	snprintf(out, sizeof(out), "%s/nobody.out", fx.dir);
	snprintf(err, sizeof(err), "%s/nobody.err", fx.dir);
	snprintf(url, sizeof(url), "%s", fx.url);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0)
			_exit(120);
		if (private_etc(fx.dir, state) != 0)
			_exit(CHILD_NO_NS);
		if (dup2(o, 1) < 0 || dup2(e, 2) < 0 || setgroups(0, NULL) != 0 ||
		    setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(120);
		unsetenv("LOCKRUN_CONFIG");
		setenv("LOCKRUN_URL", url, 1);
		execv(argv[0], (char *const *)argv);
		_exit(121);
	}
	cr_assert(pid > 0);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == CHILD_NO_NS)
		cr_skip_test("no mount namespace with an overlay over /etc here");
	res->status = exit_code(st);
	cr_assert(res->status != 120 && res->status != 121, "the test's child failed to set up");
	snprintf(res->out, sizeof(res->out), "%s", file_peek(out));
	snprintf(res->err, sizeof(res->err), "%s", file_peek(err));
}

/* Every verb, as nobody, with /etc/lockrun root's and 0700: 78 naming
 * the path and why; the command does not run; no key on the server. */
Test(defaultconf, a_closed_directory_is_78_for_every_verb)
{
	static const char *const verbs[][4] = {
		{ "-k", "m6", "--", "echo" },
		{ "check", NULL, NULL, NULL },
		{ "check", "-k", "m6", NULL },
		{ "status", NULL, NULL, NULL },
		{ "history", "m6", NULL, NULL },
		{ "unlock", "--yes", "m6", NULL },
		{ "tick", NULL, NULL, NULL },
		{ "cron", NULL, NULL, NULL },
	};
	struct result r;

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		const char *args[8];
		size_t n = 0;

		for (size_t j = 0; j < 4 && verbs[i][j]; j++)
			args[n++] = verbs[i][j];
		if (strcmp(verbs[i][0], "-k") == 0)
			args[n++] = "ran";
		args[n] = NULL;
		run_as_nobody(&r, DIR_CLOSED, args);
		cr_assert(eq(int, r.status, 78), "%s: status %d, stderr: %s, stdout: %s",
		    args[0], r.status, r.err, r.out);
		cr_assert(eq(str, r.err, "lockrun: /etc/lockrun/lockrun.yaml: Permission "
		    "denied\n"), "%s", args[0]);
		cr_assert(strstr(r.out, "ran") == NULL, "the command ran");
	}
	cr_assert(eq(int, key_exists("lockrun:{m6}"), 0), "nothing taken");
	cr_assert(eq(int, key_exists("lockrun:{m6}:history"), 0), "nothing recorded");
}

Test(defaultconf, a_fifo_or_a_directory_is_78)
{
	struct result r;

	run_as_nobody(&r, DIR_FILE_FIFO, (const char *const[]){ "-k", "m7", "--", "echo",
	    "ran", NULL });
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: /etc/lockrun/lockrun.yaml: not a regular file "
	    "(a FIFO)\n"));
	cr_assert(eq(str, r.out, ""));
	run_as_nobody(&r, DIR_FILE_IS_DIR, (const char *const[]){ "-k", "m7", "--", "echo",
	    "ran", NULL });
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: /etc/lockrun/lockrun.yaml: not a regular file "
	    "(a directory)\n"));
	cr_assert(eq(str, r.out, ""));
	cr_assert(eq(int, key_exists("lockrun:{m7}"), 0), "nothing taken");
}

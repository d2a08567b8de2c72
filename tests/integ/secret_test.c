/* SPDX-License-Identifier: BSD-2-Clause */
/* secret_test.c -- a password lockrun is given leaves no copy where
 * another process can read it: lockrun runs as an unprivileged user, with
 * the password in its environment and in --url, and its command -- the
 * same user -- and root look for it in /proc. */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

#define NOBODY	65534

static void
setup(void)
{
	suite_setup_password();
	setenv("TEST_REDIS_PASSWORD", "s3cret", 1);	/* for rcmd() */
}

TestSuite(secret, .init = setup, .fini = suite_teardown, .timeout = 60);

static char shared[64];		/* a directory NOBODY may write to */

static const char *
in_shared(const char *name)
{
	static char path[8][128];
	static int i;

	i = (i + 1) % 8;
	snprintf(path[i], sizeof(path[i]), "%s/%s", shared, name);
	return path[i];
}

/* Start lockrun as NOBODY with argv args and env (NULL-terminated),
 * stderr to a file in the shared directory. */
static pid_t
start_as_nobody(const char *const env[], const char *const args[])
{
	const char *argv[32] = { getenv("LOCKRUN_BIN") ? getenv("LOCKRUN_BIN") : "./lockrun" };
	size_t n = 1;
	pid_t pid;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(NULL);
	if ((pid = fork()) == 0) {
		FILE *err = freopen(in_shared("lockrun.err"), "w", stderr);
		if (err == NULL || setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
		    setuid(NOBODY) != 0)
			_exit(120);
		execve(argv[0], (char *const *)argv, (char *const *)env);
		_exit(121);
	}
	cr_assert(pid > 0);
	return pid;
}

/* The whole of /proc/PID/NAME (NUL bytes as they are), as root; n set. */
static size_t
proc_read(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fp = fopen(path, "r");
	cr_assert(fp != NULL, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, cap, fp);
	fclose(fp);
	return n;
}

static int
holds(const char *buf, size_t n, const char *needle)
{
	return memmem(buf, n, needle, strlen(needle)) != NULL;
}

/* No trace of the password in what /proc shows of pid. */
static void
no_password_in(pid_t pid, const char *who)
{
	static char buf[1 << 16];
	size_t n;

	n = proc_read(pid, "environ", buf, sizeof(buf));
	cr_assert(holds(buf, n, "s3cret") == 0, "the password is in %s's environ", who);
	n = proc_read(pid, "cmdline", buf, sizeof(buf));
	cr_assert(holds(buf, n, "s3cret") == 0, "the password is in %s's cmdline", who);
	cr_assert(holds(buf, n, "redis://:xxxxxx@"), "%s's --url is not masked", who);
}

Test(secret, no_process_shows_the_password)
{
	char url[128], envvar[256], line[64] = "", err[4096];
	const char *env[] = { "PATH=/usr/bin:/bin", "LOCKRUN_REDIS_PASSWORD=s3cret", NULL };
	const char *job;
	struct stat st;
	pid_t lr, guard;
	FILE *fp;

	snprintf(shared, sizeof(shared), "/tmp/lockrun-secret-XXXXXX");
	cr_assert(mkdtemp(shared) != NULL);
	chmod(shared, 0777);
	cr_assert(eq(int, mkfifo(in_shared("go"), 0666), 0));
	snprintf(url, sizeof(url), "redis://:s3cret@127.0.0.1:%d/0", fx.port);
	snprintf(envvar, sizeof(envvar), "D=%s", shared);
	env[2] = envvar;
	/* the command, NOBODY too: tries its parent's (the guard's) environ,
	 * says who the guard is, and waits to be let go */
	job = "cat /proc/$PPID/environ > $D/stolen 2>/dev/null; echo $? > $D/cat; "
	    "echo $PPID > $D/guard; cat $D/go > /dev/null";
	lr = start_as_nobody((const char *[]){ env[0], env[1], env[2], NULL },
	    (const char *const[]){ "--url", url, "-k", "secret", "--", "sh", "-c", job, NULL });
	POLL_UNTIL(file_lines(in_shared("guard")) == 1 || !alive(lr));
	cr_assert(alive(lr), "lockrun ended before its command started");
	fp = fopen(in_shared("guard"), "r");
	cr_assert(fp != NULL && fgets(line, sizeof(line), fp) != NULL);
	fclose(fp);
	guard = (pid_t)strtol(line, NULL, 10);

	/* not dumpable: /proc/PID/environ (and the other files but the
	 * directory itself) belong to root, not to lockrun's user */
	{
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)lr);
		cr_assert(eq(int, stat(path, &st), 0));
		cr_assert(eq(int, (int)st.st_uid, 0), "lockrun is dumpable");
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)guard);
		cr_assert(eq(int, stat(path, &st), 0));
		cr_assert(eq(int, (int)st.st_uid, 0), "the guard is dumpable");
	}
	/* the command could not read its parent's environment */
	fp = fopen(in_shared("cat"), "r");
	cr_assert(fp != NULL && fgets(line, sizeof(line), fp) != NULL);
	fclose(fp);
	cr_assert(strcmp(line, "0\n") != 0, "the command read the guard's environ");
	/* and root finds no password in either */
	no_password_in(lr, "lockrun");
	no_password_in(guard, "the guard");

	fp = fopen(in_shared("go"), "w");
	cr_assert(fp != NULL);
	fclose(fp);
	cr_assert(eq(int, lr_wait(lr), 0));
	fp = fopen(in_shared("lockrun.err"), "r");
	cr_assert(fp != NULL);
	err[fread(err, 1, sizeof(err) - 1, fp)] = '\0';
	fclose(fp);
	cr_assert(matches(err, "^lockrun: --url: a password on the command line can be read "
	    "by any user"), "%s", err);
	for (const char *const *f = (const char *const[]){ "go", "guard", "cat", "stolen",
	    "lockrun.err", NULL }; *f; f++)
		unlink(in_shared(*f));
	rmdir(shared);
}

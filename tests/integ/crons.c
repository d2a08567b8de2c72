/* SPDX-License-Identifier: BSD-2-Clause */
/* crons.c -- what the `lockrun cron` suites share (see crons.h). */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

/* How many lines of text match re; text is cut up. */
static int
count_lines(char *text, const char *re)
{
	char *save = NULL;
	int n = 0;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		n += matches(l, re);
	return n;
}

/* The lines of the file at path, all of them ("" while there is none),
 * that match re. (A scheduler of 300 runs writes 90 KB and more: a
 * window of the first 64 KB missed the line that said why a start did
 * not run.) */
int
lines_matching(const char *path, const char *re)
{
	char *text;
	int n;

	if (access(path, F_OK) != 0)
		return 0;
	text = file_text(path);
	n = count_lines(text, re);
	free(text);
	return n;
}

int
stderr_matching(pid_t pid, const char *re)
{
	char path[256];

	return lines_matching(lr_stderr_path(pid, path, sizeof(path)), re);
}

const char *
stderr_lines(pid_t pid, const char *re, char *buf, size_t n)
{
	char path[256], *text, *save = NULL;
	size_t len = 0;

	buf[0] = '\0';
	text = file_text(lr_stderr_path(pid, path, sizeof(path)));
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (matches(l, re) && len < n)
			len += snprintf(buf + len, n - len, "%s\n", l);
	free(text);
	return buf;
}

/* The real clock, in seconds. */

void
clock_file_set(const char *path, double unix_time)
{
	char tmp[300];
	FILE *fp;

	/* a reader polls the file on every clock call: rename, never rewrite */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fp = fopen(tmp, "w");
	cr_assert(fp != NULL, "%s: %s", tmp, strerror(errno));
	fprintf(fp, "%+.3f\n", unix_time - fixture_real_s());
	cr_assert(eq(int, fclose(fp), 0));
	cr_assert(eq(int, rename(tmp, path), 0), "rename: %s", strerror(errno));
}

void
clock_file_step(const char *path, double seconds)
{
	double offset = strtod(file_peek(path), NULL);

	clock_file_set(path, fixture_real_s() + offset + seconds);
}

void
clock_file_env(const char *env[6], char buf[2][256], const char *path)
{
	const char *moving[5];
	char lib[3][128];

	faketime_env(moving, lib, 0);	/* finds the library */
	snprintf(buf[0], 256, "%s", lib[0]);
	snprintf(buf[1], 256, "FAKETIME_TIMESTAMP_FILE=%s", path);
	env[0] = buf[0];
	env[1] = buf[1];
	env[2] = "FAKETIME_NO_CACHE=1";
	env[3] = "FAKETIME_DONT_FAKE_MONOTONIC=1";
	env[4] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[5] = NULL;
}

/* The shell that starts n servers, says each one's pid in fleetI.pid, and
 * waits for each, its exit status in fleetI.rc. */
static void
fleet_script(char *sh, size_t len, int n, const char *cfg, const char *bin)
{
	char base[256];
	size_t k = 0;

	snprintf(base, sizeof(base), "%s", scratch("fleet"));
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(sh + k, len - k, "'%s' cron -v -c '%s' >'%s%d.out' "
		    "2>'%s%d.err' & echo $! >'%s%d.tmp' && mv '%s%d.tmp' '%s%d.pid'\n", bin, cfg,
		    base, i, base, i, base, i, base, i, base, i);
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(sh + k, len - k, "wait $(cat '%s%d.pid'); echo $? >'%s%d.rc'\n",
		    base, i, base, i);
}

/* A server's pid, once the shell has said it. */
static pid_t
fleet_pid(int i)
{
	char name[32];
	const char *path;
	long pid = 0;

	snprintf(name, sizeof(name), "fleet%d.pid", i);
	path = scratch(name);
	POLL_UNTIL(file_lines(path) == 1);
	pid = strtol(file_peek(path), NULL, 10);
	cr_assert(pid > 0, "%s: %s", path, file_peek(path));
	return (pid_t)pid;
}

/* The fleet a test started, for fleet_cleanup(). */
static struct fleet *started;

void
fleet_start(struct fleet *f, int n, const char *cfg, double unix_time, int rate,
    const char *const env[])
{
	const char *fake[5], *bin = getenv("LOCKRUN_BIN");
	char buf[3][128], sh[4096];

	cr_assert(n <= FLEET_MAX);
	memset(f, 0, sizeof(*f));
	f->n = n;
	faketime_env(fake, buf, unix_time);
	/* the same offset, sped up (libfaketime wants an offset before the x) */
	snprintf(buf[1] + strlen(buf[1]), 128 - strlen(buf[1]), " x%d", rate);
	fleet_script(sh, sizeof(sh), n, cfg, bin ? bin : "./lockrun");
	fflush(NULL);
	if ((f->sh = fork()) == 0) {
		for (size_t i = 0; fake[i]; i++)
			putenv((char *)fake[i]);
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl("/bin/sh", "sh", "-c", sh, (char *)NULL);
		_exit(121);
	}
	cr_assert(f->sh > 0, "fork failed");
	started = f;
	for (int i = 0; i < n; i++) {
		char name[32];

		f->pid[i] = fleet_pid(i);
		snprintf(name, sizeof(name), "fleet%d.err", i);
		snprintf(f->err[i], sizeof(f->err[i]), "%s", scratch(name));
	}
}

int
fleet_matching(const struct fleet *f, int i, const char *re)
{
	return lines_matching(f->err[i], re);
}

void
fleet_stop(struct fleet *f)
{
	int st;

	for (int i = 0; i < f->n; i++)
		kill(f->pid[i], SIGTERM);
	while (waitpid(f->sh, &st, 0) == -1 && errno == EINTR)
		;
	started = NULL;
	cr_assert(eq(int, exit_code(st), 0), "the fleet's shell");
	for (int i = 0; i < f->n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fleet%d.rc", i);
		cr_assert(eq(str, (char *)file_peek(scratch(name)), "0\n"),
		    "server %d exits 0; its stderr: %s", i, file_peek(f->err[i]));
	}
}

void
fleet_cleanup(void)
{
	if (started == NULL)
		return;
	for (int i = 0; i < started->n; i++)
		if (started->pid[i] > 0)
			kill(started->pid[i], SIGKILL);
	waitpid(started->sh, NULL, 0);
	started = NULL;
}

pid_t
cron_at(const char *cfg, double at)
{
	static char buf[8][3][128];
	static const char *env[8][5];
	static int next;
	int k = next++ % 8;

	faketime_env(env[k], buf[k], at);
	return LR_START_ENV(env[k], "cron", "-v", "-c", cfg);
}

pid_t
cron_server_at(int i, const char *cfg, double unix_time, const char *more)
{
	return cron_server_args(i, unix_time, more, (const char *const[]){ "cron", "-v",
	    "-c", cfg, NULL });
}

pid_t
cron_server_args(int i, double unix_time, const char *more, const char *const args[])
{
	static char buf[FLEET_MAX][3][128], who[FLEET_MAX][32];
	static const char *env[FLEET_MAX][8];
	const char *fake[5];
	size_t n = 0;

	cr_assert(i >= 0 && i < FLEET_MAX);
	faketime_env(fake, buf[i], unix_time);
	for (size_t k = 0; fake[k]; k++)
		env[i][n++] = fake[k];
	snprintf(who[i], sizeof(who[i]), "SERVER=%d", i);
	env[i][n++] = who[i];
	if (more)
		env[i][n++] = more;
	env[i][n] = NULL;
	return lr_start_env(env[i], args);
}


void
cron_stop(pid_t pid)
{
	static char err[16384];

	cr_assert(eq(int, kill(pid, SIGTERM), 0));
	cr_assert(eq(int, lr_wait(pid), 0), "stderr: %s", lr_stderr_of(pid, err, sizeof(err)));
}

const char *
tasks_config(const char *url, int n, const char *defaults, const char *cmd)
{
	return tasks_config_on(url, n, "* * * * *", defaults, cmd);
}

const char *
tasks_config_on(const char *url, int n, const char *schedule, const char *defaults,
    const char *cmd)
{
	static char body[65536];
	size_t k = (size_t)snprintf(body, sizeof(body), "redis:\n  url: '%s'\ndefaults:\n"
	    "  clock_tolerance: 0\n%stasks:\n", url, defaults);

	for (int i = 0; i < n; i++) {
		char name[16], line[2048];

		snprintf(name, sizeof(name), "t%02d", i);
		snprintf(line, sizeof(line), cmd, name);
		k += (size_t)snprintf(body + k, sizeof(body) - k, "  %s:\n    schedule: '%s'\n"
		    "    command: '%s'\n", name, schedule, line);
	}
	return write_scratch("tasks.yaml", body);
}

int
sched_decided(pid_t pid, const char *names)
{
	char ran[256], claimed[256];

	snprintf(ran, sizeof(ran), "^(%s): lockrun: (released|skipped)", names);
	snprintf(claimed, sizeof(claimed), "^lockrun: (%s) [^ ]+: skipped: the slot is taken",
	    names);
	return stderr_matching(pid, ran) + stderr_matching(pid, claimed);
}

int
alive_in(const char *path)
{
	FILE *fp = fopen(path, "r");
	int pid, n = 0;

	while (fp && fscanf(fp, "%d", &pid) == 1)
		n += alive(pid);
	if (fp)
		fclose(fp);
	return n;
}

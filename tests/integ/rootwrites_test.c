/* SPDX-License-Identifier: BSD-2-Clause */
/* rootwrites_test.c -- what root writes, no other user can redirect: the
 * page of `status --html FILE`, written beside FILE at a name no one could
 * have put a link or a FIFO at, then renamed over it; an output: or JSON
 * log path walked from / without following a link anywhere on the way
 * (openat2(2), or one openat(2) a component where the kernel has no
 * openat2: the shim's LOCKRUN_SHIM_NO_OPENAT2). "Another user" is nobody
 * (65534): the folders are chowned to it, and what it would plant there
 * (links, FIFOs) is made and then lchowned to it. */
#include <sys/stat.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(rootwrites, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

#define NOBODY	65534
#define PLANTED	3000	/* names planted after the last pid given out */

/* A folder of nobody's, 0755, at name. */
static const char *
users_folder(const char *name)
{
	const char *path = scratch(name);

	cr_assert(eq(int, mkdir(path, 0755), 0));
	cr_assert(eq(int, chown(path, NOBODY, NOBODY), 0));
	return path;
}

/* What nobody would put at path: a link to target, or a FIFO. */
static void
plant(const char *path, const char *target)
{
	if (target)
		cr_assert(eq(int, symlink(target, path), 0), "%s", path);
	else
		cr_assert(eq(int, mkfifo(path, 0666), 0), "%s", path);
	cr_assert(eq(int, lchown(path, NOBODY, NOBODY), 0));
}

/* The last pid the kernel gave out. */
static long
last_pid(void)
{
	FILE *fp = fopen("/proc/sys/kernel/ns_last_pid", "r");
	long pid = 0;

	cr_assert(fp != NULL);
	cr_assert(eq(int, fscanf(fp, "%ld", &pid), 1));
	fclose(fp);
	return pid;
}

/* The owner of nobody's folder planted, at every name FILE.tmp.PID for the
 * next pids (the name status --html wrote through before), a link to a
 * root-only file or a FIFO, one and the other in turn, and a link at FILE
 * itself: the page is written at FILE, a file of its own; the links'
 * targets are unchanged; and status does not wait on a FIFO (bounded:
 * killed and failed past the poll's guard). */
Test(rootwrites, status_html_through_planted_links_and_fifos)
{
	const char *victim = root_only("root-only"), *at_page = root_only("root-page");
	const char *dir = users_folder("pub");
	char page[256], name[300], victim_copy[256], at_page_copy[256];
	const char *cfg = write_config("tasks:\n  job:\n    command: [true]\n");
	long from = last_pid();
	struct stat st;
	pid_t pid;
	int status;

	snprintf(victim_copy, sizeof(victim_copy), "%s", victim);
	snprintf(at_page_copy, sizeof(at_page_copy), "%s", at_page);
	snprintf(page, sizeof(page), "%s/status.html", dir);
	for (long p = from + 1; p <= from + PLANTED; p++) {
		snprintf(name, sizeof(name), "%s.tmp.%ld", page, p);
		plant(name, p % 2 ? victim_copy : NULL);
	}
	plant(page, at_page_copy);
	pid = LR_START("status", "-c", cfg, "--html", page);
	POLL_UNTIL(!alive(pid));
	if (alive(pid)) {
		kill(pid, SIGKILL);
		lr_wait(pid);
		cr_assert(0, "status --html hangs on a FIFO it should never open");
	}
	status = lr_wait(pid);
	cr_assert(eq(int, status, 0), "status --html exited %d", status);
	cr_assert(eq(str, (char *)file_peek(victim_copy), "keep\n"));
	cr_assert(eq(str, (char *)file_peek(at_page_copy), "keep\n"));
	cr_assert(eq(int, lstat(page, &st), 0));
	cr_assert(eq(int, (st.st_mode & S_IFMT) == S_IFREG, 1), "the link at FILE is "
	    "replaced by the page");
	cr_assert(matches(file_peek(page), "^<!DOCTYPE html>\n"), "%s", file_peek(page));
	cr_assert(eq(int, stat(victim_copy, &st), 0));
	cr_assert(eq(int, (int)(st.st_mode & 07777), 0600));
	/* the new file was renamed: nothing of lockrun's is left beside it
	 * but what was planted (PLANTED names, the page) */
	{
		char cmd[400];
		FILE *ls;
		int n = 0;

		snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
		ls = popen(cmd, "r");
		cr_assert(ls != NULL && fscanf(ls, "%d", &n) == 1);
		pclose(ls);
		cr_assert(eq(int, n, PLANTED + 1));
	}
}

/* A config of task job, echoing its name, its output: output. */
static const char *
job_config(const char *output)
{
	char body[1024];

	snprintf(body, sizeof(body), "tasks:\n  job:\n    output: %s\n"
	    "    command: 'echo pwned'\n", output);
	return write_config(body);
}

/* The environment of a lockrun on a kernel without openat2(2). */
static const char *const *
no_openat2(void)
{
	static const char *env[6];
	static char buf[3][256];

	shim_env(env, buf, NULL, NULL);
	for (int i = 0; i < 5; i++)
		if (env[i] == NULL) {
			env[i] = "LOCKRUN_SHIM_NO_OPENAT2=1";
			env[i + 1] = NULL;
			break;
		}
	return env;
}

/* The task's output goes to home/logs/job.log, home and logs nobody's.
 * A run writes it; then nobody swaps logs for a link to a folder of
 * root's that holds a root-only job.log (between two runs: each run opens
 * its output as it starts, so a swap while cron runs is met by the next
 * run the same way). The next run refuses the output, says which folder
 * is a link, runs on with its output discarded, and root's file is
 * unchanged: with openat2(2), and with the walk used where the kernel has
 * none; the JSON log the same. */
Test(rootwrites, output_under_a_folder_swapped_for_a_link_is_refused)
{
	const char *home = users_folder("home");
	char logs[256], old[256], rootdir[256], victim[300], out[300], spec[320];
	const char *cfg;
	struct result r;

	snprintf(logs, sizeof(logs), "%s/logs", home);
	snprintf(old, sizeof(old), "%s/logs.old", home);
	snprintf(out, sizeof(out), "%s/job.log", logs);
	snprintf(rootdir, sizeof(rootdir), "%s", scratch("rootdir"));
	snprintf(victim, sizeof(victim), "%s/job.log", rootdir);
	cr_assert(eq(int, mkdir(logs, 0755), 0));
	cr_assert(eq(int, chown(logs, NOBODY, NOBODY), 0));
	cr_assert(eq(int, mkdir(rootdir, 0700), 0));
	write_scratch("rootdir/job.log", "keep\n");
	cr_assert(eq(int, chmod(victim, 0600), 0));
	cfg = job_config(out);

	/* the walk writes through real folders as openat2 does */
	lr_run_env(&r, no_openat2(), (const char *const[]){ "-c", cfg, "-t", "job", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, r.err, ""), "%s", r.err);
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(out), "pwned\npwned\n"));

	/* nobody swaps its folder for a link to root's */
	cr_assert(eq(int, rename(logs, old), 0));
	plant(logs, rootdir);
	for (int walk = 0; walk < 2; walk++) {
		char want[1200];

		lr_run_env(&r, walk ? no_openat2() : NULL,
		    (const char *const[]){ "-c", cfg, "-t", "job", NULL });
		cr_assert(eq(int, r.status, 0), "the run goes on: %s", r.err);
		snprintf(want, sizeof(want), "lockrun: output %s: refused: a folder on the "
		    "way, %s, is a symbolic link; the output is discarded\n", out, logs);
		cr_assert(eq(str, r.err, want), "%s", walk ? "(the walk)" : "(openat2)");
		cr_assert(eq(str, (char *)file_peek(victim), "keep\n"));

		snprintf(spec, sizeof(spec), "json:%s/log.json", logs);
		lr_run_env(&r, walk ? no_openat2() : NULL, (const char *const[]){ "--redis",
		    fx.url, "--log", spec, "-k", "job", "--", "true", NULL });
		cr_assert(eq(int, r.status, 0), "%s", r.err);
		cr_assert(matches(r.err, "\"message\":\"log file [^ ]*/home/logs/log\\.json: "
		    "refused: a folder on the way, [^ ]*/home/logs, is a symbolic link; "
		    "logging to stderr\""), "%s", r.err);
		cr_assert(eq(int, access(scratch("rootdir/log.json"), F_OK), -1));
	}
	cr_assert(eq(str, (char *)file_peek(victim), "keep\n"));
}

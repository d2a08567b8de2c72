/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_fleet_test.c -- `lockrun cron` processes as a fleet's servers over
 * minutes of a sped-up clock (libfaketime), against Redis and PostgreSQL:
 * each slot of each task once, a long task never twice at a time, SIGTERM
 * during runs; and cron as PID 1 of a PID namespace, reaping an orphan. */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "crons.h"

TestSuite(cron_fleet, .init = suite_setup, .fini = backends_teardown, .timeout = 150);

/* The scratch path name, kept: scratch() reuses its buffers. */
static const char *
path_of(char buf[256], const char *name)
{
	snprintf(buf, 256, "%s", scratch(name));
	return buf;
}

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

/* A task NAME on schedule whose command appends "NAME SLOT" to log, then
 * runs tail (e.g. "; sleep 90"), all under a flock on log.NAME taken
 * without waiting: "overlap NAME" instead when another run of it holds it,
 * two copies at once. */
static size_t
task_yaml(char *buf, size_t n, const char *name, const char *schedule, const char *log,
    const char *tail)
{
	return (size_t)snprintf(buf, n, "  %s:\n    schedule: '%s'\n    command: 'flock -n "
	    "%s.%s sh -c ''echo \"$0 $LOCKRUN_SLOT\" >> %s%s'' %s || echo overlap %s >> %s'\n",
	    name, schedule, log, name, log, tail, name, name, log);
}

/* No line of the file is there twice. */
static void
assert_no_line_twice(const char *path)
{
	char text[65536], *lines[1024], *save = NULL;
	size_t n = 0;

	snprintf(text, sizeof(text), "%s", file_peek(path));
	for (char *l = strtok_r(text, "\n", &save); l && n < 1024; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			cr_assert(strcmp(lines[i], lines[j]) != 0, "\"%s\" twice in:\n%s", lines[i],
			    file_peek(path));
}

/* Until path has a line matching re, a few minutes of the test's clock at
 * most (the fleet's clock runs faster). */
static void
wait_line(const struct fleet *f, const char *path, const char *re)
{
	char text[8192];

	for (int i = 0; i < 4 && lines_matching(path, re) == 0; i++)
		POLL_UNTIL(lines_matching(path, re) > 0);
	snprintf(text, sizeof(text), "%s", file_peek(path));
	cr_assert(eq(int, lines_matching(path, re), 1), "%s in:\n%s\nthe first server said:\n%s",
	    re, text, file_peek(f->err[0]));
}

/* Three servers, four minutes at ten times the speed: every minute, every
 * other minute, and a task that runs 90s each minute. Each slot ran once
 * across the fleet; the long one never twice at a time (it skips the
 * minutes it still runs in). The servers start at 11:59:30, when the
 * latest fire times (11:59, and 11:58 for every other minute) ran nowhere
 * and are within the default starting_deadline: they are caught up, once
 * across the three, so the long task still runs at 12:00 and skips. */
Test(cron_fleet, three_servers_run_each_slot_once_and_a_long_task_never_twice,
    .fini = fleet_cleanup)
{
	char logbuf[256];
	const char *log = path_of(logbuf, "runs.log");
	char body[4096];
	size_t k;
	struct fleet f;

	k = (size_t)snprintf(body, sizeof(body), "tasks:\n");
	k += task_yaml(body + k, sizeof(body) - k, "minutely", "* * * * *", log, "");
	k += task_yaml(body + k, sizeof(body) - k, "even", "*/2 * * * *", log, "");
	task_yaml(body + k, sizeof(body) - k, "long", "* * * * *", log, "; sleep 90");
	fleet_start(&f, 3, write_config_faked(body), T_1200 - 30, 10, NULL);
	wait_line(&f, log, "^minutely 2026-06-15T12:03:00Z$");
	wait_line(&f, log, "^even 2026-06-15T12:02:00Z$");
	fleet_stop(&f);

	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	assert_no_line_twice(log);
	for (int m = 0; m <= 3; m++) {
		char re[64];

		snprintf(re, sizeof(re), "^minutely 2026-06-15T12:0%d:00Z$", m);
		cr_assert(eq(int, lines_matching(log, re), 1), "%s:\n%s", re, file_peek(log));
	}
	cr_assert(eq(int, lines_matching(log, "^minutely 2026-06-15T11:59:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^even 2026-06-15T11:58:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^even 2026-06-15T12:00:00Z$"), 1));
	cr_assert(eq(int, lines_matching(log, "^even 2026-06-15T12:01:00Z$"), 0));
	cr_assert(eq(int, lines_matching(log, "^long 2026-06-15T11:59:00Z$"), 1), "%s",
	    file_peek(log));
	cr_assert(eq(int, lines_matching(log, "^long 2026-06-15T12:00:00Z$"), 0), "%s",
	    file_peek(log));
	/* every server took part: it ran or skipped each minute's slot */
	for (int i = 0; i < 3; i++)
		cr_assert(fleet_matching(&f, i, "^(minutely: lockrun: (released|skipped)|"
		    "lockrun: minutely [^ ]+: skipped: the slot is taken)") >= 3,
		    "server %d:\n%s", i, file_peek(f.err[i]));
}

/* Two servers on PostgreSQL: each slot of a minutely task once over three
 * minutes; then SIGTERM while a task runs: both exit 0 and no lock is left
 * held. */
Test(cron_fleet, pg_two_servers_run_each_slot_once_and_sigterm_releases_every_lock,
    .fini = fleet_cleanup)
{
	char logbuf[256], readybuf[256], cfgbuf[256];
	const char *log = path_of(logbuf, "runs.log"), *ready = path_of(readybuf, "hold.ready");
	const char *cfg = path_of(cfgbuf, "sql.yaml");
	char body[4096];
	size_t k;
	struct fleet f;
	FILE *fp;

	use(BE_PG);
	k = (size_t)snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "tasks:\n", srv.url);
	k += task_yaml(body + k, sizeof(body) - k, "minutely", "* * * * *", log, "");
	snprintf(body + k, sizeof(body) - k, "  hold:\n    schedule: '0 12 * * *'\n"
	    "    command: 'echo \"$LOCKRUN_SLOT\" >> %s; exec sleep 3600'\n", ready);
	fp = fopen(cfg, "w");
	cr_assert(fp != NULL);
	fputs(body, fp);
	fclose(fp);

	fleet_start(&f, 2, cfg, T_1200 - 30, 10, pw_env);
	wait_line(&f, log, "^minutely 2026-06-15T12:02:00Z$");
	cr_assert(eq(int, file_lines(ready), 1), "hold runs, on one server:\n%s",
	    file_peek(f.err[0]));
	cr_assert(held("hold"), "the running task holds its lock");
	fleet_stop(&f);

	cr_assert(eq(int, held("hold"), 0), "its lock was released");
	cr_assert(eq(int, held("minutely"), 0));
	cr_assert(eq(int, file_lines(ready), 1));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
	assert_no_line_twice(log);
	for (int m = 0; m <= 2; m++) {
		char re[64];

		snprintf(re, sizeof(re), "^minutely 2026-06-15T12:0%d:00Z$", m);
		cr_assert(eq(int, lines_matching(log, re), 1), "%s:\n%s", re, file_peek(log));
	}
}

/* The pid (in our namespace) of the first process whose status line key
 * (e.g. "PPid:") ends in value and, when ns is not NULL, whose PID
 * namespace is ns; 0 if none. */
static pid_t
find_process(const char *key, long value, const char *ns)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	cr_assert(d != NULL);
	while (!found && (de = readdir(d)) != NULL) {
		char path[300], link[128] = "", line[256];
		long pid = strtol(de->d_name, NULL, 10), last = -1;
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/%ld/ns/pid", pid);
		if (pid <= 0 || (ns && (readlink(path, link, sizeof(link) - 1) < 0 ||
		    strcmp(link, ns) != 0)))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), fp))
			if (strncmp(line, key, strlen(key)) == 0) {
				/* the last field: our namespace's first, its own last */
				char *tab = strrchr(line, '\t');
				last = strtol(tab ? tab + 1 : line + strlen(key), NULL, 10);
			}
		fclose(fp);
		if (last == value)
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

/* "PPid:" of pid, or -1. */
static long
parent_of(pid_t pid)
{
	char path[64], line[256];
	long ppid = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, "PPid:", 5) == 0)
			ppid = strtol(line + 5, NULL, 10);
	fclose(fp);
	return ppid;
}

/* lockrun cron as PID 1 of a new PID namespace (unshare, as root), its
 * clock 3s before a fire time; stderr to cron1.err. */
static pid_t
start_pid1(const char *cfg)
{
	const char *env[5], *bin = getenv("LOCKRUN_BIN");
	char buf[3][128];
	const char *err = scratch("cron1.err");
	pid_t pid;

	faketime_env(env, buf, T_1200 - 3);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		if (freopen(err, "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL)
			_exit(120);
		for (size_t i = 0; env[i]; i++)
			putenv((char *)env[i]);
		execlp("unshare", "unshare", "--pid", "--fork", "--mount-proc",
		    bin ? bin : "./lockrun", "cron", "-v", "-c", cfg, (char *)NULL);
		_exit(121);
	}
	cr_assert(pid > 0);
	return pid;
}

/* The cron of as_pid_1_it_reaps_the_orphans, for its .fini. */
static pid_t pid1_cron;

/* A failed test leaves no cron running in its namespace. */
static void
pid1_cleanup(void)
{
	if (pid1_cron > 0)
		kill(pid1_cron, SIGKILL);
}

/* The task's command starts an orphan (its parent shell exits at once,
 * and kill_mode: process leaves it running): it comes to cron, PID 1, and
 * when it exits cron reaps it -- it does not stay a zombie. */
Test(cron_fleet, as_pid_1_it_reaps_the_orphans, .fini = pid1_cleanup)
{
	char readybuf[256], gobuf[256], body[1024], ns[128] = "", path[64];
	const char *ready = path_of(readybuf, "orphan.ready"), *go = gobuf;
	pid_t unshare, cron, orphan;
	long inner;

	snprintf(gobuf, sizeof(gobuf), "%s", fifo("orphan.go"));
	if (geteuid() != 0 || system("unshare --pid --fork --mount-proc true 2>/dev/null") != 0)
		cr_skip("needs root and unshare --pid --fork --mount-proc, which fail here");
	snprintf(body, sizeof(body), "tasks:\n  orphan:\n    schedule: '* * * * *'\n"
	    "    kill_mode: process\n    command: 'sh -c \"echo \\$\\$ >> %s; read x < %s\" "
	    ">/dev/null 2>&1 &'\n", ready, go);
	unshare = start_pid1(write_config_faked(body));
	POLL_UNTIL((cron = find_process("PPid:", unshare, NULL)) > 0);
	cr_assert(cron > 0, "unshare started cron");
	pid1_cron = cron;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)cron);
	cr_assert(readlink(path, ns, sizeof(ns) - 1) > 0);
	cr_assert(eq(long, (long)find_process("NSpid:", 1, ns), (long)cron), "cron is PID 1");

	POLL_UNTIL(file_lines(ready) == 1 || !alive(unshare));
	cr_assert(eq(int, file_lines(ready), 1), "the orphan runs: %s",
	    file_peek(scratch("cron1.err")));
	inner = strtol(file_peek(ready), NULL, 10);
	orphan = find_process("NSpid:", inner, ns);
	cr_assert(orphan > 0, "the orphan, pid %ld in the namespace", inner);
	/* its shell is gone: it is cron's now */
	POLL_UNTIL(parent_of(orphan) == (long)cron);
	cr_assert(eq(long, parent_of(orphan), (long)cron));

	fifo_write(go, "go\n");
	POLL_UNTIL(proc_state(orphan) == '?');
	cr_assert(eq(chr, proc_state(orphan), '?'), "the orphan was reaped, not left a zombie");
	kill(cron, SIGTERM);
	pid1_cron = 0;
	cr_assert(eq(int, lr_wait(unshare), 0), "%s", file_peek(scratch("cron1.err")));
}

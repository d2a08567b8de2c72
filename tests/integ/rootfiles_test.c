/* SPDX-License-Identifier: BSD-2-Clause */
/* rootfiles_test.c -- what root writes and shows: an output: or JSON log
 * path that is a link, a FIFO or in a folder open to all is refused with
 * an error and the run goes on (the file a link names is left as it was;
 * a FIFO does not hold the run); files are made 0640; the JSON log is
 * opened again on SIGHUP; relayed lines that are not UTF-8 are still
 * JSON; C1 controls, bidi controls and bytes that are not UTF-8 are
 * never printed raw, and are refused in names and --host. */
#include <sys/stat.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "json.h"

TestSuite(rootfiles, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define T_1200 1781524800.0	/* 2026-06-15T12:00:00Z */

#define C1_CSI	"\xc2\x9b"	/* U+009B */
#define RAW_CSI	"\x9b"		/* the same byte, not UTF-8 */
#define RLO	"\xe2\x80\xae"	/* U+202E RIGHT-TO-LEFT OVERRIDE */

/* A config of task job, echoing pwned, its output: output. */
static const char *
job_config(const char *output)
{
	char body[1024];

	snprintf(body, sizeof(body), "tasks:\n  job:\n    output: %s\n"
	    "    command: 'echo pwned'\n", output);
	return write_config(body);
}

Test(rootfiles, an_output_link_to_a_root_only_file_leaves_it_unchanged)
{
	const char *victim = root_only("root-only"), *cfg = job_config("job.log");
	struct result r;

	cr_assert(eq(int, symlink(victim, scratch("job.log")), 0));
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "the run goes on: %s", r.err);
	cr_assert(matches(r.err, "lockrun: output .*/job\\.log: refused: it is a symbolic "
	    "link; the output is discarded"), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(victim), "keep\n"));
}

Test(rootfiles, a_json_log_link_to_a_root_only_file_leaves_it_unchanged)
{
	const char *victim = root_only("root-only");
	char spec[300];
	struct result r;

	cr_assert(eq(int, symlink(victim, scratch("log.json")), 0));
	snprintf(spec, sizeof(spec), "json:%s", scratch("log.json"));
	LR(&r, "--redis", fx.url, "--log", spec, "-k", "job", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "log file .*log\\.json: refused: it is a symbolic link; "
	    "logging to stderr"), "%s", r.err);
	cr_assert(matches(r.err, "\"event\":\"released\""), "the log went on: %s", r.err);
	cr_assert(eq(str, (char *)file_peek(victim), "keep\n"));
}

/* No reader on the FIFO: open(2) would wait for one for ever. */
Test(rootfiles, a_fifo_as_output_ends_the_run_with_an_error)
{
	const char *cfg = job_config("job.fifo");
	struct result r;

	fifo("job.fifo");
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "output .*/job\\.fifo: refused: not a regular file"), "%s",
	    r.err);
}

Test(rootfiles, an_output_in_a_folder_open_to_all_is_refused)
{
	const char *cfg = job_config("open/job.log");
	struct result r;

	cr_assert(eq(int, mkdir(scratch("open"), 0777), 0));
	cr_assert(eq(int, chmod(scratch("open"), 0777), 0));
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "output .*/open/job\\.log: refused: its folder is writable "
	    "by others and not sticky"), "%s", r.err);
	cr_assert(eq(int, access(scratch("open/job.log"), F_OK), -1));
	/* sticky, as /tmp: written */
	cr_assert(eq(int, chmod(scratch("open"), 01777), 0));
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, (char *)file_peek(scratch("open/job.log")), "pwned\n"));
}

Test(rootfiles, output_and_log_files_are_made_0640)
{
	const char *cfg = job_config("job.log");
	char spec[300];
	struct result r;
	struct stat st;

	umask(0);
	LR(&r, "-c", cfg, "-t", "job");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, stat(scratch("job.log"), &st), 0));
	cr_assert(eq(int, (int)(st.st_mode & 07777), 0640));
	snprintf(spec, sizeof(spec), "json:%s", scratch("log.json"));
	LR(&r, "--redis", fx.url, "--log", spec, "-k", "job", "--", "true");
	cr_assert(eq(int, stat(scratch("log.json"), &st), 0));
	cr_assert(eq(int, (int)(st.st_mode & 07777), 0640));
	umask(022);
}

/* logrotate renames the file and sends SIGHUP: cron writes on in a new
 * file of that name, not in the renamed one. */
Test(rootfiles, cron_opens_its_json_log_again_on_sighup)
{
	const char *log = scratch("cron.json");
	char spec[300], rotated[300];
	const char *env[5];
	char buf[3][128];
	pid_t pid;

	write_config_faked("tasks:\n  yearly:\n    schedule: '0 0 1 1 *'\n"
	    "    command: [true]\n");
	snprintf(spec, sizeof(spec), "json:%s", log);
	faketime_env(env, buf, T_1200);
	pid = LR_START_ENV(env, "cron", "-v", "--log", spec, "-c", scratch("lockrun.yaml"));
	POLL_UNTIL(file_lines(log) >= 1);
	snprintf(rotated, sizeof(rotated), "%s.1", log);
	cr_assert(eq(int, rename(log, rotated), 0));
	kill(pid, SIGHUP);
	POLL_UNTIL(access(log, F_OK) == 0 && matches(file_peek(log), "\"reloaded\""));
	cr_assert(matches(file_peek(log), "\"event\":\"reloaded\""), "%s", file_peek(log));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(not(matches(file_peek(rotated), "reloaded")), "%s", file_peek(rotated));
}

static int
count_line(const struct json *j, void *arg)
{
	const struct json *line = json_get(j, "line");

	if (line && json_str(line) && strcmp(json_str(line),
	    "\xef\xbf\xbd\xef\xbf\xbd not utf-8") == 0)
		++*(int *)arg;
	return 0;
}

/* A task's lines that are not UTF-8, relayed by cron --log json: each
 * record parses, the bytes become U+FFFD. */
Test(rootfiles, relayed_lines_that_are_not_utf8_are_still_json)
{
	char err[16384], jerr[256], link[64], path[512];
	const char *env[5];
	char buf[3][128];
	int found = 0;
	ssize_t n;
	pid_t pid;

	write_config_faked("tasks:\n  bytes:\n    schedule: '* * * * *'\n"
	    "    command: 'printf \"\\377\\376 not utf-8\\n\"; printf \"\\377\\376 not utf-8\\n\" >&2'\n");
	faketime_env(env, buf, T_1200 - 2);
	pid = LR_START_ENV(env, "cron", "--log", "json", "-c", scratch("lockrun.yaml"));
	POLL_UNTIL(matches(lr_stderr_of(pid, err, sizeof(err)), "\"event\\\\?\":\\\\?\"released"));
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
	lr_stderr_of(pid, err, sizeof(err));
	cr_assert(json_lines(err, count_line, &found, jerr, sizeof(jerr)) > 0, "%s\n%s",
	    jerr, err);
	/* stdout: the file beside stderr's, bgN.out */
	snprintf(link, sizeof(link), "pid%d.err", (int)pid);
	n = readlink(scratch(link), path, sizeof(path) - 1);
	cr_assert(n > 4);
	memcpy(path + n - 4, ".out", 5);
	cr_assert(json_lines(file_peek(path), count_line, &found, jerr, sizeof(jerr)) > 0,
	    "%s\n%s", jerr, file_peek(path));
	cr_assert(eq(int, found, 2), "stdout and stderr each: %s", err);
}

/* Does s hold any of the raw controls? */
static int
raw(const char *s)
{
	return strstr(s, C1_CSI) != NULL || strstr(s, RAW_CSI) != NULL ||
	    strstr(s, RLO) != NULL;
}

Test(rootfiles, c1_and_bidi_controls_from_a_holder_value_are_not_printed_raw)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{c1} %s", "ab12 7 h" C1_CSI "x" RAW_CSI "y" RLO
	    "z 42 1700000000"));
	freeReplyObject(rcmd("HSET lockrun:{c1}:last event %s host %s pid 1", "run" RLO,
	    "h" C1_CSI RAW_CSI));
	LR(&r, "--redis", fx.url, "status", "c1");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "h\\?x\\?y\\?z"), "%s", r.out);
	cr_assert(eq(int, raw(r.out), 0), "status prints a raw control: %s", r.out);
	LR(&r, "--redis", fx.url, "-v", "-k", "c1", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "h\\?x\\?y\\?z"), "%s", r.err);
	cr_assert(eq(int, raw(r.err), 0), "a -v skip prints a raw control: %s", r.err);
}

Test(rootfiles, a_task_name_with_c1_or_bidi_controls_is_refused_and_not_echoed_raw)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  a" RLO "b:\n    command: [true]\n");

	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, "lockrun\\.yaml:4:3: task name \"a\\?b\" may not contain "
	    "control characters"), "%s", r.err);
	cr_assert(eq(int, raw(r.err), 0), "%s", r.err);
	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(eq(int, raw(r.out) || raw(r.err), 0), "%s%s", r.out, r.err);
	LR(&r, "--redis", fx.url, "-t", "x" C1_CSI "31m");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(int, raw(r.err), 0), "%s", r.err);
	LR(&r, "--redis", fx.url, "history", "x" RAW_CSI);
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(int, raw(r.err), 0), "%s", r.err);
}

Test(rootfiles, a_tasks_dir_file_name_with_a_c1_control_is_refused)
{
	const char *cfg = write_config("tasks_dir: tasks.d\n");
	char path[300];
	struct result r;
	FILE *fp;

	cr_assert(eq(int, mkdir(scratch("tasks.d"), 0755), 0));
	snprintf(path, sizeof(path), "%s/x" C1_CSI "31m.yaml", scratch("tasks.d"));
	fp = fopen(path, "w");
	cr_assert(fp != NULL, "%s", path);
	fputs("command: [true]\n", fp);
	fclose(fp);
	LR(&r, "check", "-c", cfg);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, "x\\?31m\\.yaml: task name \"x\\?31m\""), "%s", r.err);
	cr_assert(eq(int, raw(r.err), 0), "%s", r.err);
}

Test(rootfiles, host_refuses_c1_and_bidi_controls)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--host", "x" C1_CSI "31m", "-k", "h", "--", "true");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(int, raw(r.err), 0), "%s", r.err);
	LR(&r, "--redis", fx.url, "--host", "web" RLO "1", "-k", "h", "--", "true");
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	LR(&r, "--redis", fx.url, "--host", "web-1.example", "-k", "h", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* hooks_test.c -- on_start, on_success, on_failure through the real binary:
 * when each fires, what it is told, and that it never changes the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(hooks, .init = suite_setup, .fini = suite_teardown, .timeout = 30);

/* A hook that appends its name and its LOCKRUN_ variables, sorted, as one
 * line to the file log. */
static const char *
recorder(const char *log)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "[sh, -c, 'env | grep ^LOCKRUN_ | "
	    "grep -Ev \"^LOCKRUN_(BIN|DATA|SHIM)=\" | sort | tr \"\\n\" \" \" >> %s; "
	    "echo >> %s']", log, log);
	return b;
}

/* A config whose task t runs command, with every hook recording to log. */
static const char *
hooked_config(const char *log, const char *task_extra)
{
	char body[2048];

	snprintf(body, sizeof(body), "tasks:\n  t:\n%s"
	    "    on_start: %s\n    on_success: %s\n    on_failure: %s\n",
	    task_extra, recorder(log), recorder(log), recorder(log));
	return write_config(body);
}

Test(hooks, success_fires_on_start_then_on_success_with_the_runs_facts)
{
	struct result r;
	const char *log = scratch("hooks.log");
	const char *cfg = hooked_config(log, "    command: [true]\n");
	const char *got;

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	got = file_peek(log);
	cr_assert(eq(int, file_lines(log), 2), "%s", got);
	cr_assert(matches(got, "^LOCKRUN_ATTEMPT=1 LOCKRUN_HOOK=on_start LOCKRUN_KEY=lockrun:\\{t\\} "
	    "LOCKRUN_TASK=t LOCKRUN_TOKEN=[0-9]+ \n"), "%s", got);
	cr_assert(matches(got, "\nLOCKRUN_ATTEMPT=1 LOCKRUN_DURATION_MS=[0-9]+ LOCKRUN_HOOK=on_success "
	    "LOCKRUN_KEY=lockrun:\\{t\\} LOCKRUN_LOST=0 LOCKRUN_STATUS=0 LOCKRUN_TASK=t "
	    "LOCKRUN_TIMED_OUT=0 LOCKRUN_TOKEN=[0-9]+ \n$"), "%s", got);
}

Test(hooks, failure_fires_on_failure_and_keeps_the_commands_status)
{
	struct result r;
	const char *log = scratch("hooks.log");
	const char *cfg = hooked_config(log, "    command: [sh, -c, 'exit 3']\n");
	const char *got;

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 3), "stderr: %s", r.err);
	got = file_peek(log);
	cr_assert(eq(int, file_lines(log), 2), "%s", got);
	cr_assert(matches(got, "\n[^\n]*LOCKRUN_HOOK=on_failure [^\n]*LOCKRUN_STATUS=3 "), "%s",
	    got);
	cr_assert(eq(int, matches(got, "on_success"), 0), "%s", got);
	cr_assert(eq(int, matches(got, "LOCKRUN_SIGNAL"), 0), "%s", got);
}

Test(hooks, a_signal_is_named)
{
	struct result r;
	const char *log = scratch("hooks.log");
	const char *cfg = hooked_config(log, "    command: [sh, -c, 'kill -TERM $$']\n"
	    "    kill_mode: process\n");
	const char *got;

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 143), "stderr: %s", r.err);
	got = file_peek(log);
	cr_assert(matches(got, "LOCKRUN_HOOK=on_failure [^\n]*LOCKRUN_SIGNAL=TERM "
	    "LOCKRUN_STATUS=143 "), "%s", got);
}

Test(hooks, a_timeout_is_told)
{
	struct result r;
	const char *log = scratch("hooks.log");
	const char *cfg = hooked_config(log, "    command: [sleep, '60']\n"
	    "    timeout: 200ms\n");
	const char *got;

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 124), "stderr: %s", r.err);
	got = file_peek(log);
	cr_assert(matches(got, "LOCKRUN_HOOK=on_failure [^\n]*LOCKRUN_STATUS=124 "
	    "[^\n]*LOCKRUN_TIMED_OUT=1 "), "%s", got);
}

Test(hooks, a_skip_fires_nothing)
{
	struct result r;
	const char *log = scratch("hooks.log");
	const char *cfg = hooked_config(log, "    command: [true]\n    conflict_exit: 75\n");

	freeReplyObject(rcmd("SET lockrun:{t} %s PX 30000", "x 1 h 1 t"));
	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 0), "%s", file_peek(log));
}

Test(hooks, a_slot_that_already_ran_fires_nothing)
{
	struct result r;
	const char *log = scratch("hooks.log");
	const char *cfg = hooked_config(log, "    command: [true]\n    one_server: true\n"
	    "    no_overlap: false\n    every: 1h\n");

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 2), "%s", file_peek(log));
	cr_assert(matches(file_peek(log), "LOCKRUN_SLOT=[0-9]{4}-"), "%s", file_peek(log));
	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(log), 2), "%s", file_peek(log));
}

Test(hooks, defaults_hooks_apply_and_a_tasks_own_replace_them)
{
	struct result r;
	const char *log = scratch("hooks.log");
	char body[1024];

	snprintf(body, sizeof(body), "defaults:\n  on_success: [sh, -c, 'echo default >> %s']\n"
	    "tasks:\n  a:\n    command: [true]\n"
	    "  b:\n    command: [true]\n    on_success: [sh, -c, 'echo own >> %s']\n", log, log);
	write_config(body);
	LR(&r, "-c", scratch("lockrun.yaml"), "-t", "a");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	LR(&r, "-c", scratch("lockrun.yaml"), "-t", "b");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, (char *)file_peek(log), "default\nown\n"));
}

Test(hooks, a_hanging_hook_is_stopped_at_its_timeout)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  t:\n    command: [true]\n"
	    "    hook_timeout: 300ms\n    on_success: [sleep, '600']\n");

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.err, "on_success hook sleep was stopped at its timeout "
	    "\\(300ms\\)"), "stderr: %s", r.err);
}

Test(hooks, a_missing_hook_is_logged_and_the_status_stands)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  t:\n    command: [sh, -c, 'exit 5']\n"
	    "    on_failure: [/nonexistent/ping, x]\n");

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 5), "stderr: %s", r.err);
	cr_assert(matches(r.err, "on_failure hook: cannot run /nonexistent/ping"),
	    "stderr: %s", r.err);
}

Test(hooks, a_failing_hook_changes_nothing)
{
	struct result r;
	const char *cfg = write_config("tasks:\n  t:\n    command: [true]\n"
	    "    on_start: [false]\n    on_success: [sh, -c, 'exit 9']\n");

	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.err, "on_success hook sh exited with status 9"), "stderr: %s",
	    r.err);
	cr_assert(eq(int, key_exists("lockrun:{t}"), 0), "the lock was released");
}

Test(hooks, a_hook_is_a_list)
{
	struct result r;
	char want[512];
	const char *cfg = write_config("tasks:\n  t:\n    command: [true]\n"
	    "    on_failure: 'curl x'\n");

	LR(&r, "-c", cfg, "-t", "t");
	snprintf(want, sizeof(want), "lockrun: %s:6:17: tasks.t.on_failure: expected a "
	    "list [program, args...], got a string\n", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, want));
}

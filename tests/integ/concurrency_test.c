/* SPDX-License-Identifier: BSD-2-Clause */
/* concurrency_test.c -- concurrency:, Kubernetes' words for no_overlap:
 * forbid holds a copy of the next slot off while one runs, allow starts it
 * beside, each over the defaults' other word; a no_overlap that says
 * otherwise at the same level is refused where it is written (78), and on
 * the command line (64); replace is refused as not built yet. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"

TestSuite(concurrency, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */

/* Task name's two copies: the first, of slot 12:00, runs until released
 * by the gate; meanwhile the second, of slot 12:01, is started (each on
 * a frozen clock). Returns the second's status, its stderr in r; the
 * first is let go and must end 0. ran: the second's command's file. */
static int
second_copy(const char *cfg, const char *name, struct gate *g, struct result *r)
{
	const char *fake[6];
	char buf[3][128];
	pid_t first;

	faketime_frozen_env(fake, buf, T_1200 + 1);
	first = lr_start_env(env_with(fake), (const char *const[]){ "-c", cfg, "-t", name,
	    NULL });
	gate_started(g, first);	/* or the test ends, when the first exits */
	faketime_frozen_env(fake, buf, T_1200 + 61);
	lr_run_env(r, env_with(fake), (const char *const[]){ "-v", "-c", cfg, "-t", name,
	    NULL });
	gate_release(g);
	cr_assert(eq(int, lr_wait(first), 0));
	return r->status;
}

/* A config whose defaults say one word, and whose task "job" says the
 * other: its command passes the gate g on its first run only (a file
 * marks it), and appends to ran on each. */
static const char *
config(const char *defaults, const char *task, struct gate *g, char *ran)
{
	char body[2048], mark[256];

	snprintf(ran, 256, "%s", scratch("ran"));
	snprintf(mark, sizeof(mark), "%s", scratch("first"));
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "defaults:\n  clock_tolerance: 0\n  every: 1m\n  %s\n"
	    "tasks:\n"
	    "  job:\n"
	    "    every: 1m\n"
	    "    %s\n"
	    "    conflict_exit: 75\n"
	    "    command: 'echo ran >> %s; if [ ! -e %s ]; then touch %s; %s; fi'\n",
	    url, defaults, task, ran, mark, mark, gate_sh(g));
	return write_scratch("concurrency.yaml", body);
}

/* forbid in the task, over the defaults' no_overlap: false: the next
 * slot's copy is skipped while the first runs. Before, concurrency was an
 * unknown key (78). */
Test(concurrency, forbid_holds_the_next_slot_off_while_a_copy_runs)
{
	char ran[256], buf[256];
	struct result r;
	struct gate g;
	const char *cfg;

	use(BE_REDIS);
	gate_open_file(&g, "");
	cfg = config("no_overlap: false", "concurrency: forbid", &g, ran);
	cr_assert(eq(int, second_copy(cfg, "job", &g, &r), 75), "%s", r.err);
	cr_assert(matches(r.err, "skipped: lockrun:\\{job\\} is held by "), "%s", r.err);
	cr_assert(eq(int, file_lines(ran), 1), "the second did not run");
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)),
	    "released skipped-held ran"));
}

/* allow in the task, over the defaults' concurrency: forbid: the next
 * slot's copy runs beside the first; check says why. */
Test(concurrency, allow_starts_the_next_slot_beside_a_running_copy)
{
	char ran[256];
	struct result r;
	struct gate g;
	const char *cfg;

	use(BE_REDIS);
	gate_open_file(&g, "");
	cfg = config("concurrency: forbid", "concurrency: allow", &g, ran);
	cr_assert(eq(int, second_copy(cfg, "job", &g, &r), 0), "%s", r.err);
	cr_assert(eq(int, file_lines(ran), 2), "both ran");
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "check", "-c", cfg, "-t", "job",
	    NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nprotection  one-server: the task has a schedule; "
	    "no-overlap is off: tasks\\.job sets it \\(concurrency: allow\\)\n"), "%s", r.out);
}

/* concurrency and no_overlap at one level that disagree: refused where
 * concurrency is written (78), or on the command line (64); replace is
 * refused as not built yet. */
Test(concurrency, a_contradiction_is_refused_where_it_is_written)
{
	char body[512], want[1024];
	struct result r;
	const char *cfg;

	use(BE_REDIS);
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "tasks:\n"
	    "  job:\n"
	    "    command: 'true'\n"
	    "    no_overlap: true\n"
	    "    concurrency: allow\n", url);
	cfg = write_scratch("contradiction.yaml", body);
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t", "job", NULL });
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	snprintf(want, sizeof(want), "lockrun: %s:6:18: tasks.job: concurrency: allow "
	    "contradicts no_overlap: true (concurrency: forbid is no_overlap: true, allow is "
	    "no_overlap: false; give one of them)\n", cfg);
	cr_assert(eq(str, r.err, want));

	lr_run_env(&r, env_with(NULL), (const char *const[]){ "--url", url, "--concurrency",
	    "forbid", "--overlap", "-k", "job", "--", "true", NULL });
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: concurrency: forbid contradicts no_overlap: false "
	    "(concurrency: forbid is no_overlap: true, allow is no_overlap: false; give one "
	    "of them)\nTry 'lockrun --help' for more information.\n"));

	lr_run_env(&r, env_with(NULL), (const char *const[]){ "--url", url, "--concurrency",
	    "replace", "-k", "job", "--", "true", NULL });
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: concurrency: replace is not built yet (give "
	    "forbid, the default with a schedule, or allow)\nTry 'lockrun --help' for more "
	    "information.\n"));
	cr_assert(eq(int, key_exists("lockrun:{job}:history"), 0), "nothing ran");
}

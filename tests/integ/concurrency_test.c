/* SPDX-License-Identifier: BSD-2-Clause */
/* concurrency_test.c -- concurrency:, Kubernetes' three words: forbid
 * holds a copy of the next slot off while one runs, allow starts it
 * beside, each over the defaults' other word; replace stops the running
 * copy and runs once its lock is free, never both at once (the job holds
 * a local flock: a second copy at once would find it taken); a no_overlap
 * that says otherwise at the same level is refused where it is written
 * (78), and on the command line (64). */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
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
	    "contradicts no_overlap: true (forbid and replace are no_overlap: true, allow is "
	    "no_overlap: false; give one of them)\n", cfg);
	cr_assert(eq(str, r.err, want));

	lr_run_env(&r, env_with(NULL), (const char *const[]){ "--url", url, "--concurrency",
	    "forbid", "--overlap", "-k", "job", "--", "true", NULL });
	cr_assert(eq(int, r.status, 64), "%s", r.err);
	cr_assert(eq(str, r.err, "lockrun: concurrency: forbid contradicts no_overlap: false "
	    "(forbid and replace are no_overlap: true, allow is no_overlap: false; give one "
	    "of them)\nTry 'lockrun --help' for more information.\n"));
	cr_assert(eq(int, key_exists("lockrun:{job}:history"), 0), "nothing ran");
}

/* lockrun -c cfg -t job on a clock frozen at `at`, started or run. */
static pid_t
job_start_at(const char *cfg, double at)
{
	const char *fake[6];
	char buf[3][128];

	faketime_frozen_env(fake, buf, at);
	return lr_start_env(env_with(fake), (const char *const[]){ "-c", cfg, "-t", "job",
	    NULL });
}

/* The same, to its end: by -t, or with tick set, as tick's run. */
static void
job_run_at(const char *cfg, double at, int tick, struct result *r)
{
	const char *fake[6];
	char buf[3][128];

	faketime_frozen_env(fake, buf, at);
	if (tick)
		lr_run_env(r, env_with(fake), (const char *const[]){ "tick", "-v", "-c", cfg,
		    NULL });
	else
		lr_run_env(r, env_with(fake), (const char *const[]){ "-v", "-c", cfg, "-t",
		    "job", NULL });
}

/* replace: a slot's copy runs (it holds a local flock, and runs until
 * stopped). Another run of that slot replaces nothing: the slot ran, it
 * skips. A run of the next slot tells the copy to stop, waits for its lock and
 * then runs, its command finding the flock free: never both at once. The
 * history says who stopped whom. Started by -t, or by tick: its run
 * replaces over a connection of its own, its lock over tick's. Before,
 * concurrency was an unknown key (78). */
static void
replace_by(int tick)
{
	char ran[256], overlap[256], first[256], lock[256], body[2048], buf[256];
	const char *cfg, *script;
	struct timespec now;
	struct result r;
	double minute;
	pid_t a;

	use(BE_REDIS);
	snprintf(ran, sizeof(ran), "%s", scratch("ran"));
	snprintf(overlap, sizeof(overlap), "%s", scratch("overlap"));
	snprintf(first, sizeof(first), "%s", scratch("first"));
	snprintf(lock, sizeof(lock), "%s", scratch("job.lock"));
	/* the first copy runs until stopped, the flock held by its sleep */
	snprintf(body, sizeof(body), "#!/bin/sh\n"
	    "exec 9> %s\n"
	    "flock -n 9 || { echo $$ >> %s; exit 1; }\n"
	    "echo $$ >> %s\n"
	    "[ -e %s ] && exit 0\n"
	    "touch %s\n"
	    "exec sleep 60\n", lock, overlap, ran, first, first);
	script = write_scratch("job.sh", body);
	cr_assert(eq(int, chmod(script, 0755), 0));
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "defaults:\n  clock_tolerance: 0\n"
	    "tasks:\n"
	    "  job:\n"
	    "    every: 1m\n"
	    "    concurrency: replace\n"
	    "    ttl: 3s\n"
	    "    conflict_exit: 75\n"
	    "    command: [%s]\n", url, script);
	cfg = write_scratch("replace.yaml", body);

	/* the clocks near the lock server's: a run that waits for its lock
	 * asks again with the server's clock, and a claim is refused past the
	 * slot's next fire time by that clock */
	clock_gettime(CLOCK_REALTIME, &now);
	minute = (double)(now.tv_sec - now.tv_sec % 60);
	a = job_start_at(cfg, minute + 1);
	POLL_UNTIL(file_lines(ran) == 1 || !alive(a));
	cr_assert(eq(int, file_lines(ran), 1), "the first copy runs");
	job_run_at(cfg, minute + 2, tick, &r);
	cr_assert(eq(int, r.status, tick ? 0 : 75), "that slot ran already: %s", r.err);
	cr_assert(matches(r.err, "slot [0-9TZ:-]+ ran already: the copy still running is not "
	    "replaced"), "%s", r.err);
	cr_assert(eq(int, alive(a), 1), "the first copy runs on");
	job_run_at(cfg, minute + 61, tick, &r);
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "lockrun:\\{job\\} is held by [^ ]+ pid [0-9]+: told it to "
	    "stop \\(concurrency: replace\\)"), "%s", r.err);
	cr_assert(eq(int, lr_wait(a), 128 + 15), "the first copy was stopped (SIGTERM)");
	cr_assert(eq(int, file_lines(ran), 2), "both ran, one after the other");
	cr_assert(eq(int, file_lines(overlap), 0), "never both at once: %s",
	    file_peek(overlap));
	cr_assert(eq(str, (char *)events("job", buf, sizeof(buf)),
	    "released ran lost unlocked skipped-held skipped-held ran"));
}

Test(concurrency, replace_stops_the_running_copy_then_runs)
{
	replace_by(0);
}
Test(concurrency, replace_stops_the_running_copy_then_runs_under_tick)
{
	replace_by(1);
}

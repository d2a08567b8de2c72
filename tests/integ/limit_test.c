/* SPDX-License-Identifier: BSD-2-Clause */
/* limit_test.c -- limit: N, a lock of N places (issue 47): never more than
 * N copies at once, each with its own place; a dead holder's place comes
 * back with its lease; status and check say so; a slot runs at most N
 * times. Real binary, real redis-server. Each job takes one of N local
 * flock(1) files, the first free, and says so loudly when none is free:
 * an (N+1)th copy at once is seen exactly, not guessed from timings. */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(limit, .init = suite_setup, .fini = suite_teardown, .timeout = 90);

#define COPIES	10

/* The job: take the first free of the files p1..p3 (flock -n), or append
 * the shell's pid to "over" and exit 99; append its pid to "ran"; then
 * work (the job's own, such as "sleep 0.2"), or when work is NULL wait
 * for the file "go", unless $QUICK is set. */
static const char *
job_sh(const char *work)
{
	static char sh[2048], wait[400];

	snprintf(wait, sizeof(wait), "[ -n \"$QUICK\" ] || while [ ! -e %s ]; do sleep 0.02; "
	    "done", scratch("go"));
	snprintf(sh, sizeof(sh), "held=; for f in %s %s %s; do exec 9>>\"$f\"; "
	    "if flock -n 9; then held=$f; break; fi; exec 9>&-; done; "
	    "[ -n \"$held\" ] || { echo $$ >> %s; exit 99; }; echo $$ >> %s; %s",
	    scratch("p1"), scratch("p2"), scratch("p3"), scratch("over"), scratch("ran"),
	    work ? work : wait);
	return sh;
}

/* A config with task sem: limit 3, the job (job_sh(work)), skips exiting
 * 75; extra: more of the task's settings, indented by four. */
static const char *
sem_config(const char *work, const char *extra)
{
	static char kept[256];
	char *body;
	const char *path;

	cr_assert(asprintf(&body, "tasks:\n  sem:\n    command: [sh, -c, '%s']\n"
	    "    limit: 3\n    ttl: 3s\n    conflict_exit: 75\n%s", job_sh(work),
	    extra ? extra : "") > 0);
	path = write_config(body);
	free(body);
	/* its own copy: scratch()'s 16 buffers go round, and a test polling
	 * a scratch file reuses the one the path is in */
	snprintf(kept, sizeof(kept), "%s", path);
	return kept;
}

/* Reap those of the n children pid[] that have exited: each one's
 * status into status[], its pid 0. Returns how many are reaped by now. */
static int
reap_exited(pid_t *pid, int *status, int n)
{
	int done = 0, st;

	for (int i = 0; i < n; i++) {
		if (pid[i] != 0 && waitpid(pid[i], &st, WNOHANG) == pid[i]) {
			status[i] = exit_code(st);
			pid[i] = 0;
		}
		done += pid[i] == 0;
	}
	return done;
}

/* Without --wait: 10 copies started together, 3 take a place and hold it
 * until told, the other 7 are skipped at once; never a 4th at a time. */
Test(limit, three_of_ten_run_and_seven_skip)
{
	const char *cfg = sem_config(NULL, NULL);
	pid_t pid[COPIES];
	int status[COPIES], ran = 0, skipped = 0;

	for (int i = 0; i < COPIES; i++)
		pid[i] = LR_START("-c", cfg, "-t", "sem");
	/* the skips have exited, the holders say they run (a 4th would too) */
	POLL_UNTIL(reap_exited(pid, status, COPIES) >= 7 && file_lines(scratch("ran")) >= 3);
	write_scratch("go", "");
	for (int i = 0; i < COPIES; i++) {
		if (pid[i] != 0)
			status[i] = lr_wait(pid[i]);
		ran += status[i] == 0;
		skipped += status[i] == 75;
	}
	cr_assert(eq(int, file_lines(scratch("over")), 0), "a 4th copy ran at once");
	cr_assert(eq(int, ran, 3));
	cr_assert(eq(int, skipped, 7));
	cr_assert(eq(int, file_lines(scratch("ran")), 3));
	cr_assert(eq(int, key_exists("lockrun:{sem}"), 0), "every place given back");
}

/* With --wait: 10 copies started together all run, never more than 3 at
 * a time, each waiting for a place. */
Test(limit, ten_waiting_copies_all_run_three_at_a_time)
{
	const char *cfg = sem_config("sleep 0.2", NULL);
	pid_t pid[COPIES];

	for (int i = 0; i < COPIES; i++)
		pid[i] = LR_START("-c", cfg, "-t", "sem", "--wait", "60s");
	for (int i = 0; i < COPIES; i++) {
		char err[1024];
		int st = lr_wait(pid[i]);

		cr_expect(eq(int, st, 0), "copy %d: %s", i, lr_stderr_of(pid[i], err,
		    sizeof(err)));
	}
	cr_assert(eq(int, file_lines(scratch("over")), 0), "a 4th copy ran at once");
	cr_assert(eq(int, file_lines(scratch("ran")), COPIES));
	cr_assert(eq(int, key_exists("lockrun:{sem}"), 0), "every place given back");
}

/* Every process of the tree under pid (pid first) into out; their count. */
static size_t
tree_of(pid_t pid, pid_t *out, size_t max)
{
	char path[96];
	size_t n = 0;
	FILE *fp;
	long kid;

	if (max == 0)
		return 0;
	out[n++] = pid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return n;
	while (n < max && fscanf(fp, "%ld", &kid) == 1)
		n += tree_of((pid_t)kid, out + n, max - n);
	fclose(fp);
	return n;
}

/* Is there an entry of event ev by pid in the task's history? */
static int
history_has(const char *ev, pid_t pid)
{
	redisReply *r = rcmd("XRANGE lockrun:{sem}:history - +");
	char want[32];
	int found = 0;

	snprintf(want, sizeof(want), "%d", (int)pid);
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		redisReply *f = r->element[i]->element[1];
		const char *event = "", *by = "";

		for (size_t j = 0; j + 1 < f->elements; j += 2) {
			if (strcmp(f->element[j]->str, "event") == 0)
				event = f->element[j + 1]->str;
			if (strcmp(f->element[j]->str, "pid") == 0)
				by = f->element[j + 1]->str;
		}
		found |= strcmp(event, ev) == 0 && strcmp(by, want) == 0;
	}
	freeReplyObject(r);
	return found;
}

/* Three holders; one of them, lockrun, its guard and its command, is
 * killed at once (frozen first, so that nothing of it can release): a
 * 4th copy is skipped while its lease lasts, and waiting gets the dead
 * holder's place when the lease ends (within one TTL), the two others
 * still holding theirs. Nothing released it: its lease ran out. */
Test(limit, a_holder_killed_with_its_tree_frees_its_place_with_its_lease)
{
	const char *cfg = sem_config(NULL, NULL);
	const char *quick[] = { "QUICK=1", NULL };
	pid_t pid[3], tree[64];
	struct result r;
	size_t n;

	for (int i = 0; i < 3; i++)
		pid[i] = LR_START("-c", cfg, "-t", "sem");
	POLL_UNTIL(file_lines(scratch("ran")) == 3);
	lr_run_env(&r, quick, (const char *const[]){ "-c", cfg, "-t", "sem", NULL });
	cr_assert(eq(int, r.status, 75), "a 4th place: %s", r.err);
	n = tree_of(pid[0], tree, 64);
	cr_assert(n >= 3, "lockrun, its guard and its command: %zu", n);
	for (size_t i = 0; i < n; i++)
		kill(tree[i], SIGSTOP);
	for (size_t i = 0; i < n; i++)
		kill(tree[i], SIGKILL);
	cr_assert(eq(int, lr_wait(pid[0]), 137));
	lr_run_env(&r, quick, (const char *const[]){ "-c", cfg, "-t", "sem", "--wait",
	    "60s", NULL });
	cr_assert(eq(int, r.status, 0), "the dead holder's place: %s", r.err);
	cr_assert(eq(int, file_lines(scratch("ran")), 4));
	cr_assert(eq(int, history_has("ran", pid[0]), 1));
	cr_assert(eq(int, history_has("released", pid[0]) | history_has("killed", pid[0]), 0),
	    "the killed holder's place was released, not left to its lease");
	write_scratch("go", "");
	cr_assert(eq(int, lr_wait(pid[1]), 0));
	cr_assert(eq(int, lr_wait(pid[2]), 0));
	cr_assert(eq(int, file_lines(scratch("over")), 0), "a 4th copy ran at once");
}

/* status: the lock held three times, a line per place with its holder. */
Test(limit, status_shows_each_holder)
{
	const char *cfg = sem_config(NULL, NULL);
	const char *hosts[] = { "web1", "web2", "web3" };
	pid_t pid[3];
	struct result r;
	char line[128];

	for (int i = 0; i < 3; i++) {
		pid[i] = LR_START("-c", cfg, "-t", "sem", "--host", hosts[i]);
		POLL_UNTIL(file_lines(scratch("ran")) == i + 1);	/* in this order */
	}
	LR(&r, "-c", cfg, "status", "sem");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nsem +held 3 +web[123] +running "), "%s", r.out);
	for (int i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "\nsem: place [123] of 3 held: %s pid %d, token "
		    "[0-9]+, [0-9]+s left\n", hosts[i], (int)pid[i]);
		cr_assert(matches(r.out, line), "%s not in:\n%s", hosts[i], r.out);
	}
	LR(&r, "-c", cfg, "status", "sem", "--format", "json");
	cr_assert(matches(r.out, "\"held\":true,.*\"places\":3"), "%s", r.out);
	write_scratch("go", "");
	for (int i = 0; i < 3; i++)
		cr_assert(eq(int, lr_wait(pid[i]), 0));
}

/* One-server: a slot of many places runs at most that many times, each
 * run its own token, whatever no-overlap says. */
Test(limit, a_slot_runs_at_most_limit_times)
{
	const char *cfg = sem_config(NULL, "    one_server: true\n    no_overlap: false\n"
	    "    every: 1h\n");
	const char *quick[] = { "QUICK=1", NULL };
	int ran = 0, taken = 0;
	struct result r;

	for (int i = 0; i < 5; i++) {
		lr_run_env(&r, quick, (const char *const[]){ "-c", cfg, "-t", "sem", NULL });
		ran += r.status == 0;
		taken += r.status == 75;
	}
	cr_assert(eq(int, ran, 3));
	cr_assert(eq(int, taken, 2));
	cr_assert(eq(int, file_lines(scratch("ran")), 3));
}

/* check -t says how many copies may run, and a limit out of range is a
 * config error at its place. */
Test(limit, check_says_it_and_a_bad_limit_is_refused)
{
	struct result r;

	LR(&r, "-c", sem_config(NULL, NULL), "check", "-t", "sem");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.out, "\nlimit +3 copies at once, each holding a place of its "
	    "own with its own token\n"), "%s", r.out);
	LR(&r, "-c", write_config("tasks:\n  sem:\n    command: [true]\n    limit: 0\n"),
	    "-t", "sem");
	cr_assert(eq(int, r.status, 78));
	cr_assert(matches(r.err, "lockrun\\.yaml:6:12: tasks\\.sem\\.limit: expected a limit "
	    "from 1 to 1000, got \"0\"\n$"), "%s", r.err);
}

/* Places are Redis's so far: a SQL URL with limit: 3 is a config error
 * naming the backend, before anything is taken. */
static void
refused_on(const char *url, const char *title)
{
	char *body, want[256];
	struct result r;

	cr_assert(asprintf(&body, "url: %s\ntasks:\n  sem:\n    command: [true]\n"
	    "    limit: 3\n", url) > 0);
	LR(&r, "-c", write_scratch("sql.yaml", body), "-t", "sem");
	free(body);
	snprintf(want, sizeof(want), "^lockrun: limit: 3: a lock in %s has one place so far",
	    title);
	cr_assert(eq(int, r.status, 78), "%s", r.err);
	cr_assert(matches(r.err, want), "%s", r.err);
}

Test(limit, pg_limit_above_one_is_refused)
{
	refused_on("postgresql://127.0.0.1:1/lockrun", "PostgreSQL");
}

Test(limit, mysql_limit_above_one_is_refused)
{
	refused_on("mysql://127.0.0.1:1/lockrun", "MySQL");
}

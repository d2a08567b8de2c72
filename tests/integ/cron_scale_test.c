/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_scale_test.c -- lockrun cron at a fleet's size (issue 30): its runs'
 * locks go over the scheduler's one connection, so a Redis that takes 20
 * clients runs 60 tasks due at once; and a run is still contained by its
 * own lease when the scheduler is killed or stopped under it: its tree is
 * gone, and the tasks' next runs start, with no two copies of a task's
 * command at once (each holds a flock of its own). */
#include <sys/wait.h>

#include <dirent.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */

static void
setup_maxclients(void)
{
	static const char *const extra[] = { "--maxclients", "20", NULL };

	/* a full server closes a client it refuses: writing on may raise it */
	signal(SIGPIPE, SIG_IGN);
	if (redis_start(&fx, extra) != 0)
		cr_fatal("redis-server did not start");
	unsetenv("LOCKRUN_CONFIG");
	unsetenv("LOCKRUN_REDIS_URL");
	unsetenv("LOCKRUN_REDIS_PASSWORD");
}

TestSuite(cron_scale, .init = setup_maxclients, .fini = suite_teardown, .timeout = 150);
TestSuite(cron_contain, .init = suite_setup, .fini = suite_teardown, .timeout = 150);
TestSuite(cron_batch, .init = suite_setup, .fini = suite_teardown, .timeout = 150);

/* The scratch path name, kept: scratch() reuses its buffers. */
static const char *
path_of(char buf[256], const char *name)
{
	snprintf(buf, 256, "%s", scratch(name));
	return buf;
}

/* tasks_config() (crons.h) on the suite's Redis. */
static const char *
scale_config(int n, const char *defaults, const char *cmd)
{
	return tasks_config(fx.url, n, defaults, cmd);
}

/* The clients Redis has now (one of them the asking one); 20 when it
 * refuses one more (ERR max number of clients reached). */
static int
clients_now(void)
{
	char v[32];

	if (redis_info_field(&fx, "clients", "connected_clients", v, sizeof(v)) != 0)
		return 20;
	return atoi(v);
}

/* Redis with maxclients 20, 60 tasks due at once, each running 25 s, a
 * starting_deadline of 15 s: all 60 run in their slot, over the
 * scheduler's one connection. (Each run with a connection of its own,
 * the 41 past the 20th were refused, and again at their retry 10 s later,
 * while the first ran: their slots were missed.) */
Test(cron_scale, redis_maxclients_20_and_60_tasks_due_at_once_all_run)
{
	char logbuf[256];
	const char *log = path_of(logbuf, "runs.log");
	char cmd[512];
	long long guard = 0;
	pid_t cron;
	int peak = 0, step = 0;

	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; exec sleep 25", log);
	cron = cron_at(scale_config(60, "  starting_deadline: 15s\n", cmd), T_1200 - 2);
	/* the starts take a while on a loaded machine: 30 s and more */
	for (int i = 0; i < 3 && lines_matching(log, "^t[0-9]+$") < 60; i++, guard = 0)
		while (lines_matching(log, "^t[0-9]+$") < 60 && poll_tick(&guard))
			if (step++ % 20 == 0 && clients_now() > peak)
				peak = clients_now();
	if (clients_now() > peak)
		peak = clients_now();
	kill(cron, SIGTERM);
	cr_assert(eq(int, lr_wait(cron), 0));
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), 60), "%s\nthe scheduler said:\n%s",
	    file_peek(log), lr_stderr_of(cron, (char[8192]){ 0 }, 8192));
	/* the scheduler's connection, and the one asking */
	cr_assert(le(int, peak, 2), "%d clients", peak);
}

/* tick does the same for its one pass: 60 tasks due on a Redis that
 * takes 20 clients all run, and tick exits 0. (With a connection per
 * run, the 41 past the 20th were refused: exit 69.) */
Test(cron_scale, a_tick_of_60_tasks_on_maxclients_20_runs_them_all)
{
	char logbuf[256], cmd[512], buf[3][128];
	const char *log = path_of(logbuf, "ticks.log"), *env[5];
	struct result r;

	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; exec sleep 2", log);
	faketime_env(env, buf, T_1200 + 1);
	lr_run_env(&r, env, (const char *const[]){ "tick", "-c",
	    scale_config(60, "", cmd), NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(int, lines_matching(log, "^t[0-9]+$"), 60), "%s", file_peek(log));
}

/* The command of a task that holds a flock of its own while it runs: a
 * second copy says "overlap"; each copy's pid goes to pids. */
static const char *
held_cmd(char *buf, size_t n, const char *log, const char *pids)
{
	snprintf(buf, n, "exec 9>%s.%%1$s; flock -n 9 || { echo overlap %%1$s >> %s; exit 1; }; "
	    "echo $$ >> %s; echo start %%1$s >> %s; exec sleep 120", log, log, pids, log);
	return buf;
}

/* Every pid listed in path has ended (or the poll gave up). */
static int
all_gone(const char *path)
{
	return alive_in(path) == 0;
}

/* No task's lock is held any more. */
static int
all_free(int n)
{
	for (int i = 0; i < n; i++) {
		char key[32];

		snprintf(key, sizeof(key), "lockrun:{t%02d}", i);
		if (key_exists(key))
			return 0;
	}
	return 1;
}

/* The parent of pid, from /proc (0 when it cannot be read). */
static pid_t
parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), fp) && (p = strrchr(buf, ')')) != NULL)
		sscanf(p + 1, " %*c %d", &ppid);
	fclose(fp);
	return (pid_t)ppid;
}

/* Does any descriptor of pid point at what (a readlink of /proc/PID/fd/N)? */
static int
holds(pid_t pid, const char *what)
{
	char dir[64], path[400], link[256];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) > 0) {
			link[n] = '\0';
			found = strcmp(link, what) == 0;
		}
	}
	closedir(d);
	return found;
}

/* The event of task t<i>'s last-run record, or "". */
static const char *
last_event(int i)
{
	static char ev[64];
	redisReply *r = rcmd("HGET lockrun:{t%02d}:last event", i);

	snprintf(ev, sizeof(ev), "%s", r->type == REDIS_REPLY_STRING ? r->str : "");
	freeReplyObject(r);
	return ev;
}

/* Three runs in progress; their scheduler killed (SIGKILL); their
 * commands end after it: each run records its end over a connection of
 * its own ("released", long before its lease of a minute ends). Before,
 * a run kept the scheduler's descriptors (its timer, its end of every
 * lease socket) whenever the scheduler had been given one numbered
 * higher, so it never saw the scheduler go; and one that did fell over
 * (SIGSEGV) opening its own connection. */
Test(cron_contain, runs_record_their_end_themselves_once_their_scheduler_is_killed)
{
	char logbuf[256], pidbuf[256], gobuf[256], cmd[1024];
	const char *log = path_of(logbuf, "runs.log"), *pids = path_of(pidbuf, "guards"),
	    *go = path_of(gobuf, "go");
	pid_t cron;
	int guard;
	FILE *fp;

	/* the command's parent is its guard, whose parent is the run */
	snprintf(cmd, sizeof(cmd), "echo $PPID >> %s; echo start %%1$s >> %s; "
	    "while [ ! -e %s ]; do sleep 0.05; done", pids, log, go);
	cron = cron_at(scale_config(3, "  ttl: 60s\n  starting_deadline: 30s\n", cmd),
	    T_1200 - 2);
	POLL_UNTIL(lines_matching(log, "^start ") >= 3);
	cr_assert(eq(int, lines_matching(log, "^start "), 3), "%s", file_peek(log));
	fp = fopen(pids, "r");
	cr_assert(ne(ptr, fp, NULL));
	while (fscanf(fp, "%d", &guard) == 1) {
		pid_t run = parent_of(guard);

		cr_assert(gt(int, run, 0));
		cr_assert(not(holds(run, "anon_inode:[timerfd]")),
		    "run %d holds its scheduler's timer", (int)run);
	}
	fclose(fp);
	kill(cron, SIGKILL);
	lr_wait(cron);
	fclose(fopen(go, "w"));
	for (int i = 0; i < 3; i++) {
		char key[32];

		POLL_UNTIL(strcmp(last_event(i), "released") == 0);
		cr_assert(eq(str, (char *)last_event(i), "released"), "t%02d", i);
		snprintf(key, sizeof(key), "lockrun:{t%02d}", i);
		cr_assert(not(key_exists(key)), "%s still held", key);
	}
}

/* The Redis server's clock, in ms. */
static long long
server_ms(void)
{
	redisReply *r = rcmd("TIME");
	long long ms = atoll(r->element[0]->str) * 1000 + atoll(r->element[1]->str) / 1000;

	freeReplyObject(r);
	return ms;
}

/* The smallest PTTL of the n tasks' locks (-2 when one is gone). */
static long long
least_pttl(int n)
{
	long long least = -1;

	for (int i = 0; i < n; i++) {
		char key[32];
		long long t;

		snprintf(key, sizeof(key), "lockrun:{t%02d}", i);
		if ((t = key_pttl(key)) < 0)
			return -2;
		least = least < 0 || t < least ? t : least;
	}
	return least;
}

/* Ten runs in progress; Redis drops every client (CLIENT KILL TYPE
 * normal), the scheduler's connection among them: no lease is lost (a
 * Redis lock is a key, not a session), the scheduler connects again for
 * the next renewal, every lock outlives a TTL after the kill, and every
 * command still runs, once. */
Test(cron_contain, client_kill_of_the_schedulers_connection_loses_no_lease)
{
	char logbuf[256], pidbuf[256], cmd[2048];
	const char *log = path_of(logbuf, "runs.log"), *pids = path_of(pidbuf, "pids");
	long long killed;
	redisReply *r;
	pid_t cron;

	cron = cron_at(scale_config(10, "  ttl: 6s\n  starting_deadline: 30s\n",
	    held_cmd(cmd, sizeof(cmd), log, pids)), T_1200 - 2);
	POLL_UNTIL(lines_matching(log, "^start ") >= 10);
	cr_assert(eq(int, lines_matching(log, "^start "), 10), "%s", file_peek(log));
	cr_assert(gt(i64, least_pttl(10), 0), "every lock held");
	r = rcmd("CLIENT KILL TYPE normal");
	cr_assert(eq(int, r->type, REDIS_REPLY_INTEGER));
	cr_assert(ge(i64, r->integer, 1), "the scheduler's connection was there to kill");
	freeReplyObject(r);
	/* past a whole TTL by the server's clock: each lock lives on only if
	 * it was renewed over a new connection */
	killed = server_ms();
	POLL_UNTIL(server_ms() > killed + 7000);
	cr_assert(gt(i64, least_pttl(10), 0), "a lock lapsed after the kill");
	cr_assert(eq(int, alive_in(pids), 10), "the ten commands run on");
	kill(cron, SIGTERM);
	cr_assert(eq(int, lr_wait(cron), 0));
	cr_assert(eq(int, lines_matching(log, "^start "), 10), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
}

/* 20 runs in progress under one scheduler, which then gets sig (SIGKILL,
 * or SIGSTOP past the TTL): every run's tree is gone (the runs stop them
 * when their leases go unconfirmed, their guards should the runs stop too)
 * and every lock is free by the end of its lease,
 * then a second scheduler's runs of the next minute run all 20, and no
 * two copies of a task ever ran at once. */
static void
scheduler_gone(int sig)
{
	char logbuf[256], pidbuf[256], cmd[2048];
	const char *log = path_of(logbuf, "runs.log"), *pids = path_of(pidbuf, "pids");
	const char *cfg;
	pid_t a, b;

	cfg = scale_config(20, "  ttl: 6s\n  starting_deadline: 30s\n",
	    held_cmd(cmd, sizeof(cmd), log, pids));
	a = cron_at(cfg, T_1200 - 2);
	POLL_UNTIL(lines_matching(log, "^start ") >= 20);
	cr_assert(eq(int, lines_matching(log, "^start "), 20), "%s", file_peek(log));
	kill(a, sig);
	POLL_UNTIL(all_gone(pids));
	cr_assert(all_gone(pids), "a run's command outlived its scheduler's %s",
	    strsignal(sig));
	/* released, or expired with its lease; the next minute's runs then run */
	POLL_UNTIL(all_free(20));
	b = cron_at(cfg, T_1200 + 60 - 2);
	POLL_UNTIL(lines_matching(log, "^start ") >= 40);
	kill(b, SIGTERM);
	cr_assert(eq(int, lr_wait(b), 0));
	kill(a, SIGKILL);
	lr_wait(a);
	cr_assert(eq(int, lines_matching(log, "^start "), 40), "%s", file_peek(log));
	cr_assert(eq(int, lines_matching(log, "overlap"), 0), "%s", file_peek(log));
}

Test(cron_contain, sigkill_of_the_scheduler_stops_its_runs_and_the_next_ones_run)
{
	scheduler_gone(SIGKILL);
}

Test(cron_contain, sigstop_of_the_scheduler_past_the_ttl_stops_its_runs)
{
	scheduler_gone(SIGSTOP);
}

/* One run stopped (SIGSTOP of its lockrun, not of its scheduler): the
 * scheduler's batches, which the other task's run still asks for, do not
 * keep its lease alive: its guard stops its tree, and its lock ends with
 * its lease, while the other task's lock is still renewed. */
Test(cron_contain, a_stopped_run_keeps_no_lease_alive_through_its_scheduler)
{
	char logbuf[256], pidbuf[256], cmd[1024];
	const char *log = path_of(logbuf, "runs.log"), *pids = path_of(pidbuf, "guards");
	pid_t cron, guard = 0, job = 0, run;
	char name[8];
	int g, c;
	FILE *fp;

	/* the command's parent is its guard, whose parent is the run */
	snprintf(cmd, sizeof(cmd), "echo %%1$s $PPID $$ >> %s; echo start %%1$s >> %s; "
	    "exec sleep 120", pids, log);
	cron = cron_at(scale_config(2, "  ttl: 3s\n  starting_deadline: 30s\n", cmd),
	    T_1200 - 2);
	/* a scheduler slow to start (a loaded machine) plans from the next
	 * minute, a minute away: a bound of 100 s, not 30 (a guard only) */
	for (long long until = fixture_ms() + 100000;
	    lines_matching(log, "^start ") < 2 && fixture_ms() < until; )
		fixture_tick(5);
	cr_assert(eq(int, lines_matching(log, "^start "), 2), "%s", file_peek(log));
	fp = fopen(pids, "r");
	cr_assert(ne(ptr, fp, NULL));
	while (fscanf(fp, "%7s %d %d", name, &g, &c) == 3)
		if (strcmp(name, "t00") == 0) {
			guard = g;
			job = c;
		}
	fclose(fp);
	cr_assert(gt(int, job, 1), "%s", file_peek(pids));
	cr_assert(gt(int, (run = parent_of(guard)), 1));
	kill(run, SIGSTOP);
	/* its guard keeps the deadline the run last sent it */
	POLL_UNTIL(!alive(job));
	cr_assert(eq(int, alive(job), 0), "the stopped run's command outlived its lease");
	POLL_UNTIL(!key_exists("lockrun:{t00}"));
	cr_assert(eq(int, key_exists("lockrun:{t00}"), 0), "the stopped run's lock is "
	    "still held");
	cr_assert(eq(int, key_exists("lockrun:{t01}"), 1), "the other run's lock went too");
	kill(run, SIGCONT);
	kill(cron, SIGTERM);
	lr_wait(cron);
}

/* The reads Redis has made from its clients (INFO stats): one for each
 * exchange in which a client sent it commands, however many they were,
 * and one for each client that closed. */
static long
reads_now(void)
{
	char v[32];

	cr_assert(eq(int, redis_info_field(&fx, "stats", "total_reads_processed", v,
	    sizeof(v)), 0));
	return atol(v);
}

/* 30 tasks due at one fire time: their acquires reach Redis in a few
 * exchanges over the scheduler's connection, not one each (2 on an idle
 * machine, the second because this Redis does not know the script yet:
 * the first acquire sent again carries it, the others go behind it by
 * EVALSHA). Between the two looks at Redis's reads, the scheduler sends
 * only those acquires and its looks for triggers (one every 5 s; the
 * tasks are not one-server: no missed slot is recorded), and the test's
 * first look closes; the runs then sleep, their leases (5 min) not yet
 * renewed. (With one acquire at a time, 30 reads for them alone: 34 in
 * all.) How many acquires share an exchange depends on how many runs ask
 * within one turn of the loop: 2 to 12 reads here, 23 on a CI machine
 * running other builds beside it, so the bound is one at a time's, less
 * the others. Then SIGTERM to the scheduler, which passes it on to its runs:
 * each ends and releases its lock (not left to expire), and releases that
 * come in the same turn of the scheduler's loop go in one exchange: fewer
 * reads than releases (here 8 reads: batches of 18, 8 and 4; one release
 * at a time, 34). */
Test(cron_batch, the_acquires_of_a_fire_time_and_releases_together_go_in_few_exchanges)
{
	char logbuf[256], cmd[512];
	const char *log = path_of(logbuf, "runs.log");
	long before, acquires, releases;
	int started;
	pid_t cron;

	snprintf(cmd, sizeof(cmd), "echo %%1$s >> %s; exec sleep 30", log);
	before = reads_now();
	cron = cron_at(scale_config(30, "  one_server: false\n  ttl: 5m\n", cmd), T_1200 - 2);
	POLL_UNTIL(lines_matching(log, "^t[0-9]+$") >= 30);
	acquires = reads_now() - before;
	started = lines_matching(log, "^t[0-9]+$");
	before = reads_now();
	cron_stop(cron);	/* first: a failed assertion leaves no scheduler */
	releases = reads_now() - before;
	cr_assert(eq(int, started, 30), "%s", file_peek(log));
	cr_assert(lt(long, acquires, 30), "%ld reads for 30 acquires: one exchange "
	    "each\nthe scheduler said:\n%s", acquires,
	    lr_stderr_of(cron, (char[8192]){ 0 }, 8192));
	cr_assert(all_free(30), "a lock was not released");
	cr_assert(lt(long, releases, 30), "%ld reads for 30 releases", releases);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_bench.c -- what lockrun cron costs and how soon it starts tasks,
 * and what a tasks_dir of 10,000 files costs a run. The clock is faked
 * with libfaketime (an offset from the real one, so it keeps running)
 * to start a scheduler just before a fire time; the idle minute is real. */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "cron_bench.h"
#include "web_load.h"

#define NDIR	10000	/* files in the tasks_dir */
#define NRUNS	60	/* runs of each config */
#define NLAT	40	/* start-latency samples, one fire time each */
#define NBURST	1000	/* tasks due in the same minute */
#define IDLE_S	60	/* the idle minute, real */
#define NWEB	10	/* start-lag samples under HTTP load (web_load.h) */



static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static FILE *
create(const char *path)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	return fp;
}

/* Start argv with env added ("NAME=value", NULL-terminated, or NULL),
 * stdin and stdout on /dev/null, stderr to err (or /dev/null). */
static pid_t
start(char *const argv[], char *const env[], const char *err)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		int e = err ? open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600) : null;
		dup2(null, 0);
		dup2(null, 1);
		dup2(e, 2);
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

pid_t
cron_spawn(char *const argv[], char *const env[], const char *err)
{
	return start(argv, env, err);
}

int
cron_reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Wall µs of one run of argv. */
static double
timed(char *const argv[], int *status)
{
	double t0 = fixture_mono_s();

	*status = cron_reap(start(argv, NULL, NULL));
	return (fixture_mono_s() - t0) * 1e6;
}

/* --- tasks_dir -------------------------------------------------------- */

int
tasksdir_cost(const char *lockrun, const struct redis_fixture *fx)
{
	static double t[2][NRUNS];
	char one[256], big[256], dir[256], path[512];
	const char *cfg[2] = { one, big };
	int bad = 0;
	FILE *fp;

	snprintf(one, sizeof(one), "%s/one-task.yaml", fx->dir);
	snprintf(big, sizeof(big), "%s/tasks-dir.yaml", fx->dir);
	snprintf(dir, sizeof(dir), "%s/tasks.d", fx->dir);
	fp = create(one);
	fprintf(fp, "redis:\n  url: %s\ntasks:\n  job:\n    command: [true]\n", fx->url);
	fclose(fp);
	fp = create(big);
	fprintf(fp, "redis:\n  url: %s\ntasks_dir: tasks.d\n", fx->url);
	fclose(fp);
	mkdir(dir, 0700);
	for (int i = 0; i < NDIR - 1; i++) {
		snprintf(path, sizeof(path), "%s/task-%05d.yaml", dir, i);
		fp = create(path);
		fprintf(fp, "command: [/usr/local/bin/job-%d, --all]\none_server: true\n"
		    "schedule: \"*/5 * * * *\"\ntimeout: 50m\nenv:\n  JOB: \"%d\"\n", i, i);
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/job.yaml", dir);
	fp = create(path);
	fputs("command: [true]\n", fp);
	fclose(fp);
	for (int i = -5; i < NRUNS; i++)
		for (int s = 0; s < 2; s++) {
			char *cmd[] = { (char *)lockrun, "-c", (char *)cfg[s], "-t", "job", NULL };
			int st;
			double us = timed(cmd, &st);

			if (st != 0 && bad++ < 3)
				fprintf(stderr, "bench: a run from %s exited %d\n", cfg[s], st);
			if (i >= 0)
				t[s][i] = us;
		}
	qsort(t[0], NRUNS, sizeof(double), cmp_d);
	qsort(t[1], NRUNS, sizeof(double), cmp_d);
	printf("\ntasks_dir: a run of one task (-t job), %d runs each, interleaved:\n"
	    "  config of that one task           median %7.0f us\n"
	    "  tasks_dir of %d files           median %7.0f us  ratio %.2f "
	    "(acceptance: <= 1.2)\n", NRUNS, t[0][NRUNS / 2], NDIR, t[1][NRUNS / 2],
	    t[1][NRUNS / 2] / t[0][NRUNS / 2]);
	return bad;
}

/* --- check of a tasks_dir ---------------------------------------------- */

/* A tasks_dir of n files under fx->dir/check-N, its config beside it. */
static void
check_dir(const struct redis_fixture *fx, int n, char *cfg, size_t len)
{
	char dir[256], path[512];
	FILE *fp;

	snprintf(cfg, len, "%s/check-%d.yaml", fx->dir, n);
	snprintf(dir, sizeof(dir), "%s/check-%d.d", fx->dir, n);
	fp = create(cfg);
	fprintf(fp, "redis:\n  url: %s\ntasks_dir: check-%d.d\n", fx->url, n);
	fclose(fp);
	mkdir(dir, 0700);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/task-%06d.yaml", dir, i);
		fp = create(path);
		fprintf(fp, "command: [true, job-%d]\none_server: true\n"
		    "schedule: \"%s\"\ntimeout: 50m\nenv:\n  JOB: \"%d\"\n", i,
		    i % 10 == 0 ? "*/10 * * * * *" : "*/5 * * * *", i);
		fclose(fp);
	}
}

int
check_cost(const char *lockrun, const struct redis_fixture *fx)
{
	static const int sizes[] = { 1000, 10000, 100000 };
	double t[3];
	int bad = 0;

	printf("\ncheck of a tasks_dir (every task merged, its command found, its "
	    "next fire times):\n");
	for (int s = 0; s < 3; s++) {
		char cfg[256];
		char *cmd[] = { (char *)lockrun, "-c", cfg, "check", NULL };
		int st;

		check_dir(fx, sizes[s], cfg, sizeof(cfg));
		t[s] = timed(cmd, &st) / 1e6;
		if (st != 0 && bad++ < 3)
			fprintf(stderr, "bench: check of %d tasks exited %d\n", sizes[s], st);
		printf("  %6d tasks  %7.2f s  %6.1f us a task\n", sizes[s], t[s],
		    t[s] * 1e6 / sizes[s]);
	}
	printf("  ratio 100,000 / 1,000 tasks: %.0f (linear: 100)\n", t[2] / t[0]);
	return bad;
}

/* --- lockrun cron ----------------------------------------------------- */

/* LD_PRELOAD=libfaketime and FAKETIME, the offset that makes the clock
 * read `at` now (running on); into env[0..3], NULL after. 0, or -1 when
 * libfaketime is not installed. */
int
cron_fake_env(char *env[5], char buf[2][128], double at)
{
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/faketime/libfaketime.so.1",
	};
	const char *lib = NULL;

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !lib; i++)
		if (access(libs[i], R_OK) == 0)
			lib = libs[i];
	if (lib == NULL)
		return -1;
	snprintf(buf[0], 128, "LD_PRELOAD=%s", lib);
	snprintf(buf[1], 128, "FAKETIME=%+.3f", at - fixture_real_s());
	env[0] = buf[0];
	env[1] = buf[1];
	env[2] = "FAKETIME_DONT_FAKE_MONOTONIC=1";
	env[3] = "TZ=UTC";
	env[4] = NULL;
	return 0;
}

/* A config of n tasks cron-0000.. (not t0000..: the status bench holds
 * every tenth of those for ten minutes) on schedule, each running `date +%s.%N`
 * with its output appended to out (NULL: discard). */
static void
cron_config(const char *path, const char *url, int n, const char *schedule,
    const char *out)
{
	FILE *fp = create(path);

	fprintf(fp, "redis:\n  url: %s\ndefaults:\n  output: %s\ntasks:\n", url,
	    out ? out : "discard");
	for (int i = 0; i < n; i++)
		fprintf(fp, "  cron-%04d:\n    schedule: '%s'\n    command: [date, '+%%s.%%N']\n",
		    i, schedule);
	fclose(fp);
}

int
cron_read_times(const char *path, double *v, int n)
{
	FILE *fp = fopen(path, "r");
	int k = 0;

	while (fp && k < n && fscanf(fp, "%lf", &v[k]) == 1)
		k++;
	if (fp)
		fclose(fp);
	return k;
}

/* Wait (bounded by limit s) until path has want lines; how many it has. */
static int
wait_lines(const char *path, int want, double limit)
{
	static double v[NBURST];
	double until = fixture_mono_s() + limit;
	int k;

	while ((k = cron_read_times(path, v, NBURST)) < want && fixture_mono_s() < until)
		usleep(10000);
	return k;
}

/* Has the file path a line containing s? (a scheduler's -v log) */
static int
says(const char *path, const char *s)
{
	char line[1024];
	FILE *fp = fopen(path, "r");
	int found = 0;

	while (fp && !found && fgets(line, sizeof(line), fp))
		found = strstr(line, s) != NULL;
	if (fp)
		fclose(fp);
	return found;
}

/* Stop a scheduler: SIGTERM, and it waits for its runs. */
static int
stop(pid_t pid)
{
	kill(pid, SIGTERM);
	return cron_reap(pid);
}

/* utime + stime (ms) from /proc/PID/stat; the context switches from
 * /proc/PID/status; the resident set (KiB). */
struct usage {
	double	cpu_ms;
	long	vol, invol, rss_kib;
};

static void
usage_of(pid_t pid, struct usage *u)
{
	char path[64], buf[4096], *p;
	unsigned long ut = 0, st = 0;
	FILE *fp;

	memset(u, 0, sizeof(*u));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) != NULL) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
		buf[n] = '\0';
		fclose(fp);
		/* after "pid (comm) ": state is field 3, utime 14, stime 15 */
		if ((p = strrchr(buf, ')')) != NULL)
			sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			    &ut, &st);
	}
	u->cpu_ms = (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return;
	while (fgets(buf, sizeof(buf), fp)) {
		sscanf(buf, "voluntary_ctxt_switches: %ld", &u->vol);
		sscanf(buf, "nonvoluntary_ctxt_switches: %ld", &u->invol);
		sscanf(buf, "VmRSS: %ld", &u->rss_kib);
	}
	fclose(fp);
}

/* Start `lockrun cron -v -c cfg` (clock faked to at unless at is 0; with
 * --listen 127.0.0.1:0 if listen) and wait (10 s at most) until it says it
 * is ready. */
static pid_t
cron_start_listen(const char *lockrun, const char *cfg, const char *err, double at,
    int listen)
{
	char *argv[] = { (char *)lockrun, "cron", "-v", "-c", (char *)cfg,
	    listen ? "--listen" : NULL, "127.0.0.1:0", NULL };
	char *env[5], buf[2][128];
	double until = fixture_mono_s() + 10;
	pid_t pid;

	if (at != 0 && cron_fake_env(env, buf, at) != 0)
		return -1;
	pid = start(argv, at != 0 ? env : NULL, err);
	while (!says(err, "scheduled tasks in") && fixture_mono_s() < until)
		usleep(2000);
	return pid;
}

static pid_t
cron_start(const char *lockrun, const char *cfg, const char *err, double at)
{
	return cron_start_listen(lockrun, cfg, err, at, 0);
}

/* The fire times ahead, on a whole minute, none of them in the next
 * minute: the idle scheduler's schedule. */
static void
far_schedule(char *s, size_t n)
{
	time_t now = time(NULL);

	snprintf(s, n, "%d * * * *", (int)((now / 60 + 30) % 60));
}

/* The commands fx ran since the last call (INFO commandstats, then CONFIG
 * RESETSTAT; these two are the bench's, left out), those a script ran
 * counted too; -1 if it cannot tell. */
static long long
commands_sent(const struct redis_fixture *fx)
{
	redisContext *c = redisConnect("127.0.0.1", fx->port);
	redisReply *r;
	long long n = -1, calls;
	const char *p;

	if (c == NULL || c->err)
		goto out;
	if ((r = redisCommand(c, "INFO commandstats")) != NULL && r->type == REDIS_REPLY_STRING)
		for (n = 0, p = r->str; (p = strstr(p, "cmdstat_")) != NULL; p++)
			if (strncmp(p, "cmdstat_info:", 13) != 0 &&
			    strncmp(p, "cmdstat_config", 14) != 0 &&
			    sscanf(strchr(p, ':'), ":calls=%lld", &calls) == 1)
				n += calls;
	freeReplyObject(r);
	freeReplyObject(redisCommand(c, "CONFIG RESETSTAT"));
out:
	if (c)
		redisFree(c);
	return n;
}

/* How many looks for triggers fx has had (SMEMBERS calls), or -1. */
static long long
looks(const struct redis_fixture *fx)
{
	redisContext *c = redisConnect("127.0.0.1", fx->port);
	redisReply *r = c && !c->err ? redisCommand(c, "INFO commandstats") : NULL;
	long long n = -1;
	const char *p;

	if (r && r->type == REDIS_REPLY_STRING &&
	    (p = strstr(r->str, "cmdstat_smembers:")) != NULL)
		sscanf(p, "cmdstat_smembers:calls=%lld", &n);
	freeReplyObject(r);
	if (c)
		redisFree(c);
	return n;
}

/* /proc/loadavg's first three figures: how busy the machine was, for
 * reading the figures measured beside it. */
static const char *
loadavg(void)
{
	static char buf[64] = "?";
	FILE *fp = fopen("/proc/loadavg", "r");
	float a, b, c;

	if (fp && fscanf(fp, "%f %f %f", &a, &b, &c) == 3)
		snprintf(buf, sizeof(buf), "%.2f %.2f %.2f on %ld CPUs", a, b, c,
		    sysconf(_SC_NPROCESSORS_ONLN));
	if (fp)
		fclose(fp);
	return buf;
}

/* Start latency: one scheduler a sample, started 0.5 s before a fire
 * time of its own (a slot already run would be skipped). */
static int
latency(const char *lockrun, const struct redis_fixture *fx, double base)
{
	static double lat[NLAT];
	char cfg[256], out[256], err[256];
	int n = 0, bad = 0;

	snprintf(cfg, sizeof(cfg), "%s/lat.yaml", fx->dir);
	snprintf(out, sizeof(out), "%s/lat.out", fx->dir);
	snprintf(err, sizeof(err), "%s/lat.err", fx->dir);
	unlink(out);
	cron_config(cfg, fx->url, 1, "* * * * *", out);
	for (int i = 0; i < NLAT; i++) {
		double fire = base + 60.0 * i, v[NLAT];
		pid_t pid = cron_start(lockrun, cfg, err, fire - 0.5);

		if (pid < 0)
			return 1;
		if (wait_lines(out, n + 1, 5) < n + 1) {
			bad++;
			stop(pid);
			continue;
		}
		stop(pid);
		cron_read_times(out, v, NLAT);
		lat[n] = (v[n] - fire) * 1e3;
		n++;
	}
	qsort(lat, (size_t)n, sizeof(double), cmp_d);
	printf("  start latency after a fire time (fire time to the command's first "
	    "instruction, through lockrun -t and its lock), %d samples of one fire time "
	    "each (a faked clock started 0.5 s before it):\n"
	    "    median %.1f ms  p99 %.1f ms (with %d samples, the largest)  "
	    "max %.1f ms%s\n", n, n ? lat[n / 2] : 0, n ? lat[(n * 99) / 100 < n - 1 ?
	    (n * 99) / 100 : n - 1] : 0, n, n ? lat[n - 1] : 0,
	    bad ? "  (some samples missed: see stderr)" : "");
	return bad;
}

/* NBURST tasks due in the same minute: fire time to the last start. */
static int
burst(const char *lockrun, const struct redis_fixture *fx, double fire)
{
	static double v[NBURST];
	char cfg[256], out[256], err[256];
	double t0;
	pid_t pid;
	int k;

	snprintf(cfg, sizeof(cfg), "%s/burst.yaml", fx->dir);
	snprintf(out, sizeof(out), "%s/burst.out", fx->dir);
	snprintf(err, sizeof(err), "%s/burst.err", fx->dir);
	unlink(out);
	cron_config(cfg, fx->url, NBURST, "* * * * *", out);
	if ((pid = cron_start(lockrun, cfg, err, fire - 1.5)) < 0)
		return 1;
	t0 = fixture_mono_s();
	k = wait_lines(out, NBURST, 120);
	stop(pid);
	cron_read_times(out, v, NBURST);
	qsort(v, (size_t)k, sizeof(double), cmp_d);
	printf("  %d tasks due in the same minute: %d started; from the fire time, the "
	    "first after %.0f ms, half after %.0f ms, the last after %.0f ms "
	    "(waited %.1f s)\n", NBURST, k, k ? (v[0] - fire) * 1e3 : 0,
	    k ? (v[k / 2] - fire) * 1e3 : 0, k ? (v[k - 1] - fire) * 1e3 : 0,
	    fixture_mono_s() - t0);
	return k != NBURST;
}

/* The floor under burst(): the same NBURST commands started by a bare
 * fork and exec each, all at once, no lockrun, no lock: what starting
 * that many processes costs this machine. */
static void
burst_floor(const struct redis_fixture *fx)
{
	static double v[NBURST];
	static pid_t pids[NBURST];
	char out[256];
	double t0;
	int fd, k;

	snprintf(out, sizeof(out), "%s/floor.out", fx->dir);
	unlink(out);
	if ((fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0)
		return;
	t0 = fixture_real_s();
	for (int i = 0; i < NBURST; i++)
		if ((pids[i] = fork()) == 0) {
			dup2(fd, 1);
			execlp("date", "date", "+%s.%N", (char *)NULL);
			_exit(127);
		}
	for (int i = 0; i < NBURST; i++)	/* the fixture's server is a child too */
		if (pids[i] > 0)
			cron_reap(pids[i]);
	close(fd);
	k = cron_read_times(out, v, NBURST);
	qsort(v, (size_t)k, sizeof(double), cmp_d);
	printf("  the floor: the same %d commands forked and exec'd at once by a bare loop "
	    "(no lockrun): %d started, the last after %.0f ms\n", NBURST, k,
	    k ? (v[k - 1] - t0) * 1e3 : 0);
}

/* Start lag with cron --listen under load: as latency(), each sample's
 * scheduler started 1.5 s before its fire time, its clients connected
 * then. */
static int
web_load(const char *lockrun, const struct redis_fixture *fx, double base)
{
	static double lat[NWEB];
	char cfg[256], out[256], err[256];
	int n = 0, bad = 0;

	snprintf(cfg, sizeof(cfg), "%s/web.yaml", fx->dir);
	snprintf(out, sizeof(out), "%s/web.out", fx->dir);
	snprintf(err, sizeof(err), "%s/web.err", fx->dir);
	unlink(out);
	cron_config(cfg, fx->url, 1, "* * * * *", out);
	for (int i = 0; i < NWEB; i++) {
		double fire = base + 60.0 * i, v[NWEB];
		pid_t pid = cron_start_listen(lockrun, cfg, err, fire - 1.5, 1), load;
		int port = web_port(err);

		if (pid < 0 || port == 0) {
			bad++;
			if (pid > 0)
				stop(pid);
			continue;
		}
		load = web_clients(port);
		if (wait_lines(out, n + 1, 10) < n + 1)
			bad++;
		else {
			cron_read_times(out, v, NWEB);
			lat[n] = (v[n] - fire) * 1e3;
			n++;
		}
		kill(load, SIGKILL);
		cron_reap(load);
		stop(pid);
	}
	qsort(lat, (size_t)n, sizeof(double), cmp_d);
	printf("  start latency with --listen under load (%d clients that asked for / and "
	    "never read it, one that never finished its request, one asking /metrics in a "
	    "loop), %d samples:\n    median %.1f ms  max %.1f ms%s\n", WEB_CLIENTS, n,
	    n ? lat[n / 2] : 0, n ? lat[n - 1] : 0,
	    bad ? "  (some samples missed: see stderr)" : "");
	return bad;
}

int
cron_cost_all(const char *lockrun, const struct redis_fixture *fx)
{
	char cfg1[256], cfg1k[256], err1[256], err1k[256], sched[32];
	struct redis_fixture idle;	/* the 1,000-task scheduler's alone */
	struct usage one, a, b;
	long long sent;
	double t0, base;
	pid_t p1, p1k;
	int bad = 0;

	if (redis_start(&idle, NULL) != 0)
		return 1;

	snprintf(cfg1, sizeof(cfg1), "%s/idle-1.yaml", fx->dir);
	snprintf(cfg1k, sizeof(cfg1k), "%s/idle-1000.yaml", fx->dir);
	snprintf(err1, sizeof(err1), "%s/idle-1.err", fx->dir);
	snprintf(err1k, sizeof(err1k), "%s/idle-1000.err", fx->dir);
	far_schedule(sched, sizeof(sched));
	cron_config(cfg1, fx->url, 1, sched, NULL);
	cron_config(cfg1k, idle.url, NBURST, sched, NULL);
	p1 = cron_start(lockrun, cfg1, err1, 0);
	p1k = cron_start(lockrun, cfg1k, err1k, 0);
	/* from its second look on, what it costs idle: what it sends at
	 * start (a missed-slot check per task) is over by then */
	for (t0 = fixture_mono_s(); looks(&idle) < 2 && fixture_mono_s() - t0 < 30; )
		usleep(100000);
	commands_sent(&idle);
	usage_of(p1, &one);
	usage_of(p1k, &a);
	t0 = fixture_mono_s();
	printf("\ncron: lockrun cron, reported, not asserted (load average now: %s):\n",
	    loadavg());
	/* the faked-clock figures while the idle minute runs: other
	 * processes, which wake neither idle scheduler */
	base = (double)((time(NULL) / 86400 + 400) * 86400);	/* a day ahead */
	bad += latency(lockrun, fx, base);
	bad += burst(lockrun, fx, base + 3600);
	bad += web_load(lockrun, fx, base + 7200);
	burst_floor(fx);
	while (fixture_mono_s() - t0 < IDLE_S)
		usleep(100000);
	usage_of(p1k, &b);
	sent = commands_sent(&idle);
	printf("  RSS once ready: %ld KiB with 1 task, %ld KiB with %d tasks\n",
	    one.rss_kib, a.rss_kib, NBURST);
	printf("  idle over %.0f s of real time, %d tasks firing hourly (none in that "
	    "minute): %.0f ms of CPU, %ld wake-ups (voluntary context switches; %ld "
	    "involuntary)\n", fixture_mono_s() - t0, NBURST, b.cpu_ms - a.cpu_ms, b.vol - a.vol,
	    b.invol - a.invol);
	printf("  commands Redis ran for it over that minute (INFO commandstats of a "
	    "server of its own, scripts' commands too, less the bench's): %lld\n", sent);
	stop(p1);
	stop(p1k);
	redis_stop(&idle);
	return bad;
}

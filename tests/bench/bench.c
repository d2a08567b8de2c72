/* SPDX-License-Identifier: BSD-2-Clause */
/* bench.c -- what lockrun costs in front of a job: median wall time of
 * N runs of true, flock -n FILE true, lockrun (uncontended) and lockrun
 * (skip), interleaved, against a local redis-server; peak RSS of each.
 * Then `lockrun status` over a config of 1,000 tasks, a run from
 * configs of 1, 1,000 and 10,000 tasks, and a run and a skip over a
 * password-protected database 3 and over TLS; last, a run and a skip
 * (held by a running lockrun) against Redis, MariaDB and PostgreSQL.
 * cron_bench.c adds a tasks_dir of 10,000 files and lockrun cron,
 * rt_bench.c the round trips of a run and a skip (`bench LOCKRUN
 * round-trips` runs that section alone), fleet_bench.c lockrun cron at a
 * fleet's size (`bench LOCKRUN fleet` alone), seconds_bench.c tasks every
 * second (`bench LOCKRUN seconds` alone). */
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cron.h"
#include "core/err.h"
#include "cron_bench.h"
#include "../integ/redis_fixture.h"
#include "../integ/sql_fixture.h"

#define N	200
#define WARMUP	10
#define TASKS	1000	/* in the status bench's config */
#define NSTATUS	21	/* status runs of each format */
#define NCONN	100	/* runs of each kind per connection kind */

enum { B_TRUE, B_FLOCK, B_LOCKRUN, B_SKIP, NB };

static const char *names[NB] = {
	"true", "flock -n FILE true", "lockrun -k bench -- true", "lockrun (skip: held)",
};

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Run argv once with stdio on /dev/null; return wall µs, peak RSS in KiB. */
static double
run_once(char *const argv[], long *rss_kib, int *status)
{
	struct rusage ru;
	double t0 = now_us();
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) == -1 && errno == EINTR)
		;
	*rss_kib = ru.ru_maxrss;
	*status = exit_code(st);
	return now_us() - t0;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static const char *
which(const char *prog)
{
	static char buf[4][256];
	static int next;
	const char *dirs[] = { "/usr/bin", "/bin", "/usr/local/bin", NULL };
	char *b = buf[next++ % 4];

	for (int i = 0; dirs[i]; i++) {
		snprintf(b, 256, "%s/%s", dirs[i], prog);
		if (access(b, X_OK) == 0)
			return b;
	}
	fprintf(stderr, "bench: %s not found\n", prog);
	exit(1);
}

/* What renewal costs Redis for one running job: hold a lock with a 1.5s
 * TTL for 6s and count the EVALSHA calls beyond acquire and release. */
static int
renewal_cost(const char *lockrun, const char *url, redisContext *c)
{
	char *cmd[] = { (char *)lockrun, "--redis", (char *)url, "-k", "renewal",
	    "--ttl", "1500ms", "--", "sleep", "6", NULL };
	redisReply *r;
	long calls = 0, rss;
	int st;
	double us;

	freeReplyObject(redisCommand(c, "CONFIG RESETSTAT"));
	us = run_once(cmd, &rss, &st);
	r = redisCommand(c, "INFO commandstats");
	if (r && r->type == REDIS_REPLY_STRING) {
		const char *p = strstr(r->str, "cmdstat_evalsha:calls=");
		calls = p ? strtol(p + 22, NULL, 10) : 0;
	}
	freeReplyObject(r);
	printf("\nrenewal: a %.1fs job with --ttl 1.5s sent %ld renewals (%ld EVALSHA, "
	    "less acquire and release): %.2f renewals/s; expected 3/ttl = 2.00/s.\n"
	    "At the default ttl 30s that is 0.10 commands/s per running job.\n",
	    us / 1e6, calls - 2, calls, (calls - 2) / (us / 1e6));
	return st != 0;
}

/* A config of TASKS tasks, t0000..t0999, in dir; returns its path. */
static const char *
status_config(const struct redis_fixture *fx)
{
	static char path[256];
	FILE *fp;

	redis_path(fx, "status.yaml", path, sizeof(path));
	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	fprintf(fp, "redis:\n  url: %s\ntasks:\n", fx->url);
	for (int i = 0; i < TASKS; i++)
		fprintf(fp, "  t%04d:\n    command: [true]\n", i);
	fclose(fp);
	return path;
}

/* Give every other task what a task run many times leaves: a full history
 * (100 entries, the default cap: ran, released and skipped-held in turn)
 * and a last-run hash; and hold every tenth task's lock. Written directly,
 * pipelined. */
static void
status_keys(redisContext *c)
{
	const char *v = "0123456789abcdef0123456789abcdef 1795000000000000 web1 4242 "
	    "2026-11-20T10:00:00.000Z";
	long n = 0;
	redisReply *r;

	for (int i = 0; i < TASKS; i += 2) {
		for (int h = 0; h < 100; h++) {
			const char *ev = h % 3 == 0 ? "ran" : h % 3 == 1 ? "released" :
			    "skipped-held";
			redisAppendCommand(c, "XADD lockrun:{t%04d}:history MAXLEN 100 * "
			    "event %s host web%d pid %d token %d", i, ev, h % 4, 1000 + h, h);
			n++;
		}
		redisAppendCommand(c, "HSET lockrun:{t%04d}:last event released host web1 "
		    "pid 4242 token 1795000000000000 start_ms 1795000000000 end_ms "
		    "1795000001000 status 0 duration_ms 1000 success_ms 1795000001000", i);
		n++;
	}
	for (int i = 0; i < TASKS; i += 10, n++)
		redisAppendCommand(c, "SET lockrun:{t%04d} %s PX 600000", i, v);
	while (n-- > 0) {
		if (redisGetReply(c, (void **)&r) != REDIS_OK) {
			fprintf(stderr, "bench: redis: %s\n", c->errstr);
			exit(1);
		}
		freeReplyObject(r);
	}
}

/* Median wall time of `lockrun status` over TASKS tasks in each format. */
static int
status_cost(const char *lockrun, const struct redis_fixture *fx, redisContext *c)
{
	static const char *const fmts[] = { "text", "json", "prometheus" };
	static double t[3][NSTATUS];
	const char *cfg = status_config(fx);
	int bad = 0;

	status_keys(c);
	for (int i = 0; i < NSTATUS; i++) {
		for (int f = 0; f < 3; f++) {
			char *cmd[] = { (char *)lockrun, "status", "-c", (char *)cfg, "--format",
			    (char *)fmts[f], NULL };
			long rss;
			int st;

			t[f][i] = run_once(cmd, &rss, &st);
			if (st != 0 && bad++ < 3)
				fprintf(stderr, "bench: lockrun status --format %s exited %d\n",
				    fmts[f], st);
		}
	}
	printf("\nstatus: %d tasks in the config (every other one with a full history of "
	    "100 entries and a last run, every tenth held), %d runs each:\n", TASKS, NSTATUS);
	for (int f = 0; f < 3; f++) {
		qsort(t[f], NSTATUS, sizeof(double), cmp);
		printf("  lockrun status --format %-11s median %7.1f ms   (max %.1f ms)\n",
		    fmts[f], t[f][NSTATUS / 2] / 1e3, t[f][NSTATUS - 1] / 1e3);
	}
	return bad;
}

#define NCFG	60	/* runs of each config size */

/* A config of n tasks of the shape an operator writes, the task `job`
 * last; returns its path (static per size). */
static const char *
sized_config(const struct redis_fixture *fx, int n)
{
	static char paths[3][256];
	static int next;
	char *path = paths[next++ % 3], name[64];
	FILE *fp;

	snprintf(name, sizeof(name), "config-%d.yaml", n);
	redis_path(fx, name, path, sizeof(paths[0]));
	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	fprintf(fp, "redis:\n  url: %s\ndefaults:\n  ttl: 30s\ntasks:\n", fx->url);
	for (int i = 0; i < n - 1; i++)
		fprintf(fp, "  task-%05d:\n    command: [/usr/local/bin/job-%d, --all]\n"
		    "    one_server: true\n    schedule: \"*/5 * * * *\"\n    timeout: 50m\n"
		    "    env:\n      JOB: \"%d\"\n", i, i, i);
	fprintf(fp, "  job:\n    command: [true]\n");
	fclose(fp);
	return path;
}

/* A run of the same task from configs of 1, 1,000 and 10,000 tasks,
 * interleaved: median wall time and peak RSS of each. */
static int
config_cost(const char *lockrun, const struct redis_fixture *fx)
{
	static const int sizes[3] = { 1, 1000, 10000 };
	static double t[3][NCFG];
	long peak[3] = { 0 };
	const char *cfg[3];
	int bad = 0;

	for (int s = 0; s < 3; s++)
		cfg[s] = sized_config(fx, sizes[s]);
	for (int i = -WARMUP / 2; i < NCFG; i++) {
		for (int s = 0; s < 3; s++) {
			char *cmd[] = { (char *)lockrun, "-c", (char *)cfg[s], "-t", "job", NULL };
			long rss;
			int st;
			double us = run_once(cmd, &rss, &st);

			if (st != 0 && bad++ < 3)
				fprintf(stderr, "bench: a run from %d tasks exited %d\n", sizes[s], st);
			if (i < 0)
				continue;
			t[s][i] = us;
			if (rss > peak[s])
				peak[s] = rss;
		}
	}
	printf("\nconfig size: a run of one task from a config of n tasks, %d runs each, "
	    "interleaved:\n", NCFG);
	for (int s = 0; s < 3; s++) {
		qsort(t[s], NCFG, sizeof(double), cmp);
		printf("  %5d tasks  median %7.0f us  peak RSS %5ld KiB  ratio to 1 task %.2f\n",
		    sizes[s], t[s][NCFG / 2], peak[s], t[s][NCFG / 2] / t[0][NCFG / 2]);
	}
	return bad;
}

/* The calls=N of cmdstat_NAME in INFO commandstats, or 0. */
static long
calls_of(redisContext *c, const char *name)
{
	redisReply *r = redisCommand(c, "INFO commandstats");
	char field[64];
	const char *p;
	long n = 0;

	snprintf(field, sizeof(field), "cmdstat_%s:calls=", name);
	if (r && r->type == REDIS_REPLY_STRING && (p = strstr(r->str, field)) != NULL)
		n = strtol(p + strlen(field), NULL, 10);
	freeReplyObject(r);
	return n;
}

/* flock, a run and a skip through config cfg (task "job", and "held",
 * which is taken beforehand), interleaved: medians, the ratios to flock,
 * and the commands each run and skip sent, from the server's counts. */
static int
connection_cost(const char *lockrun, const char *what, const struct redis_fixture *fx,
    const char *cfg, const char *flock_file)
{
	static double t[3][NCONN];
	static const char *const cmd_names[] = { "auth", "select", "evalsha", "eval" };
	char *cmds[3][8] = {
		{ (char *)which("flock"), "-n", (char *)flock_file, (char *)which("true"), NULL },
		{ (char *)lockrun, "-c", (char *)cfg, "-t", "job", NULL },
		{ (char *)lockrun, "-c", (char *)cfg, "-t", "held", NULL },
	};
	const int want[3] = { 0, 0, 75 };
	redisContext *c = redis_client(fx);
	long calls[4];
	int bad = 0;

	if (getenv("BENCH_AUTH"))
		freeReplyObject(redisCommand(c, "AUTH %s", getenv("BENCH_AUTH")));
	freeReplyObject(redisCommand(c, "SELECT 3"));
	freeReplyObject(redisCommand(c, "SET lockrun:{held} %s",
	    "0123456789abcdef0123456789abcdef 1 elsewhere 1 2026-01-01T00:00:00.000Z"));
	for (int i = -WARMUP; i < NCONN; i++) {
		if (i == 0)
			freeReplyObject(redisCommand(c, "CONFIG RESETSTAT"));
		for (int b = 0; b < 3; b++) {
			long rss;
			int st;
			double us = run_once(cmds[b], &rss, &st);

			if (st != want[b] && bad++ < 3)
				fprintf(stderr, "bench: %s: %s exited %d\n", what, cmds[b][0], st);
			if (i >= 0)
				t[b][i] = us;
		}
	}
	for (int k = 0; k < 4; k++)
		calls[k] = calls_of(c, cmd_names[k]);
	for (int b = 0; b < 3; b++)
		qsort(t[b], NCONN, sizeof(double), cmp);
	printf("  %-22s flock %6.0f us  run %6.0f us (%.2f)  skip %6.0f us (%.2f)  "
	    "per run+skip: AUTH %.2f SELECT %.2f EVALSHA %.2f EVAL %.2f\n", what,
	    t[0][NCONN / 2], t[1][NCONN / 2], t[1][NCONN / 2] / t[0][NCONN / 2],
	    t[2][NCONN / 2], t[2][NCONN / 2] / t[0][NCONN / 2], (double)calls[0] / NCONN,
	    (double)calls[1] / NCONN, (double)calls[2] / NCONN, (double)calls[3] / NCONN);
	redisFree(c);
	return bad;
}

/* A config for url with task job and task held, redis.tls as tls_body. */
static const char *
conn_config(const char *dir, const char *name, const char *url, const char *tls_body)
{
	static char path[3][256];
	static int k;
	char *p = path[k++ % 3];
	FILE *fp;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	if ((fp = fopen(p, "w")) == NULL)
		return p;
	fprintf(fp, "redis:\n  url: %s\n%s"
	    "tasks:\n  job:\n    command: [true]\n  held:\n    command: [true]\n"
	    "    conflict_exit: 75\n", url, tls_body);
	fclose(fp);
	/* a password in url: is refused in a config others may read (78) */
	(void)chmod(p, 0600);
	return p;
}

/* The same run and skip over a plain connection to database 0, over a
 * password-protected database 3, and over TLS (certificates made here). */
static int
connections_cost(const char *lockrun)
{
	static const char *const pw[] = { "--requirepass", "s3cret", NULL };
	struct redis_fixture plain, auth, tls;
	char url[300], body[600], certs[128], flock_file[160];
	int bad = 0;

	if (redis_start(&plain, NULL) != 0 || redis_start(&auth, pw) != 0)
		return 1;
	snprintf(certs, sizeof(certs), "%s/certs", plain.dir);
	snprintf(flock_file, sizeof(flock_file), "%s/flock", plain.dir);
	if (mkdir(certs, 0700) != 0 || tls_make_certs(certs) != 0 ||
	    redis_start_tls(&tls, certs, 0, NULL) != 0)
		return 1;
	printf("\nconnections: flock, a run and a skip (from a config), %d runs each, "
	    "interleaved; (ratio to flock):\n", NCONN);
	snprintf(url, sizeof(url), "%s/3", plain.url);
	bad += connection_cost(lockrun, "plain, db 3", &plain,
	    conn_config(plain.dir, "plain.yaml", url, ""), flock_file);
	snprintf(url, sizeof(url), "redis://:s3cret@127.0.0.1:%d/3", auth.port);
	setenv("BENCH_AUTH", "s3cret", 1);
	bad += connection_cost(lockrun, "password, db 3", &auth,
	    conn_config(plain.dir, "auth.yaml", url, ""), flock_file);
	unsetenv("BENCH_AUTH");
	snprintf(url, sizeof(url), "rediss://127.0.0.1:%d/3", tls.port);
	snprintf(body, sizeof(body), "  tls:\n    ca_file: %s/ca.crt\n", certs);
	bad += connection_cost(lockrun, "TLS, db 3", &tls,
	    conn_config(plain.dir, "tls.yaml", url, body), flock_file);
	redis_stop(&tls);
	redis_stop(&auth);
	redis_stop(&plain);
	return bad;
}

/* The backends section: one backend, where its lock lives and the lockrun
 * that holds bench-held there while the skips run. */
struct held_be {
	const char *name;
	const char *url;
	const char *password;	/* in LOCKRUN_REDIS_PASSWORD for its runs, or NULL */
	const struct sql_server *sql;	/* NULL: Redis */
	pid_t	holder;
	int	release;	/* the holder's stdin: its command ends at EOF */
	long long count0;	/* the server's count at the loop's start */
	long	k;		/* what one sql_admin() call adds to the count;
				 * -1: no count */
};

/* The password of be's runs, as a cron job would have it; the Redis rows
 * have none, and a Redis without requirepass refuses AUTH. */
static void
use_password(const struct held_be *be)
{
	if (be->password)
		setenv("LOCKRUN_REDIS_PASSWORD", be->password, 1);
	else
		unsetenv("LOCKRUN_REDIS_PASSWORD");
}

/* Start `lockrun --url URL -k bench-held -- sh -c 'echo held; cat'`, its
 * stdin and stdout on pipes, and wait (30 s at most) for the line: the
 * command runs only under the lock, so the lock is then held. --ttl 1h:
 * no renewal during the bench, so it adds nothing to the counts. */
static int
hold(const char *lockrun, struct held_be *be)
{
	char *cmd[] = { (char *)lockrun, "--url", (char *)be->url, "-k", "bench-held",
	    "--ttl", "1h", "--", "sh", "-c", "echo held; exec cat >/dev/null", NULL };
	char line[16];
	size_t len = 0;
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
		perror("bench: pipe");
		return -1;
	}
	use_password(be);
	if ((be->holder = fork()) == -1) {
		perror("bench: fork");
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	}
	if (be->holder == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execv(cmd[0], cmd);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	be->release = in[1];
	while (len < sizeof(line) - 1 && (len == 0 || line[len - 1] != '\n')) {
		struct pollfd p = { .fd = out[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 30000) != 1 ||
		    (n = read(out[0], line + len, sizeof(line) - 1 - len)) <= 0)
			break;
		len += (size_t)n;
	}
	line[len] = '\0';
	close(out[0]);
	if (strcmp(line, "held\n") != 0) {
		fprintf(stderr, "bench: %s: the holder of bench-held did not start\n",
		    be->name);
		return -1;
	}
	return 0;
}

/* Let the holder's command end and reap it (10 s at most, then SIGTERM).
 * Returns 0 if it exited 0. */
static int
unhold(struct held_be *be)
{
	struct pollfd p = { .fd = pidfd_open(be->holder, 0), .events = POLLIN };
	int st;

	close(be->release);
	if (p.fd < 0 || poll(&p, 1, 10000) != 1) {
		fprintf(stderr, "bench: %s: the holder did not end\n", be->name);
		kill(be->holder, SIGTERM);
	}
	if (p.fd >= 0)
		close(p.fd);
	while (waitpid(be->holder, &st, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench: %s: the holder exited %d\n", be->name,
		    exit_code(st));
		return 1;
	}
	return 0;
}

/*
 * The statements the server has run for user lockrun. PostgreSQL:
 * pg_stat_statements (sum of calls), counted as each statement ends, so
 * complete once lockrun has its answer; pg_stat_database is not: a
 * session's counts reach it up to 10 s later, and autovacuum's
 * transactions are in them. MariaDB: Questions, every statement of a
 * multi-statement string, of every user; read once no session is left but
 * the holder's and this one, so that every ended session's count is in.
 * *calls counts the sql_admin() calls; each adds the same to Questions
 * (its own statements), which the caller measures and subtracts.
 * Returns 0, or -1 if it could not read or never settled.
 */
static int
sql_count(const struct sql_server *s, long long *v, int *calls)
{
	char out[128];
	long others;

	if (s->kind == SQL_PG) {
		++*calls;
		return sql_admin(s, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
		    "WHERE userid = 'lockrun'::regrole", out, sizeof(out)) == 0 &&
		    sscanf(out, "%lld", v) == 1 ? 0 : -1;
	}
	for (int i = 0; i < 100; i++) {
		++*calls;
		if (sql_admin(s, "SELECT (SELECT count(*) FROM information_schema.processlist "
		    "WHERE user IN ('lockrun', 'root') AND id <> connection_id()), "
		    "(SELECT variable_value FROM information_schema.global_status "
		    "WHERE variable_name = 'QUESTIONS')", out, sizeof(out)) != 0 ||
		    sscanf(out, "%ld %lld", &others, v) != 2)
			return -1;
		if (others == 1)	/* the holder */
			return 0;
	}
	return -1;
}

/* Load pg_stat_statements into s (a restart). Returns 0, -1 if it is not
 * there (no count then), or -2 if the server did not come back. */
static int
pg_stmts(struct sql_server *s)
{
	if (sql_admin(s, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'",
	    NULL, 0) != 0)
		return -1;
	if (sql_restart(s) != 0)
		return -2;
	return sql_admin(s, "CREATE EXTENSION pg_stat_statements", NULL, 0) == 0 ? 0 : -1;
}

/* What one sql_count() adds to the count, from two in a row; -1 if it
 * cannot count. */
static long
count_cost(const struct sql_server *s)
{
	long long v0, v1;
	int n0 = 0, n = 0;

	if (sql_count(s, &v0, &n0) != 0 || sql_count(s, &v1, &n) != 0 || (v1 - v0) % n != 0)
		return -1;
	return (long)((v1 - v0) / n);
}

#define NHELD	3

/* flock, a run and a skip against Redis, MariaDB and PostgreSQL, all in
 * one interleaved loop so that the ratios compare; each backend's
 * bench-held is held by a running lockrun. Medians, ratios to flock, peak
 * RSS, and what a run and a skip cost the server. */
static int
held_cost(const char *lockrun)
{
	static const int order[6][NHELD] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	static double t[NHELD][3][N];
	static struct sql_server my, pg;
	struct redis_fixture rfx;
	struct held_be be[NHELD] = {
		{ .name = "redis" },
		{ .name = "mariadb", .sql = &my, .password = SQL_PASSWORD },
		{ .name = "postgres", .sql = &pg, .password = SQL_PASSWORD },
	};
	long peak[NHELD][3] = { { 0 } };
	char flock_file[160];
	redisContext *c = NULL;
	int bad = 0, stmts = 0, calls[NHELD] = { 0 };

	if (redis_start(&rfx, NULL) != 0)
		return 1;
	if (sql_start(&my, SQL_MYSQL) != 0 || sql_start(&pg, SQL_PG) != 0 ||
	    (stmts = pg_stmts(&pg)) == -2) {
		bad = 1;
		goto out;
	}
	snprintf(flock_file, sizeof(flock_file), "%s/flock", rfx.dir);
	be[0].url = rfx.url;
	be[1].url = my.url;
	be[2].url = pg.url;
	c = redis_client(&rfx);
	for (int k = 0; k < NHELD; k++) {
		char *prime[] = { (char *)lockrun, "--url", (char *)be[k].url, "-k", "bench",
		    "--", "true", NULL };
		long rss;
		int st;

		/* the first run creates the tables: not the holder's work */
		use_password(&be[k]);
		run_once(prime, &rss, &st);
		if (st != 0) {
			fprintf(stderr, "bench: %s: the first run exited %d\n", be[k].name, st);
			bad = 1;
			goto out;
		}
		if (hold(lockrun, &be[k]) != 0) {
			bad = 1;
			goto out;
		}
		if (be[k].sql)
			be[k].k = be[k].sql == &pg && stmts != 0 ? -1 : count_cost(be[k].sql);
	}
	for (int i = -WARMUP; i < N; i++) {
		if (i == 0) {
			freeReplyObject(redisCommand(c, "CONFIG RESETSTAT"));
			for (int k = 1; k < NHELD; k++)
				if (be[k].k >= 0 && sql_count(be[k].sql, &be[k].count0,
				    &calls[k]) != 0)
					be[k].k = -1;
			memset(calls, 0, sizeof(calls));	/* those after count0 */
		}
		/* every order in turn: a server still busy ending the last
		 * session slows what comes next, so each row is to come after
		 * each other row alike */
		for (int j = 0; j < NHELD; j++) {
			int k = order[(i + WARMUP) % 6][j];
			char *cmds[3][12] = {
				{ (char *)which("flock"), "-n", flock_file, (char *)which("true"),
				    NULL },
				{ (char *)lockrun, "--url", (char *)be[k].url, "-k", "bench", "--",
				    "true", NULL },
				{ (char *)lockrun, "--url", (char *)be[k].url, "-k", "bench-held",
				    "-E", "75", "--", "true", NULL },
			};
			const int want[3] = { 0, 0, 75 };

			use_password(&be[k]);
			for (int b = 0; b < 3; b++) {
				long rss;
				int st;
				double us = run_once(cmds[b], &rss, &st);

				if (st != want[b] && bad++ < 5)
					fprintf(stderr, "bench: %s: %s exited %d\n", be[k].name,
					    b == 0 ? "flock" : b == 1 ? "a run" : "a skip", st);
				if (i < 0)
					continue;
				t[k][b][i] = us;
				if (rss > peak[k][b])
					peak[k][b] = rss;
			}
		}
	}
	unsetenv("LOCKRUN_REDIS_PASSWORD");
	printf("\nbackends: flock, a run and a skip (bench-held held by a running lockrun) "
	    "with --url, %d runs each, all interleaved; (ratio to flock), peak RSS of a run "
	    "/ a skip, what a run and a skip cost the server:\n", N);
	for (int k = 0; k < NHELD; k++) {
		char cost[80] = "";
		long long v;

		if (k == 0)
			snprintf(cost, sizeof(cost), "EVALSHA %.2f", (double)calls_of(c, "evalsha") / N);
		else if (be[k].k >= 0 && sql_count(be[k].sql, &v, &calls[k]) == 0)
			snprintf(cost, sizeof(cost), "statements %.2f (%s)",
			    (double)(v - be[k].count0 - be[k].k * calls[k]) / N,
			    k == 1 ? "Questions" : "pg_stat_statements");
		for (int b = 0; b < 3; b++)
			qsort(t[k][b], N, sizeof(double), cmp);
		printf("  %-9s flock %6.0f us  run %6.0f us (%.2f)  skip %6.0f us (%.2f)  "
		    "peak RSS %5ld / %5ld KiB  per run+skip: %s\n", be[k].name,
		    t[k][0][N / 2], t[k][1][N / 2], t[k][1][N / 2] / t[k][0][N / 2],
		    t[k][2][N / 2], t[k][2][N / 2] / t[k][0][N / 2], peak[k][1], peak[k][2],
		    cost[0] ? cost : "-");
	}
out:
	unsetenv("LOCKRUN_REDIS_PASSWORD");
	for (int k = 0; k < NHELD; k++)
		if (be[k].holder > 0)
			bad += unhold(&be[k]);
	if (c)
		redisFree(c);
	sql_stop(&pg);
	sql_stop(&my);
	redis_stop(&rfx);
	return bad;
}

/* What a cron search costs: 1000 searches for "0 0 29 2 *" in New York,
 * each crossing up to two years to the next leap day, on the CPU clock. */
static int
cron_cost(void)
{
	struct lr_cron c;
	struct lr_err e = { 0 };
	int pos = -1;
	clock_t start;
	long long t = 0;

	if (cron_parse("0 0 29 2 *", &c, &pos, &e) != 0 ||
	    cron_set_tz(&c, "America/New_York", &e) != 0) {
		fprintf(stderr, "bench: cron: %s\n", e.msg);
		return 1;
	}
	start = clock();
	for (int i = 0; i < 1000; i++)
		t += (long long)cron_next(&c, (time_t)(1767225600 + i * 3600));
	printf("\ncron: 1000 searches for the next Feb 29 (up to two years each): %.1f ms "
	    "of CPU, %.1f us a search%s\n", (double)(clock() - start) * 1000 / CLOCKS_PER_SEC,
	    (double)(clock() - start) * 1e6 / CLOCKS_PER_SEC / 1000, t ? "" : " (none found)");
	return 0;
}

/* How many entries the uncontended runs left in their history. */
static void
history_note(redisContext *c)
{
	redisReply *r = redisCommand(c, "XLEN lockrun:{bench}:history");

	printf("history: on (the default, 100 entries a task); the uncontended runs' "
	    "history holds %lld entries\n", r && r->type == REDIS_REPLY_INTEGER ?
	    r->integer : -1LL);
	freeReplyObject(r);
}

int
main(int argc, char *argv[])
{
	struct redis_fixture fx;
	static double t[NB][N];
	long peak[NB] = { 0 };
	char lockfile[128], url[200];
	redisContext *c;
	redisReply *r;
	int bad = 0;

	if (argc != 2 && !(argc == 3 && (strcmp(argv[2], "round-trips") == 0 ||
	    strcmp(argv[2], "fleet") == 0 || strcmp(argv[2], "seconds") == 0 ||
	    strcmp(argv[2], "check") == 0 || strcmp(argv[2], "loop") == 0 ||
	    strcmp(argv[2], "cron") == 0 || strcmp(argv[2], "capture") == 0 ||
	    strcmp(argv[2], "inflight") == 0))) {
		fprintf(stderr, "usage: bench /path/to/lockrun [round-trips | fleet | seconds "
		    "| check | loop | cron | capture | inflight]\n");
		return 64;
	}
	if (argc == 3 && strcmp(argv[2], "fleet") == 0)	/* that section alone */
		return fleet_cost(argv[1]) ? 1 : 0;
	if (argc == 3 && strcmp(argv[2], "inflight") == 0)
		return inflight_cost(argv[1]) ? 1 : 0;
	if (redis_start(&fx, NULL) != 0)
		return 1;
	if (argc == 3) {	/* that section alone */
		bad = strcmp(argv[2], "seconds") == 0 ? seconds_cost(argv[1], &fx) :
		    strcmp(argv[2], "check") == 0 ? check_cost(argv[1], &fx) :
		    strcmp(argv[2], "loop") == 0 ? loop_cost(argv[1], &fx) :
		    strcmp(argv[2], "cron") == 0 ? cron_cost_all(argv[1], &fx) :
		    strcmp(argv[2], "capture") == 0 ? capture_cost(argv[1], &fx) :
		    round_trip_cost(argv[1], &fx);
		redis_stop(&fx);
		return bad ? 1 : 0;
	}
	snprintf(lockfile, sizeof(lockfile), "%s/flock", fx.dir);
	snprintf(url, sizeof(url), "%s", fx.url);
	char *cmds[NB][12] = {
		{ (char *)which("true"), NULL },
		{ (char *)which("flock"), "-n", lockfile, (char *)which("true"), NULL },
		{ argv[1], "--redis", url, "-k", "bench", "--", "true", NULL },
		{ argv[1], "--redis", url, "-k", "bench-held", "-E", "75", "--", "true", NULL },
	};
	const int want[NB] = { 0, 0, 0, 75 };

	c = redis_client(&fx);
	freeReplyObject(redisCommand(c, "SET lockrun:{bench-held} %s",
	    "0123456789abcdef0123456789abcdef 1 elsewhere 1 2026-01-01T00:00:00.000Z"));

	for (int i = -WARMUP; i < N; i++) {
		if (i == 0)
			freeReplyObject(redisCommand(c, "CONFIG RESETSTAT"));
		for (int b = 0; b < NB; b++) {	/* interleaved: drift hits all alike */
			long rss;
			int st;
			double us = run_once(cmds[b], &rss, &st);
			if (st != want[b] && bad++ < 5)
				fprintf(stderr, "bench: %s exited %d\n", names[b], st);
			if (i < 0)
				continue;
			t[b][i] = us;
			if (rss > peak[b])
				peak[b] = rss;
		}
	}
	r = redisCommand(c, "INFO commandstats");
	printf("lockrun bench: N=%d runs each, interleaved, redis-server on 127.0.0.1 "
	    "(loopback TCP)\n\n", N);
	printf("%-28s %12s %12s %14s\n", "command", "median (us)", "p90 (us)", "peak RSS (KiB)");
	for (int b = 0; b < NB; b++) {
		qsort(t[b], N, sizeof(double), cmp);
		printf("%-28s %12.0f %12.0f %14ld\n", names[b], t[b][N / 2], t[b][N * 9 / 10],
		    peak[b]);
	}
	printf("\nratio lockrun / flock (median): %.2f\n", t[B_LOCKRUN][N / 2] / t[B_FLOCK][N / 2]);
	printf("ratio skip / flock (median):    %.2f\n", t[B_SKIP][N / 2] / t[B_FLOCK][N / 2]);
	if (r && r->type == REDIS_REPLY_STRING) {
		const char *p = strstr(r->str, "cmdstat_evalsha:calls=");
		long calls = p ? strtol(p + 22, NULL, 10) : 0;
		printf("EVALSHA calls per (run + skip) pair: %.2f (expected 3: 2 + 1)\n",
		    (double)calls / N);
	}
	freeReplyObject(r);
	history_note(c);
	bad += round_trip_cost(argv[1], &fx);
	bad += capture_cost(argv[1], &fx);
	bad += renewal_cost(argv[1], url, c);
	bad += status_cost(argv[1], &fx, c);
	bad += config_cost(argv[1], &fx);
	bad += tasksdir_cost(argv[1], &fx);
	bad += check_cost(argv[1], &fx);
	bad += cron_cost_all(argv[1], &fx);
	bad += seconds_cost(argv[1], &fx);
	bad += connections_cost(argv[1]);
	bad += held_cost(argv[1]);
	bad += cron_cost();
	bad += loop_cost(argv[1], &fx);
	bad += fleet_cost(argv[1]);
	redisFree(c);
	redis_stop(&fx);
	return bad ? 1 : 0;
}

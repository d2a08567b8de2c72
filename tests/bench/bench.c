/* bench.c -- what lockrun costs in front of a job: median wall time of
 * N runs of true, flock -n FILE true, lockrun (uncontended) and lockrun
 * (skip), interleaved, against a local redis-server; peak RSS of each. */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../integ/redis_fixture.h"

#define N	200
#define WARMUP	10

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
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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

	if (argc != 2) {
		fprintf(stderr, "usage: bench /path/to/lockrun\n");
		return 64;
	}
	if (redis_start(&fx, NULL) != 0)
		return 1;
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
	bad += renewal_cost(argv[1], url, c);
	redisFree(c);
	redis_stop(&fx);
	return bad ? 1 : 0;
}

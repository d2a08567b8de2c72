/* SPDX-License-Identifier: BSD-2-Clause */
/* sentinel_test.c -- redis+sentinel:// against a real master, one replica
 * and three sentinels (fx is the first master): the lock is taken on the
 * master the sentinels name; across a planned failover the holder moves to
 * the new master at its next renewal and goes on, and across a crashed
 * master no second run is admitted while the first still runs; sentinels
 * that do not answer, or do not know the master, are 69 with one line.
 * Overlap is proven by the commands themselves: each takes flock -n on one
 * file and notes "overlap" when it cannot. */
#include <sys/wait.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/new/assert.h>

#include "harness.h"

#define MASTER	"lrm"

static struct redis_fixture rep;	/* the replica: master after a failover */
static struct sentinel_group sg;
static char url[256];

/* Each test starts its servers itself (see fixture_test.c): the failover
 * tests change who is master, and .fini runs only after an .init that
 * passed. */
static void
start_group(void)
{
	unsetenv("LOCKRUN_CONFIG");
	unsetenv("LOCKRUN_REDIS_URL");
	unsetenv("LOCKRUN_REDIS_PASSWORD");
	unsetenv("LOCKRUN_SENTINEL_PASSWORD");
	cr_assert(eq(int, redis_start(&fx, NULL), 0));
	cr_assert(eq(int, redis_start_replica(&rep, &fx, NULL), 0));
	cr_assert(eq(int, sentinel_start(&sg, MASTER, &fx, 2), 0));
	sentinel_url(&sg, MASTER, url, sizeof(url));
}

static void
stop_group(void)
{
	sentinel_stop(&sg);
	redis_stop(&rep);
	redis_stop(&fx);
}

TestSuite(sentinel, .fini = stop_group, .timeout = 120);

/* GET key on f (its unix socket), into buf ("" when there is none). */
static const char *
value_on(const struct redis_fixture *f, const char *key, char *buf, size_t n)
{
	redisContext *c = redis_client(f);
	redisReply *r = redisCommand(c, "GET %s", key);

	snprintf(buf, n, "%s", r && r->type == REDIS_REPLY_STRING ? r->str : "");
	freeReplyObject(r);
	redisFree(c);
	return buf;
}

/* The job's script: hold flock on excl (noting "overlap" in marks when
 * another holds it), note "job", then wait at the gate g. */
static const char *
job_script(struct gate *g)
{
	char before[512];

	snprintf(before, sizeof(before), "exec 9>%s; flock -n 9 || echo overlap >> %s; "
	    "echo job >> %s; ", scratch("excl"), scratch("marks"), scratch("marks"));
	return gate_sh_around(g, before, "");
}

/* A second run of the same lock: if it ever runs its command while the
 * job does, marks says "overlap". Returns its exit status. */
static int
probe(const char *key)
{
	char script[512];
	struct result r;

	snprintf(script, sizeof(script), "exec 9>%s; flock -n 9 || echo overlap >> %s; "
	    "echo probe >> %s", scratch("excl"), scratch("marks"), scratch("marks"));
	LR(&r, "--redis", url, "-k", key, "-E", "75", "--", "sh", "-c", script);
	return r.status;
}

/* How many lines of marks are word. */
static int
marks(const char *word)
{
	char line[64];
	FILE *fp = fopen(scratch("marks"), "r");
	int n = 0;

	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp))
		n += strncmp(line, word, strlen(word)) == 0 && line[strlen(word)] == '\n';
	fclose(fp);
	return n;
}

/* SENTINEL FAILOVER on sentinel i. */
static void
force_failover(int i)
{
	redisContext *c = redisConnect("127.0.0.1", sg.node[i].port);
	redisReply *r;

	cr_assert(c && !c->err);
	r = redisCommand(c, "SENTINEL FAILOVER %s", MASTER);
	cr_assert(r && r->type == REDIS_REPLY_STATUS, "%s", r ? r->str : c->errstr);
	freeReplyObject(r);
	redisFree(c);
}

/* MONITOR on f. */
static redisContext *
monitor_on(const struct redis_fixture *f)
{
	redisContext *c = redis_client(f);
	redisReply *r = redisCommand(c, "MONITOR");

	cr_assert(r && r->type == REDIS_REPLY_STATUS, "MONITOR refused");
	freeReplyObject(r);
	return c;
}

/* Has a renewal of lockrun:{key} reached mon's server since the last
 * call? Reads what has arrived, without waiting. A renewal is an EVALSHA
 * of renew.lua: five keys, the stable key then the fence. A release has
 * five too, the stable key then the history, and is no renewal: a probe
 * that withdraws an acquire that went unanswered in the failover sends
 * one, and taking it for the holder's renewal made the test expect a
 * skip from a lock the holder had not moved. */
static int
renewal_seen(redisContext *mon, const char *key)
{
	char want[128];
	int seen = 0;

	snprintf(want, sizeof(want), "\" \"5\" \"lockrun:{%s}\" \"lockrun:{%s}:fence\" ", key,
	    key);
	for (;;) {
		struct pollfd pfd = { .fd = mon->fd, .events = POLLIN };
		redisReply *line = NULL;

		cr_assert(redisGetReplyFromReader(mon, (void **)&line) == REDIS_OK);
		if (line == NULL) {
			if (poll(&pfd, 1, 0) <= 0)
				return seen;
			cr_assert(redisBufferRead(mon) == REDIS_OK, "monitor lost: %s",
			    mon->errstr);
			continue;
		}
		if (line->type == REDIS_REPLY_STATUS && strstr(line->str, "\"EVALSHA\"") &&
		    strstr(line->str, want) && strstr(line->str, " lua]") == NULL)
			seen = 1;
		freeReplyObject(line);
	}
}

Test(sentinel, a_run_takes_the_lock_on_the_master)
{
	char v[512], pid[32];
	struct gate g;
	pid_t job;

	start_group();
	gate_open(&g, "");
	job = LR_START("--redis", url, "-k", "s1", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);			/* the command ran */
	snprintf(pid, sizeof(pid), " %d ", (int)job);
	cr_assert(strstr(value_on(&fx, "lockrun:{s1}", v, sizeof(v)), pid) != NULL,
	    "the master holds the job's key: \"%s\"", v);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(job), 0), "%s", lr_stderr_of(job, v, sizeof(v)));
	cr_assert(eq(str, (char *)value_on(&fx, "lockrun:{s1}", v, sizeof(v)), ""),
	    "released on the master");
}

/* Sentinels that refuse connections: 69, one line naming each and why,
 * and the command does not run. */
Test(sentinel, unreachable_sentinels_are_69_with_one_line)
{
	struct result r;

	cr_assert(eq(int, redis_start(&fx, NULL), 0));	/* for the scratch dir */
	LR(&r, "--redis", "redis+sentinel://127.0.0.1:1,127.0.0.1:2/" MASTER, "-k", "s4",
	    "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""), "the command did not run");
	cr_assert(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s", r.err);
	cr_assert(matches(r.err, "^lockrun: redis\\+sentinel " MASTER ": no sentinel "
	    "answered \\(127\\.0\\.0\\.1:1: cannot connect: Connection refused; "
	    "127\\.0\\.0\\.1:2: cannot connect: Connection refused\\) \\(URL from --url; no "
	    "password\\)\n$"), "stderr: %s", r.err);
}

Test(sentinel, sentinels_that_do_not_know_the_master_are_69)
{
	char u[300];
	struct result r;

	start_group();
	snprintf(u, sizeof(u), "redis+sentinel://127.0.0.1:%d,127.0.0.1:%d/nosuch",
	    sg.node[0].port, sg.node[1].port);
	LR(&r, "--redis", u, "-k", "s5", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""), "the command did not run");
	cr_assert(strstr(r.err, "the sentinels do not know master nosuch") != NULL,
	    "stderr: %s", r.err);
	cr_assert(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s", r.err);
}

/* The sentinels still name a master that is gone (its replica too, so
 * none can be promoted): 69, one line saying what each sentinel gave and
 * why that master could not be reached -- not "none asked", which the last
 * round, cut short by the deadline, used to leave. */
Test(sentinel, a_dead_master_is_named_with_each_sentinels_answer)
{
	char re[1024], s[3][32], m[32];
	struct result r;

	start_group();
	redis_halt(&rep);
	redis_halt(&fx);
	for (int i = 0; i < SENTINELS; i++)
		snprintf(s[i], sizeof(s[i]), "127\\.0\\.0\\.1:%d", sg.node[i].port);
	snprintf(m, sizeof(m), "127\\.0\\.0\\.1:%d", fx.port);
	snprintf(re, sizeof(re), "^lockrun: redis\\+sentinel " MASTER ": no master found "
	    "\\(%s gave %s: cannot connect: Connection refused; "
	    "%s gave %s: cannot connect: Connection refused; "
	    "%s gave %s: cannot connect: Connection refused\\) \\(URL from --url; no "
	    "password\\)\n$",
	    s[0], m, s[1], m, s[2], m);
	LR(&r, "--redis", url, "-k", "s7", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""), "the command did not run");
	cr_assert(matches(r.err, re), "stderr: %s", r.err);
}

/* A sentinel that does not answer is passed over for the next. */
Test(sentinel, a_dead_sentinel_is_passed_over)
{
	char u[300];
	struct result r;

	start_group();
	snprintf(u, sizeof(u), "redis+sentinel://127.0.0.1:1,127.0.0.1:%d/" MASTER,
	    sg.node[2].port);
	LR(&r, "--redis", u, "-k", "s6", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

/* SENTINEL FAILOVER while a job runs (ttl 6s: see below). The job is not
 * stopped; at its next renewal after the sentinels switch it renews on the
 * new master; runs of the same lock are skipped before, during and after
 * the switch; the release frees the key on the new master.
 * The TTL must exceed three times the time the sentinels take to switch
 * after promoting the replica (up to about a second: they poll it with
 * INFO every second): renewals sent to the old master after the promotion
 * are lost, so the key the new master has is the last one replicated
 * before it, and the holder must reach the new master within the rest of
 * that TTL, or the key vanishes there for a while (the holder takes it
 * back, RENEW_RETAKEN, if nobody took it meanwhile). */
Test(sentinel, a_planned_failover_moves_the_holder_without_overlap)
{
	char v[512], pid[32], err[4096];
	redisContext *mon;
	int moved = 0, probes = 0;
	long long guard = 0;
	struct gate g;
	pid_t job;

	start_group();
	gate_open(&g, "");
	job = LR_START("--redis", url, "-k", "sf", "--ttl", "6s", "--", "sh", "-c",
	    job_script(&g));
	gate_wait(&g);
	cr_assert(eq(int, probe("sf"), 75), "skipped before the failover");
	force_failover(0);
	/* skipped while the sentinels switch */
	while (sentinel_master_port(&sg, MASTER) != rep.port && poll_tick(&guard)) {
		cr_assert(eq(int, probe("sf"), 75), "skipped during the failover");
		probes++;
	}
	cr_assert(eq(int, sentinel_wait_master(&sg, MASTER, rep.port, 20000), 0));
	/* the promotion killed the new master's clients; watch it now */
	mon = monitor_on(&rep);
	guard = 0;
	while (!(moved = renewal_seen(mon, "sf")) && poll_tick(&guard)) {
		cr_assert(eq(int, probe("sf"), 75), "skipped after the switch");
		probes++;
	}
	redisFree(mon);
	cr_assert(moved, "the holder never renewed on the new master");
	cr_assert(eq(int, probe("sf"), 75), "skipped once the holder moved");
	cr_assert(alive(job), "the job was not stopped");
	snprintf(pid, sizeof(pid), " %d ", (int)job);
	cr_assert(strstr(value_on(&rep, "lockrun:{sf}", v, sizeof(v)), pid) != NULL,
	    "the new master holds the job's key: \"%s\"", v);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(job), 0), "%s", lr_stderr_of(job, err, sizeof(err)));
	cr_assert(eq(str, (char *)value_on(&rep, "lockrun:{sf}", v, sizeof(v)), ""),
	    "released on the new master");
	cr_assert(eq(int, marks("overlap"), 0), "two commands ran at once");
	cr_assert(eq(int, marks("job"), 1));
	cr_assert(eq(int, marks("probe"), 0), "a probe ran while the job held the lock");
	lr_stderr_of(job, err, sizeof(err));
	cr_assert(eq(ptr, strstr(err, "LOST"), NULL), "stderr: %s", err);
	cr_log_info("planned failover: %d probes skipped; the job said: %s", probes,
	    err[0] ? err : "(nothing)");
}

/* SIGKILL of the master while a job runs (ttl 2s). Until the job has
 * either ended or renewed on the new master, runs of the same lock keep
 * being tried: none may run its command while the job's does. lockrun's
 * rule does it: the job's command is stopped before the lease it last
 * confirmed ends, which is before the key (replicated with that lease)
 * can expire on the new master; or the job reaches the new master first
 * and keeps its key. */
Test(sentinel, a_crashed_master_admits_no_overlapping_run)
{
	char err[4096];
	redisContext *mon = NULL;
	int moved = 0, ran = 0, status;
	long long guard = 0;
	struct gate g;
	pid_t job;

	start_group();
	gate_open(&g, "");
	job = LR_START("--redis", url, "-k", "sc", "--ttl", "2s", "--", "sh", "-c",
	    job_script(&g));
	gate_wait(&g);
	cr_assert(eq(int, kill(fx.pid, SIGKILL), 0));
	while (alive(job) && !moved && poll_tick(&guard)) {
		status = probe("sc");
		cr_assert(status == 75 || status == 69 || status == 0, "probe: %d", status);
		ran += status == 0;
		if (mon == NULL && sentinel_master_port(&sg, MASTER) == rep.port)
			mon = monitor_on(&rep);
		moved = mon && renewal_seen(mon, "sc");
	}
	redisFree(mon);
	cr_assert(moved || !alive(job), "the job neither ended nor moved");
	if (moved) {
		cr_assert(eq(int, probe("sc"), 75), "skipped: the job holds the lock");
		gate_release(&g);
		status = lr_wait(job);
		cr_assert(eq(int, status, 0));
	} else {
		status = lr_wait(job);
		cr_assert(status != 0, "the job was stopped: %d", status);
		/* the key frees itself, and then a run is admitted */
		guard = 0;
		while (ran == 0 && poll_tick(&guard))
			ran += probe("sc") == 0;
		cr_assert(ran > 0, "no run was ever admitted");
	}
	cr_assert(eq(int, marks("overlap"), 0), "two commands ran at once");
	lr_stderr_of(job, err, sizeof(err));
	cr_log_info("crash failover: the job %s (status %d); it said: %s",
	    moved ? "moved to the new master" : "was stopped", status, err);
}

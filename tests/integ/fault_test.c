/* SPDX-License-Identifier: BSD-2-Clause */
/* fault_test.c -- Redis answers that are not "yes" or "no": refusals of
 * every class, a busy server, a Redis gone while waiting, a lost counter,
 * a key retaken after a foreign run; and lockrun started with stderr
 * closed or told to stop before its command began. Real binary, real
 * redis-server (two, for the replica). */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

TestSuite(fault, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

static long long
integer(const char *fmt, const char *arg)
{
	redisReply *r = rcmd(fmt, arg);
	long long v = r->type == REDIS_REPLY_INTEGER ? r->integer : -999;

	freeReplyObject(r);
	return v;
}

static void
ok(const char *fmt, const char *arg)
{
	redisReply *r = rcmd(fmt, arg);

	cr_assert(r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r->str);
	freeReplyObject(r);
}

/* How many error replies of this code Redis has sent (INFO errorstats). */
static long
errors_sent(const char *code)
{
	redisReply *r = rcmd("INFO %s", "errorstats");
	char field[64];
	const char *p;
	long n = 0;

	snprintf(field, sizeof(field), "errorstat_%s:count=", code);
	if ((p = strstr(r->str, field)) != NULL)
		n = strtol(p + strlen(field), NULL, 10);
	freeReplyObject(r);
	return n;
}

/* Run `echo ran > MARK` under lockrun with on_redis_error: run at url, and
 * check it was refused with 69 and the line that names why, and that the
 * command never ran: a refusal is an answer, not an unreachable Redis. */
static void
refused(const char *url, const char *key, const char *why)
{
	const char *mark = scratch("mark");
	char script[256];
	struct result r;

	unlink(mark);
	snprintf(script, sizeof(script), "echo ran > %s", mark);
	LR(&r, "--redis", url, "-k", key, "--on-redis-error", "run", "--",
	    "sh", "-c", script);
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command ran without the lock");
	cr_assert(matches(r.err, "^lockrun: redis [^ ]+: acquire: [^\n]+\n$"),
	    "one line: %s", r.err);
	cr_assert(strstr(r.err, why) != NULL, "stderr: %s", r.err);
	cr_assert(eq(ptr, strstr(r.err, "running without a lock"), NULL), "%s", r.err);
}

Test(fault, a_key_of_another_type_is_refused_by_name)
{
	ok("RPUSH lockrun:{wt} %s", "x");
	refused(fx.url, "wt", "a key lockrun uses holds another type of value (does "
	    "something else write under the prefix?) (WRONGTYPE Operation against a key "
	    "holding the wrong kind of value)");
}

Test(fault, a_corrupt_fencing_counter_is_refused_by_name)
{
	/* Lua's tonumber() takes all but the first; none is a token */
	static const char *const bad[] = { "not-a-number", "inf", "1e300", "0x10",
	    "9007199254740993", "-5" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok("SET lockrun:{cf}:fence %s", bad[i]);
		refused(fx.url, "cf", "the fencing counter is corrupt (does something else "
		    "write under the prefix?) (BADFENCE lockrun:{cf}:fence does not hold a "
		    "token)");
	}
}

Test(fault, out_of_memory_is_refused_by_name)
{
	ok("CONFIG SET maxmemory %s", "1");
	refused(fx.url, "oom", "Redis is out of memory (maxmemory) and refuses writes");
}

Test(fault, too_few_replicas_is_refused_by_name)
{
	ok("CONFIG SET min-replicas-to-write %s", "1");
	refused(fx.url, "norep", "Redis refuses writes: too few replicas "
	    "(min-replicas-to-write) (NOREPLICAS");
}

Test(fault, a_user_without_permission_is_refused_by_name)
{
	char url[160];

	ok("ACL SETUSER %s on >pw ~lockrun:* +evalsha +eval +get", "lim");
	/* the password in the environment: one in --url draws a warning */
	snprintf(url, sizeof(url), "redis://lim@127.0.0.1:%d", fx.port);
	setenv("LOCKRUN_REDIS_PASSWORD", "pw", 1);
	refused(url, "perm", "the Redis user lacks a permission lockrun needs");
	unsetenv("LOCKRUN_REDIS_PASSWORD");
}

Test(fault, a_replica_is_refused_by_name)
{
	struct redis_fixture rep;
	char port[16];
	const char *extra[] = { "--replicaof", "127.0.0.1", port, NULL };

	snprintf(port, sizeof(port), "%d", fx.port);
	cr_assert(redis_start(&rep, extra) == 0);
	refused(rep.url, "ro", "this server is a read-only replica; point lockrun at the "
	    "master (READONLY");
	redis_stop(&rep);
}

Test(fault, a_cluster_node_without_the_slot_is_refused_by_name)
{
	struct redis_fixture node;
	const char *extra[] = { "--cluster-enabled", "yes", "--cluster-config-file",
	    "nodes.conf", NULL };

	cr_assert(redis_start(&node, extra) == 0);
	refused(node.url, "cl", "the Redis Cluster is down (CLUSTERDOWN");
	redis_stop(&node);
}

/* BUSY (a script running past busy-reply-threshold) is asked again on the
 * same connection until the command timeout, not treated as a failure. */
Test(fault, a_busy_server_is_asked_again)
{
	redisContext *busy = redis_client(&fx), *c;
	redisReply *r;
	char err[2048];
	int done = 0, is_busy = 0;
	pid_t lr;

	ok("CONFIG SET lua-time-limit %s", "50");
	redisAppendCommand(busy, "EVAL %s 0", "while true do end");
	while (!done)
		cr_assert(redisBufferWrite(busy, &done) == REDIS_OK);
	for (long long guard = 0; !is_busy && poll_tick(&guard); ) {	/* bounded poll */
		c = redis_client(&fx);
		r = redisCommand(c, "PING");
		is_busy = r && r->type == REDIS_REPLY_ERROR && strncmp(r->str, "BUSY", 4) == 0;
		freeReplyObject(r);
		redisFree(c);
	}
	cr_assert(is_busy, "the server never became busy");
	lr = LR_START("--redis", fx.url, "-v", "--command-timeout", "30s", "-k", "busy",
	    "--", "echo", "ran");
	/* bounded poll on its log: it was answered BUSY */
	POLL_UNTIL(strstr(lr_stderr_of(lr, err, sizeof(err)), "asking again"));
	cr_assert(strstr(err, "acquire: Redis is busy running a script (BUSY") != NULL,
	    "stderr: %s", err);
	c = redis_client(&fx);
	freeReplyObject(redisCommand(c, "SCRIPT KILL"));
	redisFree(c);
	redisFree(busy);
	cr_assert(eq(int, lr_wait(lr), 0), "it ran once the script was killed: %s",
	    lr_stderr_of(lr, err, sizeof(err)));
}

/* Issue case 4: a waiter that has seen the lock held must not run without
 * it when a later retry cannot reach Redis. */
Test(fault, a_waiter_that_saw_the_lock_held_never_runs_without_it)
{
	const char *mark = scratch("mark");
	char script[256], err[2048];
	pid_t holder, waiter;
	int st;
	struct gate g;

	gate_open(&g, "");
	holder = LR_START("--redis", fx.url, "-k", "wr", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	snprintf(script, sizeof(script), "echo ran > %s", mark);
	waiter = LR_START("--redis", fx.url, "-k", "wr", "--wait", "60s", "-v",
	    "--on-redis-error", "run", "--command-timeout", "300ms", "--",
	    "sh", "-c", script);
	/* bounded poll on its log: it saw the lock held */
	POLL_UNTIL(strstr(lr_stderr_of(waiter, err, sizeof(err)), "waiting up to"));
	kill(fx.pid, SIGSTOP);	/* its next try gets no answer */
	st = lr_wait(waiter);
	kill(fx.pid, SIGCONT);
	cr_assert(eq(int, st, 69), "stderr: %s", lr_stderr_of(waiter, err, sizeof(err)));
	cr_assert(eq(int, access(mark, F_OK), -1), "the waiter ran without the lock");
	cr_assert(strstr(lr_stderr_of(waiter, err, sizeof(err)), "no answer within 300ms; "
	    "not running without a lock (on_server_error: run), as this run saw it held "
	    "by another (URL from --url; no password)\n") != NULL, "stderr: %s", err);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(holder), 0));
}

/* Issue case 6: started with 2>&-, lockrun's messages must not land in
 * the Redis connection (which would take descriptor 2). */
Test(fault, started_with_stderr_closed)
{
	const char *bin = getenv("LOCKRUN_BIN"), *out = scratch("out");
	char buf[64] = "";
	pid_t pid;
	FILE *fp;

	fflush(NULL);
	if ((pid = fork()) == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0 || dup2(o, 1) < 0)
			_exit(120);
		close(o);
		close(2);
		execl(bin, bin, "--redis", fx.url, "-v", "-k", "cs", "--", "sh", "-c",
		    "echo out; echo err >&2", (char *)NULL);
		_exit(121);
	}
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(int, integer("EXISTS %s", "lockrun:{cs}"), 0), "released");
	cr_assert(eq(long, errors_sent("ERR"), 0), "Redis was sent text it did not understand");
	fp = fopen(out, "r");
	cr_assert(fp != NULL && fgets(buf, sizeof(buf), fp) != NULL);
	fclose(fp);
	cr_assert(eq(str, buf, "out\n"));
}

/* Is signal sig in the mask called field ("SigBlk", "ShdPnd") of pid? */
static int
sigmask_has(pid_t pid, const char *field, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	size_t len = strlen(field);
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, field, len) == 0 && line[len] == ':')
			mask = strtoull(line + len + 1, NULL, 16);
	fclose(fp);
	return (mask >> (sig - 1)) & 1;
}

/* Issue case 7: SIGTERM arrives while the acquire is on its way; the lock
 * is taken, the command never starts, and --min-hold still applies. */
Test(fault, min_hold_applies_when_a_signal_beats_the_command)
{
	const char *mark = scratch("mark");
	char script[256];
	long long t;
	pid_t lr;

	snprintf(script, sizeof(script), "echo ran > %s", mark);
	kill(fx.pid, SIGSTOP);	/* the acquire waits for its answer */
	lr = LR_START("--redis", fx.url, "-k", "mh", "--min-hold", "30s",
	    "--command-timeout", "30s", "--", "sh", "-c", script);
	/* bounded poll: lockrun reads signals from a signalfd */
	POLL_UNTIL(sigmask_has(lr, "SigBlk", SIGTERM));
	kill(lr, SIGTERM);
	/* bounded poll: the signal waits, pending */
	POLL_UNTIL(sigmask_has(lr, "ShdPnd", SIGTERM));
	kill(fx.pid, SIGCONT);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGTERM));
	cr_assert(eq(int, access(mark, F_OK), -1), "the command never started");
	t = integer("PTTL %s", "lockrun:{mh}");
	/* no earlier than min_hold after the acquire by the server's clock,
	 * which lockrun knows within half the acquire's round trip (here
	 * stretched by the stopped server): a little more than 30s at most */
	cr_assert(t > 0 && t <= 31000, "held for the rest of --min-hold: pttl %lld", t);
}

static long long
token_of_a_run(const char *key)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-k", key, "--", "sh", "-c", "printf %s \"$LOCKRUN_TOKEN\"");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	return strtoll(r.out, NULL, 10);
}

/* Issue case 8: the token rises even when Redis lost the counter, and the
 * counter expires instead of living forever. */
Test(fault, the_fencing_token_rises_across_flushall)
{
	long long first = token_of_a_run("tk"), second, ttl;

	ok("FLUSHALL %s", "SYNC");
	second = token_of_a_run("tk");
	cr_assert(second > first, "token %lld after %lld", second, first);
	ttl = integer("PTTL %s", "lockrun:{tk}:fence");
	cr_assert(ttl > 0 && ttl <= 86400000, "the counter expires: pttl %lld", ttl);
}

/* Issue case 9: the key vanished, another run took the lock and let it
 * go; the first run's renewal must not take it back. */
Test(fault, a_vanished_key_is_not_retaken_after_a_later_run)
{
	char err[2048], line[1024], sha[41];
	redisContext *mon;
	redisReply *known;
	struct result b;
	pid_t a;
	int ended = 0;
	struct gate g;

	gate_open(&g, "");
	a = LR_START("--redis", fx.url, "-k", "rt", "--ttl", "15s", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);
	mon = monitor_start();
	/* a renewal (four keys, the stable key first): 5s to the next. On a
	 * fresh server its EVALSHA is answered NOSCRIPT and an EVAL follows:
	 * the renewal is done only once Redis knows the script, else the EVAL
	 * could come after the DEL below and put the key back */
	cr_assert(eq(long, monitor_until(mon, "^\"EVALSHA\" \"[0-9a-f]{40}\" \"5\" "
	    "\"lockrun:\\{rt\\}\"", 1, line, sizeof(line)), 1));
	cr_assert(eq(int, sscanf(line, "\"EVALSHA\" \"%40[0-9a-f]\"", sha), 1), "%s", line);
	known = rcmd("SCRIPT EXISTS %s", sha);
	cr_assert(known->type == REDIS_REPLY_ARRAY && known->elements == 1);
	if (known->element[0]->integer == 0)
		cr_assert(eq(long, monitor_until(mon, "^\"EVAL\" .* \"5\" \"lockrun:\\{rt\\}\"",
		    1, NULL, 0), 1), "the EVAL after NOSCRIPT");
	freeReplyObject(known);
	redisFree(mon);
	ok("DEL %s", "lockrun:{rt}");
	LR(&b, "--redis", fx.url, "-k", "rt", "-E", "75", "--", "echo", "b ran");
	cr_assert(eq(int, b.status, 0), "another run took the lock and let it go");
	cr_assert(eq(str, b.out, "b ran\n"));
	/* bounded poll: the next renewal finds the loss */
	POLL_UNTIL((ended = !alive(a)));
	if (!ended)
		gate_release(&g);
	cr_assert(eq(int, lr_wait(a), 128 + SIGTERM), "stderr: %s",
	    lr_stderr_of(a, err, sizeof(err)));
	cr_assert(strstr(lr_stderr_of(a, err, sizeof(err)), "LOST LOCK lockrun:{rt}: it "
	    "was freed and a later token drawn since (another run took it, or lockrun "
	    "unlock freed it); stopping the command") != NULL,
	    "stderr: %s", err);
}

/* lockrun's own connection: the id of the client whose last command was
 * eval or evalsha, from CLIENT LIST. */
static long
lockrun_client_id(void)
{
	redisReply *r = rcmd("CLIENT %s", "LIST");
	const char *line = r->str;
	long id = -1;

	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		const char *cmd = strstr(line, " cmd=eval");
		if (cmd && (end == NULL || cmd < end))
			id = strtol(line + 3, NULL, 10);	/* "id=N ..." */
	}
	freeReplyObject(r);
	return id;
}

/* Issue case 5, renewal side: an error reply to a renewal leaves the
 * connection as it is (it answered), and the lease recovers on it. */
Test(fault, a_refused_renewal_keeps_its_connection)
{
	char err[2048];
	long before, after;
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "rc", "--ttl", "9s", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);
	before = lockrun_client_id();
	cr_assert(before > 0);
	ok("CONFIG SET min-replicas-to-write %s", "1");
	/* bounded poll: a renewal was refused */
	POLL_UNTIL(errors_sent("NOREPLICAS") > 0);
	ok("CONFIG SET min-replicas-to-write %s", "0");
	cr_assert(errors_sent("NOREPLICAS") > 0);
	/* bounded poll: a renewal went through again */
	POLL_UNTIL(key_pttl("lockrun:{rc}") >= 8000);
	after = lockrun_client_id();
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
	cr_assert(eq(long, after, before), "lockrun reconnected after an error reply");
	cr_assert(eq(ptr, strstr(lr_stderr_of(lr, err, sizeof(err)), "LOST"), NULL),
	    "stderr: %s", err);
}

/* Issue case 10: the host is resolved once, at start. A reconnect while
 * the lock is held goes to the same address, so a name service that has
 * stopped answering cannot hold it up. */
Test(fault, a_reconnect_does_not_resolve_the_host_again)
{
	const char *down = scratch("dns-down");
	const char *env[6];
	char buf[3][256], url[64], kill_id[32], err[2048];
	long before, after = -1;
	pid_t lr;
	FILE *fp;
	struct gate g;

	shim_env(env, buf, down, NULL);
	snprintf(url, sizeof(url), "redis://localhost:%d", fx.port);
	gate_open(&g, "");
	lr = LR_START_ENV(env, "--redis", url, "-k", "dns", "--ttl", "9s", "--",
	    "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	fp = fopen(down, "w");		/* from now on, no name resolves */
	cr_assert(fp != NULL);
	fclose(fp);
	before = lockrun_client_id();
	snprintf(kill_id, sizeof(kill_id), "%ld", before);
	ok("CLIENT KILL ID %s", kill_id);
	POLL_UNTIL((after = lockrun_client_id()) > 0 && after != before);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0), "stderr: %s", lr_stderr_of(lr, err, sizeof(err)));
	cr_assert(after > 0 && after != before, "lockrun connected again");
	cr_assert(eq(ptr, strstr(lr_stderr_of(lr, err, sizeof(err)), "LOST"), NULL),
	    "stderr: %s", err);
}

/* Issue case 10: at early boot getrandom(2) may block until the entropy
 * pool is ready, outside every timeout; lockrun never asks it to block. */
Test(fault, the_owner_id_never_waits_for_entropy)
{
	const char *calls = scratch("blocking-getrandom");
	const char *env[6];
	char buf[3][256];
	struct result r;

	shim_env(env, buf, NULL, calls);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "-k", "ent", "--",
	    "echo", "ran", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
	cr_assert(eq(int, file_lines(calls), 0), "a blocking getrandom() was made");
}

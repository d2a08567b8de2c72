/* SPDX-License-Identifier: BSD-2-Clause */
/* wait_test.c -- redis.wait_replicas: WAIT goes behind the acquire and
 * each renewal, in the same write; a lock too few replicas acknowledged
 * is released (exit 69), a renewal too few acknowledged leaves the lease
 * unconfirmed until the command is stopped. A real master and a real
 * replica; a SIGSTOPped replica is one that does not acknowledge. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "proxy.h"

static struct redis_fixture rep;

/* The suite's master (fx) and a replica of it, for each test. */
static void
wait_setup(void)
{
	suite_setup();
	char line[256] = "";

	cr_assert(eq(int, redis_start_replica(&rep, &fx, NULL), 0),
	    "the replica did not start");
	/* the replica's link is up, but WAIT counts it only once the master
	 * has put it online (after its first acknowledgement) */
	POLL_UNTIL(redis_info_field(&fx, "replication", "slave0", line, sizeof(line)) == 0 &&
	    strstr(line, "state=online") != NULL);
	cr_assert(strstr(line, "state=online") != NULL, "the master says: %s", line);
}

static void
wait_teardown(void)
{
	if (rep.pid > 0)
		kill(rep.pid, SIGCONT);		/* a stopped server cannot be stopped */
	redis_stop(&rep);
	suite_teardown();
}

TestSuite(wait, .init = wait_setup, .fini = wait_teardown, .timeout = 60);

/* Freeze the replica: from the return on it acknowledges nothing. */
static void
replica_stop(void)
{
	cr_assert(eq(int, kill(rep.pid, SIGSTOP), 0));
	POLL_UNTIL(proc_state(rep.pid) == 'T');
	cr_assert(eq(chr, proc_state(rep.pid), 'T'), "the replica did not stop");
}

/* With a replica that acknowledges, the run goes as without WAIT, and
 * Redis sees the acquire, WAIT right behind it, and the release (which
 * needs no WAIT: a release lost in a failover leaves a key that expires
 * within its TTL). */
Test(wait, an_acknowledged_acquire_runs_the_command)
{
	const char *ran = scratch("ran");
	char script[256], seen[256];
	redisContext *mon;
	struct result r;

	LR(&r, "--redis", fx.url, "-k", "w1", "--", "true");	/* Redis learns the scripts */
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	mon = monitor_start();
	snprintf(script, sizeof(script), "echo ran >> %s", ran);
	LR(&r, "-c", write_config("  wait_replicas: 1\n  wait_timeout: 1s\n"), "-k", "w1",
	    "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(ran), 1), "the command ran once");
	cr_assert(eq(long, monitor_count(mon, seen, sizeof(seen)), 3), "seen:\n%s", seen);
	cr_assert(eq(str, seen, "\"EVALSHA\"\n\"WAIT\"\n\"EVALSHA\"\n"));
	cr_assert(eq(int, key_exists("lockrun:{w1}"), 0), "released at the end");
}

/* Still one round trip for the decision: with the network frozen before
 * Redis could answer anything, the acquire and WAIT are both already on
 * their way -- the bytes held in the relay are exactly the two commands
 * MONITOR then shows. */
Test(wait, wait_goes_in_the_same_write_as_the_acquire)
{
	char evalsha[2048], wait[256];
	redisContext *mon = monitor_start();
	struct proxy px;
	long held;
	pid_t lr;

	cr_assert(eq(int, proxy_start(&px, fx.port), 0));
	proxy_freeze(&px);
	lr = LR_START("--redis", px.url, "--wait-replicas", "1", "--wait-timeout", "1500ms",
	    "-k", "w1rt", "--", "true");
	POLL_UNTIL(proxy_pending(&px) > 0);
	held = proxy_pending(&px);
	proxy_thaw(&px);
	cr_assert(eq(long, monitor_until(mon, "^\"EVALSHA\" \"[0-9a-f]{40}\" \"6\" ", 1,
	    evalsha, sizeof(evalsha)), 1));
	cr_assert(eq(long, monitor_until(mon, "^\"WAIT\" ", 1, wait, sizeof(wait)), 1));
	redisFree(mon);
	cr_assert(eq(int, lr_wait(lr), 0));
	proxy_cut(&px);
	cr_assert(eq(str, wait, "\"WAIT\" \"1\" \"1500\""));
	cr_assert(eq(long, held, resp_size(evalsha) + resp_size(wait)),
	    "held %ld bytes; acquire %ld + WAIT %ld", held, resp_size(evalsha),
	    resp_size(wait));
}

/* A replica that does not acknowledge: the lock was taken on the master,
 * so it is released at once; the command does not run; 69 with one line. */
Test(wait, an_unacknowledged_acquire_releases_and_exits_69)
{
	const char *ran = scratch("ran");
	char script[256], line[512];
	struct result r;

	replica_stop();
	snprintf(script, sizeof(script), "echo ran >> %s", ran);
	LR(&r, "-c", write_config("  wait_replicas: 1\n"), "-k", "w2", "--", "sh", "-c",
	    script);
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(ran), 0), "the command ran");
	snprintf(line, sizeof(line), "lockrun: redis 127.0.0.1:%d: acquire: only 0 of 1 "
	    "replicas acknowledged within 100ms; released the lock\n", fx.port);
	cr_assert(eq(str, r.err, line));
	cr_assert(eq(int, key_exists("lockrun:{w2}"), 0), "the lock was left behind");
}

/* on_redis_error: run is for a Redis that cannot be reached: the master
 * answered here, and running without the lock would let every server run
 * while a replica lags. */
Test(wait, on_redis_error_run_does_not_run_an_unacknowledged_lock)
{
	const char *ran = scratch("ran");
	char script[256];
	struct result r;

	replica_stop();
	snprintf(script, sizeof(script), "echo ran >> %s", ran);
	LR(&r, "--redis", fx.url, "--wait-replicas", "1", "--on-redis-error", "run",
	    "-k", "w2run", "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(ran), 0), "the command ran without the lock");
	cr_assert(eq(int, key_exists("lockrun:{w2run}"), 0), "the lock was left behind");
}

/* A skip writes only history: WAIT's answer is read and does not matter. */
Test(wait, a_skip_ignores_the_replicas)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{w2skip} %s PX 60000",
	    "ffffffffffffffffffffffffffffffff 99 other 1 2026-01-01T00:00:00.000Z"));
	replica_stop();
	LR(&r, "--redis", fx.url, "--wait-replicas", "1", "-k", "w2skip", "-E", "75", "--",
	    "true");
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	cr_assert(eq(str, r.err, ""));
}

/* The replica stops acknowledging while the command runs: the master
 * still extends the key, but lockrun counts no renewal as confirmed, so
 * the command is stopped before the lease would end, as when Redis stops
 * answering; the key is released after. (The TTL leaves room for the
 * first unacknowledged renewal to be answered before the command is
 * stopped, so the warning comes; which line comes first is not checked.
 * A WAIT timeout of 1s, here and wherever the replica is expected to
 * acknowledge, is for a loaded machine, where 100ms may pass first.) */
Test(wait, unacknowledged_renewals_stop_the_command)
{
	char err[4096];
	pid_t lr;
	struct gate g;
	int said, guarded;

	gate_open(&g, "");
	lr = LR_START("-c", write_config("  wait_replicas: 1\n  wait_timeout: 1s\n"),
	    "-k", "w3", "--ttl", "6s", "--kill-after", "500ms", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);		/* running, lock acknowledged */
	replica_stop();
	cr_assert(eq(int, lr_wait(lr), 128 + SIGTERM), "stderr: %s",
	    lr_stderr_of(lr, err, sizeof(err)));
	lr_stderr_of(lr, err, sizeof(err));
	cr_assert(matches(err, "lockrun: lockrun:\\{w3\\}: redis 127\\.0\\.0\\.1:[0-9]+: "
	    "renew: only 0 of 1 replicas acknowledged within 1s; the lease is not "
	    "extended until a renewal is acknowledged\n"), "stderr: %s", err);
	/* lockrun says so itself, or, when the machine starved it past the
	 * lease's term point, its guard had already stopped the tree: the
	 * guard's deadline moves only with a confirmed renewal, so either
	 * way it was the unacknowledged renewals that stopped the command */
	said = strstr(err, "LOST LOCK lockrun:{w3}: Redis has not confirmed the lease (")
	    != NULL && strstr(err, "stopping the command before it ends in ") != NULL;
	guarded = strstr(err, "LOST LOCK lockrun:{w3}: lockrun did not renew the lease "
	    "in time") != NULL;
	cr_assert(said || guarded, "stderr: %s", err);
	cr_assert(eq(int, key_exists("lockrun:{w3}"), 0), "released at the end");
}

/* While the replica acknowledges, each renewal carries a WAIT too. */
Test(wait, each_renewal_is_followed_by_wait)
{
	char last[512];
	redisContext *mon = monitor_start();
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "--wait-replicas", "1", "--wait-timeout", "1s",
	    "-k", "w3ok", "--ttl", "4s", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	for (int i = 0; i < 2; i++) {
		cr_assert(eq(long, monitor_until(mon, "^\"EVALSHA\" \"[0-9a-f]{40}\" \"5\" "
		    "\"lockrun:\\{w3ok\\}\" ", 1, NULL, 0), 1), "renewal %d", i + 1);
		cr_assert(eq(long, monitor_until(mon, "^\"", 1, last, sizeof(last)), 1));
		cr_assert(eq(str, last, "\"WAIT\" \"1\" \"1000\""), "after renewal %d", i + 1);
	}
	redisFree(mon);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
}

/* Off by default, and with 0: no WAIT at all, replicas or not. */
Test(wait, zero_replicas_sends_no_wait)
{
	char seen[256];
	redisContext *mon = monitor_start();
	struct result r;

	LR(&r, "--redis", fx.url, "--wait-replicas", "0", "-k", "w4", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	LR(&r, "--redis", fx.url, "-k", "w4", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	/* acquire and release twice; the first may be sent again as EVAL */
	cr_assert(monitor_count(mon, seen, sizeof(seen)) >= 4, "seen:\n%s", seen);
	cr_assert(eq(ptr, strstr(seen, "WAIT"), NULL), "seen:\n%s", seen);
}

/* WAIT must answer within the renewal's own deadline, a third of the TTL. */
Test(wait, a_wait_timeout_past_a_third_of_the_ttl_is_refused)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--wait-replicas", "1", "--wait-timeout", "400ms",
	    "--ttl", "1s", "-k", "w5", "--", "true");
	cr_assert(eq(int, r.status, 64), "stderr: %s", r.err);
	cr_assert(eq(str, r.err, "lockrun: --wait-timeout: 400ms must be shorter than a "
	    "third of the ttl (1s)\nTry 'lockrun --help' for more information.\n"));
}

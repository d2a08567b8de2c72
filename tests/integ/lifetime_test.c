/* SPDX-License-Identifier: BSD-2-Clause */
/* lifetime_test.c -- the lease: renewal, lost locks, parent death, Redis
 * stalls, --wait, --timeout, --min-hold. Real binary, real redis-server. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "proxy.h"

TestSuite(lifetime, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* One renewal of lockrun:{KEY} as MONITOR shows it: each starts with one
 * EVALSHA of the renew script, whose four keys start with the stable key
 * (an EVAL follows it only when Redis answered NOSCRIPT); the acquire has
 * five keys, and the release (three) comes after the command. */
#define RENEWAL(key) "^\"EVALSHA\" \"[0-9a-f]{40}\" \"5\" \"lockrun:\\{" key "\\}\" "

/* A job with a 1s TTL, held until the test lets it go: Redis sees four
 * renewals a third of the TTL apart (so the job has outlived its TTL),
 * the key's TTL never exceeds 1s, and a probe meanwhile skips. Renewal,
 * not a long TTL, keeps the lock. */
Test(lifetime, renewal_keeps_a_long_job_locked_with_a_short_ttl)
{
	char err[2048];
	redisContext *mon = monitor_start();
	struct result r;
	pid_t job;
	struct gate g;

	gate_open(&g, "");
	job = LR_START("--redis", fx.url, "-k", "long", "--ttl", "1s", "-E", "75", "--",
	    "sh", "-c", gate_sh(&g));
	gate_wait(&g);		/* the job holds the lock */
	for (int i = 1; i <= 4; i++) {
		long long t;
		cr_assert(eq(long, monitor_until(mon, RENEWAL("long"), 1, NULL, 0), 1),
		    "renewal %d never came", i);
		t = key_pttl("lockrun:{long}");
		cr_assert(t > 0 && t <= 1000, "after renewal %d: pttl %lld, not within "
		    "the 1s TTL", i, t);
	}
	redisFree(mon);
	LR(&r, "--redis", fx.url, "-k", "long", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75), "a probe ran while the job held the lock");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(job), 0));
	lr_stderr_of(job, err, sizeof(err));
	cr_assert(eq(ptr, strstr(err, "LOST"), NULL), "stderr: %s", err);
	cr_assert(eq(ptr, strstr(err, "vanished"), NULL), "the key expired: %s", err);
}

/* kill -9 of lockrun: its command goes down (the guard stops it), and the
 * key is gone within the TTL: the guard frees it once the tree is gone. */
Test(lifetime, sigkill_of_lockrun_stops_the_child_and_frees_the_lock)
{
	struct result r;
	long child;
	long long ttl;
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "k9", "--ttl", "2s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 60"));
	child = gate_wait(&g);
	cr_assert(alive((pid_t)child));
	kill(lr, SIGKILL);
	cr_assert(eq(int, lr_wait(lr), 128 + SIGKILL));
	ttl = key_pttl("lockrun:{k9}");
	cr_assert(ttl == -2 || (ttl > 0 && ttl <= 2000), "expires within one TTL: "
	    "pttl %lld", ttl);
	POLL_UNTIL(!alive((pid_t)child));	/* /proc tells when it is gone */
	cr_assert(eq(int, alive((pid_t)child), 0), "the child died with lockrun");
	POLL_UNTIL(!key_exists("lockrun:{k9}"));	/* freed, or expired */
	cr_assert(eq(int, key_exists("lockrun:{k9}"), 0), "the key stayed");
	LR(&r, "--redis", fx.url, "-k", "k9", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 0), "a new run got the lock");
}

Test(lifetime, a_deleted_key_is_taken_back_and_the_job_finishes)
{
	char err[2048], token[32];
	redisReply *v;
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	g.say = "$LOCKRUN_TOKEN";	/* the run's fencing token, a number */
	lr = LR_START("--redis", fx.url, "-k", "del", "--ttl", "1s", "--", "sh", "-c",
	    gate_sh(&g));
	snprintf(token, sizeof(token), " %ld ", gate_wait(&g));
	freeReplyObject(rcmd("DEL lockrun:{del}"));
	POLL_UNTIL(key_exists("lockrun:{del}"));	/* the next renewal puts it back */
	v = rcmd("GET lockrun:{del}");
	cr_assert(eq(int, v->type, REDIS_REPLY_STRING), "the key is back");
	cr_assert(strstr(v->str, token) != NULL, "with this run's token%s: %s", token, v->str);
	freeReplyObject(v);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
	cr_assert(strstr(lr_stderr_of(lr, err, sizeof(err)), "had vanished") != NULL,
	    "stderr: %s", err);
	cr_assert(eq(int, key_exists("lockrun:{del}"), 0), "released at the end");
}

Test(lifetime, a_key_taken_by_another_owner_stops_the_child)
{
	const char *got = scratch("got");
	char script[512], err[2048];
	redisReply *v;
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	snprintf(script, sizeof(script), "trap 'echo term >> %s; exit 9' TERM; ", got);
	lr = LR_START("--redis", fx.url, "-k", "steal", "--ttl", "1s", "--", "sh", "-c",
	    gate_sh_then(&g, script, "while :; do sleep 0.05; done"));
	gate_wait(&g);
	freeReplyObject(rcmd("SET lockrun:{steal} %s PX 60000",
	    "ffffffffffffffffffffffffffffffff 99 thief 1 2026-01-01T00:00:00.000Z"));
	cr_assert(eq(int, lr_wait(lr), 9), "lockrun exits with the child's status");
	cr_assert(eq(int, file_lines(got), 1), "the child got SIGTERM");
	cr_assert(strstr(lr_stderr_of(lr, err, sizeof(err)),
	    "LOST LOCK lockrun:{steal}: another run holds it now; stopping the command "
	    "(on_lost: term)") != NULL, "stderr: %s", err);
	v = rcmd("GET lockrun:{steal}");
	cr_assert(eq(int, strncmp(v->str, "ffff", 4), 0), "the thief's key is left alone");
	freeReplyObject(v);
}

Test(lifetime, on_lost_ignore_logs_and_lets_the_child_run)
{
	char err[2048];
	pid_t lr;
	struct gate g;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "ign", "--ttl", "1s", "--on-lost", "ignore",
	    "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	freeReplyObject(rcmd("SET lockrun:{ign} %s", "ffffffffffffffffffffffffffffffff 9 x 1 t"));
	POLL_UNTIL(strstr(lr_stderr_of(lr, err, sizeof(err)), "LOST"));	/* its log */
	cr_assert(strstr(err, "LOST") != NULL, "nothing logged: %s", err);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0), "the child ran to its end");
	cr_assert(strstr(err, "the command goes on unprotected (on_lost: ignore)") != NULL,
	    "stderr: %s", err);
}

/* The network to Redis frozen for longer than the TTL: lockrun cannot
 * prove it holds the lock, so its child must be gone before the lease can
 * end. Only the proxy between them is frozen: Redis runs on, expires the
 * key on its own clock, and answers the test on its socket. The moment
 * the key is seen gone, the child must already be dead: the order of
 * the two events, observed, with no clock. */
Test(lifetime, redis_stalled_past_the_ttl_child_is_dead_before_the_lease_ends)
{
	char err[2048];
	struct proxy px;
	struct result r;
	long child;
	pid_t lr;
	int key, child_alive;
	struct gate g;

	cr_assert(eq(int, proxy_start(&px, fx.port), 0));
	gate_open(&g, "");
	lr = LR_START("--redis", px.url, "-k", "stall", "--ttl", "2s", "--", "sh", "-c",
	    gate_sh_then(&g, "", "exec sleep 60"));
	child = gate_wait(&g);
	proxy_freeze(&px);	/* from here on, no renewal reaches Redis */
	POLL_UNTIL(!key_exists("lockrun:{stall}"));	/* Redis ends the lease */
	child_alive = alive((pid_t)child);
	key = key_exists("lockrun:{stall}");
	proxy_cut(&px);		/* lockrun's release fails now, not after a timeout */
	cr_assert(eq(int, key, 0), "the key outlived a frozen network");
	cr_assert(eq(int, child_alive, 0), "the child was alive when the lease ended");
	cr_assert(eq(int, lr_wait(lr), 128 + SIGTERM));
	/* lockrun stops the child when Redis has not confirmed the lease; on
	 * a machine so loaded that lockrun itself is starved past a renewal,
	 * the guard keeping the deadline gets there first (guard.c): either
	 * way the child died before the lease ended, and the line says which */
	cr_assert(matches(lr_stderr_of(lr, err, sizeof(err)),
	    "LOST LOCK lockrun:\\{stall\\}: (Redis has not confirmed the lease|lockrun did "
	    "not renew the lease in time)"), "stderr: %s", err);
	LR(&r, "--redis", fx.url, "-k", "stall", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 0), "a second run gets the lock");
}

/* A stall far shorter than the TTL: the network freezes, lockrun's next
 * renewal is held in the frozen proxy, and the network comes back at once.
 * The stall is bounded by events (freeze, a renewal held, thaw), not by a
 * sleep. The held renewal reaches Redis and renews the key, the next one
 * follows, and the job runs to its end without a word about a lost lock. */
Test(lifetime, a_short_redis_stall_changes_nothing)
{
	char err[2048];
	redisContext *mon;
	struct proxy px;
	long long before, after = 0;
	long held;
	pid_t lr;
	struct gate g;

	cr_assert(eq(int, proxy_start(&px, fx.port), 0));
	gate_open(&g, "");
	lr = LR_START("--redis", px.url, "-k", "hiccup", "--ttl", "3s", "--",
	    "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	proxy_freeze(&px);
	POLL_UNTIL(proxy_pending(&px) > 0);	/* the next renewal, held */
	held = proxy_pending(&px);
	before = key_pttl("lockrun:{hiccup}");
	mon = monitor_start();	/* nothing of lockrun's reached Redis since the freeze */
	proxy_thaw(&px);
	cr_assert(held > 0, "no renewal came while the network was frozen");
	cr_assert(eq(long, monitor_until(mon, RENEWAL("hiccup"), 1, NULL, 0), 1),
	    "the held renewal never reached Redis");
	/* a poll: after a NOSCRIPT the body follows the EVALSHA seen */
	POLL_UNTIL((after = key_pttl("lockrun:{hiccup}")) > before);
	cr_assert(after > before, "renewed after the stall (pttl %lld -> %lld)", before, after);
	cr_assert(eq(long, monitor_until(mon, RENEWAL("hiccup"), 1, NULL, 0), 1),
	    "renewal did not go on after the stall");
	redisFree(mon);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(lr), 0));
	proxy_cut(&px);
	cr_assert(eq(ptr, strstr(lr_stderr_of(lr, err, sizeof(err)), "LOST"), NULL),
	    "stderr: %s", err);
}

Test(lifetime, wait_runs_after_the_holder_and_short_wait_gives_up)
{
	char out[64], err[2048];
	struct result r;
	pid_t first, second;
	FILE *fp;
	struct gate g;

	gate_open(&g, "");
	first = LR_START("--redis", fx.url, "-k", "w", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	LR(&r, "--redis", fx.url, "-k", "w", "--wait", "300ms", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75), "a short wait gives up with the conflict exit");
	second = LR_START("--redis", fx.url, "-k", "w", "--wait", "20s", "-E", "75", "-v",
	    "--", "echo", "second ran");
	/* a poll on its log: it found the lock held */
	POLL_UNTIL(strstr(lr_stderr_of(second, err, sizeof(err)), "waiting up to"));
	cr_assert(strstr(err, "lockrun:{w} is held; waiting up to") != NULL, "%s", err);
	/* for people: seconds (20s, 19.9s), not 19993ms */
	cr_assert(matches(err, "waiting up to [0-9]+(\\.[0-9])?s for it\n"), "%s", err);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	cr_assert(eq(int, lr_wait(second), 0), "the waiter ran after the holder");
	snprintf(out, sizeof(out), "bg1.out");	/* the second background run */
	fp = fopen(scratch(out), "r");
	cr_assert(fp != NULL && fgets(out, sizeof(out), fp) != NULL);
	fclose(fp);
	cr_assert(eq(str, out, "second ran\n"));
}

/* Both runs at mid-day by a faked clock, so that they share the day's
 * slot whenever the suite runs. */
Test(lifetime, wait_does_not_wait_for_a_slot_that_already_ran)
{
	const char *env[5];
	char buf[3][128];
	struct result r;

	faketime_env(env, buf, 1781524800.0);	/* 2026-06-15T12:00:00Z */
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "-k", "ws",
	    "--one-server", "--clock-tolerance", "0", "--every", "1d", "--", "true",
	    NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "-k", "ws",
	    "--one-server", "--clock-tolerance", "0", "--every", "1d", "--wait", "30s",
	    "-E", "75", "-v", "--", "true",
	    NULL });
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(ptr, strstr(r.err, "waiting"), NULL), "it waited: %s", r.err);
	cr_assert(strstr(r.err, "skipped: slot") != NULL, "%s", r.err);
}

Test(lifetime, timeout_stops_the_child_exits_124_and_releases)
{
	pid_t lr;
	long child;
	struct gate g;

	gate_open(&g, "");
	lr = LR_START("--redis", fx.url, "-k", "to", "--timeout", "300ms", "--",
	    "sh", "-c", gate_sh_then(&g, "", "exec sleep 60"));
	child = gate_wait(&g);
	cr_assert(eq(int, lr_wait(lr), 124));
	cr_assert(eq(int, alive((pid_t)child), 0), "the child is gone");
	cr_assert(eq(int, key_exists("lockrun:{to}"), 0), "the lock is released");
}

Test(lifetime, timeout_escalates_to_sigkill_after_kill_after)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-k", "tk", "--timeout", "200ms", "--kill-after", "300ms",
	    "--", "sh", "-c", "trap '' TERM; sleep 60 & wait; while :; do wait; done");
	cr_assert(eq(int, r.status, 124));
	cr_assert(eq(int, key_exists("lockrun:{tk}"), 0));
}

/* An hour, so that the probe need not come within any short time. */
Test(lifetime, min_hold_keeps_the_key_for_the_rest_of_it)
{
	struct result r;
	long long t;

	LR(&r, "--redis", fx.url, "-k", "mh", "--min-hold", "1h", "--", "true");
	cr_assert(eq(int, r.status, 0));
	t = key_pttl("lockrun:{mh}");
	cr_assert(t > 0 && t <= 3600000, "pttl %lld", t);
	LR(&r, "--redis", fx.url, "-k", "mh", "-E", "75", "--", "true");
	cr_assert(eq(int, r.status, 75), "still held after the quick job");
}

Test(lifetime, refuses_a_kill_after_that_outlasts_the_lease)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--ttl", "3s", "--kill-after", "2s", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: kill_after 2s must be at most a third of ttl 3s "
	    "(a lost lock must be stopped before the lease ends)\n"
	    "Try 'lockrun --help' for more information.\n"));
}

/* A stopped leader must not leave members of its group running after the
 * lock is released: they get SIGKILL before the release. */
Test(lifetime, timeout_kills_group_members_that_outlive_the_leader)
{
	const char *pidf = scratch("member");
	char script[512];
	struct result r;
	long member = 0;
	FILE *fp;

	snprintf(script, sizeof(script), "trap 'exit 0' TERM; "
	    "sh -c 'trap \"\" TERM; echo $$ > %s; exec sleep 60' & wait", pidf);
	LR(&r, "--redis", fx.url, "-k", "grp", "--timeout", "300ms", "--kill-after", "1s",
	    "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 124));
	fp = fopen(pidf, "r");
	cr_assert(fp != NULL && fscanf(fp, "%ld", &member) == 1);
	fclose(fp);
	POLL_UNTIL(!alive((pid_t)member));	/* it is not our child */
	cr_assert(eq(int, alive((pid_t)member), 0), "the member ignoring TERM is gone");
	cr_assert(eq(int, key_exists("lockrun:{grp}"), 0));
}

Test(lifetime, timeout_is_reported_even_with_quiet)
{
	struct result r;

	LR(&r, "--redis", fx.url, "-q", "-k", "tq", "--timeout", "200ms", "--", "sleep", "30");
	cr_assert(eq(int, r.status, 124));
	cr_assert(eq(str, r.err, "lockrun: --timeout reached; stopping the command\n"));
}

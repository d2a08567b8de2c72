/* SPDX-License-Identifier: BSD-2-Clause */
/* handshake_test.c -- a run sends AUTH and SELECT in the same write as its
 * acquire, so a password and a database cost no round trip of their own;
 * and when Redis refuses them but runs the acquire all the same (as the
 * "default" user, which needs no password, or in database 0), what the
 * acquire took is given back and the command does not run. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "proxy.h"

TestSuite(handshake, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* A reply to cmd (printf-style) on database db of the suite's server. */
static redisReply *
db_cmd(int db, const char *cmd, const char *arg)
{
	redisContext *c = redis_client(&fx);
	redisReply *r;

	freeReplyObject(redisCommand(c, "SELECT %d", db));
	r = redisCommand(c, cmd, arg);
	redisFree(c);
	cr_assert(r != NULL);
	return r;
}

static int
db_exists(int db, const char *key)
{
	redisReply *r = db_cmd(db, "EXISTS %s", key);
	int n = r->type == REDIS_REPLY_INTEGER ? (int)r->integer : -1;

	freeReplyObject(r);
	return n;
}

/* With the network frozen before Redis could answer anything, AUTH,
 * SELECT and the acquire are all on their way: the bytes held in the relay
 * are exactly those three commands. */
Test(handshake, auth_select_and_acquire_go_in_one_write)
{
	char url[200], evalsha[2048];
	redisContext *mon = monitor_start();
	redisReply *r = rcmd("ACL SETUSER hs on >pw ~lockrun:* +@all");
	struct proxy px;
	long held, want;
	pid_t lr;

	cr_assert(r->type != REDIS_REPLY_ERROR);
	freeReplyObject(r);
	cr_assert(eq(int, proxy_start(&px, fx.port), 0));
	proxy_freeze(&px);
	snprintf(url, sizeof(url), "redis://hs:pw@127.0.0.1:%d/3", px.port);
	lr = LR_START("--redis", url, "-k", "hs1", "--", "true");
	POLL_UNTIL(proxy_pending(&px) > 0);
	held = proxy_pending(&px);
	proxy_thaw(&px);
	cr_assert(eq(long, monitor_until(mon, "^\"EVALSHA\" \"[0-9a-f]{40}\" \"6\" ", 1,
	    evalsha, sizeof(evalsha)), 1));
	redisFree(mon);
	cr_assert(eq(int, lr_wait(lr), 0));
	proxy_cut(&px);
	want = resp_size("\"AUTH\" \"hs\" \"pw\"") + resp_size("\"SELECT\" \"3\"") +
	    resp_size(evalsha);
	cr_assert(eq(long, held, want), "held %ld bytes; AUTH + SELECT + acquire: %ld",
	    held, want);
	cr_assert(eq(int, db_exists(3, "lockrun:{hs1}:last"), 1), "the run used db 3");
}

/* A server whose default user needs no password refuses a wrong one, but
 * runs the acquire queued behind it as "default": the lock it took is
 * released at once, the history says "refused", and the command does not
 * run; exit 69 names the refusal. */
Test(handshake, a_refused_password_leaves_no_lock)
{
	const char *ran = scratch("hs-ran");
	char url[200], script[256];
	struct result r;
	redisReply *ev;

	snprintf(url, sizeof(url), "redis://:wrong@127.0.0.1:%d/3", fx.port);
	snprintf(script, sizeof(script), "echo ran >> %s", ran);
	LR(&r, "--redis", url, "--on-redis-error", "run", "-k", "hs2", "--", "sh", "-c",
	    script);
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(ran), 0), "the command ran");
	cr_assert(strstr(r.err, "authentication refused") != NULL, "stderr: %s", r.err);
	cr_assert(eq(int, db_exists(3, "lockrun:{hs2}"), 0), "the lock was left behind");
	ev = db_cmd(3, "HGET %s event", "lockrun:{hs2}:last");
	cr_assert(ev->type == REDIS_REPLY_STRING && strcmp(ev->str, "refused") == 0,
	    "last event: %s", ev->type == REDIS_REPLY_STRING ? ev->str : "none");
	freeReplyObject(ev);
}

/* A database that does not exist: SELECT is refused and the acquire
 * queued behind it runs in database 0; it is given back there, and the
 * run ends with 78 (a setting to fix). */
Test(handshake, a_refused_select_leaves_no_lock_in_database_0)
{
	const char *ran = scratch("hs-ran3");
	char url[200], script[256];
	struct result r;

	snprintf(url, sizeof(url), "redis://127.0.0.1:%d/99999", fx.port);
	snprintf(script, sizeof(script), "echo ran >> %s", ran);
	LR(&r, "--redis", url, "-k", "hs3", "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 78), "stderr: %s", r.err);
	cr_assert(eq(int, file_lines(ran), 0), "the command ran");
	cr_assert(strstr(r.err, "SELECT 99999 refused") != NULL, "stderr: %s", r.err);
	cr_assert(eq(int, db_exists(0, "lockrun:{hs3}"), 0), "the lock was left behind");
}

/* A skip over a password-protected connection to database 3 sends AUTH,
 * SELECT and the acquire (in one write, as above) and nothing more. */
Test(handshake, a_skip_with_a_password_sends_nothing_more)
{
	char url[200];
	redisContext *mon;
	redisReply *r = rcmd("ACL SETUSER hs4 on >pw ~lockrun:* +@all");
	struct result res;
	char seen[512];

	cr_assert(r->type != REDIS_REPLY_ERROR);
	freeReplyObject(r);
	snprintf(url, sizeof(url), "redis://hs4:pw@127.0.0.1:%d/3", fx.port);
	LR(&res, "--redis", url, "-k", "hs4", "--", "sleep", "0");
	cr_assert(eq(int, res.status, 0), "stderr: %s", res.err);
	freeReplyObject(db_cmd(3, "SET lockrun:{hs4} %s", "held-elsewhere"));
	mon = monitor_start();
	LR(&res, "--redis", url, "-k", "hs4", "-E", "75", "--", "true");
	cr_assert(eq(int, res.status, 75), "stderr: %s", res.err);
	monitor_count(mon, seen, sizeof(seen));
	cr_assert(eq(str, seen, "\"AUTH\"\n\"SELECT\"\n\"EVALSHA\"\n"), "commands: %s", seen);
}

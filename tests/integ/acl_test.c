/* SPDX-License-Identifier: BSD-2-Clause */
/* acl_test.c -- Redis ACL users: a user named in the URL is the user
 * lockrun authenticates as, with or without a password, over TCP or a
 * unix socket; and a user with exactly the permissions lockrun(7)
 * documents can run, skip, check, and read status (every format) and
 * history. */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "crons.h"
#include "harness.h"

TestSuite(acl, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

/* ACL SETUSER, split into words as redis-cli would. */
static void
setuser(const char *words)
{
	redisContext *c = redis_client(&fx);
	char buf[512], *argv[64], *save = NULL;
	redisReply *r;
	int argc = 0;

	snprintf(buf, sizeof(buf), "ACL SETUSER %s", words);
	for (char *w = strtok_r(buf, " ", &save); w && argc < 64; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	r = redisCommandArgv(c, argc, (const char **)argv, NULL);
	cr_assert(r != NULL && r->type != REDIS_REPLY_ERROR, "%s: %s", words,
	    r ? r->str : c->errstr);
	freeReplyObject(r);
	redisFree(c);
}

/* A user named without a password authenticates as that user (a nopass
 * user here), not silently as "default": this user may touch other:* keys
 * only, so lockrun's own keys are refused. */
Test(acl, a_user_without_a_password_is_that_user)
{
	struct result r;
	char url[200];

	setuser("elsewhere on nopass ~other:* +@all");
	snprintf(url, sizeof(url), "redis://elsewhere@127.0.0.1:%d", fx.port);
	LR(&r, "--redis", url, "-k", "acl1", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(strstr(r.err, "lacks a permission") != NULL, "stderr: %s", r.err);
	setuser("mine on nopass ~lockrun:* +@all");
	snprintf(url, sizeof(url), "redis://mine@127.0.0.1:%d", fx.port);
	LR(&r, "--redis", url, "-k", "acl1", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

Test(acl, a_user_who_needs_a_password_and_has_none_is_told_so)
{
	struct result r;
	char url[200];

	setuser("cron on >pw ~lockrun:* +@all");
	snprintf(url, sizeof(url), "redis://cron@127.0.0.1:%d", fx.port);
	LR(&r, "--redis", url, "-k", "acl2", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(eq(str, r.out, ""));
	cr_assert(strstr(r.err, "authentication refused (user cron given without a "
	    "password)") != NULL, "stderr: %s", r.err);
}

Test(acl, a_unix_socket_url_takes_a_user)
{
	struct result r;
	char url[300];

	setuser("sock on >pw ~lockrun:* +@all");
	snprintf(url, sizeof(url), "unix://sock:pw@%s?db=0", fx.sock);
	LR(&r, "--redis", url, "-k", "acl3", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
	snprintf(url, sizeof(url), "unix://sock:bad@%s", fx.sock);
	LR(&r, "--redis", url, "-k", "acl3", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69));
	cr_assert(strstr(r.err, "bad") == NULL, "never print a password: %s", r.err);
}

/* Exactly the permissions of lockrun(7), "Redis permissions": a run, a
 * skip, check, status (prometheus included) and history all work; one
 * fewer and check names it. */
#define RUN_PERMS "+evalsha +eval +get +set +pexpire +del +time +xadd +hset +hmget +hget " \
	"+hincrby"

Test(acl, the_documented_permissions_are_enough)
{
	struct result r;
	char url[200], flat[300];
	redisReply *m;

	setuser("least on >pw ~lockrun:* " RUN_PERMS " +ping +role +type +pttl +hgetall "
	    "+xrevrange +sadd +srem +smembers +exists");
	snprintf(url, sizeof(url), "redis://least:pw@127.0.0.1:%d", fx.port);
	LR(&r, "--redis", url, "-k", "least", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	freeReplyObject(rcmd("SET lockrun:{held} x PX 60000"));
	LR(&r, "--redis", url, "-k", "held", "-E", "75", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 75), "a skip: %s", r.err);
	LR(&r, "check", "--redis", url, "-k", "least", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "types and permissions ok") != NULL, "%s", r.out);
	LR(&r, "status", "--redis", url, "least");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	/* the metrics read the counters hash: no script, no stream read */
	LR(&r, "status", "--redis", url, "--format", "prometheus", "least");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "lockrun_runs_total{task=\"least\"} 1\n") != NULL, "%s", r.out);
	LR(&r, "history", "--redis", url, "least");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, " released ") != NULL, "%s", r.out);
	/* a trigger: its key, and its name in the set a scheduler's look reads */
	LR(&r, "trigger", "-c", write_config("tasks:\n  least:\n    schedule: '0 0 1 1 *'\n"
	    "    command: 'true'\n"), "--redis", url, "least");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{least}:trigger"), 1));
	m = rcmd("SISMEMBER lockrun:triggered least");
	cr_assert(eq(i64, m->integer, 1), "the name is not in the set");
	freeReplyObject(m);
	/* without HINCRBY, which keeps the counters status --format
	 * prometheus prints, check says what is missing rather than "ok" */
	setuser("least -hincrby");
	LR(&r, "check", "--redis", url, "-k", "least", "--", "true");
	cr_assert(eq(int, r.status, 69), "%s", r.out);
	cr_assert(strstr(r.err, "may not run HINCRBY on lockrun:{least}:counts") != NULL,
	    "%s", r.err);
	setuser("least +hincrby");
	/* without the history's XADD the run still runs and releases (the
	 * history is bookkeeping: a user set up before it existed keeps
	 * working), nothing is recorded, and check says why */
	snprintf(flat, sizeof(flat), "least resetpass >pw -xadd");
	setuser(flat);
	freeReplyObject(rcmd("DEL lockrun:{least}:history"));
	LR(&r, "--redis", url, "-k", "least", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
	cr_assert(eq(int, key_exists("lockrun:{least}"), 0), "released");
	cr_assert(eq(int, key_exists("lockrun:{least}:history"), 0), "nothing recorded");
	LR(&r, "check", "--redis", url, "-k", "least", "--", "true");
	cr_assert(eq(int, r.status, 69));
	cr_assert(strstr(r.err, "may not run XADD on lockrun:{least}:history") != NULL,
	    "%s", r.err);
}

/* cron as the documented user (lockrun(7): what cron needs besides): it
 * notes itself among the fleet's schedulers, claims its runs' slots and
 * runs them, saying nothing of a refusal. */
Test(acl, cron_runs_with_the_documented_permissions)
{
	char url[200], body[1024], out[256], err[8192];
	const char *cfg;
	pid_t cron;

	setuser("least on >pw ~lockrun:* " RUN_PERMS " +ping +role +type +pttl +hgetall "
	    "+xrevrange +sadd +srem +smembers +exists +zadd +zremrangebyscore +zrange");
	snprintf(url, sizeof(url), "redis://least:pw@127.0.0.1:%d", fx.port);
	snprintf(out, sizeof(out), "%s", scratch("ran.log"));
	snprintf(body, sizeof(body), "redis:\n  url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "  starting_deadline: 30s\ntasks:\n  least:\n    schedule: '* * * * *'\n"
	    "    command: 'echo ran >> %s'\n", url, out);
	cfg = write_scratch("cron.yaml", body);
	cr_assert(eq(int, chmod(cfg, 0600), 0));	/* it holds a password */
	cron = cron_at(cfg, 1781524800.0 - 2);	/* 2026-06-15 11:59:58 */
	POLL_UNTIL(lines_matching(out, "^ran$") >= 1);
	cron_stop(cron);
	lr_stderr_of(cron, err, sizeof(err));
	cr_assert(eq(int, key_exists("lockrun:schedulers"), 1), "%s", err);
	cr_assert(eq(ptr, strstr(err, "cannot"), NULL), "%s", err);
	cr_assert(eq(ptr, strstr(err, "NOPERM"), NULL), "%s", err);
}

/* The reader account lockrun(7) shows (Trust): status and history read,
 * and pause, trigger and a run are refused by the server, nothing run and
 * nothing written. */
Test(acl, the_documented_reader_reads_and_cannot_write)
{
	struct result r;
	char url[200];
	const char *cfg = write_config("tasks:\n  rd:\n    schedule: '0 0 1 1 *'\n"
	    "    command: 'true'\n");

	snprintf(url, sizeof(url), "redis://127.0.0.1:%d", fx.port);
	LR(&r, "--redis", url, "-k", "rd", "--", "true");	/* a history to read */
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	/* the line as lockrun(7) prints it, with its password */
	setuser("reader on >pw ~lockrun:* resetchannels -@all +@read +@connection -@dangerous "
	    "+time +scan");
	snprintf(url, sizeof(url), "redis://reader:pw@127.0.0.1:%d", fx.port);
	LR(&r, "status", "--redis", url, "rd");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "history", "--redis", url, "rd");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(strstr(r.out, " released ") != NULL, "%s", r.out);

	LR(&r, "pause", "--redis", url, "rd");
	cr_assert(eq(int, r.status, 69), "%s", r.err);
	cr_assert(strstr(r.err, "NOPERM") != NULL || strstr(r.err, "permission") != NULL,
	    "%s", r.err);
	LR(&r, "trigger", "-c", cfg, "--redis", url, "rd");
	cr_assert(eq(int, r.status, 69), "%s", r.err);
	cr_assert(eq(int, key_exists("lockrun:{rd}:trigger"), 0));
	LR(&r, "--redis", url, "-k", "rd", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 69), "%s", r.err);
	cr_assert(eq(str, r.out, ""), "nothing ran");
	cr_assert(eq(int, key_exists("lockrun:{rd}:pause"), 0));
}

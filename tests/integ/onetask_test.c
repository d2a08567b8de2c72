/* SPDX-License-Identifier: BSD-2-Clause */
/* onetask_test.c -- one task's data stays its own (issue 41): a row of
 * one task's grown past what lockrun reads, or one that a constraint or a
 * trigger refuses, fails that task's request alone, with its name and the
 * cause, and not the scheduler's shared session (PostgreSQL, MariaDB:
 * every run's session lock in it) nor, on Redis, what status and cron
 * --listen show of the other tasks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <hiredis/hiredis.h>

#include "backends.h"
#include "crons.h"
#include "http.h"
#include "prom.h"

#define T_1200	1781524800.0	/* 2026-06-15T12:00:00Z */
#define NTASKS	6		/* t00..t05; t05 is the bad one */

TestSuite(one_task, .init = suite_setup, .fini = backends_teardown, .timeout = 200);

/* The tables lockrun writes, created by a first run. */
static void
tables_made(void)
{
	struct result r;

	RUN(&r, "-k", "warmup", "--", "true");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
}

/* What identifies the scheduler's one session on the server, once its runs
 * hold their locks: PostgreSQL's backend pid that holds the session locks,
 * MariaDB's connection id that holds t00's GET_LOCK. Into buf. */
static void
session_of(enum backend b, char *buf, size_t n)
{
	cr_assert(eq(int, sql_admin(&srv, b == BE_PG ? "SELECT string_agg(DISTINCT "
	    "pid::text, ',') FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 "
	    "AND granted" : "SELECT IS_USED_LOCK('lockrun:{t00}')", buf, n), 0));
	buf[strcspn(buf, "\n")] = '\0';
	cr_assert(strlen(buf) > 0 && strspn(buf, "0123456789") == strlen(buf),
	    "one session holds the runs' locks as they run: \"%s\" (was it closed?)", buf);
}

/* 1 when the session of session_of() is still there. */
static int
session_lives(enum backend b, const char *id)
{
	char sql[256], out[64];

	snprintf(sql, sizeof(sql), b == BE_PG ? "SELECT count(*) FROM pg_stat_activity "
	    "WHERE pid = %s" : "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
	    "WHERE ID = %s", id);
	cr_assert(eq(int, sql_admin(&srv, sql, out, sizeof(out)), 0));
	return atoi(out) == 1;
}

/* 1 when no session holds t05's session lock (PostgreSQL: none holds any
 * task's, once every run has ended). */
static int
t05_lock_free(enum backend b)
{
	char out[64];

	cr_assert(eq(int, sql_admin(&srv, b == BE_PG ? "SELECT count(*) FROM pg_locks "
	    "WHERE locktype = 'advisory' AND objsubid = 1 AND granted" :
	    "SELECT IS_USED_LOCK('lockrun:{t05}') IS NOT NULL", out, sizeof(out)), 0));
	return atoi(out) == 0;
}

/* Six tasks under one scheduler, t05's acquire made to fail on the server
 * by bad_sql (its row too large, a constraint, a trigger), or, with
 * t05_runs, the release that ends its run: t00..t04 each
 * hold their lease over several renewals (ttl 9s, a command of 12 s) and
 * end normally, no LOST LOCK, over the session they started on, which
 * ends holding no lock of t05's; t05's line names it and the cause. (Before,
 * the failure closed the shared session: every other run's session lock
 * went with it, LOST LOCK, 143.) With a ttl of 3s, under ASan on CI with
 * other tests beside it, the renewals of all five came too late once,
 * between t05's tries ("no answer"): the test is about whose lease a bad
 * row costs, not about speed. */
static void
one_task_fails(enum backend b, const char *bad_sql, const char *cause, int t05_runs)
{
	char logbuf[256], cmd[1024], err[65536], sess[64], pat[256];
	const char *log;
	pid_t cron;

	use(b);
	tables_made();
	cr_assert(eq(int, sql_admin(&srv, bad_sql, NULL, 0), 0));
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	log = logbuf;
	snprintf(cmd, sizeof(cmd), "echo start %%1$s >> %s; sleep 12; echo end %%1$s >> %s",
	    log, log);
	snprintf(pat, sizeof(pat), "t05.*%s", cause);
	cron = cron_server_at(0, tasks_config(url, NTASKS, "  ttl: 9s\n"
	    "  starting_deadline: 30s\n", cmd), T_1200 - 2, pw_env[0]);
	POLL_UNTIL(lines_matching(log, "^start ") >= NTASKS - 1 + t05_runs);
	session_of(b, sess, sizeof(sess));
	POLL_UNTIL(lines_matching(log, "^end ") >= NTASKS - 1 + t05_runs);
	POLL_UNTIL(stderr_matching(cron, pat) >= 1);
	/* both at once: the session's end (its idle timeout, the ttl, once
	 * the runs are over) would free a lock left held */
	POLL_UNTIL(t05_lock_free(b) && session_lives(b, sess));
	kill(cron, SIGTERM);
	cr_assert(eq(int, lr_wait(cron), 0));
	lr_stderr_of(cron, err, sizeof(err));
	cr_assert(eq(int, lines_matching(log, "^end t0[0-4]$"), NTASKS - 1), "%s\n"
	    "the scheduler said:\n%s", file_peek(log), err);
	cr_assert(eq(int, lines_matching(log, "t05"), 2 * t05_runs), "%s", file_peek(log));
	cr_assert(eq(int, stderr_matching(cron, "LOST LOCK"), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(cron, "t0[0-4].*status[= ]143|exit 143"), 0), "%s", err);
	cr_assert(ge(int, stderr_matching(cron, pat), 1), "%s", err);
}

/* ... t05 never runs. */
static void
one_task_fails_alone(enum backend b, const char *bad_sql, const char *cause)
{
	one_task_fails(b, bad_sql, cause, 0);
}

/* t05's pause row, 20 MB: the answer past the bound is read and dropped. */
Test(one_task, pg_a_20mb_pause_row_fails_that_task_alone)
{
	one_task_fails_alone(BE_PG, "INSERT INTO lockrun_keys (k, v, expires_ms) "
	    "VALUES ('lockrun:{t05}:pause', '1781524000000 0 elsewhere someone ' || "
	    "repeat('x', 20000000), NULL)", "larger than lockrun accepts");
}

/* t05's lock row, 2 MB, in a column widened for it. */
Test(one_task, mysql_a_2mb_lock_row_fails_that_task_alone)
{
	one_task_fails_alone(BE_MYSQL, "ALTER TABLE lockrun_keys MODIFY v LONGBLOB "
	    "NOT NULL; INSERT INTO lockrun_keys (k, v, expires_ms) VALUES "
	    "('lockrun:{t05}', CONCAT('0123456789abcdef 1 elsewhere 1 "
	    "2026-06-15T11:00:00Z ', REPEAT('x', 2000000)), 4102444800000)",
	    "larger than lockrun accepts");
}

/* A trigger of the DBA's that raises on t05's stable row: the acquire
 * fails after it took t05's session lock (a session lock is not undone by
 * the rollback), which is let go, and the session kept. (Before: the
 * session closed, and every run's lock with it.) */
Test(one_task, pg_a_trigger_refusing_one_task_fails_that_task_alone)
{
	one_task_fails_alone(BE_PG, "CREATE FUNCTION not_t05() RETURNS trigger "
	    "LANGUAGE plpgsql AS $$ BEGIN IF NEW.k = 'lockrun:{t05}' THEN "
	    "RAISE EXCEPTION 'this row is refused by a trigger'; END IF; RETURN NEW; END $$; "
	    "CREATE TRIGGER not_t05 BEFORE INSERT OR UPDATE ON lockrun_keys "
	    "FOR EACH ROW EXECUTE FUNCTION not_t05()",
	    "acquire: this row is refused by a trigger");
}

/* A trigger that refuses the delete of t05's live stable row: t05 runs,
 * and its release fails before it lets its session lock go
 * (the rollback does not), which is let go all the same, the session
 * kept. The rows pruned once expired are not refused. (Before: t05's
 * lock stayed held by the session until the session ended.) */
Test(one_task, pg_a_refused_release_frees_that_tasks_lock_alone)
{
	one_task_fails(BE_PG, "CREATE FUNCTION keep_t05() RETURNS trigger "
	    "LANGUAGE plpgsql AS $$ BEGIN IF OLD.k = 'lockrun:{t05}' AND OLD.expires_ms > "
	    "extract(epoch FROM clock_timestamp()) * 1000 THEN "
	    "RAISE EXCEPTION 'this row is kept by a trigger'; END IF; RETURN OLD; END $$; "
	    "CREATE TRIGGER keep_t05 BEFORE DELETE ON lockrun_keys "
	    "FOR EACH ROW EXECUTE FUNCTION keep_t05()",
	    "release: this row is kept by a trigger", 1);
}

/* The same on MariaDB: the release's GET_LOCK is released behind the
 * ROLLBACK. */
Test(one_task, mysql_a_refused_release_frees_that_tasks_lock_alone)
{
	one_task_fails(BE_MYSQL, "DELIMITER //\nCREATE TRIGGER keep_t05 BEFORE DELETE ON "
	    "lockrun_keys FOR EACH ROW IF OLD.k = 'lockrun:{t05}' AND OLD.expires_ms > "
	    "UNIX_TIMESTAMP(NOW(3)) * 1000 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = "
	    "'this row is kept by a trigger'; END IF//\nDELIMITER ;\n",
	    "release: this row is kept by a trigger", 1);
}

/* A CHECK constraint that t05's stable row breaks: the acquire fails after
 * its GET_LOCK, which is released, the transaction rolled back and the
 * session kept. (Before: the session closed, with every run's lock.) */
Test(one_task, mysql_a_constraint_refusing_one_task_fails_that_task_alone)
{
	one_task_fails_alone(BE_MYSQL, "ALTER TABLE lockrun_keys ADD CONSTRAINT not_t05 "
	    "CHECK (k <> 'lockrun:{t05}')", "acquire: CONSTRAINT .not_t05. failed");
}

/* --- Redis: one task's record past the reply bound ---------------------- */

/* Redis: t05's lock holds a 2 MB value (a writer's, or a bug's), past the
 * 1 MiB reply bound. The acquires of one fire time go in one exchange over
 * the scheduler's one connection: a reply past the bound closed it, and
 * the answers after t05's were lost with it. The scripts now return at
 * most 1 KiB of a holder: t05 is skipped as held, named, and every other
 * run starts at its fire time, once, and ends. */
Test(one_task, redis_a_2mb_holder_value_skips_that_task_alone)
{
	char logbuf[256], cmd[1024], err[65536];
	redisContext *c;
	redisReply *r;
	pid_t cron;

	use(BE_REDIS);
	c = redis_client(&fx);
	r = redisCommand(c, "SET lockrun:{t05} %s PX 600000", "0123456789abcdef 1 elsewhere 1 "
	    "2026-06-15T11:00:00Z");
	freeReplyObject(r);
	r = redisCommand(c, "SETRANGE lockrun:{t05} 2000000 x");
	cr_assert(r != NULL && r->type == REDIS_REPLY_INTEGER, "SETRANGE");
	freeReplyObject(r);
	redisFree(c);
	snprintf(logbuf, sizeof(logbuf), "%s", scratch("runs.log"));
	snprintf(cmd, sizeof(cmd), "echo start %%1$s >> %s; sleep 4; echo end %%1$s >> %s",
	    logbuf, logbuf);
	cron = cron_server_at(0, tasks_config(url, NTASKS, "  ttl: 9s\n"
	    "  starting_deadline: 30s\n", cmd), T_1200 - 2, NULL);
	POLL_UNTIL(lines_matching(logbuf, "^end ") >= NTASKS - 1);
	kill(cron, SIGTERM);
	cr_assert(eq(int, lr_wait(cron), 0));
	lr_stderr_of(cron, err, sizeof(err));
	for (int i = 0; i < NTASKS - 1; i++) {
		char pat[32];

		snprintf(pat, sizeof(pat), "^start t0%d$", i);
		cr_assert(eq(int, lines_matching(logbuf, pat), 1), "%s\nthe scheduler said:\n%s",
		    file_peek(logbuf), err);
	}
	cr_assert(eq(int, lines_matching(logbuf, "t05"), 0), "%s", file_peek(logbuf));
	cr_assert(eq(int, stderr_matching(cron, "larger than lockrun accepts"), 0), "%s", err);
	cr_assert(eq(int, stderr_matching(cron, "t0[0-4].*(could not|cannot|no answer|try)"), 0),
	    "one task's value cost the others a try: %s", err);
	cr_assert(ge(int, stderr_matching(cron, "t05.*elsewhere"), 1), "%s", err);
}

#define BODY_MAX (256 * 1024)

/* Three tasks that have run (ok, bad: exit 3) or never will (big), big's
 * last-run record then given a field of 2 MB: past what lockrun reads in
 * one reply (rreader.h, 1 MiB). */
static const char *
big_record_config(void)
{
	const char *cfg = write_config_faked("tasks:\n"
	    "  ok:\n    schedule: '0 12 * * *'\n    command: 'true'\n"
	    "  bad:\n    schedule: '0 12 * * *'\n    command: 'exit 3'\n"
	    "  big:\n    schedule: '0 3 1 1 *'\n    command: 'true'\n");
	static char pad[2 * 1024 * 1024 + 1];
	redisReply *r;

	memset(pad, 'x', sizeof(pad) - 1);
	r = rcmd("HSET lockrun:{big}:last event ran status 0 note %s", pad);
	cr_assert(r != NULL && r->type == REDIS_REPLY_INTEGER, "HSET failed");
	freeReplyObject(r);
	return cfg;
}

/* `lockrun status` shows ok and bad as usual and big as an error, says
 * big's error (its name, the cause) and exits with its status, 69. (Before:
 * the one read of every task broke on big's reply, and status showed
 * nothing and exited 69 for them all.) */
Test(one_task, redis_status_shows_the_others_and_fails_for_the_big_record)
{
	struct result r;
	const char *cfg = big_record_config();

	LR(&r, "-c", cfg, "-t", "ok");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	LR(&r, "-c", cfg, "-t", "bad");
	cr_assert(eq(int, r.status, 3), "%s", r.err);
	LR(&r, "status", "-c", cfg);
	cr_assert(eq(int, r.status, 69), "%s\n%s", r.out, r.err);
	cr_assert(matches(r.out, "(^|\n)ok +free .* 0 "), "%s", r.out);
	cr_assert(matches(r.out, "(^|\n)bad +free .* 3 "), "%s", r.out);
	cr_assert(matches(r.out, "(^|\n)big +error"), "%s", r.out);
	cr_assert(matches(r.err, "status big: .*larger than lockrun accepts"), "%s", r.err);
	LR(&r, "status", "-c", cfg, "--json");
	cr_assert(eq(int, r.status, 69), "%s\n%s", r.out, r.err);
	cr_assert(eq(int, matches(r.out, "\"task\":\"ok\"[^\n]*\"error\""), 0), "%s", r.out);
	cr_assert(matches(r.out, "\"task\":\"big\".*\"error\":\"[^\"]*larger than"), "%s",
	    r.out);
}

/* cron --listen with big's record past the bound: /readyz is 200, the
 * others' metrics are there and big's read error is 1 (before: 503, "not
 * ready", backend_up 0 and no task's metrics). */
Test(one_task, redis_listen_stays_ready_and_shows_the_others)
{
	static struct prom p;
	static char body[BODY_MAX];
	static char buf[3][128];
	static const char *env[6];
	const char *cfg = big_record_config();
	pid_t pid;
	int port;

	faketime_env(env, buf, T_1200 - 2);
	env[4] = NULL;
	pid = LR_START_ENV(env, "cron", "-v", "-c", cfg, "--listen", "127.0.0.1:0");
	port = http_port_of(pid);
	POLL_UNTIL(http_get(port, "/metrics", body, BODY_MAX, NULL, 0) == 200 &&
	    prom_parse(body, &p) == 0 && prom_get(&p, "lockrun_runs_total", "ok") == 1 &&
	    prom_get(&p, "lockrun_failures_total", "bad") == 1);
	cr_assert(eq(int, http_get(port, "/readyz", body, BODY_MAX, NULL, 0), 200), "%s", body);
	cr_assert(eq(int, http_get(port, "/metrics", body, BODY_MAX, NULL, 0), 200));
	prom_check(body, &p);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_scheduler_backend_up", ""), 1.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_last_exit_status", "ok"), 0.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_last_exit_status", "bad"), 3.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_task_read_error", "ok"), 0.0), "%s", body);
	cr_assert(eq(dbl, prom_get(&p, "lockrun_task_read_error", "big"), 1.0), "%s", body);
	cr_assert(eq(int, http_get(port, "/", body, BODY_MAX, NULL, 0), 200));
	cr_assert(strstr(body, "larger than lockrun accepts") != NULL, "%s", body);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* attempt_test.c -- a run's attempts (retries:) on record, on Redis,
 * PostgreSQL and MariaDB: the history entry that ends the run says its
 * last attempt, and the task's retries counter adds the attempts after the
 * first (status --json, its table, Prometheus); through a crontab line
 * (-t) and through a scheduler's leases (tick). A database whose tables
 * an older lockrun created gains the columns at its first release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "json.h"

TestSuite(attempt, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

/* A config with task "flaky" (retries: 2), whose command counts its
 * attempts in a file and fails until the third, and task "once", which
 * has no retries and succeeds. Both every minute. */
static const char *
config(void)
{
	static char cfg[256];
	char counter[256], body[1024];

	snprintf(counter, sizeof(counter), "%s", scratch("attempts"));
	snprintf(body, sizeof(body), "url: '%s'\n"
	    "tasks:\n"
	    "  flaky:\n"
	    "    schedule: '* * * * *'\n"
	    "    retries: 2\n"
	    "    retry_delay: 100ms\n"
	    "    command: 'n=$(cat %s 2>/dev/null || echo 0); n=$((n + 1)); "
	    "echo $n > %s; [ $n -ge 3 ]'\n"
	    "  once:\n"
	    "    schedule: '* * * * *'\n"
	    "    command: [\"true\"]\n", url, counter, counter);
	snprintf(cfg, sizeof(cfg), "%s", write_scratch("attempt.yaml", body));
	return cfg;
}

/* Field name of the newest entry of task's history (`history --json`):
 * its number, or -1 when it is null. Its event must be event. */
static double
newest(const char *cfg, const char *task, const char *event, const char *name)
{
	struct result r;
	struct json *j;
	const struct json *v;
	char err[128], *nl;
	double d = -1;

	lr_run_env(&r, env_with(NULL), (const char *const[]){ "history", "-c", cfg,
	    "--json", "-n", "1", task, NULL });
	cr_assert(eq(int, r.status, 0), "history: %s", r.err);
	if ((nl = strchr(r.out, '\n')) != NULL)
		*nl = '\0';
	j = json_parse(r.out, err, sizeof(err));
	cr_assert(j != NULL, "%s: %s", err, r.out);
	cr_assert(eq(str, (char *)json_str(json_get(j, "event")), (char *)event), "%s",
	    r.out);
	v = json_get(j, name);
	cr_assert(v != NULL, "no %s: %s", name, r.out);
	cr_assert(json_is(v, "null") || json_num(v, &d) == 0, "%s: %s", name, r.out);
	json_free(j);
	return d;
}

/* Counter name of task, as `status --json` shows it (counts.NAME). */
static double
counted(const char *cfg, const char *task, const char *name)
{
	struct result r;
	struct json *j;
	double d = -1;
	char err[128];

	lr_run_env(&r, env_with(NULL), (const char *const[]){ "status", "-c", cfg,
	    "--json", task, NULL });
	cr_assert(eq(int, r.status, 0), "status: %s", r.err);
	j = json_parse(r.out, err, sizeof(err));
	cr_assert(j != NULL, "%s: %s", err, r.out);
	cr_assert(json_num(json_get(json_get(j, "counts"), name), &d) == 0, "%s", r.out);
	json_free(j);
	return d;
}

/* What a run of flaky and one of once (each started by how: "-t" or
 * "tick") left on record. */
static void
runs_on_record(enum backend b, const char *how)
{
	const char *cfg;
	struct result r;

	use(b);
	cfg = config();
	if (strcmp(how, "tick") == 0) {
		lr_run_env(&r, env_with(NULL), (const char *const[]){ "tick", "-c", cfg,
		    NULL });
	} else {
		lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t",
		    "flaky", NULL });
		cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
		lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t",
		    "once", NULL });
	}
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, (char *)file_peek(scratch("attempts")), "3\n"));
	/* the end of each run says its last attempt */
	cr_assert(eq(dbl, newest(cfg, "flaky", "released", "attempt"), 3.0));
	cr_assert(eq(dbl, newest(cfg, "flaky", "released", "status"), 0.0));
	cr_assert(eq(dbl, newest(cfg, "once", "released", "attempt"), 1.0));
	/* the attempts after the first, in the counters */
	cr_assert(eq(dbl, counted(cfg, "flaky", "retries"), 2.0));
	cr_assert(eq(dbl, counted(cfg, "flaky", "runs"), 1.0));
	cr_assert(eq(dbl, counted(cfg, "once", "retries"), 0.0));
	cr_assert(eq(dbl, metric("flaky", "lockrun_retries_total", NULL), 2.0));
	cr_assert(eq(dbl, metric("once", "lockrun_retries_total", NULL), 0.0));
	cr_assert(eq(dbl, metric("flaky", "lockrun_failures_total", NULL), 0.0));
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "status", "-c", cfg, "-l",
	    NULL });
	cr_assert(eq(int, r.status, 0), "status: %s", r.err);
	cr_assert(matches(r.out, " RETRIES +NEXT\n"), "%s", r.out);
	cr_assert(matches(r.out, "\nflaky .* 2 +[^ ]+\n"), "%s", r.out);
	cr_assert(matches(r.out, "\nonce .* 0 +[^ ]+\n"), "%s", r.out);
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "history", "-c", cfg,
	    "-n", "1", "flaky", NULL });
	cr_assert(matches(r.out, "^TIME .* ATTEMPT +HOLDER\n.* released .* 3 +-\n$"), "%s",
	    r.out);
}

Test(attempt, redis_run_records_its_attempt_and_retries)
{
	runs_on_record(BE_REDIS, "-t");
}
Test(attempt, pg_run_records_its_attempt_and_retries)
{
	runs_on_record(BE_PG, "-t");
}
Test(attempt, mysql_run_records_its_attempt_and_retries)
{
	runs_on_record(BE_MYSQL, "-t");
}
Test(attempt, redis_tick_run_over_leases_records_its_attempt)
{
	runs_on_record(BE_REDIS, "tick");
}
Test(attempt, pg_tick_run_over_leases_records_its_attempt)
{
	runs_on_record(BE_PG, "tick");
}
Test(attempt, mysql_tick_run_over_leases_records_its_attempt)
{
	runs_on_record(BE_MYSQL, "tick");
}

/* The tables as lockrun created them before the attempt and the retries
 * counter (main at 8e82ac1), with a run of "flaky" on record. */
static const char old_pg[] =
	"CREATE TABLE lockrun_keys (k text COLLATE \"C\" PRIMARY KEY, v text NOT NULL, "
	"expires_ms bigint, boot varchar(64));\n"
	"CREATE TABLE lockrun_history (id bigint GENERATED BY DEFAULT AS IDENTITY "
	"PRIMARY KEY, k text COLLATE \"C\" NOT NULL, at_ms bigint NOT NULL, "
	"expires_ms bigint NOT NULL, event text, host text, pid text, slot text, "
	"token text, holder text, status text, duration_ms text);\n"
	"CREATE TABLE lockrun_last (k text COLLATE \"C\" PRIMARY KEY, "
	"expires_ms bigint NOT NULL, event text, host text, pid text, slot text, "
	"token text, start_ms text, end_ms text, status text, duration_ms text, "
	"success_ms text);\n"
	"CREATE TABLE lockrun_counts (k text COLLATE \"C\" PRIMARY KEY, "
	"expires_ms bigint NOT NULL, runs bigint NOT NULL, skipped_held bigint NOT NULL, "
	"skipped_slot bigint NOT NULL, failures bigint NOT NULL, lost bigint NOT NULL, "
	"timeouts bigint NOT NULL);\n"
	"INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, token, "
	"status, duration_ms) VALUES ('lockrun:{flaky}:history', 1, 9e15, 'released', "
	"'old', '1', '1', '0', '5');\n"
	"INSERT INTO lockrun_counts VALUES ('lockrun:{flaky}:counts', 9e15, 1, 0, 0, 0, "
	"0, 0);\n";
static const char old_mysql[] =
	"CREATE TABLE lockrun_keys (k VARBINARY(400) NOT NULL PRIMARY KEY, "
	"v VARBINARY(1024) NOT NULL, expires_ms BIGINT NULL, boot VARBINARY(64) NULL, "
	"INDEX lockrun_keys_expires (expires_ms)) ENGINE=InnoDB;\n"
	"CREATE TABLE lockrun_history (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT "
	"PRIMARY KEY, k VARBINARY(400) NOT NULL, at_ms BIGINT NOT NULL, "
	"expires_ms BIGINT NOT NULL, event VARBINARY(64) NULL, host VARBINARY(300) NULL, "
	"pid VARBINARY(32) NULL, slot VARBINARY(64) NULL, token VARBINARY(32) NULL, "
	"holder VARBINARY(340) NULL, status VARBINARY(16) NULL, "
	"duration_ms VARBINARY(32) NULL, INDEX lockrun_history_k (k, id), "
	"INDEX lockrun_history_expires (expires_ms)) ENGINE=InnoDB;\n"
	"CREATE TABLE lockrun_last (k VARBINARY(400) NOT NULL PRIMARY KEY, "
	"expires_ms BIGINT NOT NULL, event VARBINARY(64) NULL, host VARBINARY(300) NULL, "
	"pid VARBINARY(32) NULL, slot VARBINARY(64) NULL, token VARBINARY(32) NULL, "
	"start_ms VARBINARY(32) NULL, end_ms VARBINARY(32) NULL, "
	"status VARBINARY(16) NULL, duration_ms VARBINARY(32) NULL, "
	"success_ms VARBINARY(32) NULL, INDEX lockrun_last_expires (expires_ms)) "
	"ENGINE=InnoDB;\n"
	"CREATE TABLE lockrun_counts (k VARBINARY(400) NOT NULL PRIMARY KEY, "
	"expires_ms BIGINT NOT NULL, runs BIGINT NOT NULL, skipped_held BIGINT NOT NULL, "
	"skipped_slot BIGINT NOT NULL, failures BIGINT NOT NULL, lost BIGINT NOT NULL, "
	"timeouts BIGINT NOT NULL, INDEX lockrun_counts_expires (expires_ms)) "
	"ENGINE=InnoDB;\n"
	"INSERT INTO lockrun_history (k, at_ms, expires_ms, event, host, pid, token, "
	"status, duration_ms) VALUES ('lockrun:{flaky}:history', 1, 9000000000000000, "
	"'released', 'old', '1', '1', '0', '5');\n"
	"INSERT INTO lockrun_counts VALUES ('lockrun:{flaky}:counts', 9000000000000000, "
	"1, 0, 0, 0, 0, 0);\n";

/* The new columns there are, as "attempt retries" ("" for none). */
static const char *
new_columns(enum backend b, char *buf, size_t n)
{
	cr_assert(eq(int, sql_user(&srv, b == BE_PG ?
	    "SELECT string_agg(column_name::text, ' ' ORDER BY column_name DESC) FROM "
	    "information_schema.columns WHERE column_name IN ('attempt', 'retries')" :
	    "SELECT COALESCE(GROUP_CONCAT(column_name ORDER BY column_name DESC "
	    "SEPARATOR ' '), '') FROM information_schema.columns WHERE table_schema = "
	    "DATABASE() AND column_name IN ('attempt', 'retries')", buf, n), 0), "%s",
	    sql_last_error());
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* An older lockrun's tables: a run with retries succeeds, and its
 * release adds the columns and records its attempt. Before it, on
 * PostgreSQL, status and history read them as they are, altering
 * nothing: the old entry has no attempt, the old counters no retries
 * (MariaDB's readers add the columns, as they create a missing table). */
static void
upgrades_old_tables(enum backend b)
{
	const char *cfg;
	struct result r;
	char cols[64];

	use(b);
	cr_assert(eq(int, sql_user(&srv, b == BE_PG ? old_pg : old_mysql, NULL, 0), 0),
	    "%s", sql_last_error());
	cfg = config();
	cr_assert(eq(str, (char *)new_columns(b, cols, sizeof(cols)), ""));
	if (b == BE_PG) {
		/* the first release adds them: nothing for check to say */
		lr_run_env(&r, env_with(NULL), (const char *const[]){ "check", "-c", cfg,
		    "-t", "flaky", NULL });
		cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
		cr_assert(eq(dbl, newest(cfg, "flaky", "released", "attempt"), -1.0));
		cr_assert(eq(dbl, counted(cfg, "flaky", "retries"), 0.0));
		cr_assert(eq(dbl, counted(cfg, "flaky", "runs"), 1.0));
		cr_assert(eq(str, (char *)new_columns(b, cols, sizeof(cols)), ""));
	}
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t", "flaky",
	    NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(matches(r.err, "cannot|release") == 0, "%s", r.err);
	cr_assert(eq(str, (char *)new_columns(b, cols, sizeof(cols)), "retries attempt"));
	cr_assert(eq(str, (char *)file_peek(scratch("attempts")), "3\n"));
	cr_assert(eq(dbl, newest(cfg, "flaky", "released", "attempt"), 3.0));
	cr_assert(eq(dbl, counted(cfg, "flaky", "retries"), 2.0));
	cr_assert(eq(dbl, counted(cfg, "flaky", "runs"), 2.0), "the old count kept");
	cr_assert(eq(dbl, metric("flaky", "lockrun_retries_total", NULL), 2.0));
}

Test(attempt, pg_old_tables_gain_the_columns_at_a_release)
{
	upgrades_old_tables(BE_PG);
}
Test(attempt, mysql_old_tables_gain_the_columns_at_a_release)
{
	upgrades_old_tables(BE_MYSQL);
}

/* PostgreSQL, the old tables someone else owns (lockrun may use them, not
 * alter them): check names the columns; once their owner has added
 * them (the ALTERs of the DDL), check is content and a run records its
 * attempt. */
Test(attempt, pg_check_names_the_columns_it_may_not_add)
{
	const char *cfg;
	struct result r;

	use(BE_PG);
	cr_assert(eq(int, sql_admin(&srv, old_pg, NULL, 0), 0), "%s", sql_last_error());
	cr_assert(eq(int, sql_admin(&srv, "GRANT SELECT, INSERT, UPDATE, DELETE ON "
	    "lockrun_keys, lockrun_history, lockrun_last, lockrun_counts TO lockrun", NULL,
	    0), 0), "%s", sql_last_error());
	cfg = config();
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "check", "-c", cfg, "-t",
	    "flaky", NULL });
	cr_assert(eq(int, r.status, 69), "stdout: %s stderr: %s", r.out, r.err);
	cr_assert(matches(r.err, "^lockrun: postgres [^ ]+: table lockrun_history has no "
	    "column attempt\nlockrun: postgres [^ ]+: table lockrun_history has no column "
	    "reason\nlockrun: postgres [^ ]+: table lockrun_last has no column reason\n"
	    "lockrun: postgres [^ ]+: table lockrun_counts has no column retries\n$"),
	    "stderr: %s", r.err);
	/* the owner runs the DDL's ALTERs, and creates the table added since */
	cr_assert(eq(int, sql_admin(&srv, "ALTER TABLE lockrun_history ADD COLUMN IF NOT "
	    "EXISTS attempt text; ALTER TABLE lockrun_counts ADD COLUMN IF NOT EXISTS "
	    "retries bigint NOT NULL DEFAULT 0; ALTER TABLE lockrun_history ADD COLUMN IF "
	    "NOT EXISTS reason text; ALTER TABLE lockrun_last ADD COLUMN IF NOT EXISTS "
	    "reason text; CREATE TABLE lockrun_runs (id bigint GENERATED BY DEFAULT AS "
	    "IDENTITY PRIMARY KEY, k text COLLATE \"C\" NOT NULL, token text NOT NULL, "
	    "failed boolean NOT NULL, header text NOT NULL, output bytea NOT NULL, "
	    "end_ms bigint NOT NULL, expires_ms bigint NOT NULL); GRANT SELECT, INSERT, "
	    "UPDATE, DELETE ON lockrun_runs TO lockrun", NULL, 0), 0), "%s",
	    sql_last_error());
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "check", "-c", cfg, "-t",
	    "flaky", NULL });
	cr_assert(eq(int, r.status, 0), "stdout: %s stderr: %s", r.out, r.err);
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "-t", "flaky",
	    NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(dbl, newest(cfg, "flaky", "released", "attempt"), 3.0));
	cr_assert(eq(dbl, counted(cfg, "flaky", "retries"), 2.0));
}

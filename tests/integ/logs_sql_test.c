/* SPDX-License-Identifier: BSD-2-Clause */
/* logs_sql_test.c -- each run's story (issue 45) on PostgreSQL and
 * MariaDB: the end of its output, its status, its host and the reason
 * lockrun ended it, written into lockrun_runs by the release's own
 * statement and read back with `lockrun logs` from another host, as
 * logs_test.c does on Redis. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "browser.h"
#include "crons.h"
#include "http.h"

TestSuite(logs_sql, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

/* The number of task's stories kept, failed ones or not, as the table
 * holds them. */
static int
rows(const char *task, int failed)
{
	char sql[256], out[64];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM lockrun_runs WHERE k = "
	    "'lockrun:{%s}:runs' AND failed = %s", task, failed ? "true" : "false");
	cr_assert(eq(int, sql_admin(&srv, sql, out, sizeof(out)), 0), "%s",
	    sql_last_error());
	return atoi(out);
}

static void
another_host_sees_the_story(enum backend b)
{
	struct result r;

	use(b);
	RUN(&r, "--host", "web3", "-k", "three", "--", "sh", "-c",
	    "echo one; echo two >&2; echo three; exit 2");
	cr_assert(eq(int, r.status, 2), "stderr: %s", r.err);
	VERB(&r, "logs", "--host", "ops", "three");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, " by web3 ") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "status: 2 (released)\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "--- output ---\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| one\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "err| two\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| three\n") > strstr(r.out, "out| one\n"), "%s", r.out);
}

/* The hooks' lines, each under a line naming its hook, in the order they
 * ran: on_start's with the release, on_failure's added after it. */
static void
hooks_lines(enum backend b)
{
	struct result r;
	const char *cfg;

	use(b);
	cfg = write_scratch("hooked.yaml", "tasks:\n  hooked:\n    command: [sh, -c, "
	    "'echo one; exit 2']\n"
	    "    on_start: [sh, -c, 'echo warming cache; echo cache cold >&2']\n"
	    "    on_failure: [sh, -c, 'echo paging oncall; echo pager down >&2']\n");
	RUN(&r, "-c", cfg, "--host", "web3", "-t", "hooked");
	cr_assert(eq(int, r.status, 2), "stderr: %s", r.err);
	VERB(&r, "logs", "--host", "ops", "hooked");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: -\n--- on_start hook ---\nout| warming cache\n"
	    "err| cache cold\n--- output ---\nout| one\n--- on_failure hook ---\n"
	    "out| paging oncall\nerr| pager down\n") != NULL, "%s", r.out);
}

/* The same under lockrun cron, whose one session carries its runs'
 * releases in batches: on_failure's lines, added after the release, ride
 * the scheduler's connection as a release of event "hook". */
static void
hooks_lines_under_cron(enum backend b)
{
	char body[1024], cmd[128];
	const char *cfg = scratch("hooked-cron.yaml");
	struct result r;
	struct fleet f;
	FILE *fp;
	int kept = 0;

	use(b);
	snprintf(body, sizeof(body), "url: '%s'\ndefaults:\n  clock_tolerance: 0\n"
	    "tasks:\n  hooked:\n    schedule: '0 12 * * *'\n"
	    "    command: [sh, -c, 'echo one; exit 2']\n"
	    "    on_start: [sh, -c, 'echo warming cache']\n"
	    "    on_failure: [sh, -c, 'echo paging oncall; echo pager down >&2']\n", url);
	fp = fopen(cfg, "w");
	cr_assert(fp != NULL);
	fputs(body, fp);
	fclose(fp);
	cr_assert(eq(int, chmod(cfg, 0600), 0));
	fleet_start(&f, 1, cfg, 1781524800.0 - 2, 1, pw_env);	/* 11:59:58 */
	snprintf(cmd, sizeof(cmd), "--- on_failure hook ---");
	POLL_UNTIL((VERB(&r, "logs", "-c", cfg, "hooked"), r.status == 0 &&
	    (kept = strstr(r.out, cmd) != NULL)));
	fleet_stop(&f);
	cr_assert(kept, "the hook's lines were not added: %s%s", r.out, r.err);
	cr_assert(strstr(r.out, "--- on_start hook ---\nout| warming cache\n"
	    "--- output ---\nout| one\n--- on_failure hook ---\n"
	    "out| paging oncall\nerr| pager down\n") != NULL, "%s", r.out);
}

Test(logs_sql, pg_the_hooks_lines_are_kept_under_cron_too)
{
	hooks_lines_under_cron(BE_PG);
}

Test(logs_sql, mysql_the_hooks_lines_are_kept_under_cron_too)
{
	hooks_lines_under_cron(BE_MYSQL);
}

Test(logs_sql, pg_the_hooks_lines_are_kept_under_their_names)
{
	hooks_lines(BE_PG);
}

Test(logs_sql, mysql_the_hooks_lines_are_kept_under_their_names)
{
	hooks_lines(BE_MYSQL);
}

Test(logs_sql, pg_another_host_sees_the_lines_the_status_and_the_host)
{
	another_host_sees_the_story(BE_PG);
}

Test(logs_sql, mysql_another_host_sees_the_lines_the_status_and_the_host)
{
	another_host_sees_the_story(BE_MYSQL);
}

/* 30 runs, every third failing, keep_runs 5: the release that adds a
 * story drops the oldest of its kind past the number kept. */
static void
thirty_runs(enum backend b)
{
	struct result r;
	int lines = 0;

	use(b);
	for (int i = 0; i < 30; i++) {	/* 10 failures */
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "echo run %d; exit %d", i, i % 3 == 0);
		RUN(&r, "--keep-runs", "5", "-k", "many", "--", "sh", "-c", cmd);
		cr_assert(eq(int, r.status, i % 3 == 0), "stderr: %s", r.err);
	}
	cr_assert(eq(int, rows("many", 0), 5));
	cr_assert(eq(int, rows("many", 1), 10));
	VERB(&r, "logs", "--json", "-n", "100", "many");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	for (const char *p = r.out; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	cr_assert(eq(int, lines, 15), "%s", r.out);
	VERB(&r, "logs", "many");
	cr_assert(strstr(r.out, "out| run 29\n") != NULL, "the newest: %s", r.out);
	VERB(&r, "logs", "--failed", "many");
	cr_assert(strstr(r.out, "out| run 27\n") != NULL, "the newest failed: %s", r.out);
}

Test(logs_sql, pg_thirty_runs_keep_five_and_the_failed_ones)
{
	thirty_runs(BE_PG);
}

Test(logs_sql, mysql_thirty_runs_keep_five_and_the_failed_ones)
{
	thirty_runs(BE_MYSQL);
}

static void
keep_output_zero(enum backend b)
{
	struct result r;

	use(b);
	RUN(&r, "--keep-output", "0", "-k", "quiet", "--", "sh", "-c", "echo secret; exit 3");
	cr_assert(eq(int, r.status, 3), "stderr: %s", r.err);
	cr_assert(eq(int, rows("quiet", 0) + rows("quiet", 1), 0));
	VERB(&r, "logs", "quiet");
	cr_assert(eq(int, r.status, 1), "nothing kept: %s%s", r.out, r.err);
}

Test(logs_sql, pg_keep_output_zero_stores_nothing)
{
	keep_output_zero(BE_PG);
}

Test(logs_sql, mysql_keep_output_zero_stores_nothing)
{
	keep_output_zero(BE_MYSQL);
}

/* A timeout: its reason in logs, in history, and under status's table. */
static void
timeout_reason(enum backend b)
{
	struct result r;

	use(b);
	RUN(&r, "--timeout", "100ms", "-k", "slow", "--", "sh", "-c",
	    "echo started; exec sleep 30");
	cr_assert(eq(int, r.status, 124), "stderr: %s", r.err);
	VERB(&r, "logs", "--failed", "slow");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: timeout: stopped after 100ms\n") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| started\n") != NULL, "%s", r.out);
	VERB(&r, "history", "slow");
	cr_assert(strstr(r.out, "timeout: stopped after 100ms") != NULL, "%s", r.out);
	VERB(&r, "status", "slow");
	cr_assert(strstr(r.out, "slow: last run failed: timeout: stopped after 100ms") != NULL,
	    "%s", r.out);
}

Test(logs_sql, pg_a_timeout_is_the_reason_in_logs_and_status)
{
	timeout_reason(BE_PG);
}

Test(logs_sql, mysql_a_timeout_is_the_reason_in_logs_and_status)
{
	timeout_reason(BE_MYSQL);
}

/* A command gone between the check and the exec: its reason in logs and
 * history. */
static void
command_not_found(enum backend b)
{
	const char *cmd = write_scratch("gone.sh", "#!/bin/sh\necho never\n");
	char body[1024];
	struct result r;

	use(b);
	chmod(cmd, 0755);
	snprintf(body, sizeof(body), "tasks:\n  gone:\n    command: [%s]\n"
	    "    on_start: [rm, -f, %s]\n", cmd, cmd);
	RUN(&r, "-c", write_scratch("gone.yaml", body), "-t", "gone");
	cr_assert(eq(int, r.status, 127), "stderr: %s", r.err);
	VERB(&r, "logs", "gone");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: command not found: ") != NULL, "%s", r.out);
	VERB(&r, "history", "--json", "gone");
	cr_assert(strstr(r.out, "\"reason\":\"command not found: ") != NULL, "%s", r.out);
}

Test(logs_sql, pg_command_not_found_is_the_reason_in_logs_and_history)
{
	command_not_found(BE_PG);
}

Test(logs_sql, mysql_command_not_found_is_the_reason_in_logs_and_history)
{
	command_not_found(BE_MYSQL);
}

/* Another holder's value in the run's row: its next keep-alive finds the
 * lock lost and stops the command; the story says so, and so does the
 * history's entry for the loss. */
static void
lost_lock(enum backend b)
{
	struct result r;
	pid_t holder;
	struct gate g;

	use(b);
	gate_open(&g, "");
	holder = START("-k", "lost", "--ttl", "3s", "--", "sh", "-c",
	    gate_sh_then(&g, "echo started; ", "exec sleep 1000"));
	gate_wait(&g);
	cr_assert(eq(int, sql_admin(&srv, "UPDATE lockrun_keys SET v = "
	    "'ffffffffffffffffffffffffffffffff 9 thief 77 x' WHERE k = 'lockrun:{lost}'",
	    NULL, 0), 0), "%s", sql_last_error());
	POLL_UNTIL(!alive(holder));
	cr_assert(eq(int, lr_wait(holder), 128 + 15), "the command got SIGTERM");
	VERB(&r, "logs", "--failed", "lost");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: lost the lock: ") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "out| started\n") != NULL, "%s", r.out);
	VERB(&r, "history", "--json", "lost");
	cr_assert(strstr(r.out, "\"event\":\"lost\"") != NULL, "%s", r.out);
	cr_assert(strstr(r.out, "\"reason\":\"lost the lock") != NULL, "%s", r.out);
	VERB(&r, "status", "lost");
	cr_assert(strstr(r.out, "lost: last run failed: lost the lock: ") != NULL, "%s", r.out);
}

Test(logs_sql, pg_a_lost_lock_is_the_reason_in_logs_and_history)
{
	lost_lock(BE_PG);
}

Test(logs_sql, mysql_a_lost_lock_is_the_reason_in_logs_and_history)
{
	lost_lock(BE_MYSQL);
}

/* A user that does not exist on this host: the run fails once it holds
 * the lock (78), and the fleet's record says why, as on Redis. */
static void
unknown_user(enum backend b)
{
	const char *cfg;
	struct result r;

	use(b);
	cfg = write_scratch("ghost.yaml", "tasks:\n  ghost:\n    user: no-such-user-xyz\n"
	    "    command: [echo, hi]\n");
	cr_assert(eq(int, chmod(cfg, 0600), 0));
	RUN(&r, "-c", cfg, "-t", "ghost");
	cr_assert(eq(int, r.status, 78), "stderr: %s", r.err);
	cr_assert(strstr(r.err, "user no-such-user-xyz: no such user on this host") != NULL,
	    "%s", r.err);
	VERB(&r, "logs", "ghost");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "reason: user no-such-user-xyz: no such user on this host")
	    != NULL, "%s", r.out);
	VERB(&r, "history", "--json", "ghost");
	cr_assert(strstr(r.out, "\"reason\":\"user no-such-user-xyz: no such user on this "
	    "host\"") != NULL, "%s", r.out);
}

Test(logs_sql, pg_an_unknown_user_is_the_reason_in_logs_and_history)
{
	unknown_user(BE_PG);
}

Test(logs_sql, mysql_an_unknown_user_is_the_reason_in_logs_and_history)
{
	unknown_user(BE_MYSQL);
}

/* Bytes that are not UTF-8 (and a backslash) are stored as they came:
 * PostgreSQL's text would refuse them, and the release with them. */
Test(logs_sql, pg_output_not_utf8_is_kept_as_bytes)
{
	struct result r;

	use(BE_PG);
	RUN(&r, "-k", "bytes", "--", "sh", "-c", "printf 'a\\377b\\\\c\\n'");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	VERB(&r, "logs", "--json", "bytes");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "a\\ufffdb\\\\c") != NULL, "%s", r.out);
}

/* A database an older lockrun set up: no lockrun_runs, no reason columns.
 * The first run's statement finds them missing, adds them and is sent
 * again: its story and its reason are kept. */
static void
older_tables(enum backend b)
{
	struct result r;

	use(b);
	RUN(&r, "-k", "warmup", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, sql_admin(&srv, "DROP TABLE lockrun_runs; "
	    "ALTER TABLE lockrun_last DROP COLUMN reason; "
	    "ALTER TABLE lockrun_history DROP COLUMN reason", NULL, 0), 0), "%s",
	    sql_last_error());
	RUN(&r, "--timeout", "100ms", "-k", "old", "--", "sh", "-c",
	    "echo started; exec sleep 30");
	cr_assert(eq(int, r.status, 124), "stderr: %s", r.err);
	VERB(&r, "logs", "old");
	cr_assert(strstr(r.out, "reason: timeout: stopped after 100ms\n") != NULL, "%s%s",
	    r.out, r.err);
	cr_assert(strstr(r.out, "out| started\n") != NULL, "%s", r.out);
	VERB(&r, "status", "old");
	cr_assert(strstr(r.out, "old: last run failed: timeout: stopped after 100ms") != NULL,
	    "%s", r.out);
}

Test(logs_sql, pg_tables_an_older_lockrun_made_gain_the_stories)
{
	older_tables(BE_PG);
}

Test(logs_sql, mysql_tables_an_older_lockrun_made_gain_the_stories)
{
	older_tables(BE_MYSQL);
}

/* `lockrun check` as a user that may do all a run does to every table but
 * lockrun_runs, which it may only read: check names the stories' table
 * and each privilege it lacks there, on both backends alike. */
static void
check_names_the_stories_table(enum backend b, const char *grants, const char *scheme)
{
	char who[200], want[300];
	struct result r;

	use(b);
	RUN(&r, "-k", "warm", "--", "true");	/* the tables, as lockrun makes them */
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, sql_admin(&srv, grants, NULL, 0), 0), "%s", sql_last_error());
	snprintf(who, sizeof(who), "%s://nostory@127.0.0.1:%d/lockrun", scheme, srv.port);
	lr_run_env(&r, pw_env, (const char *const[]){ "check", "--url", who, "-k", "t",
	    "--", "true", NULL });
	cr_assert(eq(int, r.status, 69), "stdout: %s stderr: %s", r.out, r.err);
	snprintf(want, sizeof(want), "^lockrun: %s [^ ]+: table lockrun_runs: permission "
	    "denied for INSERT\nlockrun: %s [^ ]+: table lockrun_runs: permission denied for "
	    "UPDATE\nlockrun: %s [^ ]+: table lockrun_runs: permission denied for DELETE\n$",
	    scheme, scheme, scheme);
	cr_assert(matches(r.err, want), "stderr: %s", r.err);
}

/* A run's privileges on each of lockrun's tables (MySQL grants them one
 * table at a time), and only SELECT on lockrun_runs. */
#define ALL_ON(t) "GRANT SELECT, INSERT, UPDATE, DELETE ON " t " TO nostory; "
#define RUN_GRANTS(db) ALL_ON(db "lockrun_keys") ALL_ON(db "lockrun_history") \
	ALL_ON(db "lockrun_last") ALL_ON(db "lockrun_counts") \
	"GRANT SELECT ON " db "lockrun_runs TO nostory"

Test(logs_sql, pg_check_names_the_stories_table)
{
	check_names_the_stories_table(BE_PG, "CREATE ROLE nostory LOGIN PASSWORD '"
	    SQL_PASSWORD "'; " RUN_GRANTS(""), "postgres");
}

Test(logs_sql, mysql_check_names_the_stories_table)
{
	check_names_the_stories_table(BE_MYSQL, "CREATE USER nostory IDENTIFIED BY '"
	    SQL_PASSWORD "'; " RUN_GRANTS("lockrun."), "mysql");
}

/* lockrun with keep_output 1001 on task, whose command prints flood's
 * output (to lockrun's stdout, /dev/null here), then 126 lines of 8
 * bytes; its peak RSS in KiB (its command's processes' too). */
static long
flood_peak(const char *task, const char *flood)
{
	char cmd[200], err[2048];
	long kib;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "%sseq 2999875 3000000", flood);
	pid = lr_start_out(env_with(NULL), (const char *const[]){ "--url", url,
	    "--keep-output", "1001", "-k", task, "--", "sh", "-c", cmd, NULL }, "/dev/null");
	cr_assert(eq(int, proc_wait_peak(pid, &kib), 0), "%s", lr_stderr_of(pid, err,
	    sizeof(err)));
	return kib;
}

/* 1 GB, then the 126 lines: the last 1001 bytes hold the last 125 lines
 * whole and the end of the one before, so the row keeps exactly those
 * 125, each with its stream's mark (read with its newlines as spaces: one
 * line from the client); and lockrun's memory is that of a run that
 * prints the 126 lines alone, give or take 2 MiB, as on Redis. */
static void
flood(enum backend b, const char *select)
{
	char sql[300], want[2000] = "", got[2000];
	long quiet, flood;

	use(b);
	quiet = flood_peak("few", "");
	flood = flood_peak("flood", "yes | head -c 1000000000; ");
	cr_log_info("peak RSS: %ld KiB for 1 KB of output, %ld KiB for 1 GB", quiet, flood);
	cr_assert(lt(long, flood, quiet + 2048), "%ld KiB, against %ld", flood, quiet);
	for (long i = 2999876; i <= 3000000; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "1%ld ", i);
	want[strlen(want) - 1] = '\n';
	snprintf(sql, sizeof(sql), "SELECT %s FROM lockrun_runs WHERE k = "
	    "'lockrun:{flood}:runs'", select);
	cr_assert(eq(int, sql_admin(&srv, sql, got, sizeof(got)), 0), "%s", sql_last_error());
	cr_assert(eq(str, got, want));
}

Test(logs_sql, pg_a_flood_keeps_exactly_the_last_bytes_cut_at_a_line)
{
	flood(BE_PG, "rtrim(translate(convert_from(output, 'UTF8'), chr(10), ' '))");
}

Test(logs_sql, mysql_a_flood_keeps_exactly_the_last_bytes_cut_at_a_line)
{
	flood(BE_MYSQL, "RTRIM(REPLACE(output, CHAR(10), ' '))");
}

/* The page test (page_test.c) on a SQL backend: bad's run, by another
 * host, then a scheduler on the same database serving its page; chromium
 * follows the failed run's link to its output, escaped. */
static void
browser_follows_a_failed_link(enum backend b)
{
	char body[2048], ready[256];
	const char *cfg;
	struct result r;
	int port;
	pid_t pid;

	cr_assert(eq(int, fixture_tier("chromium"), 0));
	if (system("command -v chromium >/dev/null 2>&1") != 0)
		cr_skip_test("no chromium (Debian: apt-get install chromium)");
	use(b);
	snprintf(body, sizeof(body), "redis:\n  url: '%s'\n%s", url, PAGE_STORY);
	cfg = write_scratch("page.yaml", body);
	lr_run_env(&r, env_with(NULL), (const char *const[]){ "-c", cfg, "--host", "web3",
	    "-t", "bad", NULL });
	cr_assert(eq(int, r.status, 2), "%s", r.err);
	pid = lr_start_env(env_with(NULL), (const char *const[]){ "cron", "-v", "-c", cfg,
	    "--listen", "127.0.0.1:0", NULL });
	port = http_port_of(pid);
	POLL_UNTIL(http_get(port, "/readyz", ready, sizeof(ready), NULL, 0) == 200);
	browser_follows_a_failed_runs_link(port);
	kill(pid, SIGTERM);
	cr_assert(eq(int, lr_wait(pid), 0));
}

Test(logs_sql, pg_a_browser_follows_a_failed_runs_link_to_its_output_escaped)
{
	browser_follows_a_failed_link(BE_PG);
}

Test(logs_sql, mysql_a_browser_follows_a_failed_runs_link_to_its_output_escaped)
{
	browser_follows_a_failed_link(BE_MYSQL);
}

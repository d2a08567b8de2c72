/* SPDX-License-Identifier: BSD-2-Clause */
/* backends_sql_test.c -- what only the SQL backends (PostgreSQL, MariaDB)
 * have to get right: their client library missing, their URLs and
 * password files, their unix sockets, pruning their tables, their
 * privileges, and a keep-alive answered late. */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"

TestSuite(backends_sql, .init = suite_setup, .fini = backends_teardown, .timeout = 120);

/* A host without the client library: one line naming the Debian package
 * to install, exit 69, and no command run. The fault shim makes dlopen()
 * of that one library fail as the loader does when it is not there. */
static void
missing_library(enum sql_kind k, const char *lib, const char *pkg)
{
	const char *mark = scratch("mark");
	char buf[3][256], missing[64], want[256];
	const char *shim[6] = { 0 };
	struct result r;
	size_t i;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	shim_env(shim, buf, NULL, NULL);
	snprintf(missing, sizeof(missing), "LOCKRUN_SHIM_DLOPEN_MISSING=%s", lib);
	for (i = 0; shim[i] != NULL; i++)
		;
	shim[i] = missing;
	lr_run_env(&r, env_with(shim), (const char *const[]){ "--url", url, "-k", "lib",
	    "--", "touch", mark, NULL });
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	snprintf(want, sizeof(want), "^lockrun: [a-z]+://: cannot load %s \\(Debian: "
	    "apt-get install %s\\): [^\n]*No such file or directory\n$", lib, pkg);
	cr_assert(matches(r.err, want), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command did not run");
}

Test(backends_sql, pg_a_missing_libpq_is_named)
{
	missing_library(SQL_PG, "libpq.so.5", "libpq5");
}
Test(backends_sql, mysql_a_missing_libmariadb_is_named)
{
	missing_library(SQL_MYSQL, "libmariadb.so.3", "libmariadb3");
}

/* A password in a PostgreSQL URL's query (libpq takes password=) is
 * lockrun's, as one before the '@' is: $LOCKRUN_URL does not reach the
 * command with it. */
Test(backends_sql, pg_a_password_in_the_url_query_stays_out_of_the_command)
{
	char var[400];
	const char *env[] = { var, NULL };
	struct result r;

	use(BE_PG);
	snprintf(var, sizeof(var), "LOCKRUN_URL=%s?password=%s", srv.url, SQL_PASSWORD);
	lr_run_env(&r, env, (const char *const[]){ "-k", "pw", "--", "sh", "-c",
	    "env | grep -c " SQL_PASSWORD "; true", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "0\n"), "the command saw it");
}

/* A database URL in the config that cannot be read is a config error at
 * its place, exit 78, and nothing runs: a MySQL one is read with the
 * config, a PostgreSQL one by libpq when the backend is set up. */
Test(backends_sql, a_bad_database_url_in_the_config_is_named_at_its_place)
{
	static const char *const bad[][2] = {
		{ "mysql://u@127.0.0.1:99999/db", "mysql://: port must be a number" },
		{ "postgres://u@[::1/db", "postgres URL: end of string reached" },
	};
	const char *mark = scratch("mark"), *path = scratch("bad.yaml");
	char want[300];
	struct result r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *fp = fopen(path, "w");

		cr_assert(fp != NULL);
		fprintf(fp, "prefix: \"lr:\"\nurl: \"%s\"\n", bad[i][0]);
		fclose(fp);
		lr_run_env(&r, pw_env, (const char *const[]){ "-c", path, "-k", "x", "--",
		    "touch", mark, NULL });
		cr_assert(eq(int, r.status, 78), "%s: stderr: %s", bad[i][0], r.err);
		snprintf(want, sizeof(want), "^lockrun: %s:2:6: url: %s", path, bad[i][1]);
		cr_assert(matches(r.err, want), "stderr: %s", r.err);
		cr_assert(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s",
		    r.err);
		cr_assert(eq(int, access(mark, F_OK), -1), "nothing ran");
	}
}

/* Over the server's unix socket, with the password from --password-file:
 * a run and a skip. */
static void
socket_and_password_file(enum sql_kind k)
{
	const char *pwf = scratch("pw");
	const char *args[] = { "--url", NULL, "--password-file", pwf, "-k", "sock", "-E",
	    "75", "--", "true", NULL };
	struct result r;
	struct gate g;
	FILE *fp;
	pid_t first;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	gate_open(&g, "");
	args[1] = srv.sock_url;
	fp = fopen(pwf, "w");
	cr_assert(fp != NULL);
	fprintf(fp, "%s\n", SQL_PASSWORD);
	fclose(fp);
	cr_assert(eq(int, chmod(pwf, 0600), 0), "lockrun refuses a file others can read");
	first = lr_start_env(NULL, (const char *const[]){ "--url", srv.sock_url,
	    "--password-file", pwf, "-k", "sock", "--", "sh", "-c", gate_sh(&g), NULL });
	gate_wait(&g);
	lr_run_env(&r, NULL, args);
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	gate_release(&g);
	cr_assert(eq(int, lr_wait(first), 0));
	lr_run_env(&r, NULL, args);
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
}

Test(backends_sql, pg_over_the_socket_with_a_password_file)
{
	socket_and_password_file(SQL_PG);
}
Test(backends_sql, mysql_over_the_socket_with_a_password_file)
{
	socket_and_password_file(SQL_MYSQL);
}

/* Rows past their expiry go as a side effect of other runs: a task's
 * history and last-run rows (--history-ttl 1s here) are gone once later
 * runs of another task have pruned them. */
static void
expired_rows_are_pruned(enum sql_kind k)
{
	const char *count =
	    "SELECT (SELECT count(*) FROM lockrun_history WHERE k LIKE '%{old}%') + "
	    "(SELECT count(*) FROM lockrun_last WHERE k LIKE '%{old}%')";
	char out[64];
	struct result r;
	long long guard = 0;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	RUN(&r, "-k", "old", "--history-ttl", "1s", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, sql_admin(&srv, count, out, sizeof(out)), 0));
	cr_assert(eq(int, atoi(out), 3), "ran, released and the last run: %s", out);
	/* bounded poll: runs of another task, until the old rows are gone */
	do {
		RUN(&r, "-k", "new", "--", "true");
		cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
		cr_assert(eq(int, sql_admin(&srv, count, out, sizeof(out)), 0));
	} while (atoi(out) > 0 && poll_tick(&guard));
	cr_assert(eq(int, atoi(out), 0), "left: %s", out);
}

Test(backends_sql, pg_expired_rows_are_pruned) { expired_rows_are_pruned(SQL_PG); }
Test(backends_sql, mysql_expired_rows_are_pruned) { expired_rows_are_pruned(SQL_MYSQL); }

/* `lockrun check` against a MariaDB user that may create the tables but
 * not DELETE from them: the tables are made (as a first run would), and
 * each is named for the missing privilege -- not as missing. */
Test(backends_sql, mysql_check_names_a_missing_privilege_on_each_table)
{
	char limited[200];
	struct result r;

	use(BE_MYSQL);
	cr_assert(eq(int, sql_admin(&srv, "CREATE DATABASE lr_limited; "
	    "CREATE USER 'limited'@'%' IDENTIFIED BY '" SQL_PASSWORD "'; "
	    "GRANT SELECT, INSERT, UPDATE, CREATE ON lr_limited.* TO 'limited'@'%'",
	    NULL, 0), 0));
	snprintf(limited, sizeof(limited), "mysql://limited@127.0.0.1:%d/lr_limited", srv.port);
	lr_run_env(&r, pw_env, (const char *const[]){ "check", "--url", limited, "-k", "t",
	    "--", "true", NULL });
	cr_assert(eq(int, r.status, 69), "stdout: %s stderr: %s", r.out, r.err);
	cr_assert(matches(r.err, "^lockrun: mysql [^ ]+: table lockrun_keys: permission "
	    "denied for DELETE\nlockrun: mysql [^ ]+: table lockrun_history: permission "
	    "denied for DELETE\nlockrun: mysql [^ ]+: table lockrun_last: permission "
	    "denied for DELETE\nlockrun: mysql [^ ]+: table lockrun_counts: permission "
	    "denied for DELETE\nlockrun: mysql [^ ]+: table lockrun_runs: permission "
	    "denied for DELETE\n$"), "stderr: %s", r.err);
}

/*
 * A keep-alive answered late -- its UPDATE waits behind another session's
 * row lock for 5 s, past the 500ms command timeout -- is waited for, not
 * taken for a lost session: closing the connection would end the session
 * and free the lock. The lease (12 s, renewed every 4 s) outlasts the wait
 * however the 5 s fall between renewals, so the job runs to its end.
 * PostgreSQL only: libmariadb reads an answer it has begun (the renewal's
 * first statements answer at once) within its own read timeout, the
 * command timeout in whole seconds, and drops the connection past it.
 */
Test(backends_sql, pg_a_slow_keepalive_is_waited_for)
{
	const char *hold =
	    "BEGIN; SELECT 1 FROM lockrun_keys WHERE k = 'lockrun:{slow}' FOR UPDATE; "
	    "SELECT pg_sleep(5); COMMIT;";
	char err[2048], buf[512];
	struct gate g;
	pid_t holder, locker;
	int st;

	use(BE_PG);
	gate_open(&g, "");
	holder = START("-k", "slow", "--ttl", "12s", "--command-timeout", "500ms",
	    "--kill-after", "1s", "--", "sh", "-c", gate_sh(&g));
	gate_wait(&g);
	if ((locker = fork()) == 0)
		_exit(sql_admin(&srv, hold, NULL, 0) == 0 ? 0 : 1);
	cr_assert(locker > 0);
	POLL_UNTIL(strstr(lr_stderr_of(holder, err, sizeof(err)), "renew-slow") != NULL ||
	    strstr(err, "no answer within") != NULL);
	cr_assert(strstr(err, "no answer within 500ms; waiting for it while the lease "
	    "lasts") != NULL, "stderr: %s", err);
	cr_assert(eq(int, waitpid(locker, &st, 0), locker));
	cr_assert(eq(int, st, 0), "the row lock was held and let go");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(holder), 0), "stderr: %s",
	    lr_stderr_of(holder, err, sizeof(err)));
	cr_assert(strstr(err, "LOST LOCK") == NULL, "stderr: %s", err);
	cr_assert(eq(str, (char *)events("slow", buf, sizeof(buf)), "released ran"));
}

/* The reader's account lockrun(7) shows (Trust): SELECT on lockrun's
 * tables, made by a first run, is enough for status and history, and
 * the server refuses it a run and (PostgreSQL) a pause. The grants are the manual's. */
static void
a_read_only_account_reads_but_cannot_write(enum sql_kind k)
{
	static const char *pg_grant = "CREATE ROLE reader LOGIN PASSWORD '" SQL_PASSWORD
	    "'; GRANT SELECT ON lockrun_keys, lockrun_history, lockrun_last, "
	    "lockrun_counts TO reader";
	static const char *my_grant = "CREATE USER 'reader'@'%' IDENTIFIED BY '"
	    SQL_PASSWORD "'; GRANT SELECT ON lockrun.* TO 'reader'@'%'";
	const char *mark = scratch("ro.ran");
	char reader[300];
	struct result r;

	use(k == SQL_PG ? BE_PG : BE_MYSQL);
	RUN(&r, "-k", "ro", "--", "true");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(int, sql_admin(&srv, k == SQL_PG ? pg_grant : my_grant, NULL, 0), 0),
	    "%s", sql_last_error());
	snprintf(reader, sizeof(reader), "%s://reader@127.0.0.1:%d/lockrun",
	    k == SQL_PG ? "postgres" : "mysql", srv.port);

	lr_run_env(&r, pw_env, (const char *const[]){ "status", "--json", "--url",
	    reader, "ro", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "\"event\":\"released\"") != NULL, "%s", r.out);
	lr_run_env(&r, pw_env, (const char *const[]){ "history", "--url", reader, "ro",
	    NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "released") != NULL, "%s", r.out);

	if (k == SQL_PG) {	/* MySQL keeps no pauses */
		lr_run_env(&r, pw_env, (const char *const[]){ "pause", "--url", reader,
		    "ro", NULL });
		cr_assert(ne(int, r.status, 0), "a reader paused ro: %s", r.out);
		cr_assert(matches(r.err, "denied"), "stderr: %s", r.err);
	}
	lr_run_env(&r, pw_env, (const char *const[]){ "--url", reader, "-k", "ro", "--",
	    "touch", mark, NULL });
	cr_assert(ne(int, r.status, 0), "a reader ran ro");
	cr_assert(matches(r.err, "denied"), "stderr: %s", r.err);
	cr_assert(eq(int, access(mark, F_OK), -1), "the command did not run");
	VERB(&r, "status", "--json", "ro");
	cr_assert(strstr(r.out, "\"paused\":true") == NULL, "%s", r.out);
}

Test(backends_sql, pg_a_read_only_account_reads_but_cannot_write)
{
	a_read_only_account_reads_but_cannot_write(SQL_PG);
}
Test(backends_sql, mysql_a_read_only_account_reads_but_cannot_write)
{
	a_read_only_account_reads_but_cannot_write(SQL_MYSQL);
}

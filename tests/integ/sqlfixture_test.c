/* SPDX-License-Identifier: BSD-2-Clause */
/* sqlfixture_test.c -- the SQL fixtures themselves: a PostgreSQL and a
 * MariaDB server each start unprivileged, let user lockrun in with its
 * password only, over TCP and the socket, keep its data across a real
 * restart, and stop without a trace. */
#include <sys/stat.h>

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "redis_fixture.h"
#include "sql_fixture.h"

static struct sql_server srv;
static char out[4096];

typedef int client_fn(const struct sql_server *, const char *, char *, size_t);

static void
teardown(void)
{
	sql_stop(&srv);
}

/* Each test starts its server itself, so a failed start is a failed test
 * and .fini still removes its dir. */
TestSuite(sqlfixture, .timeout = 120, .fini = teardown);

/* One test for each kind of server: pg_NAME and mysql_NAME run NAME(). */
#define BOTH(name)							\
	Test(sqlfixture, pg_##name) { name(SQL_PG); }			\
	Test(sqlfixture, mysql_##name) { name(SQL_MYSQL); }

static void
start(enum sql_kind k)
{
	cr_assert(eq(int, sql_start(&srv, k), 0), "%s did not start", sql_name(k));
}

/* The same question in each server's dialect. */
static const char *
pick(enum sql_kind k, const char *pg, const char *my)
{
	return k == SQL_PG ? pg : my;
}

/* What sql gives when run through fn on s, which must succeed; the last
 * newline dropped. */
static const char *
answer(client_fn *fn, const struct sql_server *s, const char *sql)
{
	int st = fn(s, sql, out, sizeof(out));
	size_t len;

	cr_assert(eq(int, st, 0), "\"%s\" exited %d", sql, st);
	if ((len = strlen(out)) > 0 && out[len - 1] == '\n')
		out[len - 1] = '\0';
	return out;
}

/* Both servers refuse root: as root, the server runs as nobody. It
 * listens on loopback only, and has room for racing lockruns. */
static void
starts_unprivileged_with_test_settings(enum sql_kind k)
{
	char proc[64], url[256];
	struct passwd *nobody = getpwnam("nobody");
	struct stat sb;

	start(k);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)srv.pid);
	cr_assert(eq(int, stat(proc, &sb), 0));
	if (geteuid() == 0)
		cr_assert(eq(int, (int)sb.st_uid, nobody ? (int)nobody->pw_uid : 65534));
	else
		cr_assert(eq(int, (int)sb.st_uid, (int)geteuid()));
	cr_assert(eq(str, (char *)answer(sql_admin, &srv, pick(k, "SHOW max_connections",
	    "SELECT @@max_connections")), "200"));
	cr_assert(eq(str, (char *)answer(sql_admin, &srv, pick(k, "SHOW listen_addresses",
	    "SELECT @@bind_address")), "127.0.0.1"));
	snprintf(url, sizeof(url), "%s://lockrun@127.0.0.1:%d/lockrun",
	    pick(k, "postgres", "mysql"), srv.port);
	cr_assert(eq(str, srv.url, url));
	cr_assert(eq(str, srv.password, SQL_PASSWORD));
}
BOTH(starts_unprivileged_with_test_settings)

static void
user_connects_over_tcp(enum sql_kind k)
{
	char want[64];

	start(k);
	snprintf(want, sizeof(want), "%s\tlockrun\t%d", pick(k, "lockrun", "lockrun@%"),
	    srv.port);
	cr_assert(eq(str, (char *)answer(sql_user, &srv, pick(k,
	    "SELECT current_user, current_database(), inet_server_port()",
	    "SELECT CURRENT_USER(), DATABASE(), @@port")), want));
}
BOTH(user_connects_over_tcp)

/* PG: no server port on a unix socket; MariaDB: 'lockrun'@'localhost' is
 * the socket's account (with skip-name-resolve, TCP from 127.0.0.1 is
 * 'lockrun'@'%'). */
static void
user_connects_over_the_socket(enum sql_kind k)
{
	const char *want = pick(k, "lockrun\tlockrun\tt", "lockrun@localhost\tlockrun");
	struct stat sb;

	start(k);
	cr_assert(eq(int, stat(srv.sock, &sb), 0), "%s: %s", srv.sock, strerror(errno));
	cr_assert(eq(int, (int)(sb.st_mode & S_IFMT), S_IFSOCK));
	cr_assert(eq(str, (char *)answer(sql_user_socket, &srv, pick(k,
	    "SELECT current_user, current_database(), inet_server_port() IS NULL",
	    "SELECT CURRENT_USER(), DATABASE()")), (char *)want));
}
BOTH(user_connects_over_the_socket)

/* A wrong or empty password is refused on both ways in, while the right
 * one gets in (so the server was there to refuse). */
static void
wrong_password_is_refused(enum sql_kind k)
{
	struct sql_server bad;

	start(k);
	bad = srv;
	snprintf(bad.password, sizeof(bad.password), "not-" SQL_PASSWORD);
	sql_expect_errors(1);
	cr_assert(sql_user(&bad, "SELECT 1", NULL, 0) > 0);
	cr_assert(sql_user_socket(&bad, "SELECT 1", NULL, 0) > 0);
	bad.password[0] = '\0';
	cr_assert(sql_user(&bad, "SELECT 1", NULL, 0) > 0);
	cr_assert(sql_user_socket(&bad, "SELECT 1", NULL, 0) > 0);
	cr_assert(ne(str, (char *)sql_last_error(), ""), "the client said why");
	sql_expect_errors(0);
	cr_assert(eq(str, (char *)answer(sql_user, &srv, "SELECT 1"), "1"));
	cr_assert(eq(str, (char *)answer(sql_user_socket, &srv, "SELECT 1"), "1"));
}
BOTH(wrong_password_is_refused)

static void
user_creates_inserts_and_selects(enum sql_kind k)
{
	start(k);
	answer(sql_user, &srv, "CREATE TABLE t (k varchar(64) PRIMARY KEY, v int)");
	answer(sql_user, &srv, "INSERT INTO t VALUES ('b', 2), ('a', 1)");
	cr_assert(eq(str, (char *)answer(sql_user, &srv, "SELECT k, v FROM t ORDER BY k"),
	    "a\t1\nb\t2"));
	/* the admin works in the same database */
	cr_assert(eq(str, (char *)answer(sql_admin, &srv, "SELECT count(*) FROM t"), "2"));
}
BOTH(user_creates_inserts_and_selects)

/* lockrun is no superuser: tests of refused rights mean something. */
static void
user_keeps_to_its_database(enum sql_kind k)
{
	start(k);
	sql_expect_errors(1);
	cr_assert(sql_user(&srv, "CREATE DATABASE elsewhere", NULL, 0) > 0);
	cr_assert(sql_user(&srv, pick(k, "CREATE ROLE intruder", "CREATE USER intruder"),
	    NULL, 0) > 0);
	cr_assert(ne(str, (char *)sql_last_error(), ""), "the client said why");
	sql_expect_errors(0);
	/* and holds no server-wide privilege */
	cr_assert(eq(str, (char *)answer(sql_admin, &srv, pick(k,
	    "SELECT rolsuper::text || rolcreatedb::text || rolcreaterole::text "
	    "FROM pg_roles WHERE rolname = 'lockrun'",
	    "SELECT GROUP_CONCAT(DISTINCT Super_priv, Create_user_priv, Grant_priv) "
	    "FROM mysql.user WHERE User = 'lockrun'")), (char *)pick(k, "falsefalsefalse",
	    "NNN")));
}
BOTH(user_keeps_to_its_database)

/* Something only a running server remembers: PG's start time; a MariaDB
 * global variable set at run time (Uptime counts whole seconds). */
static const char *
incarnation(enum sql_kind k, char *buf, size_t n)
{
	if (k == SQL_MYSQL)
		answer(sql_admin, &srv, "SET GLOBAL wait_timeout = 12345");
	snprintf(buf, n, "%s", answer(sql_admin, &srv, pick(k,
	    "SELECT pg_postmaster_start_time()", "SELECT @@GLOBAL.wait_timeout")));
	return buf;
}

static void
restart_restarts_and_keeps_data(enum sql_kind k)
{
	char before[128];
	pid_t old;
	int port;

	start(k);
	answer(sql_user, &srv, "CREATE TABLE kept (v int)");
	answer(sql_user, &srv, "INSERT INTO kept VALUES (42)");
	incarnation(k, before, sizeof(before));
	old = srv.pid;
	port = srv.port;
	cr_assert(eq(int, sql_restart(&srv), 0));
	cr_assert(srv.pid > 0 && srv.pid != old);
	cr_assert(eq(int, kill(old, 0), -1));
	cr_assert(eq(int, srv.port, port));
	cr_assert(ne(str, (char *)answer(sql_admin, &srv, pick(k,
	    "SELECT pg_postmaster_start_time()", "SELECT @@GLOBAL.wait_timeout")), before));
	cr_assert(eq(str, (char *)answer(sql_user, &srv, "SELECT v FROM kept"), "42"));
}
BOTH(restart_restarts_and_keeps_data)

static void
stop_removes_dir_and_process(enum sql_kind k)
{
	struct sql_server was;
	struct stat sb;

	start(k);
	was = srv;
	sql_stop(&srv);
	cr_assert(eq(int, srv.pid, 0));
	cr_assert(eq(int, kill(was.pid, 0), -1));
	cr_assert(eq(int, errno, ESRCH));
	cr_assert(eq(int, stat(was.dir, &sb), -1));
	cr_assert(eq(int, errno, ENOENT));
	/* and nothing answers on its port */
	sql_expect_errors(1);
	cr_assert(sql_user(&was, "SELECT 1", NULL, 0) > 0);
	sql_expect_errors(0);
}
BOTH(stop_removes_dir_and_process)

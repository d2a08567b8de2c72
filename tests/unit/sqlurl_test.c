/* sqlurl_test.c -- MySQL/MariaDB URLs. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sqlurl.h"

static struct lr_sqlurl
parse_ok(const char *url)
{
	struct lr_sqlurl u;
	struct lr_err e = { 0, "", 0 };

	cr_assert(eq(int, sqlurl_parse(url, &u, &e), 0), "%s: %s", url, e.msg);
	return u;
}

static void
parse_bad(const char *url, const char *msg)
{
	struct lr_sqlurl u;
	struct lr_err e = { 0, "", 0 };

	cr_assert(eq(int, sqlurl_parse(url, &u, &e), -1), "%s", url);
	cr_assert(eq(int, e.status, 64));
	cr_assert(eq(str, e.msg, (char *)msg));
}

Test(sqlurl, host_and_database_default_the_port)
{
	struct lr_sqlurl u = parse_ok("mysql://db.internal/jobs");

	cr_assert(eq(str, u.host, "db.internal"));
	cr_assert(eq(int, u.port, 3306));
	cr_assert(eq(int, u.is_unix, 0));
	cr_assert(eq(str, u.database, "jobs"));
	cr_assert(eq(str, u.user, ""));
	cr_assert(eq(str, u.password, ""));
}

Test(sqlurl, user_password_port_percent_decoded)
{
	struct lr_sqlurl u = parse_ok("mariadb://cr%40n:p%3Aw%2Fd@10.0.0.5:3307/my%2Ddb");

	cr_assert(eq(str, u.user, "cr@n"));
	cr_assert(eq(str, u.password, "p:w/d"));
	cr_assert(eq(str, u.host, "10.0.0.5"));
	cr_assert(eq(int, u.port, 3307));
	cr_assert(eq(str, u.database, "my-db"));
}

Test(sqlurl, password_may_hold_an_at_sign)
{
	struct lr_sqlurl u = parse_ok("mysql://cron:a@b@db/jobs");

	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, u.password, "a@b"));
	cr_assert(eq(str, u.host, "db"));
}

Test(sqlurl, ipv6_in_brackets)
{
	struct lr_sqlurl u = parse_ok("mysql://[::1]:3310/jobs");
	char where[300];

	cr_assert(eq(str, u.host, "::1"));
	cr_assert(eq(int, u.port, 3310));
	cr_assert(eq(str, sqlurl_where(&u, "/d", where, sizeof(where)), "[::1]:3310"));
}

Test(sqlurl, localhost_without_port_is_the_default_socket)
{
	struct lr_sqlurl u = parse_ok("mysql://localhost/jobs");
	char where[300];

	cr_assert(eq(int, u.is_unix, 1));
	cr_assert(eq(str, u.socket, ""));
	cr_assert(eq(str, sqlurl_where(&u, "/run/mysqld/mysqld.sock", where,
	    sizeof(where)), "unix:/run/mysqld/mysqld.sock"));
}

Test(sqlurl, localhost_with_port_is_tcp)
{
	struct lr_sqlurl u = parse_ok("mysql://localhost:3306/jobs");
	char where[300];

	cr_assert(eq(int, u.is_unix, 0));
	cr_assert(eq(str, sqlurl_where(&u, "/d", where, sizeof(where)), "localhost:3306"));
}

Test(sqlurl, socket_parameter)
{
	struct lr_sqlurl u = parse_ok("mysql://cron@localhost/jobs?socket=/tmp/my%20db/sock");
	struct lr_sqlurl v = parse_ok("mysql:///jobs?socket=/s");
	char where[300];

	cr_assert(eq(int, u.is_unix, 1));
	cr_assert(eq(str, u.socket, "/tmp/my db/sock"));
	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, sqlurl_where(&u, "/d", where, sizeof(where)),
	    "unix:/tmp/my db/sock"));
	cr_assert(eq(int, v.is_unix, 1));
	cr_assert(eq(str, v.socket, "/s"));
}

Test(sqlurl, refusals_never_show_the_url)
{
	parse_bad("mysql://u:secret@db", "mysql://: no database (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
	parse_bad("mysql://u:secret@db/", "mysql://: no database, or a bad one (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
	parse_bad("mariadb://u:secret@db:0/x", "mariadb://: bad port (expected "
	    "mariadb://[user[:password]@]host[:port]/database[?socket=/path])");
	parse_bad("mysql://u:secret@db:99999/x", "mysql://: bad port (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
	parse_bad("mysql://u:se%2@db/x", "mysql://: bad user or password (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
	parse_bad("mysql://[::1/x", "mysql://: bad host (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
}

Test(sqlurl, parameters_other_than_socket_are_refused)
{
	parse_bad("mysql://db/x?ssl=1", "mysql://: unknown parameter (only socket= is "
	    "known) (expected mysql://[user[:password]@]host[:port]/database"
	    "[?socket=/path])");
	parse_bad("mysql://db/x?socket=rel", "mysql://: bad socket path (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
	parse_bad("mysql://db/x?socket=/s", "mysql://: socket= goes with localhost (or no "
	    "host) and no port (expected mysql://[user[:password]@]host[:port]/database"
	    "[?socket=/path])");
	parse_bad("mysql://localhost:3306/x?socket=/s", "mysql://: socket= goes with "
	    "localhost (or no host) and no port (expected mysql://[user[:password]@]"
	    "host[:port]/database[?socket=/path])");
}

Test(sqlurl, database_may_not_hold_a_slash)
{
	parse_bad("mysql://db/a/b", "mysql://: no database, or a bad one (expected "
	    "mysql://[user[:password]@]host[:port]/database[?socket=/path])");
}

Test(sqlurl, not_a_mysql_url)
{
	parse_bad("postgres://db/x", "not a mysql:// or mariadb:// URL");
}

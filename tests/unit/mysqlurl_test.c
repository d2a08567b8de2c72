/* SPDX-License-Identifier: BSD-2-Clause */
/* mysqlurl_test.c -- MySQL/MariaDB URLs. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/mysql/mysqlurl.h"

static struct lr_mysqlurl
parse_ok(const char *url)
{
	struct lr_mysqlurl u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, mysqlurl_parse(url, &u, &e), 0), "%s: %s", url, e.msg);
	return u;
}

static void
parse_bad(const char *url, const char *msg)
{
	struct lr_mysqlurl u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, mysqlurl_parse(url, &u, &e), -1), "%s", url);
	cr_assert(eq(int, e.status, 64));
	cr_assert(eq(str, e.msg, (char *)msg));
}

Test(mysqlurl, host_and_database_default_the_port)
{
	struct lr_mysqlurl u = parse_ok("mysql://db.internal/jobs");

	cr_assert(eq(str, u.host, "db.internal"));
	cr_assert(eq(int, u.port, 3306));
	cr_assert(eq(int, u.is_unix, 0));
	cr_assert(eq(str, u.database, "jobs"));
	cr_assert(eq(str, u.user, ""));
	cr_assert(eq(str, u.password, ""));
}

Test(mysqlurl, user_password_port_percent_decoded)
{
	struct lr_mysqlurl u = parse_ok("mariadb://cr%40n:p%3Aw%2Fd@10.0.0.5:3307/my%2Ddb");

	cr_assert(eq(str, u.user, "cr@n"));
	cr_assert(eq(str, u.password, "p:w/d"));
	cr_assert(eq(str, u.host, "10.0.0.5"));
	cr_assert(eq(int, u.port, 3307));
	cr_assert(eq(str, u.database, "my-db"));
}

Test(mysqlurl, password_may_hold_an_at_sign)
{
	struct lr_mysqlurl u = parse_ok("mysql://cron:a@b@db/jobs");

	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, u.password, "a@b"));
	cr_assert(eq(str, u.host, "db"));
}

Test(mysqlurl, ipv6_in_brackets)
{
	struct lr_mysqlurl u = parse_ok("mysql://[::1]:3310/jobs");
	char where[300];

	cr_assert(eq(str, u.host, "::1"));
	cr_assert(eq(int, u.port, 3310));
	cr_assert(eq(str, mysqlurl_where(&u, "/d", where, sizeof(where)), "[::1]:3310"));
}

Test(mysqlurl, localhost_without_port_is_the_default_socket)
{
	struct lr_mysqlurl u = parse_ok("mysql://localhost/jobs");
	char where[300];

	cr_assert(eq(int, u.is_unix, 1));
	cr_assert(eq(str, u.socket, ""));
	cr_assert(eq(str, mysqlurl_where(&u, "/run/mysqld/mysqld.sock", where,
	    sizeof(where)), "unix:/run/mysqld/mysqld.sock"));
}

Test(mysqlurl, localhost_with_port_is_tcp)
{
	struct lr_mysqlurl u = parse_ok("mysql://localhost:3306/jobs");
	char where[300];

	cr_assert(eq(int, u.is_unix, 0));
	cr_assert(eq(str, mysqlurl_where(&u, "/d", where, sizeof(where)), "localhost:3306"));
}

Test(mysqlurl, socket_parameter)
{
	struct lr_mysqlurl u = parse_ok("mysql://cron@localhost/jobs?socket=/tmp/my%20db/sock");
	struct lr_mysqlurl v = parse_ok("mysql:///jobs?socket=/s");
	char where[300];

	cr_assert(eq(int, u.is_unix, 1));
	cr_assert(eq(str, u.socket, "/tmp/my db/sock"));
	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, mysqlurl_where(&u, "/d", where, sizeof(where)),
	    "unix:/tmp/my db/sock"));
	cr_assert(eq(int, v.is_unix, 1));
	cr_assert(eq(str, v.socket, "/s"));
}

Test(mysqlurl, refusals_never_show_the_url)
{
	parse_bad("mysql://u:secret@db", "mysql://: no database (expected "
	    "mysql://[user[:password]@]host[:port]/database[?param=value&...])");
	parse_bad("mysql://u:secret@db/", "mysql://: no database, or a bad one (expected "
	    "mysql://[user[:password]@]host[:port]/database[?param=value&...])");
	parse_bad("mariadb://u:secret@db:0/x", "mariadb://: port must be a number from "
	    "1 to 65535 (expected mariadb://[user[:password]@]host[:port]/database[?param=value&...])");
	parse_bad("mysql://u:secret@db:99999/x", "mysql://: port must be a number from "
	    "1 to 65535 (expected mysql://[user[:password]@]host[:port]/database[?param=value&...])");
	parse_bad("mysql://u:se%2@db/x", "mysql://: bad user or password (expected "
	    "mysql://[user[:password]@]host[:port]/database[?param=value&...])");
	parse_bad("mysql://[::1/x", "mysql://: missing ']' after IPv6 address (expected "
	    "mysql://[user[:password]@]host[:port]/database[?param=value&...])");
}

Test(mysqlurl, unknown_parameters_and_bad_socket_paths_are_refused)
{
	parse_bad("mysql://db/x?ssl=1", "mysql://: unknown parameter ssl (known: socket, "
	    "ssl-mode, ssl-ca, ssl-cert, ssl-key) (expected mysql://[user[:password]@]"
	    "host[:port]/database[?param=value&...])");
	parse_bad("mysql://db/x?socket=rel", "mysql://: bad socket path (an absolute one) "
	    "(expected "
	    "mysql://[user[:password]@]host[:port]/database[?param=value&...])");
	parse_bad("mysql://db/x?socket=/s", "mysql://: socket= goes with localhost (or no "
	    "host) and no port (expected mysql://[user[:password]@]host[:port]/database"
	    "[?param=value&...])");
	parse_bad("mysql://localhost:3306/x?socket=/s", "mysql://: socket= goes with "
	    "localhost (or no host) and no port (expected mysql://[user[:password]@]"
	    "host[:port]/database[?param=value&...])");
}

Test(mysqlurl, database_may_not_hold_a_slash)
{
	parse_bad("mysql://db/a/b", "mysql://: no database, or a bad one (expected "
	    "mysql://[user[:password]@]host[:port]/database[?param=value&...])");
}

Test(mysqlurl, not_a_mysql_url)
{
	parse_bad("postgres://db/x", "not a mysql:// or mariadb:// URL");
}

/* The TLS parameters. */

#define EXPECTED " (expected mysql://[user[:password]@]host[:port]/database" \
	"[?param=value&...])"

Test(mysqlurl, no_ssl_mode_leaves_the_librarys_default)
{
	struct lr_mysqlurl u = parse_ok("mysql://db/x");

	cr_assert(eq(int, u.ssl_mode, MYSQLURL_SSL_DEFAULT));
	cr_assert(eq(str, u.ssl_ca, ""));
	cr_assert(eq(str, (char *)mysqlurl_ssl_name(u.ssl_mode), ""));
}

Test(mysqlurl, ssl_mode_names_in_any_case)
{
	static const struct {
		const char *v;
		enum mysqlurl_ssl mode;
	} t[] = {
		{ "DISABLED", MYSQLURL_SSL_DISABLED }, { "preferred", MYSQLURL_SSL_PREFERRED },
		{ "Required", MYSQLURL_SSL_REQUIRED },
		{ "verify_identity", MYSQLURL_SSL_VERIFY_IDENTITY },
	};
	char url[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct lr_mysqlurl u;

		snprintf(url, sizeof(url), "mysql://db/x?ssl-mode=%s", t[i].v);
		u = parse_ok(url);
		cr_assert(eq(int, u.ssl_mode, t[i].mode), "%s", url);
	}
	cr_assert(eq(str, (char *)mysqlurl_ssl_name(MYSQLURL_SSL_VERIFY_CA), "VERIFY_CA"));
}

Test(mysqlurl, ssl_files_with_the_mode_and_the_socket)
{
	struct lr_mysqlurl u = parse_ok("mariadb://cron@db:3307/jobs?ssl-mode=VERIFY_CA&"
	    "ssl-ca=/etc/lockrun/my%20ca.crt&ssl-cert=/etc/c.crt&ssl-key=/etc/c.key");
	struct lr_mysqlurl v = parse_ok("mysql://localhost/x?ssl-mode=REQUIRED&socket=/s");

	cr_assert(eq(int, u.ssl_mode, MYSQLURL_SSL_VERIFY_CA));
	cr_assert(eq(str, u.ssl_ca, "/etc/lockrun/my ca.crt"));
	cr_assert(eq(str, u.ssl_cert, "/etc/c.crt"));
	cr_assert(eq(str, u.ssl_key, "/etc/c.key"));
	cr_assert(eq(int, u.port, 3307));
	cr_assert(eq(int, v.ssl_mode, MYSQLURL_SSL_REQUIRED));
	cr_assert(eq(str, v.socket, "/s"));
	cr_assert(eq(int, v.is_unix, 1));
}

Test(mysqlurl, a_ca_alone_means_verify_ca_a_certificate_alone_required)
{
	struct lr_mysqlurl u = parse_ok("mysql://db/x?ssl-ca=/ca.crt");
	struct lr_mysqlurl v = parse_ok("mysql://db/x?ssl-cert=/both.pem");
	struct lr_mysqlurl w = parse_ok("mysql://db/x?ssl-ca=/ca.crt&ssl-mode=VERIFY_IDENTITY");

	cr_assert(eq(int, u.ssl_mode, MYSQLURL_SSL_VERIFY_CA));
	cr_assert(eq(int, v.ssl_mode, MYSQLURL_SSL_REQUIRED));
	cr_assert(eq(str, v.ssl_key, ""), "the key in the certificate's file");
	cr_assert(eq(int, w.ssl_mode, MYSQLURL_SSL_VERIFY_IDENTITY));
}

Test(mysqlurl, verify_identity_may_use_the_system_cas)
{
	struct lr_mysqlurl u = parse_ok("mysql://db.example/x?ssl-mode=VERIFY_IDENTITY");

	cr_assert(eq(int, u.ssl_mode, MYSQLURL_SSL_VERIFY_IDENTITY));
	cr_assert(eq(str, u.ssl_ca, ""));
}

Test(mysqlurl, bad_ssl_values_are_refused)
{
	parse_bad("mysql://db/x?ssl-mode=on", "mysql://: bad ssl-mode (DISABLED, "
	    "PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY)" EXPECTED);
	parse_bad("mysql://db/x?ssl-mode=", "mysql://: bad ssl-mode (DISABLED, "
	    "PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY)" EXPECTED);
	parse_bad("mysql://db/x?ssl-mode", "mysql://: bad ssl-mode (DISABLED, "
	    "PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY)" EXPECTED);
	parse_bad("mysql://db/x?ssl-ca=ca.crt", "mysql://: bad ssl-ca path (an absolute "
	    "one)" EXPECTED);
	parse_bad("mysql://db/x?ssl-cert=", "mysql://: bad ssl-cert path (an absolute "
	    "one)" EXPECTED);
	parse_bad("mysql://db/x?ssl-cert=/c&ssl-key=%zz", "mysql://: bad ssl-key path (an "
	    "absolute one)" EXPECTED);
}

Test(mysqlurl, ssl_combinations_that_cannot_mean_what_they_say)
{
	parse_bad("mysql://db/x?ssl-mode=VERIFY_CA", "mysql://: ssl-mode=VERIFY_CA needs "
	    "ssl-ca (VERIFY_IDENTITY may go without)" EXPECTED);
	parse_bad("mysql://db/x?ssl-mode=REQUIRED&ssl-ca=/ca", "mysql://: ssl-ca goes with "
	    "ssl-mode=VERIFY_CA or VERIFY_IDENTITY" EXPECTED);
	parse_bad("mysql://db/x?ssl-ca=/ca&ssl-mode=preferred", "mysql://: ssl-ca goes with "
	    "ssl-mode=VERIFY_CA or VERIFY_IDENTITY" EXPECTED);
	parse_bad("mysql://db/x?ssl-mode=DISABLED&ssl-cert=/c", "mysql://: ssl-mode="
	    "DISABLED takes no ssl-ca, ssl-cert or ssl-key" EXPECTED);
	parse_bad("mysql://db/x?ssl-mode=REQUIRED&ssl-key=/k", "mysql://: ssl-key needs "
	    "ssl-cert" EXPECTED);
}

/* A parameter's name is said, unless it does not look like one. */
Test(mysqlurl, unknown_parameters_are_named_secrets_are_not)
{
	parse_bad("mysql://db/x?ssl-mode=REQUIRED&sslmode=require", "mysql://: unknown "
	    "parameter sslmode (known: socket, ssl-mode, ssl-ca, ssl-cert, ssl-key)"
	    EXPECTED);
	parse_bad("mysql://db/x?password=secret", "mysql://: unknown parameter password "
	    "(known: socket, ssl-mode, ssl-ca, ssl-cert, ssl-key)" EXPECTED);
	parse_bad("mysql://db/x?s3cr%21t", "mysql://: an unknown parameter (known: socket, "
	    "ssl-mode, ssl-ca, ssl-cert, ssl-key)" EXPECTED);
	parse_bad("mysql://db/x?&", "mysql://: an unknown parameter (known: socket, "
	    "ssl-mode, ssl-ca, ssl-cert, ssl-key)" EXPECTED);
}

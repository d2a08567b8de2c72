/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_tls_test.c -- mysql:// over TLS against real MariaDB servers with
 * certificates the test makes (tls_make_certs()). A server that refuses
 * TCP without TLS proves a run that works was encrypted; a CA that did not
 * sign the server, a certificate for another host under VERIFY_IDENTITY,
 * and a server without TLS under REQUIRED are refused: exit 69, one line,
 * the command not run. */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "sql_fixture.h"

static struct sql_server srv;
static char certs[128];
static const char *const pw_env[] = { "LOCKRUN_REDIS_PASSWORD=" SQL_PASSWORD, NULL };

/* suite_setup() starts a redis-server the tests do not use: fx.dir is
 * the scratch dir lr_run_env() and scratch() write in. */
static void
setup(void)
{
	suite_setup();
	snprintf(certs, sizeof(certs), "%s", scratch("certs"));
	cr_assert(mkdir(certs, 0700) == 0);
	cr_assert(tls_make_certs(certs) == 0);
}

static void
teardown(void)
{
	sql_stop(&srv);
	suite_teardown();
}

TestSuite(mysql_tls, .init = setup, .fini = teardown, .timeout = 120);

/* srv with TLS: the certificate name ("server", "wrong-host"). */
static void
start_tls(const char *name, int tls_only)
{
	cr_assert(eq(int, mysql_start_tls(&srv, certs, name, tls_only), 0),
	    "mariadb with TLS did not start");
}

/* srv's URL with query q ("" for none), CA file names in q given as
 * "%s/NAME" are under certs. */
static const char *
url_with(const char *q)
{
	static char url[2][768];
	static int next;
	char query[384];
	char *u = url[next++ % 2];

	snprintf(query, sizeof(query), q, certs, certs, certs);
	snprintf(u, sizeof(url[0]), "%s%s%s", srv.url, *query ? "?" : "", query);
	return u;
}

/* lockrun --url URL -k tls -- touch MARK; *ran says whether it ran. */
static void
run_at(struct result *r, const char *url, int *ran)
{
	const char *mark = scratch("mark");

	unlink(mark);
	lr_run_env(r, pw_env, (const char *const[]){ "--url", url, "-k", "tls", "--",
	    "touch", mark, NULL });
	*ran = access(mark, F_OK) == 0;
}

/* A run at url works, and its command ran. */
static void
runs(const char *url)
{
	struct result r;
	int ran;

	run_at(&r, url, &ran);
	cr_assert(eq(int, r.status, 0), "%s: stderr: %s", url, r.err);
	cr_assert(eq(int, ran, 1), "%s: the command ran", url);
}

/* A run at url is refused as the server being unavailable (69), with one
 * line on stderr that matches re, and its command did not run. */
static void
refused(const char *url, const char *re)
{
	char want[512];
	struct result r;
	int ran;

	run_at(&r, url, &ran);
	cr_assert(eq(int, r.status, 69), "%s: stderr: %s", url, r.err);
	/* re's own end ($) is the message's, before where the settings came
	 * from */
	snprintf(want, sizeof(want), "^lockrun: mysql 127\\.0\\.0\\.1:%d: connect: %.*s%s "
	    "\\(URL from --url; password from [^\n]*\\)\n$", srv.port,
	    (int)strlen(re) - (re[strlen(re) - 1] == '$'), re,
	    re[strlen(re) - 1] == '$' ? "" : "[^\n]*");
	cr_assert(matches(r.err, want), "%s: stderr: %s", url, r.err);
	cr_assert(eq(int, ran, 0), "%s: the command did not run", url);
}

/* The server takes TCP with TLS only: a run without ssl-mode (no TLS, as
 * libmariadb 3.3 does by default) is turned away -- MariaDB says "Access
 * denied" to a login in the clear then; with VERIFY_IDENTITY and the CA it
 * runs, and `lockrun check` gets through as well. */
Test(mysql_tls, verify_identity_with_the_ca_runs_where_plain_is_refused)
{
	struct result r;

	start_tls("server", 1);
	refused(url_with(""), "Access denied for user 'lockrun'@'127\\.0\\.0\\.1' "
	    "\\(using password: YES\\)$");
	runs(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/ca.crt"));
	lr_run_env(&r, pw_env, (const char *const[]){ "check", "--url",
	    url_with("ssl-mode=verify_identity&ssl-ca=%s/ca.crt"), "-k", "tls", "--",
	    "true", NULL });
	cr_assert(eq(int, r.status, 0), "stdout: %s stderr: %s", r.out, r.err);
	cr_assert(strstr(r.out, ": reachable\n") != NULL, "%s", r.out);
}

/* The modes below VERIFY_IDENTITY encrypt too: REQUIRED and PREFERRED
 * without a CA, VERIFY_CA (or a CA alone) checking the chain only. On the
 * unix socket, which the server leaves open to logins in the clear,
 * REQUIRED proves TLS itself (lockrun refuses a session without), and the
 * certificate's name, localhost, is the host connected to. */
Test(mysql_tls, required_preferred_and_verify_ca_encrypt)
{
	char url[512];

	start_tls("server", 1);
	runs(url_with("ssl-mode=REQUIRED"));
	runs(url_with("ssl-mode=PREFERRED"));
	runs(url_with("ssl-mode=VERIFY_CA&ssl-ca=%s/ca.crt"));
	runs(url_with("ssl-ca=%s/ca.crt"));
	snprintf(url, sizeof(url), "%s&ssl-mode=REQUIRED", srv.sock_url);
	runs(url);
	snprintf(url, sizeof(url), "%s&ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/ca.crt",
	    srv.sock_url, certs);
	runs(url);
}

/* A CA that did not sign the server's certificate. */
Test(mysql_tls, a_ca_that_did_not_sign_the_server_is_refused)
{
	start_tls("server", 0);
	refused(url_with("ssl-mode=VERIFY_CA&ssl-ca=%s/other-ca.crt"), "TLS/SSL error: "
	    "self-signed certificate in certificate chain$");
	refused(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/other-ca.crt"), "TLS/SSL "
	    "error: self-signed certificate in certificate chain$");
	runs(url_with("ssl-mode=VERIFY_CA&ssl-ca=%s/ca.crt"));
}

/* The server's certificate, signed by the CA, names another host:
 * VERIFY_IDENTITY refuses it, VERIFY_CA does not look at the name. */
Test(mysql_tls, a_certificate_for_another_host_is_refused)
{
	start_tls("wrong-host", 0);
	refused(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/ca.crt"), "TLS/SSL error: "
	    "Validation of SSL server certificate failed$");
	runs(url_with("ssl-mode=VERIFY_CA&ssl-ca=%s/ca.crt"));
}

/* A server without TLS: REQUIRED and the VERIFY modes are refused (the
 * library itself for VERIFY_IDENTITY, lockrun after the login for the
 * others); PREFERRED and no ssl-mode connect in the clear. */
Test(mysql_tls, required_against_a_server_without_tls_is_refused)
{
	cr_assert(eq(int, mysql_start(&srv), 0), "mariadb did not start");
	refused(url_with("ssl-mode=REQUIRED"), "ssl-mode=REQUIRED, but the server offers "
	    "no TLS$");
	refused(url_with("ssl-mode=VERIFY_CA&ssl-ca=%s/ca.crt"), "ssl-mode=VERIFY_CA, but "
	    "the server offers no TLS$");
	refused(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/ca.crt"), "TLS/SSL error: "
	    "SSL is required, but the server does not support it$");
	runs(url_with("ssl-mode=PREFERRED"));
	runs(url_with(""));
}

/* A user that must show a certificate of the CA: ssl-cert and ssl-key
 * give it. */
Test(mysql_tls, a_client_certificate_from_ssl_cert_and_ssl_key)
{
	start_tls("server", 0);
	cr_assert(eq(int, sql_admin(&srv, "ALTER USER 'lockrun'@'%' REQUIRE X509", NULL,
	    0), 0));
	refused(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/ca.crt"),
	    "Access denied for user 'lockrun'");
	runs(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=%s/ca.crt&ssl-cert=%s/client.crt&"
	    "ssl-key=%s/client.key"));
}

/* Settings to fix, said before any server is asked: a CA file lockrun
 * cannot read (78), a mode the mysql client does not know (64). */
Test(mysql_tls, bad_settings_are_named)
{
	struct result r;

	lr_run_env(&r, pw_env, (const char *const[]){ "--url", "mysql://lockrun@127.0.0.1:1/"
	    "lockrun?ssl-ca=/nonexistent/ca.crt", "-k", "tls", "--", "true", NULL });
	cr_assert(eq(int, r.status, 78), "stderr: %s", r.err);
	cr_assert(eq(str, r.err, "lockrun: mysql 127.0.0.1:1: ssl-ca /nonexistent/ca.crt: "
	    "No such file or directory\n"));
	lr_run_env(&r, pw_env, (const char *const[]){ "--url", "mysql://lockrun@127.0.0.1:1/"
	    "lockrun?ssl-mode=on", "-k", "tls", "--", "true", NULL });
	cr_assert(eq(int, r.status, 64), "stderr: %s", r.err);
	cr_assert(matches(r.err, "^lockrun: mysql://: bad ssl-mode \\(DISABLED, PREFERRED, "
	    "REQUIRED, VERIFY_CA or VERIFY_IDENTITY\\) \\(expected [^\n]*\nTry "), "%s",
	    r.err);
}

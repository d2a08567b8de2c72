/* SPDX-License-Identifier: BSD-2-Clause */
/* tls_test.c -- rediss:// against a real redis-server with a TLS port and
 * certificates the test makes: the server is verified by default (a CA
 * that did not sign it, or a name it is not for, is refused with the
 * reason, exit 69, the command not run); tls.insecure turns that off;
 * a server that wants client certificates gets one from tls.cert_file. */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"

static struct redis_fixture tfx;	/* TLS only: clients need no certificate */
static struct redis_fixture mfx;	/* TLS only: clients must show one */
static char certs[128];

static void
tls_setup(void)
{
	suite_setup();
	snprintf(certs, sizeof(certs), "%s", scratch("certs"));
	cr_assert(mkdir(certs, 0700) == 0);
	cr_assert(tls_make_certs(certs) == 0);
	cr_assert(redis_start_tls(&tfx, certs, 0, NULL) == 0);
	cr_assert(redis_start_tls(&mfx, certs, 1, NULL) == 0);
}

static void
tls_teardown(void)
{
	redis_stop(&tfx);
	redis_stop(&mfx);
	suite_teardown();
}

TestSuite(tls, .init = tls_setup, .fini = tls_teardown, .timeout = 60);

/* A config for url with body under redis.tls; returns its path. */
static const char *
tls_config(const char *name, const char *url, const char *tls_body)
{
	const char *path = scratch(name);
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\n  tls:\n%s", url, tls_body);
	fclose(fp);
	return path;
}

/* "    ca_file: DIR/FILE\n" */
static const char *
tls_line(char *buf, size_t n, const char *key, const char *file)
{
	snprintf(buf, n, "    %s: %s/%s\n", key, certs, file);
	return buf;
}

/* Was key set on the TLS server (asked over its unix socket)? */
static int
server_has(const struct redis_fixture *f, const char *key)
{
	redisContext *c = redis_client(f);
	redisReply *r = redisCommand(c, "EXISTS %s", key);
	int has = r && r->type == REDIS_REPLY_INTEGER && r->integer == 1;

	freeReplyObject(r);
	redisFree(c);
	return has;
}

/* The run was refused as Redis being unavailable (69), with one line on
 * stderr that holds reason, and its command did not run. */
static void
refused_for(const struct result *r, const char *reason)
{
	cr_assert(eq(int, r->status, 69), "stderr: %s", r->err);
	cr_assert(eq(str, (char *)r->out, ""), "the command did not run");
	cr_assert(strstr(r->err, reason) != NULL, "stderr: %s", r->err);
	cr_assert(strchr(r->err, '\n') == r->err + strlen(r->err) - 1, "one line: %s",
	    r->err);
}

Test(tls, a_server_signed_by_the_ca_given_is_used)
{
	struct result r;
	char body[400], ca[300];
	const char *cfg;

	snprintf(body, sizeof(body), "%stasks:\n  tls1:\n    command: [echo, ran]\n",
	    tls_line(ca, sizeof(ca), "ca_file", "ca.crt"));
	cfg = tls_config("good.yaml", tfx.url, body);
	LR(&r, "-c", cfg, "-t", "tls1");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
	cr_assert(server_has(&tfx, "lockrun:{tls1}:last"), "the run went to the TLS server");
	LR(&r, "-c", cfg, "status", "tls1");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(strstr(r.out, "tls1") != NULL, "stdout: %s", r.out);
}

Test(tls, a_host_name_is_verified_against_the_certificate)
{
	struct result r;
	char ca[300], url[200];

	snprintf(url, sizeof(url), "rediss://localhost:%d", tfx.port);
	LR(&r, "-c", tls_config("name.yaml", url, tls_line(ca, sizeof(ca), "ca_file",
	    "ca.crt")), "-k", "tls2", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

Test(tls, a_server_signed_by_another_ca_is_refused)
{
	struct result r;
	char ca[300];

	LR(&r, "-c", tls_config("other.yaml", tfx.url, tls_line(ca, sizeof(ca), "ca_file",
	    "other-ca.crt")), "-k", "tls3", "--", "echo", "ran");
	refused_for(&r, "certificate verify failed");
	cr_assert(server_has(&tfx, "lockrun:{tls3}:last") == 0, "no lock, no history");
}

Test(tls, the_system_store_does_not_know_a_private_ca)
{
	struct result r;

	LR(&r, "--redis", tfx.url, "-k", "tls4", "--", "echo", "ran");
	refused_for(&r, "certificate verify failed");
}

Test(tls, a_name_the_certificate_is_not_for_is_refused)
{
	struct result r;
	char body[600], ca[300];

	snprintf(body, sizeof(body), "%s    server_name: elsewhere.invalid\n",
	    tls_line(ca, sizeof(ca), "ca_file", "ca.crt"));
	LR(&r, "-c", tls_config("sni.yaml", tfx.url, body), "-k", "tls5", "--",
	    "echo", "ran");
	refused_for(&r, "hostname mismatch");
}

Test(tls, insecure_turns_verification_off)
{
	struct result r;
	char body[600], ca[300];

	snprintf(body, sizeof(body), "%s    insecure: true\n",
	    tls_line(ca, sizeof(ca), "ca_file", "other-ca.crt"));
	LR(&r, "-c", tls_config("insecure.yaml", tfx.url, body), "-k", "tls6", "--",
	    "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

Test(tls, a_client_certificate_is_shown_when_the_server_wants_one)
{
	struct result r;
	char body[900], a[300], b[300], c[300];

	LR(&r, "-c", tls_config("nocert.yaml", mfx.url, tls_line(a, sizeof(a), "ca_file",
	    "ca.crt")), "-k", "tls7", "--", "echo", "ran");
	refused_for(&r, "redis 127.0.0.1:");
	snprintf(body, sizeof(body), "%s%s%s", tls_line(a, sizeof(a), "ca_file", "ca.crt"),
	    tls_line(b, sizeof(b), "cert_file", "client.crt"),
	    tls_line(c, sizeof(c), "key_file", "client.key"));
	LR(&r, "-c", tls_config("cert.yaml", mfx.url, body), "-k", "tls7", "--",
	    "echo", "ran");
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
	cr_assert(server_has(&mfx, "lockrun:{tls7}:last"));
}

Test(tls, an_unreadable_ca_file_is_a_config_error)
{
	struct result r;
	char ca[300];

	LR(&r, "-c", tls_config("noca.yaml", tfx.url, tls_line(ca, sizeof(ca), "ca_file",
	    "missing.crt")), "-k", "tls8", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 78), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""));
	cr_assert(strstr(r.err, "tls.ca_file ") != NULL &&
	    strstr(r.err, "missing.crt: No such file or directory") != NULL,
	    "names the file and why: %s", r.err);
}

/* insecure: true turns verification off, so a handshake that fails for
 * another reason (here a TLS 1.2 server wants a client certificate and
 * gets none, which fails the handshake itself) is not blamed on a
 * certificate lockrun never checked. */
Test(tls, insecure_does_not_blame_an_unchecked_certificate)
{
	static const char *const v12[] = { "--tls-protocols", "TLSv1.2", NULL };
	struct redis_fixture old;
	struct result r;

	cr_assert(redis_start_tls(&old, certs, 1, v12) == 0);
	LR(&r, "-c", tls_config("insecure-nocert.yaml", old.url, "    insecure: true\n"),
	    "-k", "tls10", "--", "echo", "ran");
	redis_stop(&old);
	refused_for(&r, "TLS handshake");
	cr_assert(strstr(r.err, "certificate verify failed") == NULL, "stderr: %s", r.err);
}

/* OpenSSL's configuration file is not read: a static lockrun must not
 * dlopen the providers or engines it names. This one names a provider
 * that does not exist, which stops TLS altogether where it is read. */
Test(tls, openssl_conf_is_not_read)
{
	struct result r;
	char ca[300], env0[300];
	const char *cnf = scratch("bad-openssl.cnf");
	const char *env[] = { env0, NULL };
	FILE *fp = fopen(cnf, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "openssl_conf = init\n[init]\nproviders = prov\n[prov]\n"
	    "nosuch = nosuch_sect\n[nosuch_sect]\nactivate = 1\n");
	fclose(fp);
	snprintf(env0, sizeof(env0), "OPENSSL_CONF=%s", cnf);
	lr_run_env(&r, env, (const char *const[]){ "-c", tls_config("conf.yaml", tfx.url,
	    tls_line(ca, sizeof(ca), "ca_file", "ca.crt")), "-k", "tls11", "--", "echo",
	    "ran", NULL });
	cr_assert(eq(int, r.status, 0), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, "ran\n"));
}

/* One renewal of lockrun:{KEY}, as MONITOR shows it (lifetime_test.c). */
#define RENEWAL(key) "^\"EVALSHA\" \"[0-9a-f]{40}\" \"5\" \"lockrun:\\{" key "\\}\" "

/* A job with a 1s TTL on the TLS server: it is renewed over TLS (the
 * supervise loop reads the renewals' answers from the TLS session),
 * another run skips meanwhile, and the lock is released at the end. */
Test(tls, a_lock_held_over_tls_is_renewed_and_skips_others)
{
	struct result r;
	char ca[300];
	const char *cfg = tls_config("hold.yaml", tfx.url,
	    tls_line(ca, sizeof(ca), "ca_file", "ca.crt"));
	redisContext *mon = redis_client(&tfx);
	redisReply *ok = redisCommand(mon, "MONITOR");
	pid_t job;
	struct gate g;

	cr_assert(ok != NULL && ok->type == REDIS_REPLY_STATUS);
	freeReplyObject(ok);
	gate_open(&g, "tls-");
	job = LR_START("-c", cfg, "-k", "tls9", "--ttl", "1s", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);		/* the job holds the lock */
	cr_assert(eq(long, monitor_until(mon, RENEWAL("tls9"), 3, NULL, 0), 3),
	    "three renewals over TLS");
	LR(&r, "-c", cfg, "-k", "tls9", "-E", "75", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 75), "stderr: %s", r.err);
	cr_assert(eq(str, r.out, ""));
	gate_release(&g);
	cr_assert(eq(int, lr_wait(job), 0));
	cr_assert(server_has(&tfx, "lockrun:{tls9}") == 0, "released");
	redisFree(mon);
}

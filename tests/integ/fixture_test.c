/* SPDX-License-Identifier: BSD-2-Clause */
/* fixture_test.c -- the fixtures themselves: the test PKI, a TLS server,
 * a replica, a sentinel group and a cluster each start and answer. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "redis_fixture.h"

static char certdir[64];
static struct redis_fixture srv;

/* Run a command; its exit status, its output in out (shared, 4 KiB). */
static char out[4096];
#define RUN(...) fixture_run((const char *const[]){ __VA_ARGS__, NULL }, out, sizeof(out))

/* A path in certdir; each call's buffer lives for the next seven calls. */
static const char *
cert(const char *name)
{
	static char bufs[8][128];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", certdir, name);
	return b;
}

/* Each test starts its fixtures itself, not from .init: Criterion runs
 * .fini only after an .init that passed, and a failed start leaves its
 * dirs (for the logs) for .fini to remove. */
static void
start_certs(void)
{
	cr_assert(eq(int, fixture_tempdir(certdir, sizeof(certdir)), 0));
	cr_assert(eq(int, tls_make_certs(certdir), 0));
}

static void
certs_teardown(void)
{
	redis_stop(&srv);
	fixture_rmdir(certdir);
}

TestSuite(fixture, .timeout = 60);

/* The chain and names are what the TLS tests will rely on. */
Test(fixture, certs_verify_as_intended, .fini = certs_teardown)
{
	start_certs();
	cr_assert(eq(int, RUN("openssl", "verify", "-CAfile", cert("ca.crt"),
	    "-verify_hostname", "localhost", cert("server.crt")), 0), "%s", out);
	cr_assert(eq(int, RUN("openssl", "verify", "-CAfile", cert("ca.crt"),
	    "-verify_ip", "127.0.0.1", cert("server.crt")), 0), "%s", out);
	cr_assert(eq(int, RUN("openssl", "verify", "-CAfile", cert("ca.crt"),
	    "-purpose", "sslclient", cert("client.crt")), 0), "%s", out);
	cr_assert(RUN("openssl", "verify", "-CAfile", cert("other-ca.crt"),
	    cert("server.crt")) != 0, "%s", out);
	cr_assert(RUN("openssl", "verify", "-CAfile", cert("ca.crt"),
	    "-verify_hostname", "localhost", cert("wrong-host.crt")) != 0, "%s", out);
}

/* redis-cli -p PORT --tls PING with these more words (cacert and so on). */
#define TLS_PING(...) RUN("redis-cli", "-h", "127.0.0.1", "-p", port, "--tls", \
	__VA_ARGS__, "PING")

Test(fixture, tls_server_answers_over_tls, .fini = certs_teardown)
{
	char port[16];
	redisContext *c;
	redisReply *r;

	start_certs();
	cr_assert(eq(int, redis_start_tls(&srv, certdir, 0, NULL), 0));
	snprintf(port, sizeof(port), "%d", srv.port);
	cr_assert(eq(int, TLS_PING("--cacert", cert("ca.crt")), 0), "%s", out);
	cr_assert(eq(str, out, "PONG\n"));
	/* another CA's client refuses the server's certificate */
	TLS_PING("--cacert", cert("other-ca.crt"));
	cr_assert(strstr(out, "PONG") == NULL, "%s", out);
	/* the unix socket stays plain */
	c = redis_client(&srv);
	r = redisCommand(c, "PING");
	cr_assert(r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0);
	freeReplyObject(r);
	redisFree(c);
}

Test(fixture, tls_server_can_require_a_client_certificate, .fini = certs_teardown)
{
	char port[16];

	start_certs();
	cr_assert(eq(int, redis_start_tls(&srv, certdir, 1, NULL), 0));
	snprintf(port, sizeof(port), "%d", srv.port);
	TLS_PING("--cacert", cert("ca.crt"));
	cr_assert(strstr(out, "PONG") == NULL, "%s", out);
	cr_assert(eq(int, TLS_PING("--cacert", cert("ca.crt"), "--cert", cert("client.crt"),
	    "--key", cert("client.key")), 0), "%s", out);
	cr_assert(eq(str, out, "PONG\n"));
}

static struct redis_fixture rep;

static void
replica_teardown(void)
{
	redis_stop(&rep);
	redis_stop(&srv);
}

/* r as text ("OK", "(integer) 1", "(nil)", an error's message), in a
 * static buffer; frees r. */
static const char *
text_of(redisReply *r)
{
	static char buf[256];

	if (r == NULL)
		snprintf(buf, sizeof(buf), "(no reply)");
	else if (r->type == REDIS_REPLY_INTEGER)
		snprintf(buf, sizeof(buf), "(integer) %lld", r->integer);
	else if (r->type == REDIS_REPLY_NIL)
		snprintf(buf, sizeof(buf), "(nil)");
	else
		snprintf(buf, sizeof(buf), "%s", r->str ? r->str : "(array)");
	freeReplyObject(r);
	return buf;
}

/* One command on a new connection to f's unix socket, formatted as by
 * redisCommand(); its reply as text_of() gives it. */
static const char *
on(const struct redis_fixture *f, const char *fmt, ...)
{
	redisContext *c = redis_client(f);
	redisReply *r;
	va_list ap;

	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	return text_of(r);
}

Test(fixture, replica_follows_its_master, .fini = replica_teardown)
{
	redisContext *c;
	char role[16];

	cr_assert(eq(int, redis_start(&srv, NULL), 0));
	cr_assert(eq(int, redis_start_replica(&rep, &srv, NULL), 0));
	cr_assert(eq(int, redis_info_field(&rep, "replication", "role", role, sizeof(role)),
	    0));
	cr_assert(eq(str, role, "slave"));
	/* WAIT counts the replicas that have this connection's writes */
	c = redis_client(&srv);
	cr_assert(eq(str, (char *)text_of(redisCommand(c, "SET k v")), "OK"));
	cr_assert(eq(str, (char *)text_of(redisCommand(c, "WAIT 1 10000")), "(integer) 1"));
	redisFree(c);
	cr_assert(eq(str, (char *)on(&rep, "GET k"), "v"));
}

static struct sentinel_group sg;

/* A master, a replica, and three sentinels watching them as "mymaster". */
static void
start_sentinels(void)
{
	cr_assert(eq(int, redis_start(&srv, NULL), 0));
	cr_assert(eq(int, redis_start_replica(&rep, &srv, NULL), 0));
	cr_assert(eq(int, sentinel_start(&sg, "mymaster", &srv, 2), 0));
}

static void
sentinel_teardown(void)
{
	sentinel_stop(&sg);
	replica_teardown();
}

Test(fixture, sentinels_report_the_master, .fini = sentinel_teardown)
{
	char url[256], want[256];

	start_sentinels();
	cr_assert(eq(int, sentinel_master_port(&sg, "mymaster"), srv.port));
	snprintf(want, sizeof(want),
	    "redis+sentinel://127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d/mymaster",
	    sg.node[0].port, sg.node[1].port, sg.node[2].port);
	cr_assert(eq(str, (char *)sentinel_url(&sg, "mymaster", url, sizeof(url)), want));
}

Test(fixture, sentinels_report_a_failover, .fini = sentinel_teardown)
{
	redisContext *c;
	redisReply *r;
	char role[16];

	start_sentinels();
	c = redisConnect("127.0.0.1", sg.node[0].port);
	cr_assert(c && !c->err);
	r = redisCommand(c, "SENTINEL FAILOVER mymaster");
	cr_assert(r && r->type == REDIS_REPLY_STATUS, "%s", r ? r->str : c->errstr);
	freeReplyObject(r);
	redisFree(c);
	cr_assert(eq(int, sentinel_wait_master(&sg, "mymaster", rep.port, 20000), 0));
	cr_assert(eq(int, redis_info_field(&rep, "replication", "role", role, sizeof(role)),
	    0));
	cr_assert(eq(str, role, "master"));
}

static struct cluster_fixture cl;

static void
start_cluster(void)
{
	cr_assert(eq(int, cluster_start(&cl), 0));
}

static void
cluster_teardown(void)
{
	cluster_stop(&cl);
}

/* redis-cli -c follows the cluster's redirections from any node. */
Test(fixture, cluster_takes_a_key_through_redis_cli, .fini = cluster_teardown)
{
	char p0[16], p5[16];

	start_cluster();
	snprintf(p0, sizeof(p0), "%d", cl.node[0].port);
	snprintf(p5, sizeof(p5), "%d", cl.node[5].port);
	/* {a} is in the last third of the slots: not node 0's, as redis-cli
	 * hands them out; node 5 is a replica */
	cr_assert(eq(int, RUN("redis-cli", "-c", "-p", p0, "SET", "{a}k", "v"), 0), "%s", out);
	cr_assert(eq(str, out, "OK\n"));
	cr_assert(eq(int, RUN("redis-cli", "-c", "-p", p5, "GET", "{a}k"), 0), "%s", out);
	cr_assert(eq(str, out, "v\n"));
}

/* {a}, {b} and {c} hash to slots 15495, 3300 and 7365: one on each third
 * of the slots, so each on a master of its own; each of those masters
 * takes its key itself (no MOVED). The other three nodes are replicas. */
Test(fixture, cluster_node_for_key_finds_the_master, .fini = cluster_teardown)
{
	static const char *const keys[] = { "{a}k", "{b}k", "{c}k" };
	int node[3], replicas = 0;
	char role[16];

	start_cluster();
	for (int i = 0; i < 3; i++) {
		node[i] = cluster_node_for_key(&cl, keys[i]);
		cr_assert(node[i] >= 0 && node[i] < CLUSTER_NODES, "%s: %d", keys[i], node[i]);
		cr_assert(eq(str, (char *)on(&cl.node[node[i]], "SET %s v", keys[i]), "OK"),
		    "%s", keys[i]);
	}
	cr_assert(node[0] != node[1] && node[1] != node[2] && node[0] != node[2],
	    "%d %d %d", node[0], node[1], node[2]);
	for (int i = 0; i < CLUSTER_NODES; i++) {
		cr_assert(eq(int, redis_info_field(&cl.node[i], "replication", "role", role,
		    sizeof(role)), 0));
		replicas += strcmp(role, "slave") == 0;
	}
	cr_assert(eq(int, replicas, 3));
}

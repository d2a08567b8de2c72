/* SPDX-License-Identifier: BSD-2-Clause */
/* proxy_test.c -- the fault-injection relay itself, against the suite's
 * redis-server: it relays, a freeze holds the bytes, a cut breaks all. */
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "proxy.h"

static struct proxy px;

static void
setup(void)
{
	suite_setup();
	cr_assert(eq(int, proxy_start(&px, fx.port), 0));
}

static void
teardown(void)
{
	proxy_cut(&px);
	suite_teardown();
}

TestSuite(proxy, .init = setup, .fini = teardown, .timeout = 60);

/* A client of the suite's Redis through the proxy. */
static redisContext *
through(void)
{
	redisContext *c = redisConnect("127.0.0.1", px.port);

	cr_assert(c != NULL && c->err == 0, "connect through the proxy: %s",
	    c ? c->errstr : "no context");
	return c;
}

/* Send PING without waiting for the answer. */
static void
send_ping(redisContext *c)
{
	int done = 0;

	cr_assert(redisAppendCommand(c, "PING") == REDIS_OK);
	while (!done)
		cr_assert(redisBufferWrite(c, &done) == REDIS_OK, "%s", c->errstr);
}

/* Has an answer arrived within ms? A short look for what must NOT come:
 * while the proxy is frozen nothing can, however long one looked. */
static int
answered_within(redisContext *c, int ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	return poll(&pfd, 1, ms) > 0;
}

/* Wait for the answer to a PING; the 30 s only guards against a hang. */
static void
expect_pong(redisContext *c)
{
	struct timeval tv = { 30, 0 };
	redisReply *r = NULL;

	redisSetTimeout(c, tv);
	cr_assert(redisGetReply(c, (void **)&r) == REDIS_OK, "no answer: %s", c->errstr);
	cr_assert(eq(str, r->str, "PONG"));
	freeReplyObject(r);
}

/* Is a client of that name connected to Redis? */
static int
named_client(const char *name)
{
	redisReply *list = rcmd("CLIENT LIST");
	char want[64];
	int found;

	snprintf(want, sizeof(want), "name=%s ", name);
	found = strstr(list->str, want) != NULL;
	freeReplyObject(list);
	return found;
}

Test(proxy, relays_commands_and_large_values_both_ways)
{
	redisContext *c = through();
	static char big[1 << 20];	/* far larger than the relay's buffers */
	redisReply *r;

	r = redisCommand(c, "PING");
	cr_assert(r != NULL);
	cr_assert(eq(str, r->str, "PONG"));
	freeReplyObject(r);
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('a' + i % 26);
	r = redisCommand(c, "SET big %s", big);
	cr_assert(r != NULL);
	cr_assert(eq(str, r->str, "OK"));
	freeReplyObject(r);
	r = redisCommand(c, "GET big");
	cr_assert(r != NULL);
	cr_assert(eq(sz, r->len, sizeof(big) - 1));
	cr_assert(eq(int, memcmp(r->str, big, r->len), 0), "the value came back intact");
	freeReplyObject(r);
	redisFree(c);
}

Test(proxy, a_frozen_proxy_holds_the_bytes_until_thawed)
{
	redisContext *c = through();

	proxy_freeze(&px);
	send_ping(c);
	cr_assert(eq(int, answered_within(c, 300), 0), "answered through a frozen proxy");
	cr_assert(proxy_pending(&px) > 0, "the PING waits in the proxy's socket");
	proxy_thaw(&px);
	expect_pong(c);
	redisFree(c);
}

/* The listening socket's backlog completes connections while the relay
 * is stopped: a client sees a slow server, not a refused connection. */
Test(proxy, a_frozen_proxy_still_accepts_connections)
{
	redisContext *c;

	proxy_freeze(&px);
	c = through();
	send_ping(c);
	cr_assert(eq(int, answered_within(c, 300), 0), "answered through a frozen proxy");
	proxy_thaw(&px);
	expect_pong(c);
	redisFree(c);
}

Test(proxy, a_cut_breaks_connections_and_refuses_new_ones)
{
	redisContext *c = through(), *d;
	redisReply *r = redisCommand(c, "PING");

	cr_assert(r != NULL);
	freeReplyObject(r);
	proxy_freeze(&px);		/* a cut works on a frozen proxy too */
	proxy_cut(&px);
	cr_assert(eq(int, px.pid, 0));
	r = redisCommand(c, "PING");
	cr_assert(r == NULL, "answered through a cut proxy");
	cr_assert(c->err == REDIS_ERR_EOF || c->err == REDIS_ERR_IO,
	    "%d %s", c->err, c->errstr);
	redisFree(c);
	d = redisConnect("127.0.0.1", px.port);
	cr_assert(d != NULL && d->err != 0, "connected to a cut proxy");
	cr_assert(strstr(d->errstr, "Connection refused") != NULL, "%s", d->errstr);
	redisFree(d);
}

/* When one side closes, the relay closes the other: Redis sees its client
 * go, and a client sees Redis drop it. */
Test(proxy, a_close_on_one_side_closes_the_other)
{
	redisContext *c = through();
	redisReply *r = redisCommand(c, "CLIENT SETNAME viaproxy");
	long long id;

	freeReplyObject(r);
	redisFree(c);			/* the client goes... */
	POLL_UNTIL(!named_client("viaproxy"));
	cr_assert(eq(int, named_client("viaproxy"), 0), "Redis still has the proxied "
	    "connection");

	c = through();			/* ...and Redis drops one */
	r = redisCommand(c, "CLIENT ID");
	cr_assert(r != NULL && r->type == REDIS_REPLY_INTEGER);
	id = r->integer;
	freeReplyObject(r);
	freeReplyObject(rcmd("CLIENT KILL ID %lld", id));
	r = redisCommand(c, "PING");
	cr_assert(r == NULL, "answered on a connection Redis closed");
	cr_assert(c->err == REDIS_ERR_EOF || c->err == REDIS_ERR_IO,
	    "%d %s", c->err, c->errstr);
	redisFree(c);
}

Test(proxy, dies_with_the_process_that_started_it)
{
	int fds[2];
	pid_t starter, relay = 0;

	cr_assert(pipe(fds) == 0);
	if ((starter = fork()) == 0) {
		struct proxy q;
		if (proxy_start(&q, fx.port) != 0)
			_exit(1);
		if (write(fds[1], &q.pid, sizeof(q.pid)) != sizeof(q.pid))
			_exit(2);
		_exit(0);		/* without a cut */
	}
	close(fds[1]);
	cr_assert(eq(int, (int)read(fds[0], &relay, sizeof(relay)), (int)sizeof(relay)));
	close(fds[0]);
	cr_assert(eq(int, lr_wait(starter), 0));
	POLL_UNTIL(!alive(relay));
	cr_assert(eq(int, alive(relay), 0), "the relay outlived its parent");
}

/* In a child with a process group of its own, so that a cut which
 * signalled pid 0 (the group) would show as that child's death. */
Test(proxy, cut_of_a_proxy_never_started_is_a_no_op)
{
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		struct proxy none = { 0 };
		setpgid(0, 0);
		proxy_cut(&none);
		_exit(none.pid == 0 ? 0 : 1);
	}
	cr_assert(waitpid(pid, &st, 0) == pid);
	cr_assert(eq(int, st, 0), "the child died or failed: wait status %#x", st);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster_nodes.c -- what the cluster suites share (see cluster_nodes.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "cluster_nodes.h"

struct cluster_fixture cl;

void
cluster_up(void)
{
	cr_assert(eq(int, cluster_start(&cl), 0));
	fx = cl.node[0];
}

void
cluster_down(void)
{
	cluster_stop(&cl);
}

/* One command on node i's unix socket; the caller frees the reply. */
static redisReply *
von(int i, const char *fmt, va_list ap)
{
	redisContext *c = redis_client(&cl.node[i]);
	redisReply *r = redisvCommand(c, fmt, ap);

	redisFree(c);
	cr_assert(r != NULL, "node %d: no reply", i);
	return r;
}

redisReply *
on(int i, const char *fmt, ...)
{
	redisReply *r;
	va_list ap;

	va_start(ap, fmt);
	r = von(i, fmt, ap);
	va_end(ap);
	return r;
}

/* An integer reply of node i, or -1000 for anything else. */
long long
on_int(int i, const char *fmt, const char *arg)
{
	redisReply *r = on(i, fmt, arg);
	long long v = r->type == REDIS_REPLY_INTEGER ? r->integer : -1000;

	freeReplyObject(r);
	return v;
}

/* A status or string reply of node i is want. */
void
on_ok(int i, const char *want, const char *fmt, ...)
{
	redisReply *r;
	va_list ap;

	va_start(ap, fmt);
	r = von(i, fmt, ap);
	va_end(ap);
	cr_assert(r->type != REDIS_REPLY_ERROR && r->str != NULL && strcmp(r->str, want) == 0,
	    "node %d: %s: %s", i, fmt, r->str ? r->str : "?");
	freeReplyObject(r);
}

const char *
port_of(int i)
{
	static char bufs[4][16];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%d", cl.node[i].port);
	return b;
}

/* A cluster URL with node i as the only seed. */
const char *
seed_url(int i)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "redis+cluster://127.0.0.1:%d", cl.node[i].port);
	return buf;
}

/* The node that replicates master m now, or -1. */
int
replica_of(int m)
{
	char role[32], port[16];

	for (int i = 0; i < CLUSTER_NODES; i++)
		if (i != m &&
		    redis_info_field(&cl.node[i], "replication", "role", role, sizeof(role)) == 0 &&
		    strcmp(role, "slave") == 0 &&
		    redis_info_field(&cl.node[i], "replication", "master_port", port,
		    sizeof(port)) == 0 && atoi(port) == cl.node[m].port)
			return i;
	return -1;
}

int
is_master(int i)
{
	char role[32];

	return redis_info_field(&cl.node[i], "replication", "role", role, sizeof(role)) == 0 &&
	    strcmp(role, "master") == 0;
}

/* A master other than node a, for a slot to move to. */
int
other_master(int a)
{
	for (int i = 0; i < CLUSTER_NODES; i++)
		if (i != a && is_master(i))
			return i;
	cr_fatal("no master but node %d", a);
	return -1;
}

/* Does master m count node i among its replicas (CLUSTER REPLICAS)? It
 * takes a manual failover from i only then. */
int
knows_replica(int m, int i)
{
	char id[64], port[24];
	redisReply *r;
	int found = 0;

	node_id(m, id, sizeof(id));
	snprintf(port, sizeof(port), ":%d@", cl.node[i].port);
	r = on(m, "CLUSTER REPLICAS %s", id);
	for (size_t k = 0; r->type == REDIS_REPLY_ARRAY && k < r->elements; k++)
		found |= r->element[k]->type == REDIS_REPLY_STRING &&
		    strstr(r->element[k]->str, port) != NULL;
	freeReplyObject(r);
	return found;
}

/* Node i's cluster id. */
void
node_id(int i, char *buf, size_t n)
{
	redisReply *r = on(i, "CLUSTER MYID");

	cr_assert(r->type == REDIS_REPLY_STRING);
	snprintf(buf, n, "%s", r->str);
	freeReplyObject(r);
}

/* Watch node i's commands (MONITOR). */
redisContext *
watch(int i)
{
	redisContext *c = redis_client(&cl.node[i]);
	struct timeval guard = { 30, 0 };	/* against a hang, not a measure */
	redisReply *r = redisCommand(c, "MONITOR");

	cr_assert(r != NULL && r->type == REDIS_REPLY_STATUS);
	freeReplyObject(r);
	redisSetTimeout(c, guard);
	return c;
}

/* Read the watch until n lines from TCP clients (lockrun; not the test's
 * unix socket, not scripts) contain every one of the strings given
 * (NULL-terminated). Returns how many did: n, or fewer on the guard. */
int
watch_until(redisContext *mon, int n, ...)
{
	int seen = 0;

	while (seen < n) {
		redisReply *r;
		int all = 1;
		va_list ap;

		if (redisGetReply(mon, (void **)&r) != REDIS_OK)
			break;
		if (r->type != REDIS_REPLY_STATUS || strstr(r->str, "[0 127.0.0.1:") == NULL) {
			freeReplyObject(r);
			continue;
		}
		va_start(ap, n);
		for (const char *s; (s = va_arg(ap, const char *)) != NULL; )
			all &= strstr(r->str, s) != NULL;
		va_end(ap);
		seen += all;
		freeReplyObject(r);
	}
	return seen;
}

/* Let the job's command end (it waits at the gate), if it is still there. */
void
finish(pid_t job, const struct gate *g)
{
	if (!alive(job)) {
		int status = lr_wait(job);
		cr_fatal("the job was stopped: lockrun exited %d", status);
	}
	gate_release(g);
}

/* Starters: runs of task key, one after another, from a shell loop until
 * the file stop exists, each through url with -E 75 and extra options;
 * each command takes flock -n on excl and notes "overlap" in marks when
 * it cannot (and "ran" when it runs). Each run's exit status and stderr
 * go, as one line, to statuses. Returns the loop's pid. */
pid_t
starters_start(const char *url, const char *key, const char *extra)
{
	char loop[2048];
	pid_t pid;

	/* the loop also ends with its test ($PPID): a test that fails before
	 * starters_stop() must not leave it starting runs against the next
	 * test's cluster, which may get the same ports */
	snprintf(loop, sizeof(loop), "while [ ! -e %s ] && kill -0 $PPID 2>/dev/null; do "
	    "\"$LOCKRUN_BIN\" --redis %s "
	    "-k %s -E 75 %s -- sh -c 'exec 9>%s; flock -n 9 || echo overlap >> %s; "
	    "echo ran >> %s' 2>%s; s=$?; echo \"$s $(tr '\\n' ' ' < %s)\" >> %s; done",
	    scratch("stop"), url, key, extra, scratch("excl"), scratch("marks"),
	    scratch("marks"), scratch("last.err"), scratch("last.err"), scratch("statuses"));
	fflush(NULL);
	if ((pid = fork()) == 0) {
		execl("/bin/sh", "sh", "-c", loop, (char *)NULL);
		_exit(127);
	}
	cr_assert(pid > 0);
	return pid;
}

/* Wait until n more starters than now have ended. */
void
starters_wait(int n)
{
	int want = file_lines(scratch("statuses")) + n;

	POLL_UNTIL(file_lines(scratch("statuses")) >= want);
	cr_assert(file_lines(scratch("statuses")) >= want, "the starters stalled");
}

/* Note in statuses that what follows came after word. */
void
starters_mark(const char *word)
{
	FILE *fp = fopen(scratch("statuses"), "a");

	cr_assert(fp != NULL);
	fprintf(fp, "-- %s\n", word);
	fclose(fp);
}

/* Stop the loop; every starter ended with one of the statuses allowed
 * (a string of them: "75", "75 0"), and no two commands overlapped.
 * Before a starters_mark() line, a run whose connection broke under its
 * acquire (its master killed) may also have ended 69 when broken_ok: what
 * the script did is not known then. Returns how many starters ran. */
int
starters_stop(pid_t loop, const char *allowed, int broken_ok, pid_t job)
{
	static const char broken[] = "^69 lockrun: redis [^ ]+: acquire: "
	    "(Connection reset by peer|Broken pipe|connection closed by the server)"
	    "(; the server refuses the request if it runs later than [0-9]+s after it "
	    "was sent, and withdrawing it failed too: redis [^ ]+: [^(]+"
	    "|; withdrew the request: [^(]+)? \\(URL from --url; no password\\) $";
	char line[1024], st[8], err[4096];
	FILE *fp;
	int n = 0, ok;

	fclose(fopen(scratch("stop"), "w"));
	cr_assert(eq(int, lr_wait(loop), 0));
	fp = fopen(scratch("statuses"), "r");
	cr_assert(fp != NULL);
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "-- ", 3) == 0) {
			broken_ok = 0;
			continue;
		}
		snprintf(st, sizeof(st), "%.*s", (int)strcspn(line, " "), line);
		line[strcspn(line, "\n")] = '\0';
		n++;
		ok = strstr(allowed, st) != NULL && strlen(st) == 2 - (*st == '0');
		cr_assert(ok || (broken_ok && matches(line, broken)), "a starter ended %s; "
		    "the job (%s) said: %s", line, alive(job) ? "running" : "ended",
		    lr_stderr_of(job, err, sizeof(err)));
	}
	fclose(fp);
	fp = fopen(scratch("marks"), "r");
	while (fp && fgets(line, sizeof(line), fp))
		cr_assert(strcmp(line, "overlap\n") != 0, "two commands ran at once");
	if (fp)
		fclose(fp);
	return n;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* redis_fixture.c -- real redis-servers for tests: one on a free port in
 * a temp dir (plain or TLS, a replica), a test PKI, three sentinels, a
 * six-node cluster; each waits until it answers and stops by PID.
 *
 * In order: building argv, processes (spawn, run, halt), temp dirs,
 * asking a server, one server, certificates, sentinels, cluster. */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "redis_fixture.h"

#define TMP_PREFIX	"/tmp/lockrun-test."
#define START_MS	10000	/* bound on a server's start */
#define STOP_MS		5000	/* SIGTERM's grace before SIGKILL */
#define RUN_MS		30000	/* bound on a command fixture_run() runs */
#define TICK_MS		10	/* a step of a bounded poll */

/* An argv under construction: words are borrowed, not copied. */
struct words {
	const char *w[64];
	size_t	n;
	int	full;		/* a word did not fit: do not run this */
};

/* Append list (NULL-terminated, or NULL) to a, keeping a->w NULL-terminated. */
static void
words_add(struct words *a, const char *const list[])
{
	for (size_t i = 0; list && list[i]; i++) {
		if (a->n + 1 >= sizeof(a->w) / sizeof(a->w[0])) {
			a->full = 1;
			break;
		}
		a->w[a->n++] = list[i];
	}
	a->w[a->n] = NULL;
}
#define WORDS(a, ...) words_add((a), (const char *const[]){ __VA_ARGS__, NULL })

/* Another process may take the port before redis-server binds it: the
 * server then exits, and start_on_free_port() tries another. */
int
fixture_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Call ready(arg) every tick until it returns 1 (then 0), returns -1 (a
 * lost cause: -1), or timeout_ms pass (-1). */
static int
poll_ready(int (*ready)(void *), void *arg, long timeout_ms)
{
	long long deadline = fixture_ms() + timeout_ms;
	int r;

	while ((r = ready(arg)) == 0 && fixture_ms() < deadline)
		fixture_tick(TICK_MS);
	return r == 1 ? 0 : -1;
}

/* The child's side of spawn(): never returns. */
static void
child_exec(const char *const argv[], pid_t parent, int out)
{
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	/* (1) a clean slate: whatever the test runner blocked or ignored */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* (2) never outlive the test process, even if it crashes; it may have
	 * died before prctl() ran */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	/* (3) nothing to read; output to out, if given; none of the test's
	 * descriptors (its Redis connections, the runner's pipes) */
	if (null >= 0)
		dup2(null, 0);
	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
	}
	close_range(3, ~0U, 0);
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "redis_fixture: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Fork and exec argv (PATH search) with stdin from /dev/null and, when out
 * is not -1, stdout and stderr on out. Returns the child's pid, or -1. */
static pid_t
spawn(const char *const argv[], int out)
{
	pid_t parent = getpid(), pid;

	fflush(NULL);		/* or the child's exit would flush our buffers again */
	if ((pid = fork()) == 0)
		child_exec(argv, parent, out);
	if (pid < 0)
		fprintf(stderr, "redis_fixture: fork: %s\n", strerror(errno));
	return pid;
}

/* Read fd until EOF or the deadline into out (n bytes, NUL-terminated;
 * what does not fit is read and dropped). Returns 0, or -1 on timeout. */
static int
drain(int fd, char *out, size_t n, long long deadline)
{
	size_t len = 0;
	char spill[512];
	int rc = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - fixture_ms();
		ssize_t got;
		int ready;

		if (left <= 0) {
			rc = -1;
			break;
		}
		ready = poll(&p, 1, (int)left);

		if (ready < 0 && errno != EINTR)
			break;
		if (ready <= 0)
			continue;	/* EINTR, or the deadline: seen above */
		if (len + 1 < n)
			got = read(fd, out + len, n - 1 - len);
		else
			got = read(fd, spill, sizeof(spill));
		if (got == 0 || (got < 0 && errno != EINTR))
			break;
		if (got > 0 && len + 1 < n)
			len += (size_t)got;
	}
	if (n > 0)
		out[len] = '\0';
	return rc;
}

/* SIGTERM each live pid in the n fixtures, then reap them all; any still
 * there after STOP_MS gets SIGKILL. Pids become 0. */
static void
halt_all(struct redis_fixture f[], size_t n)
{
	long long deadline = fixture_ms() + STOP_MS;

	for (size_t i = 0; i < n; i++)
		if (f[i].pid > 0) {
			kill(f[i].pid, SIGCONT);	/* in case a test stopped it */
			kill(f[i].pid, SIGTERM);
		}
	for (size_t i = 0; i < n; i++) {
		if (f[i].pid <= 0)
			continue;
		/* 0: still running; -1: not ours to reap (ECHILD) */
		while (waitpid(f[i].pid, NULL, WNOHANG) == 0) {
			if (fixture_ms() >= deadline) {
				kill(f[i].pid, SIGKILL);
				while (waitpid(f[i].pid, NULL, 0) == -1 && errno == EINTR)
					;
				break;
			}
			fixture_tick(TICK_MS);
		}
		f[i].pid = 0;
	}
}

int
fixture_run(const char *const argv[], char *out, size_t n)
{
	long long deadline = fixture_ms() + RUN_MS;
	int fd[2], st, timed_out;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC) != 0) {
		perror("redis_fixture: pipe");
		return -1;
	}
	pid = spawn(argv, fd[1]);
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		return -1;
	}
	timed_out = drain(fd[0], out, n, deadline) != 0;
	close(fd[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (timed_out) {
		fprintf(stderr, "redis_fixture: %s ran for %d s; killed\n", argv[0],
		    RUN_MS / 1000);
		return -1;
	}
	return exit_code(st);
}

static int
remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	if (remove(path) != 0 && errno != ENOENT)
		fprintf(stderr, "redis_fixture: remove %s: %s\n", path, strerror(errno));
	return 0;
}

void
fixture_rmdir(const char *dir)
{
	if (strncmp(dir, TMP_PREFIX, strlen(TMP_PREFIX)) != 0 ||
	    strchr(dir + strlen(TMP_PREFIX), '/') != NULL)
		return;		/* not one of ours */
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
fixture_tier(const char *what)
{
	const char *tier = getenv("LR_TEST_TIER");

	if (tier == NULL || strcmp(tier, "check") != 0)
		return 0;
	fprintf(stderr, "redis_fixture: %s: not in make check's tests, which need only "
	    "redis-server: add this test to the Makefile's INTEG_FULL (on PostgreSQL or "
	    "MariaDB: name it pg_NAME or mysql_NAME)\n", what);
	return -1;
}

int
fixture_tempdir(char *buf, size_t n)
{
	if (snprintf(buf, n, "%sXXXXXX", TMP_PREFIX) >= (int)n || mkdtemp(buf) == NULL) {
		perror("redis_fixture: mkdtemp");
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/* Zero f and give it a new temp dir (and a socket path in it). */
static int
make_dir(struct redis_fixture *f)
{
	memset(f, 0, sizeof(*f));
	if (fixture_tempdir(f->dir, sizeof(f->dir)) != 0)
		return -1;
	snprintf(f->sock, sizeof(f->sock), "%s/r.sock", f->dir);
	return 0;
}

/* A connection to f: its unix socket, or its TCP port when it has none
 * (a sentinel). Connect and commands time out after a second. NULL if it
 * does not answer. */
static redisContext *
connect_to(const struct redis_fixture *f)
{
	struct timeval tv = { 1, 0 };
	redisContext *c = f->sock[0] ? redisConnectUnixWithTimeout(f->sock, tv) :
	    redisConnectWithTimeout("127.0.0.1", f->port, tv);

	if (c && !c->err && redisSetTimeout(c, tv) == REDIS_OK)
		return c;
	redisFree(c);
	return NULL;
}

/* One command (argv NULL-terminated, sent as is) on a fresh connection to
 * f; the reply (the caller frees it), or NULL when f does not answer. */
static redisReply *
ask(const struct redis_fixture *f, const char *const argv[])
{
	redisContext *c = connect_to(f);
	redisReply *r;
	int argc = 0;

	if (c == NULL)
		return NULL;
	while (argv[argc])
		argc++;
	r = redisCommandArgv(c, argc, (const char **)argv, NULL);
	redisFree(c);
	return r;
}
#define ASK(f, ...) ask((f), (const char *const[]){ __VA_ARGS__, NULL })

/* Copy the value of the "key:value" line of text (the format of INFO and
 * CLUSTER INFO) to buf. Returns 0, or -1 when there is no such line. */
static int
text_field(const char *text, const char *key, char *buf, size_t n)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p != NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			p += klen + 1;
			snprintf(buf, n, "%.*s", (int)strcspn(p, "\r\n"), p);
			return 0;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

/* text_field() of the text f answers to argv (INFO or CLUSTER INFO). */
static int
reply_field(const struct redis_fixture *f, const char *const argv[], const char *key,
    char *buf, size_t n)
{
	redisReply *r = ask(f, argv);
	int rc = -1;

	if (r && r->type == REDIS_REPLY_STRING)
		rc = text_field(r->str, key, buf, n);
	freeReplyObject(r);
	return rc;
}

int
redis_info_field(const struct redis_fixture *f, const char *section, const char *key,
    char *buf, size_t n)
{
	return reply_field(f, (const char *const[]){ "INFO", section, NULL }, key, buf, n);
}

/* 1 when f answers PING (PONG, or NOAUTH when it wants a password), 0 not
 * yet, -1 when its process is gone (a port taken, most likely). */
static int
server_up(void *arg)
{
	struct redis_fixture *f = arg;
	redisReply *r;
	int up;

	if (fixture_reaped(&f->pid))
		return -1;
	if ((r = ASK(f, "PING")) == NULL)
		return 0;
	up = r->type != REDIS_REPLY_ERROR || strncmp(r->str, "NOAUTH", 6) == 0;
	freeReplyObject(r);
	return up;
}

/* What kind of redis-server to start. */
struct server_opts {
	const char *certdir;	/* TLS with tls_make_certs()'s files there, or NULL */
	int	auth_clients;	/* with TLS: clients must show a certificate */
	int	cluster_bus;	/* a cluster node: its bus on a free port too */
	const char *const *own;	/* the fixture's words, NULL-terminated, or NULL */
	const char *const *extra;	/* then the caller's, likewise */
};

/* The command line of one process and the strings it borrows. */
struct cmdline {
	struct words a;
	char	port[16], bus[16], log[160], cert[256], key[256], ca[256], conf[160];
};

/* Fill c for f, whose port has just been chosen (c->port says it too);
 * f->url may be changed from redis://127.0.0.1:PORT. Returns 0 or -1. */
typedef int build_fn(struct cmdline *c, struct redis_fixture *f, const void *arg);

/* Listen with TLS only on f->port, with o's certificates; the unix socket
 * stays plain, for the fixture and the tests. */
static void
tls_words(struct cmdline *c, const struct server_opts *o)
{
	snprintf(c->cert, sizeof(c->cert), "%s/server.crt", o->certdir);
	snprintf(c->key, sizeof(c->key), "%s/server.key", o->certdir);
	snprintf(c->ca, sizeof(c->ca), "%s/ca.crt", o->certdir);
	WORDS(&c->a, "--port", "0", "--tls-port", c->port, "--tls-cert-file", c->cert,
	    "--tls-key-file", c->key, "--tls-ca-cert-file", c->ca,
	    "--tls-auth-clients", o->auth_clients ? "yes" : "no");
}

/* A cluster node's bus on a free port of its own: by default it would be
 * the port + 10000, which may be taken, or past 65535. */
static int
bus_words(struct cmdline *c, const struct redis_fixture *f)
{
	int bus = fixture_free_port();

	while (bus == f->port)
		bus = fixture_free_port();
	if (bus < 0) {
		fprintf(stderr, "redis_fixture: no free port for a cluster bus\n");
		return -1;
	}
	snprintf(c->bus, sizeof(c->bus), "%d", bus);
	WORDS(&c->a, "--cluster-port", c->bus);
	return 0;
}

/* redis-server on f->port with f's socket, dir and log, no persistence,
 * then the listener and words of o (a struct server_opts). */
static int
server_cmd(struct cmdline *c, struct redis_fixture *f, const void *arg)
{
	const struct server_opts *o = arg;

	snprintf(c->log, sizeof(c->log), "%s/redis.log", f->dir);
	WORDS(&c->a, "redis-server", "--bind", "127.0.0.1", "--unixsocket", f->sock,
	    "--save", "", "--appendonly", "no", "--dir", f->dir, "--logfile", c->log,
	    "--daemonize", "no",
	    /* a master feeds a new replica at once, not after 5 s of waiting
	     * for others to join the same transfer */
	    "--repl-diskless-sync-delay", "0");
	if (o->certdir) {
		tls_words(c, o);
		snprintf(f->url, sizeof(f->url), "rediss://127.0.0.1:%d", f->port);
	} else
		WORDS(&c->a, "--port", c->port);
	if (o->cluster_bus && bus_words(c, f) != 0)
		return -1;
	words_add(&c->a, o->own);
	words_add(&c->a, o->extra);
	return 0;
}

/* Start f's process on a fresh free port until one start answers PING (0)
 * or five attempts fail (-1, and prints why); build() gives its command
 * line. A port taken meanwhile by another process makes it exit. */
static int
start_on_free_port(struct redis_fixture *f, build_fn *build, const void *arg)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct cmdline c = { .a = { .n = 0 } };

		if ((f->port = fixture_free_port()) < 0)
			continue;
		snprintf(c.port, sizeof(c.port), "%d", f->port);
		snprintf(f->url, sizeof(f->url), "redis://127.0.0.1:%d", f->port);
		if (build(&c, f, arg) != 0)
			return -1;
		if (c.a.full) {
			fprintf(stderr, "redis_fixture: too many words for %s\n", c.a.w[0]);
			return -1;
		}
		if ((f->pid = spawn(c.a.w, -1)) < 0)
			break;
		/* a server's unix socket listens only once its TCP port does */
		if (poll_ready(server_up, f, START_MS) == 0)
			return 0;
		halt_all(f, 1);
	}
	fprintf(stderr, "redis_fixture: the server in %s did not start (see its log)\n",
	    f->dir);
	return -1;
}

/* Give f a new temp dir and start redis-server there. */
static int
start_server(struct redis_fixture *f, const struct server_opts *o)
{
	if (make_dir(f) != 0)
		return -1;
	return start_on_free_port(f, server_cmd, o);
}

int
redis_start(struct redis_fixture *f, const char *const extra[])
{
	const struct server_opts o = { .extra = extra };

	return start_server(f, &o);
}

int
redis_start_tls(struct redis_fixture *f, const char *certdir, int require_client_cert,
    const char *const extra[])
{
	const struct server_opts o = { .certdir = certdir,
	    .auth_clients = require_client_cert, .extra = extra };

	return start_server(f, &o);
}

/* 1 once replica r says its link to the master is up, 0 before, -1 when r
 * exited. */
static int
link_up(void *arg)
{
	struct redis_fixture *r = arg;
	char v[16];

	if (fixture_reaped(&r->pid))
		return -1;
	return redis_info_field(r, "replication", "master_link_status", v, sizeof(v)) == 0 &&
	    strcmp(v, "up") == 0;
}

int
redis_start_replica(struct redis_fixture *r, const struct redis_fixture *master,
    const char *const extra[])
{
	char port[16];
	const char *const own[] = { "--replicaof", "127.0.0.1", port, NULL };
	const struct server_opts o = { .own = own, .extra = extra };

	snprintf(port, sizeof(port), "%d", master->port);
	if (start_server(r, &o) != 0)
		return -1;
	if (poll_ready(link_up, r, START_MS) == 0)
		return 0;
	fprintf(stderr, "redis_fixture: the replica in %s did not sync with 127.0.0.1:%d "
	    "in %d s (see its redis.log)\n", r->dir, master->port, START_MS / 1000);
	redis_halt(r);
	return -1;
}

void
redis_halt(struct redis_fixture *f)
{
	halt_all(f, 1);
}

void
redis_stop(struct redis_fixture *f)
{
	redis_halt(f);
	fixture_rmdir(f->dir);
}

redisContext *
redis_client(const struct redis_fixture *f)
{
	redisContext *c = redisConnectUnix(f->sock);

	if (c == NULL || c->err) {
		fprintf(stderr, "redis_fixture: cannot connect to %s\n", f->sock);
		exit(1);
	}
	return c;
}

const char *
redis_path(const struct redis_fixture *f, const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", f->dir, name);
	return buf;
}

/* A test PKI, made with the openssl command. */

/* The extensions of tls_make_certs()'s certificates, a section each. */
static const char cert_cnf[] =
	"[req]\n"
	"distinguished_name = dn\n"
	"[dn]\n"
	"[ca]\n"
	"basicConstraints = critical, CA:TRUE\n"
	"keyUsage = critical, keyCertSign, cRLSign\n"
	"subjectKeyIdentifier = hash\n"
	"[server]\n"
	"basicConstraints = critical, CA:FALSE\n"
	"keyUsage = critical, digitalSignature\n"
	"extendedKeyUsage = serverAuth\n"
	"subjectAltName = DNS:localhost, IP:127.0.0.1\n"
	"[client]\n"
	"basicConstraints = critical, CA:FALSE\n"
	"keyUsage = critical, digitalSignature\n"
	"extendedKeyUsage = clientAuth\n"
	"[wrong_host]\n"
	"basicConstraints = critical, CA:FALSE\n"
	"keyUsage = critical, digitalSignature\n"
	"extendedKeyUsage = serverAuth\n"
	"subjectAltName = DNS:elsewhere.invalid\n";

/* One certificate: NAME.crt and NAME.key, self-signed when signer is NULL,
 * else signed by SIGNER.crt/.key; extensions from section of cert_cnf. */
struct cert_spec {
	const char *name, *section, *subject, *signer;
};

static const struct cert_spec cert_specs[] = {	/* signers first */
	{ "ca", "ca", "/CN=lockrun test CA", NULL },
	{ "other-ca", "ca", "/CN=lockrun unrelated CA", NULL },
	{ "server", "server", "/CN=localhost", "ca" },
	{ "client", "client", "/CN=lockrun test client", "ca" },
	{ "wrong-host", "wrong_host", "/CN=elsewhere.invalid", "ca" },
};

static int
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	int bad = fp == NULL;

	if (fp) {
		bad = fputs(text, fp) == EOF;
		bad |= fclose(fp) != 0;
	}
	if (bad)
		fprintf(stderr, "redis_fixture: cannot write %s: %s\n", path, strerror(errno));
	return bad ? -1 : 0;
}

/* Make one certificate and its key with a single openssl req (an EC
 * P-256 key, valid for a day; -CA needs OpenSSL 3.0). */
static int
make_cert(const char *dir, const char *cnf, const struct cert_spec *s)
{
	char crt[256], key[256], ca_crt[256], ca_key[256], out[4096];
	struct words a = { .n = 0 };
	int st;

	snprintf(crt, sizeof(crt), "%s/%s.crt", dir, s->name);
	snprintf(key, sizeof(key), "%s/%s.key", dir, s->name);
	WORDS(&a, "openssl", "req", "-x509", "-new", "-config", cnf, "-extensions",
	    s->section, "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
	    "-noenc", "-days", "1", "-subj", s->subject, "-keyout", key, "-out", crt);
	if (s->signer) {
		snprintf(ca_crt, sizeof(ca_crt), "%s/%s.crt", dir, s->signer);
		snprintf(ca_key, sizeof(ca_key), "%s/%s.key", dir, s->signer);
		WORDS(&a, "-CA", ca_crt, "-CAkey", ca_key);
	}
	if ((st = fixture_run(a.w, out, sizeof(out))) != 0) {
		fprintf(stderr, "redis_fixture: openssl req for %s failed (%d):\n%s", crt, st,
		    out);
		return -1;
	}
	return 0;
}

int
tls_make_certs(const char *dir)
{
	char cnf[256];

	if (fixture_tier("the test PKI (openssl)") != 0)
		return -1;
	snprintf(cnf, sizeof(cnf), "%s/certs.cnf", dir);
	if (write_file(cnf, cert_cnf) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(cert_specs) / sizeof(cert_specs[0]); i++)
		if (make_cert(dir, cnf, &cert_specs[i]) != 0)
			return -1;
	return 0;
}

/* Sentinels: three redis-server --sentinel, each in a temp dir of its own
 * with the sentinel.conf it rewrites as it learns. */

#define TOPOLOGY_MS	20000	/* bound on sentinels or a cluster settling */

/* What a sentinel watches. */
struct watch {
	const char *name;	/* the master's name for the sentinels */
	int	port;		/* its port on 127.0.0.1 */
	int	quorum;
	int	replicas;	/* how many replicas it has */
	int	sentinels;	/* how many other sentinels watch it */
};

/* Write f's sentinel.conf (c->conf) and run it: redis-server CONF
 * --sentinel, w (a struct watch) being the master to watch. */
static int
sentinel_cmd(struct cmdline *c, struct redis_fixture *f, const void *arg)
{
	const struct watch *w = arg;
	char text[1024];

	snprintf(c->conf, sizeof(c->conf), "%s/sentinel.conf", f->dir);
	snprintf(text, sizeof(text),
	    "port %d\n"
	    "bind 127.0.0.1\n"
	    "dir %s\n"
	    "logfile %s/sentinel.log\n"
	    "sentinel monitor %s 127.0.0.1 %d %d\n"
	    "sentinel down-after-milliseconds %s 1000\n"
	    "sentinel failover-timeout %s 5000\n"
	    "sentinel parallel-syncs %s 1\n",
	    f->port, f->dir, f->dir, w->name, w->port, w->quorum, w->name, w->name, w->name);
	WORDS(&c->a, "redis-server", c->conf, "--sentinel");
	return write_file(c->conf, text);
}

/* The port a sentinel gives for master name (get-master-addr-by-name), or
 * -1 when it does not answer or knows no such master. */
static int
sentinel_says(const struct redis_fixture *s, const char *name)
{
	redisReply *r = ASK(s, "SENTINEL", "get-master-addr-by-name", name);
	long port = -1;
	char *end;

	if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
	    r->element[1]->type == REDIS_REPLY_STRING) {
		port = strtol(r->element[1]->str, &end, 10);
		if (*end != '\0' || port <= 0 || port > 65535)
			port = -1;
	}
	freeReplyObject(r);
	return (int)port;
}

/* The value of key in a flat array of names and values (an entry of
 * SENTINEL REPLICAS), or "". */
static const char *
pair_value(const redisReply *r, const char *key)
{
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2)
		if (r->element[i]->str && strcmp(r->element[i]->str, key) == 0 &&
		    r->element[i + 1]->str)
			return r->element[i + 1]->str;
	return "";
}

/* How many of the peers SENTINEL what name lists (REPLICAS, SENTINELS) are
 * seen well: their flags are exactly flags ("slave", "sentinel"). -1 when
 * the sentinel does not answer. */
static int
peers_up(const struct redis_fixture *s, const char *what, const char *name,
    const char *flags)
{
	redisReply *r = ASK(s, "SENTINEL", what, name);
	int n = -1;

	if (r && r->type == REDIS_REPLY_ARRAY) {
		n = 0;
		for (size_t i = 0; i < r->elements; i++)
			n += strcmp(pair_value(r->element[i], "flags"), flags) == 0;
	}
	freeReplyObject(r);
	return n;
}

/* What one sentinel knows of the master w names, counted as w counts. */
static struct watch
sentinel_view(const struct redis_fixture *s, const struct watch *w)
{
	return (struct watch){ .name = w->name, .port = sentinel_says(s, w->name),
	    .quorum = w->quorum,
	    .replicas = peers_up(s, "REPLICAS", w->name, "slave"),
	    .sentinels = peers_up(s, "SENTINELS", w->name, "sentinel") };
}

/* 1 when every sentinel of g reports the watched master and sees its
 * replicas and the other sentinels; 0 not yet; -1 if one exited. */
static int
group_ready(struct sentinel_group *g, const struct watch *w)
{
	for (int i = 0; i < SENTINELS; i++) {
		struct watch v;

		if (fixture_reaped(&g->node[i].pid))
			return -1;
		v = sentinel_view(&g->node[i], w);
		if (v.port != w->port || v.replicas != w->replicas ||
		    v.sentinels != w->sentinels)
			return 0;
	}
	return 1;
}

/* Say what each sentinel of g sees, for a group that did not settle. */
static void
group_report(const struct sentinel_group *g, const struct watch *w)
{
	fprintf(stderr, "redis_fixture: the sentinels did not all see %s at port %d, its "
	    "%d replicas and %d other sentinels in %d s:\n", w->name, w->port,
	    w->replicas, w->sentinels, TOPOLOGY_MS / 1000);
	for (int i = 0; i < SENTINELS; i++) {
		struct watch v = sentinel_view(&g->node[i], w);

		fprintf(stderr, "  %s (pid %d, port %d): port %d, %d replicas, %d sentinels\n",
		    g->node[i].dir, (int)g->node[i].pid, g->node[i].port, v.port, v.replicas,
		    v.sentinels);
	}
}

struct group_watch {
	struct sentinel_group *g;
	const struct watch *w;
};

static int
group_ready_cb(void *arg)
{
	struct group_watch *gw = arg;

	return group_ready(gw->g, gw->w);
}

/* Fill w for master, checking its name is one word for sentinel.conf. */
static int
watch_of(struct watch *w, const char *name, const struct redis_fixture *master,
    int quorum)
{
	char n[16];

	if (name[0] == '\0' || strlen(name) > 64 || name[strcspn(name, " \t\r\n\"'")]) {
		fprintf(stderr, "redis_fixture: bad master name for sentinels: \"%s\"\n", name);
		return -1;
	}
	if (redis_info_field(master, "replication", "connected_slaves", n, sizeof(n)) != 0) {
		fprintf(stderr, "redis_fixture: the master in %s does not answer INFO\n",
		    master->dir);
		return -1;
	}
	*w = (struct watch){ .name = name, .port = master->port, .quorum = quorum,
	    .replicas = (int)strtol(n, NULL, 10), .sentinels = SENTINELS - 1 };
	return 0;
}

int
sentinel_start(struct sentinel_group *g, const char *master_name,
    const struct redis_fixture *master, int quorum)
{
	struct watch w;
	struct group_watch gw = { g, &w };

	memset(g, 0, sizeof(*g));
	if (fixture_tier("sentinels") != 0)
		return -1;
	if (watch_of(&w, master_name, master, quorum) != 0)
		return -1;
	for (int i = 0; i < SENTINELS; i++) {
		if (make_dir(&g->node[i]) != 0)
			goto fail;
		g->node[i].sock[0] = '\0';	/* a sentinel: TCP only */
		if (start_on_free_port(&g->node[i], sentinel_cmd, &w) != 0)
			goto fail;
	}
	if (poll_ready(group_ready_cb, &gw, TOPOLOGY_MS) == 0)
		return 0;
	group_report(g, &w);
fail:
	halt_all(g->node, SENTINELS);
	return -1;
}

/* halt_all(), then remove each fixture's temp dir. */
static void
stop_all(struct redis_fixture f[], size_t n)
{
	halt_all(f, n);
	for (size_t i = 0; i < n; i++)
		fixture_rmdir(f[i].dir);
}

void
sentinel_stop(struct sentinel_group *g)
{
	stop_all(g->node, SENTINELS);
}

const char *
sentinel_url(const struct sentinel_group *g, const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "redis+sentinel://127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d/%s",
	    g->node[0].port, g->node[1].port, g->node[2].port, name);
	return buf;
}

int
sentinel_master_port(const struct sentinel_group *g, const char *name)
{
	int port = -1;

	for (int i = 0; i < SENTINELS && port < 0; i++)
		if (g->node[i].pid > 0)
			port = sentinel_says(&g->node[i], name);
	return port;
}

/* 1 when every running sentinel of gw->g gives gw->w's port for its name. */
static int
all_say(void *arg)
{
	struct group_watch *gw = arg;

	for (int i = 0; i < SENTINELS; i++)
		if (gw->g->node[i].pid > 0 &&
		    sentinel_says(&gw->g->node[i], gw->w->name) != gw->w->port)
			return 0;
	return 1;
}

int
sentinel_wait_master(struct sentinel_group *g, const char *name, int port,
    long timeout_ms)
{
	struct watch w = { .name = name, .port = port };
	struct group_watch gw = { g, &w };

	return poll_ready(all_say, &gw, timeout_ms);
}

/* A cluster: six cluster-enabled servers joined by redis-cli --cluster
 * create into three masters with a replica each. */

/* The hash slot of key, as node f computes it, or -1. */
static int
key_slot(const struct redis_fixture *f, const char *key)
{
	redisReply *r = ASK(f, "CLUSTER", "KEYSLOT", key);
	int slot = r && r->type == REDIS_REPLY_INTEGER ? (int)r->integer : -1;

	freeReplyObject(r);
	return slot;
}

/* The port of the master serving slot as node f sees it (CLUSTER SLOTS:
 * start, end, then the master's ip, port, id), or -1. */
static int
slot_master(const struct redis_fixture *f, int slot)
{
	redisReply *r = ASK(f, "CLUSTER", "SLOTS");
	int port = -1;

	for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		const redisReply *e = r->element[i];

		if (e->type == REDIS_REPLY_ARRAY && e->elements >= 3 &&
		    e->element[0]->integer <= slot && slot <= e->element[1]->integer &&
		    e->element[2]->type == REDIS_REPLY_ARRAY && e->element[2]->elements >= 2) {
			port = (int)e->element[2]->element[1]->integer;
			break;
		}
	}
	freeReplyObject(r);
	return port;
}

/* What a cluster node says of itself: "?" where it did not answer, and
 * link "-" for a master. */
struct node_view {
	char	state[16];	/* cluster_state */
	char	known[16];	/* cluster_known_nodes */
	char	role[16];	/* master or slave */
	char	link[16];	/* a replica's master_link_status */
};

static struct node_view
node_view(const struct redis_fixture *f)
{
	static const char *const cluster_info[] = { "CLUSTER", "INFO", NULL };
	struct node_view v = { "?", "?", "?", "-" };

	reply_field(f, cluster_info, "cluster_state", v.state, sizeof(v.state));
	reply_field(f, cluster_info, "cluster_known_nodes", v.known, sizeof(v.known));
	redis_info_field(f, "replication", "role", v.role, sizeof(v.role));
	if (strcmp(v.role, "slave") == 0 && redis_info_field(f, "replication",
	    "master_link_status", v.link, sizeof(v.link)) != 0)
		snprintf(v.link, sizeof(v.link), "?");
	return v;
}

/* 1 when node f says cluster_state:ok, knows all the nodes, and as a
 * replica has its link to its master up; 0 not yet; -1 if f exited. */
static int
node_ready(struct redis_fixture *f)
{
	struct node_view v;
	char all[16];

	if (fixture_reaped(&f->pid))
		return -1;
	v = node_view(f);
	snprintf(all, sizeof(all), "%d", CLUSTER_NODES);
	return strcmp(v.state, "ok") == 0 && strcmp(v.known, all) == 0 &&
	    (strcmp(v.role, "master") == 0 || strcmp(v.link, "up") == 0);
}

/* Say what each node of c says, for a cluster that did not settle. */
static void
cluster_report(const struct cluster_fixture *c)
{
	fprintf(stderr, "redis_fixture: the cluster did not settle in %d s:\n",
	    TOPOLOGY_MS / 1000);
	for (int i = 0; i < CLUSTER_NODES; i++) {
		struct node_view v = node_view(&c->node[i]);

		fprintf(stderr, "  %s (pid %d, port %d): cluster_state:%s, %s nodes known, "
		    "%s, master link %s\n", c->node[i].dir, (int)c->node[i].pid,
		    c->node[i].port, v.state, v.known, v.role, v.link);
	}
}

static int
cluster_ready(void *arg)
{
	struct cluster_fixture *c = arg;

	for (int i = 0; i < CLUSTER_NODES; i++) {
		int r = node_ready(&c->node[i]);

		if (r != 1)
			return r;
	}
	return 1;
}

/* redis-cli --cluster create over c's nodes, a replica a master. */
static int
cluster_create(const struct cluster_fixture *c)
{
	char addr[CLUSTER_NODES][32], out[16384];
	struct words a = { .n = 0 };
	int st;

	WORDS(&a, "redis-cli", "--cluster", "create");
	for (int i = 0; i < CLUSTER_NODES; i++) {
		snprintf(addr[i], sizeof(addr[i]), "127.0.0.1:%d", c->node[i].port);
		WORDS(&a, addr[i]);
	}
	WORDS(&a, "--cluster-replicas", "1", "--cluster-yes");
	if ((st = fixture_run(a.w, out, sizeof(out))) == 0)
		return 0;
	fprintf(stderr, "redis_fixture: redis-cli --cluster create failed (%d):\n%s", st, out);
	return -1;
}

int
cluster_start(struct cluster_fixture *c)
{
	static const char *const own[] = { "--cluster-enabled", "yes",
	    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000", NULL };
	const struct server_opts o = { .cluster_bus = 1, .own = own };

	memset(c, 0, sizeof(*c));
	if (fixture_tier("a cluster") != 0)
		return -1;
	for (int i = 0; i < CLUSTER_NODES; i++)
		if (start_server(&c->node[i], &o) != 0)
			goto fail;
	if (cluster_create(c) != 0)
		goto fail;
	if (poll_ready(cluster_ready, c, TOPOLOGY_MS) == 0)
		return 0;
	cluster_report(c);
fail:
	halt_all(c->node, CLUSTER_NODES);
	return -1;
}

void
cluster_stop(struct cluster_fixture *c)
{
	stop_all(c->node, CLUSTER_NODES);
}

const char *
cluster_url(const struct cluster_fixture *c, char *buf, size_t n)
{
	snprintf(buf, n, "redis+cluster://127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d",
	    c->node[0].port, c->node[1].port, c->node[2].port);
	return buf;
}

int
cluster_node_for_key(const struct cluster_fixture *c, const char *key)
{
	int slot = -1, port = -1;

	for (int i = 0; i < CLUSTER_NODES && port < 0; i++)
		if (c->node[i].pid > 0 && (slot = key_slot(&c->node[i], key)) >= 0)
			port = slot_master(&c->node[i], slot);
	for (int i = 0; i < CLUSTER_NODES && port > 0; i++)
		if (c->node[i].port == port)
			return i;
	return -1;
}

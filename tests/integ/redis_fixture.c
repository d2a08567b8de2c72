/* redis_fixture.c -- start a real redis-server on a free port in a temp
 * dir, wait until it answers, stop it by PID. */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "redis_fixture.h"

/* A port the kernel just handed out on 127.0.0.1; free again once closed.
 * Another process may take it before redis-server binds it: redis_start
 * then sees the server exit and tries another. */
static int
free_port(void)
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

static pid_t
spawn_server(const struct redis_fixture *f, const char *const extra[])
{
	char port[16], log[160];
	const char *argv[40] = {
		"redis-server", "--port", port, "--bind", "127.0.0.1",
		"--unixsocket", f->sock, "--save", "", "--appendonly", "no",
		"--dir", f->dir, "--logfile", log, "--daemonize", "no",
	};
	size_t n = 17;
	pid_t pid;

	snprintf(port, sizeof(port), "%d", f->port);
	snprintf(log, sizeof(log), "%s/redis.log", f->dir);
	for (size_t i = 0; extra && extra[i] && n < 39; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	if ((pid = fork()) != 0)
		return pid;
	/* never outlive the test process, even if it crashes */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "redis_fixture: cannot run redis-server: %s\n", strerror(errno));
	_exit(127);
}

long long
fixture_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Poll until the server answers PING (0), exits (-1), or 10 s pass (-1). */
static int
wait_ready(const struct redis_fixture *f)
{
	long long deadline = fixture_ms() + 10000;
	struct timespec tick = { 0, 5 * 1000000 };

	while (fixture_ms() < deadline) {
		redisContext *c;
		int st;

		if (waitpid(f->pid, &st, WNOHANG) == f->pid)
			return -1;		/* exited: port taken, most likely */
		c = redisConnect("127.0.0.1", f->port);
		if (c && !c->err) {
			redisReply *r = redisCommand(c, "PING");
			int ok = r && r->type != REDIS_REPLY_ERROR;
			/* PONG, or NOAUTH when a password is required: both mean up */
			if (r && r->type == REDIS_REPLY_ERROR && strncmp(r->str, "NOAUTH", 6) == 0)
				ok = 1;
			freeReplyObject(r);
			redisFree(c);
			if (ok)
				return 0;
		} else if (c)
			redisFree(c);
		nanosleep(&tick, NULL);
	}
	return -1;
}

int
redis_start(struct redis_fixture *f, const char *const extra[])
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/lockrun-test.XXXXXX");
	if (mkdtemp(f->dir) == NULL) {
		perror("redis_fixture: mkdtemp");
		return -1;
	}
	snprintf(f->sock, sizeof(f->sock), "%s/r.sock", f->dir);
	for (int attempt = 0; attempt < 5; attempt++) {
		if ((f->port = free_port()) < 0)
			continue;
		snprintf(f->url, sizeof(f->url), "redis://127.0.0.1:%d", f->port);
		if ((f->pid = spawn_server(f, extra)) < 0)
			break;
		if (wait_ready(f) == 0)
			return 0;
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	fprintf(stderr, "redis_fixture: redis-server did not start (see %s/redis.log)\n",
	    f->dir);
	return -1;
}

void
redis_halt(struct redis_fixture *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGCONT);		/* in case a test stopped it */
		kill(f->pid, SIGTERM);
		while (waitpid(f->pid, NULL, 0) == -1 && errno == EINTR)
			;
		f->pid = 0;
	}
}

void
redis_stop(struct redis_fixture *f)
{
	char cmd[128];

	redis_halt(f);
	if (f->dir[0] && strncmp(f->dir, "/tmp/lockrun-test.", 18) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "redis_fixture: could not remove %s\n", f->dir);
	}
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

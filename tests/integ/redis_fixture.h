/* redis_fixture.h -- a throwaway redis-server for tests, demo and bench. */
#ifndef LR_REDIS_FIXTURE_H
#define LR_REDIS_FIXTURE_H

#include <sys/types.h>

#include <hiredis/hiredis.h>

struct redis_fixture {
	pid_t	pid;
	int	port;
	char	dir[64];	/* mkdtemp: socket, log, and the tests' scratch files */
	char	sock[128];
	char	url[160];	/* redis://127.0.0.1:PORT */
};

/* Start redis-server on a free loopback port (and a unix socket) in a new
 * temp dir, without persistence; extra is NULL or "--requirepass x" style
 * words, NULL-terminated. Waits for PING with a deadline. Returns 0 or -1
 * (and prints why). */
int	redis_start(struct redis_fixture *f, const char *const extra[]);

/* SIGTERM the server by PID and reap it; the temp dir stays. */
void	redis_halt(struct redis_fixture *f);

/* redis_halt(), then remove the temp dir. */
void	redis_stop(struct redis_fixture *f);

/* A client on the unix socket (exits the process on failure). */
redisContext *redis_client(const struct redis_fixture *f);

/* Milliseconds on the monotonic clock, for deadlines in tests and tools. */
long long fixture_ms(void);

/* A path inside f->dir. */
const char *redis_path(const struct redis_fixture *f, const char *name, char *buf,
	    size_t n);

#endif

/* shim.c -- LD_PRELOADed into lockrun by the integration tests to fake OS
 * faults; built alone as $(B)/tests/shim.so, without sanitizers (the
 * Makefile passes its path as LOCKRUN_SHIM; harness.c has shim_env()).
 * lockrun links hiredis statically but libc dynamically, so hiredis's
 * calls into libc reach these functions too.
 *
 *   LOCKRUN_SHIM_GAI_FAIL=FILE   while FILE exists, getaddrinfo() fails with
 *                                EAI_AGAIN (a DNS outage) without resolving
 *   LOCKRUN_SHIM_GETRANDOM_EMPTY=LOG
 *                                getrandom() acts as on an early-boot system
 *                                whose entropy pool is not ready: a call
 *                                without GRND_NONBLOCK fails with ENOSYS
 *                                (instead of blocking) and appends the line
 *                                "blocking getrandom" to LOG; one with
 *                                GRND_NONBLOCK fails with EAGAIN
 *
 * Unset, each function is the real one (dlsym(RTLD_NEXT)). */
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *,
    struct addrinfo **);
typedef ssize_t (*getrandom_fn)(void *, size_t, unsigned int);

int
getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
    struct addrinfo **res)
{
	static gai_fn real;
	const char *fail = getenv("LOCKRUN_SHIM_GAI_FAIL");

	if (fail && *fail && access(fail, F_OK) == 0)
		return EAI_AGAIN;
	if (real == NULL && (real = (gai_fn)dlsym(RTLD_NEXT, "getaddrinfo")) == NULL)
		return EAI_SYSTEM;
	return real(node, service, hints, res);
}

/* Append a line to path, keeping errno. */
static void
note(const char *path, const char *line)
{
	int saved = errno, fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

	if (fd >= 0) {
		/* a short write shows as a missing line to the test */
		ssize_t n = write(fd, line, strlen(line));
		(void)n;
		close(fd);
	}
	errno = saved;
}

ssize_t
getrandom(void *buf, size_t len, unsigned int flags)
{
	static getrandom_fn real;
	const char *empty = getenv("LOCKRUN_SHIM_GETRANDOM_EMPTY");

	if (empty) {
		if (flags & GRND_NONBLOCK) {
			errno = EAGAIN;
			return -1;
		}
		if (*empty)
			note(empty, "blocking getrandom\n");
		errno = ENOSYS;
		return -1;
	}
	if (real == NULL &&
	    (real = (getrandom_fn)dlsym(RTLD_NEXT, "getrandom")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(buf, len, flags);
}

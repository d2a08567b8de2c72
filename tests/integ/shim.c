/* SPDX-License-Identifier: BSD-2-Clause */
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
 *   LOCKRUN_SHIM_SYSLOG=SOCKET   syslog(3) sends its datagrams to the
 *                                AF_UNIX socket SOCKET instead of /dev/log,
 *                                formatted as glibc does: "<PRI>Mmm dd
 *                                hh:mm:ss TAG[PID]: message", with PRI the
 *                                priority or'ed with openlog's facility and
 *                                [PID] only with LOG_PID. glibc connects to
 *                                /dev/log through internal calls that no
 *                                preloaded connect() can reach, so the shim
 *                                takes over openlog() and syslog() instead:
 *                                what the tests check is what lockrun asks
 *                                of syslog(3). No %m.
 *   LOCKRUN_SHIM_DLOPEN_MISSING=NAME
 *                                dlopen(NAME) looks for NAME in a directory
 *                                that does not exist, so it fails as on a
 *                                host without that library, and dlerror()
 *                                says what the loader says then
 *
 *   LOCKRUN_SHIM_DEAF_ONCE=MS    from the first recv(2) or poll(2) for input
 *                                on a socket (the wait for the first answer
 *                                from the lock server) for MS ms, recv()
 *                                on a socket fails with EAGAIN and such a
 *                                poll() returns 0 at its timeout, as if no
 *                                answer came, whatever came: an answer lost
 *                                on its way back
 *   LOCKRUN_SHIM_DEAF_AFTER=TEXT with LOCKRUN_SHIM_DEAF_ONCE, the spell
 *                                waits for a send(2) whose bytes hold TEXT
 *                                (a statement's word: say_held, the
 *                                acquire's), and starts at the first
 *                                question after it: the connection's
 *                                handshake is answered, that answer lost
 *
 *   LOCKRUN_SHIM_BOOT_ID=FILE    open(2) of /proc/sys/kernel/random/boot_id
 *                                opens FILE instead: a host booted again
 *   LOCKRUN_SHIM_OPENS=PATH      each open(2) of PATH (as given) appends the
 *   LOCKRUN_SHIM_OPENS_LOG=LOG   opener's pid, a line, to LOG: how often a
 *                                process reads its config
 *   LOCKRUN_SHIM_NO_OPENAT2=1    syscall(SYS_openat2, ...) fails with ENOSYS,
 *                                as on a kernel before 5.6: lockrun walks a
 *                                path with openat(2) instead
 *
 *   LOCKRUN_SHIM_TIMERFD_FAIL=FILE
 *                                while FILE exists, timerfd_settime(2)
 *                                fails with EINVAL and arms nothing: a
 *                                timer that cannot be armed
 *   LOCKRUN_SHIM_NONBLOCK_FAIL=FILE
 *                                while FILE exists, fcntl(2)'s F_SETFL with
 *                                O_NONBLOCK on a pipe fails with EINVAL:
 *                                a read end that cannot be made
 *                                non-blocking
 *   LOCKRUN_SHIM_WAITPID_FAIL=FILE
 *                                the first waitpid(2) in the process whose
 *                                pid FILE holds (a line) fails with EINVAL,
 *                                reaping nothing, and removes FILE: once
 *   LOCKRUN_SHIM_CLOCK_FAIL=FILE while FILE exists, clock_gettime(2) fails
 *                                with EINVAL: a clock that cannot be read
 *   LOCKRUN_SHIM_NO_PIDFD=1      syscall(SYS_pidfd_open, ...) fails with
 *                                ENOSYS, as on a kernel before 5.3
 *   LOCKRUN_SHIM_HOLD_SEND=FILE  a send(2) on an AF_UNIX socket whose bytes
 *   LOCKRUN_SHIM_HOLD_TEXT=TEXT  hold TEXT waits while FILE exists: a run
 *                                forked by a scheduler holds its lock
 *                                request (a key's name is in it) until
 *                                the test lets it go; what the scheduler
 *                                sends to the lock server (TCP) is never
 *                                held
 *
 * Unset, each function is the real one (dlsym(RTLD_NEXT)). */
#include <sys/random.h>
#include <sys/poll.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/syscall.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *,
    struct addrinfo **);
typedef ssize_t (*getrandom_fn)(void *, size_t, unsigned int);
typedef void *(*dlopen_fn)(const char *, int);

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

/* What openlog() was told, for syslog() when LOCKRUN_SHIM_SYSLOG is set. */
static struct {
	char	ident[64];
	int	option;
	int	facility;
	int	opened;
} slog;

typedef void (*openlog_fn)(const char *, int, int);
typedef void (*vsyslog_fn)(int, const char *, va_list);

void
openlog(const char *ident, int option, int facility)
{
	static openlog_fn real;

	snprintf(slog.ident, sizeof(slog.ident), "%s", ident ? ident : "");
	slog.option = option;
	slog.facility = facility;
	slog.opened = 1;
	if (getenv("LOCKRUN_SHIM_SYSLOG") != NULL)
		return;
	if (real == NULL && (real = (openlog_fn)dlsym(RTLD_NEXT, "openlog")) == NULL)
		return;
	real(ident, option, facility);
}

/* One datagram to path, as glibc's syslog() would send it to /dev/log. */
static void
send_syslog(const char *path, int pri, const char *fmt, va_list ap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[4096], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int saved = errno, fd, n;

	if ((pri & LOG_FACMASK) == 0)
		pri |= slog.opened ? slog.facility : LOG_USER;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%h %e %T", &tm);
	n = snprintf(line, sizeof(line), "<%d>%s %s", pri, stamp,
	    slog.opened && slog.ident[0] ? slog.ident : program_invocation_short_name);
	if (slog.option & LOG_PID)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "[%d]", (int)getpid());
	n += snprintf(line + n, sizeof(line) - (size_t)n, ": ");
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0) {
		/* a lost datagram shows as a missing line to the test */
		ssize_t sent = sendto(fd, line, strlen(line), 0, (struct sockaddr *)&sa,
		    sizeof(sa));
		(void)sent;
		close(fd);
	}
	errno = saved;
}

void
vsyslog(int pri, const char *fmt, va_list ap)
{
	static vsyslog_fn real;
	const char *path = getenv("LOCKRUN_SHIM_SYSLOG");

	if (path != NULL) {
		send_syslog(path, pri, fmt, ap);
		return;
	}
	if (real == NULL && (real = (vsyslog_fn)dlsym(RTLD_NEXT, "vsyslog")) == NULL)
		return;
	real(pri, fmt, ap);
}

void
syslog(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}

/* What syslog() becomes with _FORTIFY_SOURCE. */
void	__syslog_chk(int pri, int flag, const char *fmt, ...);

void
__syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}

void *
dlopen(const char *file, int flags)
{
	static dlopen_fn real;
	const char *missing = getenv("LOCKRUN_SHIM_DLOPEN_MISSING");
	char path[512];

	if (real == NULL && (real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen")) == NULL)
		return NULL;
	if (file && missing && strcmp(file, missing) == 0) {
		snprintf(path, sizeof(path), "/nonexistent/lockrun-shim/%s", file);
		return real(path, flags);
	}
	return real(file, flags);
}

typedef int (*open_fn)(const char *, int, ...);

/* open() or open64() (which), the boot id's path swapped for
 * $LOCKRUN_SHIM_BOOT_ID's. */
static int
open_as(const char *which, const char *path, int flags, mode_t mode)
{
	const char *boot = getenv("LOCKRUN_SHIM_BOOT_ID");
	open_fn real = (open_fn)dlsym(RTLD_NEXT, which);

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (boot && path && strcmp(path, "/proc/sys/kernel/random/boot_id") == 0)
		path = boot;
	if (path && getenv("LOCKRUN_SHIM_OPENS") && getenv("LOCKRUN_SHIM_OPENS_LOG") &&
	    strcmp(path, getenv("LOCKRUN_SHIM_OPENS")) == 0) {
		char pid[32];

		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		note(getenv("LOCKRUN_SHIM_OPENS_LOG"), pid);
	}
	return real(path, flags, mode);
}

int
open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_as("open", path, flags, mode);
}

int	open64(const char *path, int flags, ...);
int
open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_as("open64", path, flags, mode);
}

typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
typedef ssize_t (*recv_fn)(int, void *, size_t, int);

static long long
shim_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int deaf_armed;	/* LOCKRUN_SHIM_DEAF_AFTER's text was sent */

/* LOCKRUN_SHIM_DEAF_ONCE: how many ms more we are deaf to fd, a socket
 * (0: not deaf). The first question about a socket starts the spell
 * (after LOCKRUN_SHIM_DEAF_AFTER's text was sent, if set). */
static long long
deaf(int fd)
{
	static long long until = -1;	/* -1: not yet; 0: over */
	const char *ms = getenv("LOCKRUN_SHIM_DEAF_ONCE");
	int type;
	socklen_t len = sizeof(type);

	if (ms == NULL || until == 0 ||
	    (getenv("LOCKRUN_SHIM_DEAF_AFTER") != NULL && !deaf_armed) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
		return 0;
	if (until < 0)
		until = shim_mono_ms() + strtoll(ms, NULL, 10);
	if (shim_mono_ms() >= until)
		until = 0;
	return until > 0 ? until - shim_mono_ms() : 0;
}

typedef ssize_t (*send_fn)(int, const void *, size_t, int);

/* LOCKRUN_SHIM_HOLD_SEND: wait while its file exists, if buf[n], sent on
 * fd, is to be held. */
static void
hold(int fd, const void *buf, size_t n)
{
	const char *file = getenv("LOCKRUN_SHIM_HOLD_SEND");
	const char *text = getenv("LOCKRUN_SHIM_HOLD_TEXT");
	int domain;
	socklen_t len = sizeof(domain);
	struct timespec ts = { 0, 10000000 };

	if (file == NULL || text == NULL || *text == '\0' ||
	    memmem(buf, n, text, strlen(text)) == NULL ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_UNIX)
		return;
	while (access(file, F_OK) == 0)
		nanosleep(&ts, NULL);
}

ssize_t
send(int fd, const void *buf, size_t n, int flags)
{
	static send_fn real;
	const char *text = getenv("LOCKRUN_SHIM_DEAF_AFTER");

	if (real == NULL && (real = (send_fn)dlsym(RTLD_NEXT, "send")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (text != NULL && *text != '\0' && memmem(buf, n, text, strlen(text)) != NULL)
		deaf_armed = 1;
	hold(fd, buf, n);
	return real(fd, buf, n, flags);
}

ssize_t
recv(int fd, void *buf, size_t n, int flags)
{
	static recv_fn real;

	if (real == NULL && (real = (recv_fn)dlsym(RTLD_NEXT, "recv")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (deaf(fd)) {
		errno = EAGAIN;
		return -1;
	}
	return real(fd, buf, n, flags);
}

int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static poll_fn real;
	long long left;

	if (real == NULL && (real = (poll_fn)dlsym(RTLD_NEXT, "poll")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (n != 1 || !(fds[0].events & POLLIN) || timeout < 0 ||
	    (left = deaf(fds[0].fd)) == 0)
		return real(fds, n, timeout);
	/* nothing comes until the spell ends or the timeout passes; what
	 * came meanwhile is there once the spell is over */
	if (left > timeout)
		left = timeout;
	struct timespec ts = { left / 1000, (left % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	if (left < timeout && deaf(fds[0].fd) == 0)
		return real(fds, n, timeout - (int)left);
	fds[0].revents = 0;
	return 0;
}

typedef int (*timerfd_settime_fn)(int, int, const struct itimerspec *, struct itimerspec *);

int
timerfd_settime(int fd, int flags, const struct itimerspec *v, struct itimerspec *old)
{
	static timerfd_settime_fn real;
	const char *fail = getenv("LOCKRUN_SHIM_TIMERFD_FAIL");

	if (fail && *fail && access(fail, F_OK) == 0) {
		errno = EINVAL;
		return -1;
	}
	if (real == NULL &&
	    (real = (timerfd_settime_fn)dlsym(RTLD_NEXT, "timerfd_settime")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd, flags, v, old);
}

typedef int (*fcntl_fn)(int, int, ...);

/* fcntl() or fcntl64() (which): LOCKRUN_SHIM_NONBLOCK_FAIL's fault. The
 * third argument read as a pointer, as glibc's own fcntl() reads it. */
static int
fcntl_as(const char *which, int fd, int cmd, void *arg)
{
	fcntl_fn real = (fcntl_fn)dlsym(RTLD_NEXT, which);
	const char *fail = getenv("LOCKRUN_SHIM_NONBLOCK_FAIL");
	struct stat st;

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (cmd == F_SETFL && ((long)arg & O_NONBLOCK) && fail && *fail &&
	    access(fail, F_OK) == 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	return real(fd, cmd, arg);
}

int
fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_as("fcntl", fd, cmd, arg);
}

int	fcntl64(int fd, int cmd, ...);
int
fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_as("fcntl64", fd, cmd, arg);
}

typedef pid_t (*waitpid_fn)(pid_t, int *, int);

pid_t
waitpid(pid_t pid, int *status, int options)
{
	static waitpid_fn real;
	const char *fail = getenv("LOCKRUN_SHIM_WAITPID_FAIL");
	char buf[32] = "";
	FILE *f;

	if (fail && *fail && (f = fopen(fail, "re")) != NULL) {
		int saved = errno, ours = fgets(buf, sizeof(buf), f) != NULL &&
		    strtol(buf, NULL, 10) == (long)getpid();

		fclose(f);
		errno = saved;
		if (ours && unlink(fail) == 0) {
			errno = EINVAL;
			return -1;
		}
	}
	if (real == NULL && (real = (waitpid_fn)dlsym(RTLD_NEXT, "waitpid")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(pid, status, options);
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	static clock_gettime_fn real;
	const char *fail = getenv("LOCKRUN_SHIM_CLOCK_FAIL");

	if (fail && *fail && access(fail, F_OK) == 0) {
		errno = EINVAL;
		return -1;
	}
	if (real == NULL &&
	    (real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(id, ts);
}

/* --- openat2 ---------------------------------------------------------- */

typedef long (*syscall_fn)(long, ...);

long
syscall(long number, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;

	/* the callers pass at most six, as the kernel takes: reading six is
	 * what glibc's own syscall() does */
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if ((number == SYS_openat2 && getenv("LOCKRUN_SHIM_NO_OPENAT2") != NULL) ||
	    (number == SYS_pidfd_open && getenv("LOCKRUN_SHIM_NO_PIDFD") != NULL)) {
		errno = ENOSYS;
		return -1;
	}
	if (real == NULL)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

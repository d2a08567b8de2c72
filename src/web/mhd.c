/* SPDX-License-Identifier: BSD-2-Clause */
/* mhd.c -- the HTTP server under `lockrun cron --listen` (mhd.h):
 * libmicrohttpd, loaded with dlopen(3) when a scheduler is asked to
 * listen (lockrun does not link it: a run, a tick or a cron without
 * --listen maps nothing more), on a socket bound here, in the library's
 * own thread.
 *
 * What bounds a client: at most MHD_CONNECTIONS at once (the others wait
 * in the listen queue or are refused), MHD_TIMEOUT_S of silence ends a
 * connection, a request holds at most the library's default memory, and
 * nothing but GET and HEAD is answered. The answers are small and built
 * whole before they are queued. */
#ifdef LR_WEB
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "backend/notes.h"
#include "web/mhd.h"

#define LIBMHD		NOTES_MHD
#define MHD_CONNECTIONS	64	/* clients served at once */
#define MHD_TIMEOUT_S	10	/* a connection silent this long is closed */
#define MHD_BACKLOG	128

static struct {
	__typeof__(MHD_start_daemon)			*start_daemon;
	__typeof__(MHD_stop_daemon)			*stop_daemon;
	__typeof__(MHD_create_response_from_buffer)	*create_response_from_buffer;
	__typeof__(MHD_add_response_header)		*add_response_header;
	__typeof__(MHD_queue_response)			*queue_response;
	__typeof__(MHD_destroy_response)		*destroy_response;
} mhd;

#define SYM(f)	{ "MHD_" #f, offsetof(__typeof__(mhd), f) }
static const struct {
	const char	*name;
	size_t		 off;
} syms[] = {
	SYM(start_daemon), SYM(stop_daemon), SYM(create_response_from_buffer),
	SYM(add_response_header), SYM(queue_response), SYM(destroy_response),
};

struct mhd_server {
	struct MHD_Daemon	*d;
	mhd_answer_fn		*fn;
	void			*arg;
	int			 fd;
	char			 where[160];
};

/* Load libmicrohttpd once; it stays loaded. */
static int
load(const char *what, struct lr_err *e)
{
	static int loaded;
	void *h, *f;

	if (loaded)
		return 0;
	if ((h = dlopen(LIBMHD, RTLD_NOW | RTLD_LOCAL)) == NULL)
		return lr_errf(e, EX_UNAVAILABLE, "%s: cannot load " LIBMHD " (Debian: "
		    "apt-get install libmicrohttpd12): %s", what, dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if ((f = dlsym(h, syms[i].name)) == NULL) {
			lr_errf(e, EX_UNAVAILABLE, "%s: " LIBMHD ": %s", what, dlerror());
			dlclose(h);
			return -1;
		}
		memcpy((char *)&mhd + syms[i].off, &f, sizeof(f));
	}
	loaded = 1;
	return 0;
}

/* A unix socket at path; an old socket file there is replaced. */
static int
bind_unix(const char *what, const char *path, struct lr_err *e)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return lr_errf(e, EX_USAGE, "%s %s: the path is too long", what, path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return lr_errf(e, EX_OSERR, "%s %s: %s", what, path, strerror(errno));
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		lr_errf(e, EX_UNAVAILABLE, "%s %s: %s", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* "PORT", ":PORT", "HOST:PORT" or "[V6]:PORT" into host and port; no
 * host is the loopback address. Returns 0, or -1 with e. */
static int
split(const char *what, const char *addr, char *host, size_t n, const char **port,
    struct lr_err *e)
{
	const char *colon = strrchr(addr, ':');

	snprintf(host, n, "127.0.0.1");
	*port = colon ? colon + 1 : addr;
	if (**port == '\0' || strspn(*port, "0123456789") != strlen(*port) ||
	    strlen(*port) > 5 || atoi(*port) > 65535)
		return lr_errf(e, EX_USAGE, "%s %s: not HOST:PORT, [ADDRESS]:PORT, PORT "
		    "or unix:PATH", what, addr);
	if (colon == NULL || colon == addr)
		return 0;
	if (addr[0] == '[' && colon[-1] == ']')
		snprintf(host, n, "%.*s", (int)(colon - addr - 2), addr + 1);
	else
		snprintf(host, n, "%.*s", (int)(colon - addr), addr);
	return 0;
}

/* A TCP socket bound to addr. */
static int
bind_tcp(const char *what, const char *addr, struct lr_err *e)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	char host[256];
	const char *port;
	int fd, rc, one = 1;

	if (split(what, addr, host, sizeof(host), &port, e) != 0)
		return -1;
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0)
		return lr_errf(e, EX_USAGE, "%s %s: %s", what, addr, gai_strerror(rc));
	if ((fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		lr_errf(e, EX_OSERR, "%s %s: %s", what, addr, strerror(errno));
		freeaddrinfo(ai);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		lr_errf(e, EX_UNAVAILABLE, "%s %s: %s", what, addr, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* Where fd listens, for the log: "HOST:PORT" (the port the kernel chose
 * for port 0) or the unix path. */
static void
describe(int fd, char *buf, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		snprintf(buf, n, "?");
	else if (ss.ss_family == AF_UNIX)
		snprintf(buf, n, "unix:%s", ((struct sockaddr_un *)&ss)->sun_path);
	else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, n, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, n, "%s:%u", host, ntohs(s4->sin_port));
	}
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct mhd_server *s = cls;
	struct MHD_Response *r;
	const char *type = "text/plain; charset=utf-8";
	char *body = NULL;
	size_t len = 0;
	int code;
	enum MHD_Result rc;

	(void)version, (void)upload, (void)state;
	if (*upload_size != 0)
		return MHD_NO;		/* a GET has no body */
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		code = 405;
		body = strdup("GET or HEAD only\n");
	} else
		code = s->fn(s->arg, url, &body, &len, &type);
	if (body == NULL)
		return MHD_NO;
	if (len == 0)
		len = strlen(body);
	r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd.add_response_header(r, "Cache-Control", "no-store");
	mhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* the page has inline CSS and SVG, and nothing else to load */
	mhd.add_response_header(r, "Content-Security-Policy",
	    "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
	if (code == 405)
		mhd.add_response_header(r, "Allow", "GET, HEAD");
	rc = mhd.queue_response(c, (unsigned)code, r);
	mhd.destroy_response(r);
	return rc;
}

struct mhd_server *
mhd_start(const char *what, const char *addr, mhd_answer_fn *fn, void *arg,
    struct lr_err *e)
{
	struct mhd_server *s;
	const char *path = strncmp(addr, "unix:", 5) == 0 ? addr + 5 : addr[0] == '/' ? addr :
	    NULL;

	if (load(what, e) != 0)
		return NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		return NULL;
	}
	*s = (struct mhd_server){ .fn = fn, .arg = arg };
	if ((s->fd = path ? bind_unix(what, path, e) : bind_tcp(what, addr, e)) < 0 ||
	    listen(s->fd, MHD_BACKLOG) != 0) {
		if (s->fd >= 0)
			lr_errf(e, EX_UNAVAILABLE, "%s %s: %s", what, addr, strerror(errno));
		mhd_stop(s);
		return NULL;
	}
	describe(s->fd, s->where, sizeof(s->where));
	s->d = mhd.start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, s,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MHD_CONNECTIONS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)MHD_TIMEOUT_S,
	    MHD_OPTION_END);
	if (s->d == NULL) {
		lr_errf(e, EX_UNAVAILABLE, "%s %s: " LIBMHD " could not start", what, addr);
		mhd_stop(s);
		return NULL;
	}
	s->fd = -1;	/* the daemon's now: MHD_stop_daemon() closes it */
	return s;
}

const char *
mhd_where(const struct mhd_server *s)
{
	return s->where;
}

void
mhd_stop(struct mhd_server *s)
{
	if (s == NULL)
		return;
	if (s->d)
		mhd.stop_daemon(s->d);	/* joins its thread */
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

#else	/* WEB=no */
#include <stddef.h>

#include "web/mhd.h"

struct mhd_server *
mhd_start(const char *what, const char *addr, mhd_answer_fn *fn, void *arg,
    struct lr_err *e)
{
	(void)addr, (void)fn, (void)arg;
	lr_errf(e, EX_UNAVAILABLE, "%s: this lockrun was built without HTTP (WEB=no)", what);
	return NULL;
}

const char *
mhd_where(const struct mhd_server *s)
{
	(void)s;
	return "";
}

void
mhd_stop(struct mhd_server *s)
{
	(void)s;
}
#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* mhd.c -- the HTTP server under `lockrun cron --listen` (mhd.h):
 * libmicrohttpd, loaded with dlopen(3) when a scheduler is asked to
 * listen (lockrun does not link it: a run, a tick or a cron without
 * --listen maps nothing more), on a socket bound here, in the library's
 * own thread.
 *
 * What bounds a client: at most MHD_CONNECTIONS at once, MHD_PER_IP of
 * them from one address; past either, the oldest connection (of that
 * address, else of all) is closed to make room (web/peers.c), so that
 * clients holding their share, trickling a request or reading nothing,
 * cannot keep a monitor's /healthz out, even from their own address;
 * MHD_TIMEOUT_S of silence ends a connection, a request holds at most the
 * library's default memory, and nothing but GET and HEAD is answered.
 * What bounds the memory of slow readers: a large body is kept, one copy
 * shared by every connection sending it (a response's reference count),
 * until the answer function builds a newer one; while the bodies still
 * being sent hold more than MHD_ALIVE_MAX bytes, the kept one is served
 * again rather than a new one built.
 *
 * Who is answered: a Host header naming an IP address, localhost or one
 * of the names given (a page of another site resolved to this address,
 * DNS rebinding, is refused with 421), and with a token set, a request
 * with "Authorization: Bearer TOKEN" (else 401), but for /healthz. */
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
#include <strings.h>
#include <unistd.h>

#include <microhttpd.h>

#include "backend/notes.h"
#include "core/file.h"
#include "core/url.h"
#include "web/mhd.h"
#include "web/peers.h"

#define LIBMHD		NOTES_MHD
#define MHD_CONNECTIONS	128	/* clients served at once */
#define MHD_PER_IP	16	/* ...from one address */
#define MHD_TIMEOUT_S	10	/* a connection silent this long is closed */
#define MHD_BACKLOG	128
#define MHD_KEPT	4	/* paths whose body is kept */
#define MHD_ALIVE_MAX	(8u << 20)	/* bytes of bodies being sent, past
					 * which a kept one is served again */

static struct {
	__typeof__(MHD_start_daemon)			*start_daemon;
	__typeof__(MHD_stop_daemon)			*stop_daemon;
	__typeof__(MHD_create_response_from_buffer)	*create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback_cls)
							*create_response_from_buffer_with_free_callback_cls;
	__typeof__(MHD_add_response_header)		*add_response_header;
	__typeof__(MHD_queue_response)			*queue_response;
	__typeof__(MHD_destroy_response)		*destroy_response;
	__typeof__(MHD_lookup_connection_value)		*lookup_connection_value;
	__typeof__(MHD_get_connection_info)		*get_connection_info;
} mhd;

#define SYM(f)	{ "MHD_" #f, offsetof(__typeof__(mhd), f) }
static const struct {
	const char	*name;
	size_t		 off;
} syms[] = {
	SYM(start_daemon), SYM(stop_daemon), SYM(create_response_from_buffer),
	SYM(create_response_from_buffer_with_free_callback_cls),
	SYM(add_response_header), SYM(queue_response), SYM(destroy_response),
	SYM(lookup_connection_value), SYM(get_connection_info),
};

/* A body kept for a path, and the status it is served with. */
struct kept {
	char			*path;
	unsigned long long	 gen;
	unsigned		 code;
	struct MHD_Response	*r;
};

/* A body being sent: what its free callback takes off alive. */
struct sent {
	struct mhd_server	*s;
	char			*body;
	size_t			 len;
};

struct mhd_server {
	struct MHD_Daemon	*d;
	struct mhd_opts		 o;
	int			 fd;
	int			 public;
	char			 where[160];
	char			 unix_path[108];	/* the socket to remove */
	dev_t			 unix_dev;
	ino_t			 unix_ino;
	struct kept		 kept[MHD_KEPT];
	size_t			 alive;		/* bytes of the bodies not freed */
	struct peers		 peers;		/* the library's thread's only */
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

/* A unix socket at path, made 0660 before it listens (so that no client
 * connects while the umask's mode holds); an old socket file there is
 * replaced. Noted in s, for mhd_stop() to remove. */
static int
bind_unix(struct mhd_server *s, const char *what, const char *path, struct lr_err *e)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char why[512];
	struct stat st;
	mode_t old;
	int fd, bound;

	if (strlen(path) >= sizeof(sun.sun_path))
		return lr_errf(e, EX_USAGE, "%s %s: the path is too long", what, path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	/* a folder another user can change could swap the name for a link
	 * after the bind, or hold someone else's socket there */
	if (file_trusted(path, geteuid(), why, sizeof(why)) != 0)
		return lr_errf(e, EX_CONFIG, "%s %s: refused: %s", what, path, why);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return lr_errf(e, EX_OSERR, "%s %s: %s", what, path, strerror(errno));
	old = umask(0117);	/* created 0660, never more open for a moment */
	bound = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (bound != 0) {
		lr_errf(e, EX_UNAVAILABLE, "%s %s: %s", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (lstat(path, &st) != 0) {
		lr_errf(e, EX_OSERR, "%s %s: %s", what, path, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	snprintf(s->unix_path, sizeof(s->unix_path), "%s", path);
	s->unix_dev = st.st_dev;
	s->unix_ino = st.st_ino;
	return fd;
}

/* "PORT", ":PORT", "HOST:PORT" or "[V6]:PORT" into host and port[8]
 * (a URL's host and port, url_hostport(): one parser for both; port 0
 * is one the kernel picks); no host is the loopback address. Returns 0,
 * or -1 with e. */
static int
split(const char *what, const char *addr, char *host, size_t n, char port[8],
    struct lr_err *e)
{
	int all_digits = addr[0] != '\0' && strspn(addr, "0123456789") == strlen(addr);
	struct lr_err why;
	int p = -1;

	if (all_digits) {
		if (url_decimal(addr, strlen(addr), 0, 65535, &p) != 0)
			p = -1;
		host[0] = '\0';
	} else if (url_hostport_from(addr, addr + strlen(addr), host, n, &p, 0, &why) != 0)
		p = -1;
	if (p < 0)
		return lr_errf(e, EX_USAGE, "%s %s: not HOST:PORT, [ADDRESS]:PORT, PORT "
		    "or unix:PATH", what, addr);
	if (host[0] == '\0')
		snprintf(host, n, "127.0.0.1");
	snprintf(port, 8, "%d", p);
	return 0;
}

/* A TCP socket bound to addr. */
static int
bind_tcp(const char *what, const char *addr, struct lr_err *e)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	char host[256], port[8];
	int fd, rc, one = 1;

	if (split(what, addr, host, sizeof(host), port, e) != 0)
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
 * for port 0) or the unix path; and whether other hosts can reach it. */
static void
describe(int fd, char *buf, size_t n, int *public)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";

	*public = 0;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		snprintf(buf, n, "?");
	else if (ss.ss_family == AF_UNIX)
		snprintf(buf, n, "unix:%s", ((struct sockaddr_un *)&ss)->sun_path);
	else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		const unsigned char *a = s6->sin6_addr.s6_addr;
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, n, "[%s]:%u", host, ntohs(s6->sin6_port));
		*public = !IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) &&
		    !(IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && a[12] == 127);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, n, "%s:%u", host, ntohs(s4->sin_port));
		*public = (ntohl(s4->sin_addr.s_addr) >> 24) != 127;
	}
}

/* Does the Host header h name this server: an IP address (a page of
 * another site never has one as its origin's name), localhost, or one of
 * the names given; with a port or not. No Host (HTTP/1.0): yes. */
static int
host_ok(const struct mhd_server *s, const char *h)
{
	char name[256], a[sizeof(struct in6_addr)];
	const char *end, *p;
	size_t len;

	if (h == NULL || s->unix_path[0])
		return 1;	/* a browser reaches no unix socket */
	if (h[0] == '[') {
		if ((end = strchr(h, ']')) == NULL || (size_t)(end - h - 1) >= sizeof(name))
			return 0;
		snprintf(name, sizeof(name), "%.*s", (int)(end - h - 1), h + 1);
		return inet_pton(AF_INET6, name, a) == 1 &&
		    (end[1] == '\0' || end[1] == ':');
	}
	len = (end = strchr(h, ':')) ? (size_t)(end - h) : strlen(h);
	if (len == 0 || len >= sizeof(name))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)len, h);
	if (len > 0 && name[len - 1] == '.')
		name[--len] = '\0';	/* "localhost." */
	if (inet_pton(AF_INET, name, a) == 1 || strcasecmp(name, "localhost") == 0)
		return 1;
	for (p = s->o.names; p && *p; p += strcspn(p, " ,\t")) {
		size_t k;
		p += strspn(p, " ,\t");
		k = strcspn(p, " ,\t");
		if (k == len && k > 0 && strncasecmp(p, name, len) == 0)
			return 1;
	}
	return 0;
}

/* Does the request carry "Authorization: Bearer TOKEN"? Compared in a
 * time that does not depend on where the first difference is. */
static int
token_ok(const struct mhd_server *s, const char *auth)
{
	size_t n = strlen(s->o.token), m;
	unsigned char diff = 0;

	if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0)
		return 0;
	auth += 7;
	auth += strspn(auth, " ");
	m = strlen(auth);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(s->o.token[i] ^ (i < m ? auth[i] : 0));
	return diff == 0 && m == n;
}

static void
sent_free(void *cls)
{
	struct sent *t = cls;

	t->s->alive -= t->len;
	free(t->body);
	free(t);
}

/* A response for body (taken over), counted in s->alive while any
 * connection sends it; with the headers every answer has. */
static struct MHD_Response *
response(struct mhd_server *s, char *body, size_t len, const char *type)
{
	struct MHD_Response *r;
	struct sent *t = malloc(sizeof(*t));

	if (t == NULL) {
		free(body);
		return NULL;
	}
	*t = (struct sent){ .s = s, .body = body, .len = len };
	r = mhd.create_response_from_buffer_with_free_callback_cls(len, body, sent_free, t);
	if (r == NULL) {
		free(body);
		free(t);
		return NULL;
	}
	s->alive += len;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd.add_response_header(r, "Cache-Control", "no-store");
	mhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* the page has inline CSS and SVG, and nothing else to load */
	mhd.add_response_header(r, "Content-Security-Policy",
	    "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
	return r;
}

/* The body kept for path; with add, a free slot for it (or NULL). */
static struct kept *
kept_for(struct mhd_server *s, const char *path, int add)
{
	struct kept *free_one = NULL;

	for (size_t i = 0; i < MHD_KEPT; i++) {
		if (s->kept[i].path && strcmp(s->kept[i].path, path) == 0)
			return &s->kept[i];
		if (s->kept[i].path == NULL && free_one == NULL)
			free_one = &s->kept[i];
	}
	if (!add || free_one == NULL || (free_one->path = strdup(path)) == NULL)
		return NULL;
	return free_one;
}

/* A refusal before the answer function is asked: 405, 421, 401. */
static enum MHD_Result
refuse(struct mhd_server *s, struct MHD_Connection *c, unsigned code, const char *msg)
{
	struct MHD_Response *r;
	char *body = strdup(msg);
	enum MHD_Result rc;

	if (body == NULL || (r = response(s, body, strlen(msg),
	    "text/plain; charset=utf-8")) == NULL)
		return MHD_NO;
	if (code == 405)
		mhd.add_response_header(r, "Allow", "GET, HEAD");
	if (code == 401)
		mhd.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		    "Bearer realm=\"lockrun\"");
	rc = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return rc;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct mhd_server *s = cls;
	struct MHD_Response *r;
	struct kept *k;
	struct mhd_body b = { .type = "text/plain; charset=utf-8" };
	int code;
	enum MHD_Result rc;

	(void)version, (void)upload, (void)state;
	if (*upload_size != 0)
		return MHD_NO;		/* a GET has no body */
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return refuse(s, c, 405, "GET or HEAD only\n");
	if (!host_ok(s, mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
		return refuse(s, c, 421, "this server does not answer to that Host "
		    "(listen_names: in the config names the ones it does)\n");
	if (s->o.token && strcmp(url, "/healthz") != 0 && !token_ok(s,
	    mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Authorization")))
		return refuse(s, c, 401, "a bearer token is wanted "
		    "(the config's listen_token_file)\n");
	k = kept_for(s, url, 0);
	b.have = k ? k->gen : 0;
	b.spare = s->alive > MHD_ALIVE_MAX;
	code = s->o.fn(s->o.arg, url, &b);
	if (k && b.have != 0 && b.gen == b.have && b.body == NULL)
		return mhd.queue_response(c, k->code, k->r);	/* the kept one */
	if (b.body == NULL)
		return MHD_NO;
	if (b.len == 0)
		b.len = strlen(b.body);
	if ((r = response(s, b.body, b.len, b.type)) == NULL)
		return MHD_NO;
	rc = mhd.queue_response(c, (unsigned)code, r);
	if (b.gen != 0 && (k || (k = kept_for(s, url, 1)) != NULL)) {
		if (k->r)
			mhd.destroy_response(k->r);	/* sent on where queued */
		k->r = r;			/* the kept reference */
		k->gen = b.gen;
		k->code = (unsigned)code;
	} else
		mhd.destroy_response(r);
	return rc;
}

/* A connection accepted or closed, in the library's thread. Room is made
 * by shutting the chosen one down: the library reads its end and closes
 * it (its descriptor stays the library's until then). */
static void
notify(void *cls, struct MHD_Connection *c, void **state,
    enum MHD_ConnectionNotificationCode what)
{
	struct mhd_server *s = cls;
	const union MHD_ConnectionInfo *fd, *addr;
	int drop;

	(void)state;
	if ((fd = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) == NULL)
		return;
	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		peers_remove(&s->peers, fd->connect_fd);
		return;
	}
	addr = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	drop = peers_add(&s->peers, fd->connect_fd, addr ? addr->client_addr : NULL);
	if (drop >= 0)
		shutdown(drop, SHUT_RDWR);
}

struct mhd_server *
mhd_start(const struct mhd_opts *o, struct lr_err *e)
{
	struct mhd_server *s;
	const char *addr = o->addr, *what = o->what;
	const char *path = strncmp(addr, "unix:", 5) == 0 ? addr + 5 : addr[0] == '/' ? addr :
	    NULL;

	if (load(what, e) != 0)
		return NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		return NULL;
	}
	*s = (struct mhd_server){ .o = *o, .fd = -1 };
	s->peers.all_max = MHD_CONNECTIONS;
	s->peers.per_addr_max = MHD_PER_IP;
	if ((s->fd = path ? bind_unix(s, what, path, e) : bind_tcp(what, addr, e)) < 0 ||
	    listen(s->fd, MHD_BACKLOG) != 0) {
		if (s->fd >= 0)
			lr_errf(e, EX_UNAVAILABLE, "%s %s: %s", what, addr, strerror(errno));
		mhd_stop(s);
		return NULL;
	}
	describe(s->fd, s->where, sizeof(s->where), &s->public);
	s->d = mhd.start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, s,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)PEERS_MAX,
	    MHD_OPTION_NOTIFY_CONNECTION, notify, s,
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

int
mhd_public(const struct mhd_server *s)
{
	return s->public;
}

void
mhd_stop(struct mhd_server *s)
{
	struct stat st;

	if (s == NULL)
		return;
	if (s->d)
		mhd.stop_daemon(s->d);	/* joins its thread */
	if (s->fd >= 0)
		close(s->fd);
	for (size_t i = 0; i < MHD_KEPT; i++) {
		if (s->kept[i].r)
			mhd.destroy_response(s->kept[i].r);
		free(s->kept[i].path);
	}
	/* the socket bound, not one another process put there since */
	if (s->unix_path[0] && lstat(s->unix_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == s->unix_dev && st.st_ino == s->unix_ino)
		unlink(s->unix_path);
	free(s);
}

#else	/* WEB=no */
#include <stddef.h>

#include "web/mhd.h"

struct mhd_server *
mhd_start(const struct mhd_opts *o, struct lr_err *e)
{
	lr_errf(e, EX_UNAVAILABLE, "%s: this lockrun was built without HTTP (WEB=no)",
	    o->what);
	return NULL;
}

const char *
mhd_where(const struct mhd_server *s)
{
	(void)s;
	return "";
}

int
mhd_public(const struct mhd_server *s)
{
	(void)s;
	return 0;
}

void
mhd_stop(struct mhd_server *s)
{
	(void)s;
}
#endif

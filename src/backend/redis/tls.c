/* SPDX-License-Identifier: BSD-2-Clause */
/* tls.c -- TLS on lockrun's own socket, with OpenSSL.
 *
 * OpenSSL is loaded with dlopen(3) the first time a URL needs TLS
 * (tls_load()), as systemd loads its optional libraries: a run against
 * redis:// or a unix socket maps no libssl or libcrypto, which would cost
 * every cron start about half of lockrun's own time (README,
 * "Performance"). A build with TLS_LINKED (LINK=static) takes the same
 * functions from the library linked in instead. */
#include <arpa/inet.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/duration.h"
#include "core/file.h"
#include "backend/redis/tls.h"

#ifdef LR_TLS

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* Every OpenSSL function lockrun calls: libssl's, and libcrypto's, which
 * dlsym() finds through libssl's dependencies. */
#define OSSL_FUNCTIONS(X)						\
	X(OPENSSL_init_ssl) X(TLS_client_method) X(SSL_CTX_new)		\
	X(SSL_CTX_free) X(SSL_CTX_ctrl) X(SSL_CTX_set_verify)		\
	X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_default_verify_paths) \
	X(SSL_CTX_use_certificate_chain_file) X(SSL_CTX_use_PrivateKey_file) \
	X(SSL_CTX_check_private_key) X(SSL_new) X(SSL_free) X(SSL_set_fd)	\
	X(SSL_ctrl) X(SSL_get0_param) X(SSL_set_hostflags) X(SSL_set1_host)	\
	X(SSL_connect) X(SSL_get_error) X(SSL_get_verify_result)		\
	X(SSL_read) X(SSL_write) X(X509_VERIFY_PARAM_set1_ip_asc)		\
	X(X509_verify_cert_error_string) X(ERR_peek_last_error)		\
	X(ERR_reason_error_string) X(ERR_error_string_n) X(ERR_clear_error)

static struct {
#define X(f) __typeof__(f) *f;
	OSSL_FUNCTIONS(X)
#undef X
} ossl;

/* Find each function: 0, or -1 with e. */
static int
ossl_resolve(struct lr_err *e)
{
#ifdef LR_TLS_LINKED
#define X(f) ossl.f = f;
	OSSL_FUNCTIONS(X)
#undef X
	(void)e;
	return 0;
#else
	void *h = dlopen(TLS_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL)
		return lr_errf(e, EX_UNAVAILABLE, "rediss://: cannot load " TLS_LIBRARY
		    " (Debian: apt-get install libssl3): %s", dlerror());
#define X(f)								\
	if ((*(void **)&ossl.f = dlsym(h, #f)) == NULL)			\
		return lr_errf(e, EX_UNAVAILABLE, "rediss://: " TLS_LIBRARY	\
		    " has no %s: not OpenSSL 3?", #f);
	OSSL_FUNCTIONS(X)
#undef X
	return 0;
#endif
}

int
tls_load(struct lr_err *e)
{
	static int loaded;

	if (!loaded && ossl_resolve(e) != 0)
		return -1;
	loaded = 1;
	return 0;
}

struct lr_tls {
	SSL	*ssl;
};

/* OpenSSL's first queued error, or what the system said, into e with
 * status. Returns -1. */
static int
ssl_why(struct lr_err *e, int status, const char *doing)
{
	unsigned long err = ossl.ERR_peek_last_error();
	char buf[256];

	if (err != 0) {
		const char *reason = ossl.ERR_reason_error_string(err);
		if (reason == NULL) {
			ossl.ERR_error_string_n(err, buf, sizeof(buf));
			reason = buf;
		}
		lr_errf(e, status, "%s%s%s", doing, *doing ? ": " : "", reason);
	} else
		lr_errf(e, status, "%s%s%s", doing, *doing ? ": " : "",
		    errno ? strerror(errno) : "connection closed by the server");
	ossl.ERR_clear_error();
	return -1;
}

/* 0 when path can be opened for reading; else -1 with e (EX_CONFIG)
 * naming the setting, the file and the reason, as OpenSSL's own text does
 * not. */
static int
readable(const char *path, const char *setting, struct lr_err *e)
{
	const char *kind;
	char reason[64];
	FILE *fp;

	if (path == NULL || (fp = file_open_regular(path, &kind)) != NULL) {
		if (path)
			fclose(fp);
		return 0;
	}
	return lr_errf(e, EX_CONFIG, "%s %s: %s", setting, path,
	    file_why(kind, reason, sizeof(reason)));
}

/* Load the settings into a new context. Returns it, or NULL with e
 * (EX_CONFIG: the settings are at fault).
 * OpenSSL's configuration file (openssl.cnf, $OPENSSL_CONF) is not read:
 * what it names (providers, engines) is not lockrun's to load, and a
 * static build could not load it safely. */
static SSL_CTX *
context(const struct lr_tls_opts *o, struct lr_err *e)
{
	SSL_CTX *ctx;
	const char *key = o->key_file ? o->key_file : o->cert_file;

	if (readable(o->insecure ? NULL : o->ca_file, "tls.ca_file", e) != 0 ||
	    readable(o->cert_file, "tls.cert_file", e) != 0 ||
	    readable(o->key_file, "tls.key_file", e) != 0)
		return NULL;
	if (ossl.OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1 ||
	    (ctx = ossl.SSL_CTX_new(ossl.TLS_client_method())) == NULL) {
		ssl_why(e, EX_CONFIG, "cannot set up TLS");
		return NULL;
	}
	ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
	if (!o->insecure) {
		ossl.SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (o->ca_file ? ossl.SSL_CTX_load_verify_locations(ctx, o->ca_file, NULL) != 1 :
		    ossl.SSL_CTX_set_default_verify_paths(ctx) != 1) {
			errno = 0;
			ssl_why(e, EX_CONFIG, o->ca_file ? "tls.ca_file" : "the system CA store");
			goto fail;
		}
	}
	if (o->cert_file && ossl.SSL_CTX_use_certificate_chain_file(ctx, o->cert_file) != 1) {
		ssl_why(e, EX_CONFIG, "tls.cert_file");
		goto fail;
	}
	if (o->cert_file && (ossl.SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
	    ossl.SSL_CTX_check_private_key(ctx) != 1)) {
		ssl_why(e, EX_CONFIG, o->key_file ? "tls.key_file" : "tls.cert_file (its key)");
		goto fail;
	}
	return ctx;
fail:
	ossl.SSL_CTX_free(ctx);
	return NULL;
}

/* Name the server must present: SNI for a host name, and the name or
 * address its certificate must be for. Returns 0 or -1. */
static int
expect_name(SSL *ssl, const char *name, int verify)
{
	unsigned char addr[16];
	int is_ip = inet_pton(AF_INET, name, addr) == 1 || inet_pton(AF_INET6, name, addr) == 1;

	if (!is_ip && ossl.SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME,
	    TLSEXT_NAMETYPE_host_name, (void *)name) != 1)
		return -1;
	if (!verify)
		return 0;
	if (is_ip)
		return ossl.X509_VERIFY_PARAM_set1_ip_asc(ossl.SSL_get0_param(ssl), name) == 1 ? 0 : -1;
	ossl.SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	return ossl.SSL_set1_host(ssl, name) == 1 ? 0 : -1;
}


/* SSL_connect until done or deadline. Returns 0, or -1 with e
 * (EX_UNAVAILABLE: the server's fault, or the network's). */
static int
handshake(SSL *ssl, int fd, int verify, long long deadline, struct lr_err *e)
{
	for (;;) {
		int rv, err;
		long left;
		struct pollfd pfd = { .fd = fd };

		ossl.ERR_clear_error();
		errno = 0;
		if ((rv = ossl.SSL_connect(ssl)) == 1)
			return 0;
		err = ossl.SSL_get_error(ssl, rv);
		if (err == SSL_ERROR_WANT_READ)
			pfd.events = POLLIN;
		else if (err == SSL_ERROR_WANT_WRITE)
			pfd.events = POLLOUT;
		else if (verify && ossl.SSL_get_verify_result(ssl) != X509_V_OK) {
			lr_errf(e, EX_UNAVAILABLE, "TLS handshake: certificate verify failed: %s",
			    ossl.X509_verify_cert_error_string(ossl.SSL_get_verify_result(ssl)));
			ossl.ERR_clear_error();
			return -1;
		} else
			return ssl_why(e, EX_UNAVAILABLE, "TLS handshake");
		if ((left = (long)(deadline - mono_ms())) <= 0 ||
		    poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) == 0)
			return lr_errf(e, EX_UNAVAILABLE, "TLS handshake: no answer in time "
			    "(is this a TLS port? rediss:// is for TLS, redis:// for plain)");
	}
}

struct lr_tls *
tls_open(int fd, const char *host, const struct lr_tls_opts *o, long long deadline,
    struct lr_err *e)
{
	struct lr_tls *t;
	SSL_CTX *ctx;
	SSL *ssl;

	/* up to the handshake, a failure is the settings' (or this build's) */
	if (tls_load(e) != 0) {
		e->status = EX_CONFIG;
		return NULL;
	}
	if ((ctx = context(o, e)) == NULL)
		return NULL;
	ssl = ossl.SSL_new(ctx);
	ossl.SSL_CTX_free(ctx);		/* ssl holds it now */
	if (ssl == NULL || ossl.SSL_set_fd(ssl, fd) != 1 ||
	    expect_name(ssl, o->server_name ? o->server_name : host, !o->insecure) != 0) {
		ssl_why(e, EX_CONFIG, "cannot set up TLS");
		ossl.SSL_free(ssl);
		return NULL;
	}
	if (handshake(ssl, fd, !o->insecure, deadline, e) != 0) {
		e->kind = LR_ERR_TRANSPORT;
		ossl.SSL_free(ssl);
		return NULL;
	}
	if ((t = malloc(sizeof(*t))) == NULL) {
		lr_errf(e, EX_UNAVAILABLE, "out of memory");
		e->kind = LR_ERR_TRANSPORT;
		ossl.SSL_free(ssl);
		return NULL;
	}
	t->ssl = ssl;
	return t;
}

/* After a failed SSL_read or SSL_write: what to wait for, or e. */
static ssize_t
failed(struct lr_tls *t, int rv, short *want, struct lr_err *e)
{
	switch (ossl.SSL_get_error(t->ssl, rv)) {
	case SSL_ERROR_WANT_READ:
		*want = POLLIN;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		*want = POLLOUT;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	default:
		ssl_why(e, EX_UNAVAILABLE, "TLS");
		e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
}

ssize_t
tls_read(struct lr_tls *t, char *buf, size_t len, short *want, struct lr_err *e)
{
	int rv;

	ossl.ERR_clear_error();
	errno = 0;
	if ((rv = ossl.SSL_read(t->ssl, buf, len > INT_MAX ? INT_MAX : (int)len)) > 0)
		return rv;
	return failed(t, rv, want, e);
}

ssize_t
tls_write(struct lr_tls *t, const char *buf, size_t len, short *want, struct lr_err *e)
{
	int rv;

	ossl.ERR_clear_error();
	errno = 0;
	if ((rv = ossl.SSL_write(t->ssl, buf, len > INT_MAX ? INT_MAX : (int)len)) > 0)
		return rv;
	return failed(t, rv, want, e);
}

void
tls_free(struct lr_tls *t)
{
	ossl.SSL_free(t->ssl);
	free(t);
}

#else /* !LR_TLS */

struct lr_tls {
	int	unused;
};

int
tls_load(struct lr_err *e)
{
	return lr_errf(e, EX_UNAVAILABLE, "rediss://: this lockrun was built without "
	    "TLS (TLS=no)");
}

struct lr_tls *
tls_open(int fd, const char *host, const struct lr_tls_opts *o, long long deadline,
    struct lr_err *e)
{
	(void)fd, (void)host, (void)o, (void)deadline;
	lr_errf(e, EX_CONFIG, "this lockrun was built without TLS (TLS=no)");
	return NULL;
}

ssize_t
tls_read(struct lr_tls *t, char *buf, size_t len, short *want, struct lr_err *e)
{
	(void)t, (void)buf, (void)len, (void)want;
	lr_errf(e, EX_UNAVAILABLE, "no TLS");
	return -1;
}

ssize_t
tls_write(struct lr_tls *t, const char *buf, size_t len, short *want, struct lr_err *e)
{
	return tls_read(t, (char *)buf, len, want, e);
}

void
tls_free(struct lr_tls *t)
{
	(void)t;
}

#endif

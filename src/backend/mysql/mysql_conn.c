/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_conn.c -- the MySQL/MariaDB client layer: libmariadb.so.3 loaded
 * with dlopen(), statements with escaped inputs, the connection, and one
 * exchange: a string of statements sent at once (CLIENT_MULTI_STATEMENTS)
 * and every answer read with mysql_next_result(). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errmsg.h>
#include <mysqld_error.h>

#include "core/duration.h"
#include "core/file.h"
#include "backend/mysql/mysql_conn.h"
#include "backend/notes.h"
#include "backend/mysql/mysql_sql.h"
#include "core/text.h"

#define MY_LIB		NOTES_MARIADB
/* lockrun's rows and statements are a few KiB: a row past MY_ROW_MAX is
 * one task's value grown too large, read to its end and dropped, and the
 * statement that read it alone fails (LR_ERR_DATA), the session kept with
 * every lock it holds; a packet past MY_PACKET_MAX (the client library
 * refuses it as it is announced, not read until memory runs out) loses
 * the connection. */
#define MY_ROW_MAX	(1024UL * 1024)
#define MY_PACKET_MAX	(64UL * 1024 * 1024)
#define MY_NAME_MAX	64	/* a GET_LOCK name, in MySQL (counted in bytes here) */

struct my_api my_api;

int
my_load(struct lr_err *e)
{
	if (my_api.lib != NULL)
		return 0;
	if ((my_api.lib = dlopen(MY_LIB, RTLD_NOW | RTLD_LOCAL)) == NULL)
		goto missing;
#define MY_LOAD(f, sym) \
	if ((my_api.f = (__typeof__(my_api.f))dlsym(my_api.lib, #sym)) == NULL) \
		goto missing;
	MY_FUNCS(MY_LOAD)
#undef MY_LOAD
	return 0;
missing:
	lr_errf(e, EX_UNAVAILABLE, "mysql://: cannot load " MY_LIB " (Debian: apt-get "
	    "install libmariadb3): %s", dlerror());
	if (my_api.lib != NULL)
		dlclose(my_api.lib);
	my_api.lib = NULL;
	return -1;
}

static void
myq_addn(struct myq *q, const char *s, size_t n)
{
	size_t cap = q->cap ? q->cap : 2048;
	char *p;

	if (q->oom)
		return;
	while (cap < q->len + n + 1)
		cap *= 2;
	if (cap != q->cap) {
		if ((p = realloc(q->s, cap)) == NULL) {
			q->oom = 1;
			return;
		}
		q->s = p;
		q->cap = cap;
	}
	memcpy(q->s + q->len, s, n);
	q->len += n;
	q->s[q->len] = '\0';
}

void
myq_add(struct myq *q, const char *s)
{
	myq_addn(q, s, strlen(s));
}

/* "@name := " in the SET being built; the first one opens it. */
static void
myq_var(struct myq *q, const char *name)
{
	myq_add(q, q->vars++ ? ",\n    @" : "SET @");
	myq_add(q, name);
	myq_add(q, " := ");
}

void
myq_end(struct myq *q)
{
	if (q->vars)
		myq_add(q, ";\n");
	q->vars = 0;
}

/* The client library escapes for this connection's character set and
 * its NO_BACKSLASH_ESCAPES mode; _binary keeps the bytes as they are. */
void
myq_str(struct myq *q, MYSQL *db, const char *name, const char *v)
{
	myq_strn(q, db, name, v, v ? strlen(v) : 0);
}

void
myq_strn(struct myq *q, MYSQL *db, const char *name, const char *v, size_t n)
{
	unsigned long len;
	char *esc;

	myq_var(q, name);
	if (v == NULL) {
		myq_add(q, "NULL");
		return;
	}
	if ((esc = malloc(2 * n + 1)) == NULL) {
		q->oom = 1;
		return;
	}
	len = my_api.escape(db, esc, v, (unsigned long)n);
	if (len == (unsigned long)-1)
		q->oom = 1;
	else {
		myq_add(q, "_binary'");
		myq_addn(q, esc, len);
		myq_add(q, "'");
	}
	free(esc);
}

void
myq_ll(struct myq *q, const char *name, long long v)
{
	char num[24];

	snprintf(num, sizeof(num), "%lld", v);
	myq_var(q, name);
	myq_add(q, num);
}

static void
myq_raw(struct myq *q, const char *name, const char *expr)
{
	myq_var(q, name);
	myq_add(q, expr);
}

void
my_clock_vars(struct myq *q)
{
	myq_raw(q, "now", MYSQL_SQL_NOW_MS);
	myq_raw(q, "us", MYSQL_SQL_NOW_US);
}

void
my_lock_name(const char *stable, char *buf, size_t n)
{
	if (strlen(stable) <= MY_NAME_MAX)
		snprintf(buf, n, "%s", stable);
	else
		snprintf(buf, n, "lockrun:%016llx", (unsigned long long)key_hash64(stable));
}

long long
my_num(const char *s)
{
	long long v;

	return s && text_decimal(s, &v) == 0 ? v : 0;
}

/* The kind of failure MySQL error n is (mysql_errno()): the client
 * library's own (CR_*, 2000-2999, 5000-5999: CR_SERVER_GONE_ERROR,
 * CR_SERVER_LOST...) and the server going away are the connection's; the
 * server's refusal of a statement for the values it met, the data's. */
static enum lr_err_kind
my_kind(unsigned int n)
{
	switch (n) {
	case CR_COMMANDS_OUT_OF_SYNC: case CR_OUT_OF_MEMORY: case CR_VERSION_ERROR:
	case CR_MALFORMED_PACKET: case CR_AUTH_PLUGIN_CANNOT_LOAD:
		return LR_ERR_REFUSED;		/* it answered, but not as we need */
	case CR_NET_PACKET_TOO_LARGE:
		return LR_ERR_PROTOCOL;		/* past MY_PACKET_MAX: closed */
	case ER_SERVER_SHUTDOWN: case ER_CONNECTION_KILLED: case ER_ABORTING_CONNECTION:
	case ER_NEW_ABORTING_CONNECTION: case ER_NET_PACKET_TOO_LARGE:
		return LR_ERR_TRANSPORT;	/* the server is going away */
	case ER_ACCESS_DENIED_ERROR: case ER_DBACCESS_DENIED_ERROR:
	case ER_ACCESS_DENIED_NO_PASSWORD_ERROR:
		return LR_ERR_AUTH;
	case ER_DATA_TOO_LONG: case ER_DUP_ENTRY: case ER_TRUNCATED_WRONG_VALUE:
	case ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: case ER_BAD_NULL_ERROR:
	case ER_WARN_DATA_OUT_OF_RANGE: case ER_TOO_BIG_ROWSIZE: case ER_ROW_IS_REFERENCED_2:
	case ER_NO_REFERENCED_ROW_2: case ER_CONSTRAINT_FAILED:
		return LR_ERR_DATA;
	}
	if ((n >= 2000 && n < 3000) || (n >= 5000 && n < 6000))
		return LR_ERR_TRANSPORT;	/* client side */
	return LR_ERR_REFUSED;
}

/* 1 when MySQL error n means the connection broke. */
static int
my_transport(unsigned int n)
{
	enum lr_err_kind k = my_kind(n);

	return lr_err_broke(&(struct lr_err){ .kind = k });
}

/* Fill e from db's last error, one line, its kind my_kind()'s. Returns
 * -1. */
static int
my_error(struct lr_backend *b, MYSQL *db, const char *what, struct lr_err *e)
{
	unsigned int n = my_api.errnum(db);
	char msg[400];

	text_one_line(msg, sizeof(msg), my_api.error(db));
	lr_errf(e, n == ER_BAD_DB_ERROR ? EX_CONFIG : EX_UNAVAILABLE, "mysql %s: %s: %s",
	    b->where, what, msg);
	if (e != NULL)
		e->kind = my_kind(n);
	return -1;
}

void
my_close(struct lr_backend *b)
{
	struct my *m = b->impl;

	if (m->db != NULL)
		my_api.close(m->db);
	m->db = NULL;
	m->primed = m->renewing = 0;
}

/* Whole seconds, rounded up, at least one: what the client library's
 * timeouts take (a day at most: longer is no timeout to speak of). */
static unsigned int
secs(long long ms)
{
	return ms <= 1000 ? 1 : ms >= 86400000 ? 86400 : (unsigned int)((ms + 999) / 1000);
}

/* The URL's TLS settings on db. Without ssl-mode= none: the client
 * library's default holds. A file lockrun cannot read is a setting to
 * fix (78), said before the server is asked. */
static int
tls_options(struct lr_backend *b, MYSQL *db, struct lr_err *e)
{
	const struct lr_mysqlurl *u = &((struct my *)b->impl)->url;
	const struct {
		const char *name, *path;
		enum mysql_option opt;
	} files[] = {
		{ "ssl-ca", u->ssl_ca, MYSQL_OPT_SSL_CA },
		{ "ssl-cert", u->ssl_cert, MYSQL_OPT_SSL_CERT },
		{ "ssl-key", u->ssl_key, MYSQL_OPT_SSL_KEY },
	};
	/* VERIFY_CA is the CA given: with one, libmariadb checks the chain;
	 * VERIFY_SERVER_CERT adds the host name (and without a CA checks the
	 * chain against the system's) */
	my_bool on = u->ssl_mode >= MYSQLURL_SSL_PREFERRED;
	my_bool host = u->ssl_mode == MYSQLURL_SSL_VERIFY_IDENTITY;
	const char *kind;
	char why[64];
	int bad = 0;
	FILE *fp;

	if (u->ssl_mode == MYSQLURL_SSL_DEFAULT)
		return 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i].path[0] == '\0')
			continue;
		if ((fp = file_open_regular(files[i].path, &kind)) == NULL)
			return lr_errf(e, EX_CONFIG, "mysql %s: %s %s: %s", b->where,
			    files[i].name, files[i].path, file_why(kind, why, sizeof(why)));
		fclose(fp);
		bad |= my_api.options(db, files[i].opt, files[i].path);
	}
	bad |= my_api.options(db, MYSQL_OPT_SSL_ENFORCE, &on);
	bad |= my_api.options(db, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &host);
	if (bad)
		return lr_errf(e, EX_SOFTWARE, "mysql %s: the client library refused "
		    "a TLS option", b->where);
	return 0;
}

/* libmariadb 3.3 goes on in the clear when the server offers no TLS,
 * unless it is to verify the host name: REQUIRED and VERIFY_CA learn it
 * here, after the login and before any statement. */
static int
tls_check(struct lr_backend *b, MYSQL *db, struct lr_err *e)
{
	const struct lr_mysqlurl *u = &((struct my *)b->impl)->url;

	if (u->ssl_mode < MYSQLURL_SSL_REQUIRED || my_api.ssl_cipher(db) != NULL)
		return 0;
	lr_errf(e, EX_UNAVAILABLE, "mysql %s: connect: ssl-mode=%s, but the server "
	    "offers no TLS", b->where, mysqlurl_ssl_name(u->ssl_mode));
	/* as the library's own "SSL is required" for VERIFY_IDENTITY */
	if (e != NULL)
		e->kind = my_kind(CR_SSL_CONNECTION_ERROR);
	return -1;
}

int
my_connect(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	struct my *m = b->impl;
	const struct lr_mysqlurl *u = &m->url;
	const char *pw = b->cfg.password && *b->cfg.password ? b->cfg.password :
	    u->password;
	unsigned int ct = secs(cap_ms), rt = secs(b->cfg.command_timeout_ms);
	unsigned int proto = u->is_unix ? MYSQL_PROTOCOL_SOCKET : MYSQL_PROTOCOL_TCP;
	unsigned long max_packet = MY_PACKET_MAX;
	my_bool no = 0;
	MYSQL *db;
	int fd;

	my_close(b);
	if ((db = my_api.init(NULL)) == NULL)
		return lr_errf(e, EX_OSERR, "mysql %s: out of memory", b->where);
	my_api.options(db, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
	my_api.options(db, MYSQL_OPT_READ_TIMEOUT, &rt);
	my_api.options(db, MYSQL_OPT_WRITE_TIMEOUT, &rt);
	my_api.options(db, MYSQL_OPT_PROTOCOL, &proto);
	/* a packet (a row, a statement) larger than lockrun can ever need is
	 * refused as it is announced, not read until memory runs out */
	my_api.options(db, MYSQL_OPT_MAX_ALLOWED_PACKET, &max_packet);
	/* a silent reconnect would hide the loss of the session lock */
	my_api.options(db, MYSQL_OPT_RECONNECT, &no);
	if (tls_options(b, db, e) != 0) {
		my_api.close(db);
		return -1;
	}
	/* "" rather than NULL: no password is no password, not $MYSQL_PWD */
	if (my_api.real_connect(db, u->is_unix ? "localhost" : u->host,
	    u->user[0] ? u->user : NULL, pw, u->database,
	    (unsigned int)u->port, u->socket[0] ? u->socket : NULL,
	    CLIENT_MULTI_STATEMENTS) == NULL) {
		my_error(b, db, "connect", e);
		my_api.close(db);
		return -1;
	}
	if (tls_check(b, db, e) != 0) {
		my_api.close(db);
		return -1;
	}
	/* the command lockrun runs must not inherit the session, or the
	 * session lock would outlive lockrun */
	if ((fd = (int)my_api.get_socket(db)) >= 0)
		fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
	m->db = db;
	m->mariadb = strstr(my_api.server_info(db), "MariaDB") != NULL;
	return 0;
}

/* The bytes of row's nf values (text: each NUL-terminated). */
static size_t
row_size(MYSQL_ROW row, unsigned int nf)
{
	size_t n = 0;

	for (unsigned int i = 0; i < nf; i++)
		n += row[i] ? strlen(row[i]) : 0;
	return n;
}

/* The rows of r to fn; one past MY_ROW_MAX is read, not taken, and sets
 * *over (drain() fails the answer), the rows after it with it unless
 * each (a group's answer is its own: my_exec_groups()). */
static int
each_row(MYSQL_RES *r, size_t set, my_row_fn fn, void *arg, int each, int *over)
{
	unsigned int nf = my_api.num_fields(r);
	MYSQL_ROW row;

	int rc;

	while ((row = my_api.fetch_row(r)) != NULL) {
		if (row_size(row, nf) > MY_ROW_MAX)
			*over = 1;
		else if ((each || !*over) && fn != NULL && (rc = fn(arg, set, row, nf)) != 0)
			return rc;
	}
	return 0;
}

/* Read every answer to the string sent, each result set's rows to fn. An
 * error after want (> 0) result sets, in the bookkeeping behind the
 * answer, ends the reading without failing it. Returns 0; 1 after such an
 * error; -1 on an error (mysql_errno() says which); -2 when fn found
 * the answer not of its shape, -3 when it ran out of memory (the rest
 * unread); -4 when a row was past MY_ROW_MAX (all of it read: the
 * connection is in order). */
static int
drain(MYSQL *db, size_t want, my_row_fn fn, void *arg, int each, size_t *sets)
{
	int st = my_api.read_query_result(db) ? 1 : 0, over = 0;
	MYSQL_RES *r;

	*sets = 0;
	for (;;) {
		if (st > 0)
			return want > 0 && *sets >= want ? 1 : -1;
		if (my_api.field_count(db) > 0) {
			if ((r = my_api.store_result(db)) == NULL)
				return want > 0 && *sets >= want ? 1 : -1;
			st = each_row(r, (*sets)++, fn, arg, each, &over);
			my_api.free_result(r);
			if (st != 0)
				return st == MY_ROW_NOMEM ? -3 : -2;
		}
		if ((st = my_api.next_result(db)) < 0)
			return over ? -4 : 0;
	}
}

int
my_not_connected(struct lr_backend *b, const char *what, struct lr_err *e)
{
	return lr_errk(e, LR_ERR_TRANSPORT, EX_UNAVAILABLE, "mysql %s: %s: not connected",
	    b->where, what);
}

/* The session SET goes in front of the first string on a connection. */
int
my_send(struct lr_backend *b, const char *what, const struct myq *body,
    struct lr_err *e)
{
	struct my *m = b->impl;
	struct myq full = { 0 };
	int rc;

	if (body->oom)
		return lr_errf(e, EX_OSERR, "mysql %s: %s: out of memory", b->where, what);
	if (m->db == NULL)
		return my_not_connected(b, what, e);
	if (!m->primed) {
		myq_add(&full, m->mariadb ? mysql_sql_session_mariadb : mysql_sql_session_mysql);
		myq_add(&full, body->s);
		body = &full;
	}
	m->sent_ms = mono_ms();
	rc = body->oom ? -1 : my_api.send_query(m->db, body->s, (unsigned long)body->len);
	free(full.s);
	if (rc == 0)
		return 0;
	if (body->oom)
		return lr_errf(e, EX_OSERR, "mysql %s: %s: out of memory", b->where, what);
	my_error(b, m->db, what, e);
	my_close(b);
	return -1;
}

int
my_recv_sets(struct lr_backend *b, const char *what, size_t want, my_row_fn fn, void *arg,
    int each, size_t *sets, struct lr_err *e)
{
	struct my *m = b->impl;
	int rc;

	*sets = 0;
	if (m->db == NULL)
		return my_not_connected(b, what, e);
	rc = drain(m->db, want, fn, arg, each, sets);
	m->over = rc == -4;
	if (rc >= 0 || rc == -4)
		m->primed = 1;
	if (rc == -4)	/* read to its end: the session is in order */
		return lr_errk(e, LR_ERR_DATA, EX_UNAVAILABLE, "mysql %s: %s: a row larger "
		    "than lockrun accepts (%lu KiB; a value of this task's grown too large?)",
		    b->where, what, MY_ROW_MAX / 1024);
	if (rc == 1 && my_transport(my_api.errnum(m->db)))
		my_close(b);			/* it broke after the answer */
	else if (rc == 1 && (my_api.send_query(m->db, "ROLLBACK", 8) != 0 ||
	    drain(m->db, 0, NULL, NULL, 0, &(size_t){ 0 }) != 0))
		my_close(b);			/* the bookkeeping's transaction */
	if (rc >= 0)
		return 0;
	if (rc <= -2) {
		my_close(b);
		return rc == -2 ? lr_errf(e, EX_SOFTWARE, "mysql %s: %s: unexpected answer",
		    b->where, what) : lr_errf(e, EX_OSERR, "mysql %s: %s: out of memory",
		    b->where, what);
	}
	my_error(b, m->db, what, e);
	if (e != NULL && lr_err_broke(e) &&
	    mono_ms() - m->sent_ms >= b->cfg.command_timeout_ms) {
		/* the read timeout, which the client library words as a lost
		 * connection: the server may yet run it (run.c asks no more) */
		char d[32], was[sizeof(e->msg)];
		int skip = snprintf(NULL, 0, "mysql %s: %s: ", b->where, what);
		snprintf(was, sizeof(was), "%s", skip > 0 && (size_t)skip < strlen(e->msg) ?
		    e->msg + skip : e->msg);
		lr_errk(e, LR_ERR_TIMEOUT, EX_UNAVAILABLE, "mysql %s: %s: no answer within %s "
		    "(%s)", b->where, what, duration_human(b->cfg.command_timeout_ms, d,
		    sizeof(d)), was);
	}
	if (e == NULL || lr_err_broke(e))
		my_close(b);
	return -1;
}

int
my_recv(struct lr_backend *b, const char *what, size_t want, my_row_fn fn, void *arg,
    struct lr_err *e)
{
	return my_recv_sets(b, what, want, fn, arg, 0, &(size_t){ 0 }, e);
}

/* The server refused a string part way, the connection in order: roll
 * back the transaction it left open, and send undo (one SELECT, or NULL)
 * behind it. When that fails, close: the session's end frees what the
 * string took. */
static void
rolled_back(struct lr_backend *b, const char *undo)
{
	struct myq q = { 0 };
	struct lr_err ue;
	int rc;

	myq_add(&q, "ROLLBACK");
	if (undo != NULL) {
		myq_add(&q, ";\n");
		myq_add(&q, undo);
	}
	rc = my_exec(b, "roll back", &q, undo != NULL, MY_KEEP, NULL, NULL, &ue);
	free(q.s);
	if (rc != 0)
		my_close(b);
}

/* The columns mysql_sql_upgrade adds, one statement each; one that is
 * there already is no error. Returns 0, or -1 with e. */
static int
add_columns(struct lr_backend *b, struct lr_err *e)
{
	struct my *m = b->impl;

	for (size_t i = 0; mysql_sql_upgrade[i] != NULL; i++) {
		struct myq alter = { 0 };
		int rc;

		myq_add(&alter, mysql_sql_upgrade[i]);
		rc = my_exec(b, "add columns", &alter, 0, MY_KEEP, NULL, NULL, e);
		free(alter.s);
		if (rc != 0 && (m->db == NULL || my_api.errnum(m->db) != ER_DUP_FIELDNAME))
			return -1;	/* refused (a privilege): the session stays */
	}
	return 0;
}

/* A table was missing, or a column (a table an older lockrun created):
 * roll back what the string did and undo what it took (a GET_LOCK taken
 * before the statement that found the table missing), on the same
 * session, which keeps every other lock it holds (a new one when that
 * failed); create the tables, add the columns, and send body again. */
static int
create_and_retry(struct lr_backend *b, const char *what, const struct myq *body,
    size_t want, const char *undo, my_row_fn fn, void *arg, struct lr_err *e)
{
	struct my *m = b->impl;
	struct myq ddl = { 0 };
	int rc;

	rolled_back(b, undo);
	if (m->db == NULL && my_connect(b, b->cfg.connect_timeout_ms, e) != 0)
		return -1;
	myq_add(&ddl, mysql_sql_ddl);
	rc = my_exec(b, "create tables", &ddl, 0, 0, NULL, NULL, e);
	free(ddl.s);
	if (rc != 0 || add_columns(b, e) != 0)
		return -1;
	return my_exec_undo(b, what, body, want, 0, undo, fn, arg, e);
}

int
my_exec(struct lr_backend *b, const char *what, const struct myq *body, size_t want,
    int flags, my_row_fn fn, void *arg, struct lr_err *e)
{
	return my_exec_undo(b, what, body, want, flags, NULL, fn, arg, e);
}

int
my_exec_undo(struct lr_backend *b, const char *what, const struct myq *body, size_t want,
    int flags, const char *undo, my_row_fn fn, void *arg, struct lr_err *e)
{
	struct my *m = b->impl;
	struct lr_err mine;

	if (e == NULL)
		e = &mine;
	m->over = 0;
	if (my_send(b, what, body, e) != 0)
		return -1;
	if (my_recv(b, what, want, fn, arg, e) == 0)
		return 0;
	if (m->db == NULL || m->over)
		return -1;	/* m->over: all of it ran; the session is kept */
	if ((my_api.errnum(m->db) == ER_NO_SUCH_TABLE ||
	    my_api.errnum(m->db) == ER_BAD_FIELD_ERROR) && (flags & MY_CREATE))
		return create_and_retry(b, what, body, want, undo, fn, arg, e);
	if (!(flags & MY_KEEP))
		rolled_back(b, undo);	/* the session, and every lock, stays */
	return -1;
}

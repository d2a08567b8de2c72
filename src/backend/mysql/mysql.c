/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql.c -- the lock in MySQL/MariaDB (backend.h): the stable key is a
 * row with an expiry, the lease, which decides (a newcomer never runs
 * while it has not expired, whatever became of the session that wrote
 * it), and a GET_LOCK() of this connection, which keeps the lock while its
 * session lives and lets the release free it at once; the holder watches
 * that connection between keep-alives (idle_read). Slot, fence, history
 * and last-run records are rows (mysql_sql.c has the tables and the SQL,
 * mysql_conn.c the client library and the connection).
 *
 * Round trips: every operation is one string of statements sent at once
 * (CLIENT_MULTI_STATEMENTS): a SET of its inputs as user variables, the
 * statements, which carry their decisions in user variables (GET_LOCK's
 * answer, whether the slot upsert claimed the row, ...) and end with one
 * SELECT, the answer; then, behind acquire and release, a bounded cleanup
 * of expired rows. So acquire, release and the renewal are one exchange
 * each, and unlock, peek, states (for all tasks), keys and history too;
 * a scheduler's acquires, renewals or releases of its runs' leases are
 * one exchange a batch, each lease's string in turn (mysql_batch.h;
 * mysql_lock.c, mysql_renew.c).
 * The first exchange on a connection also sets the time zone and
 * @lr_boot, at no extra round trip. A missing table costs, once per
 * database, a new connection, the CREATE TABLEs and the string again.
 *
 * The renewal does not block lockrun's poll loop: renew_send() only
 * writes (mysql_send_query); renew_recv(), called when fd() is readable,
 * reads with mysql_read_query_result() and mysql_next_result(), which may
 * block until the whole answer is in: the server writes it at once, and
 * the read timeout (the command timeout) bounds the wait. So renew_recv()
 * never returns 0.
 *
 * libmariadb.so.3 (MariaDB Connector/C, which speaks to MySQL too) is
 * loaded with dlopen() in mysql_backend_init(). Servers: MariaDB 10.2 or
 * later, MySQL 8 (window functions; the uptime in performance_schema). */
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mariadb_version.h>

#include "backend/mysql/mysql.h"
#include "backend/mysql/mysql_args.h"
#include "backend/mysql/mysql_conn.h"
#include "backend/mysql/mysql_lock.h"
#include "backend/mysql/mysql_renew.h"
#include "backend/mysql/mysql_sql.h"
#include "core/duration.h"
#include "core/text.h"

static MYSQL *
db_of(const struct lr_backend *b)
{
	return ((struct my *)b->impl)->db;
}

/* Connect, unless connected: the run path leaves it to acquire, the
 * verbs open first. */
static int
my_open(struct lr_backend *b, struct lr_err *e)
{
	return db_of(b) != NULL ? 0 : my_connect(b, b->cfg.connect_timeout_ms, e);
}

static int
my_ping(struct lr_backend *b, struct lr_err *e)
{
	struct myq q = { 0 };
	int rc;

	if (my_open(b, e) != 0)
		return -1;
	myq_add(&q, "SELECT 1");
	rc = my_exec(b, "ping", &q, 1, MY_KEEP, NULL, NULL, e);
	free(q.s);
	return rc;
}

static int
my_unlock(struct lr_backend *b, const struct lr_keys *k, const char *key,
    const char *expect, const char *who, long long hist_cap, long long hist_ttl_ms,
    char *holder, size_t n, struct lr_err *e)
{
	struct myq q = { 0 };
	struct my_answer a = { 0 };
	MYSQL *db = db_of(b);
	char name[KEY_MAX];
	int rc;

	if (db == NULL)
		return my_not_connected(b, "unlock", e);
	my_lock_name(k->stable, name, sizeof(name));
	my_clock_vars(&q);
	myq_str(&q, db, "key", key);
	myq_str(&q, db, "name", strcmp(key, k->stable) == 0 ? name : NULL);
	myq_str(&q, db, "fence", k->fence);
	myq_str(&q, db, "hist", k->hist);
	myq_str(&q, db, "last", k->last);
	myq_str(&q, db, "expect", expect);
	my_who_vars(&q, db, who);
	myq_str(&q, db, "slot_iso", strcmp(key, k->slot) == 0 ? k->slot_iso : "");
	myq_ll(&q, "cap", hist_cap);
	myq_ll(&q, "hist_ttl", hist_ttl_ms);
	myq_end(&q);
	myq_add(&q, mysql_sql_unlock);
	rc = my_exec(b, "unlock", &q, 1, MY_CREATE, my_answer_row, &a, e);
	free(q.s);
	if (rc != 0)
		return -1;
	if (!a.got || a.code < 0 || a.code > 3)
		return my_no_answer(b, "unlock", e);
	snprintf(holder, n, "%s", a.text);
	return (int)a.code;
}

static int
my_fd(const struct lr_backend *b)
{
	MYSQL *db = db_of(b);

	return db ? (int)my_api.get_socket(db) : -1;
}

/* An error packet the server sent unasked (MariaDB's "Connection was
 * killed"): its message into e and 1, or 0 when buf[len] is not one (e
 * untouched). A packet is a 3-byte length and a sequence number; an
 * error's payload is 0xff, the error number (2 bytes), '#' and the
 * SQLSTATE, the message. */
static int
error_packet(const unsigned char *buf, size_t len, struct lr_err *e)
{
	size_t plen = 0, at = len > 7 && buf[7] == '#' ? 13 : 7;
	char msg[256], line[256];

	if (len >= 4)
		plen = (size_t)buf[0] | (size_t)buf[1] << 8 | (size_t)buf[2] << 16;
	if (len < 8 || buf[4] != 0xff || plen + 4 > len || plen + 4 < at)
		return 0;
	snprintf(msg, sizeof(msg), "%.*s", (int)(plen + 4 - at), (const char *)buf + at);
	text_one_line(line, sizeof(line), msg);
	if (line[0] == '\0')
		return 0;
	lr_errf(e, EX_UNAVAILABLE, "%s", line);
	return 1;
}

/* Between exchanges the server sends nothing but when the session ends:
 * KILL (MariaDB sends the error first), wait_timeout, a shutdown; a proxy
 * or a firewall cutting the connection gives end of file or a reset. So
 * anything readable then means the session is over. A peek leaves the
 * client library's stream as it is (TLS records are not read, only seen). */
static int
my_idle_read(struct lr_backend *b, struct lr_err *e)
{
	MYSQL *db = db_of(b);
	unsigned char buf[512];
	struct lr_err why;
	ssize_t n;

	if (db == NULL)
		return my_not_connected(b, "session", e);
	n = recv((int)my_api.get_socket(db), buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n < 0)
		lr_errf(&why, EX_UNAVAILABLE, "%s", strerror(errno));
	else if (n == 0)
		lr_errf(&why, EX_UNAVAILABLE, "the server closed the connection");
	else if (!error_packet(buf, (size_t)n, &why))
		lr_errf(&why, EX_UNAVAILABLE, "the server closed the session");
	my_close(b);
	lr_errf(e, EX_UNAVAILABLE, "mysql %s: the session ended: %s", b->where, why.msg);
	if (e != NULL)
		e->kind = LR_ERR_TRANSPORT;
	return -1;
}

/* The client library counts its timeouts in whole seconds: a cap below
 * one second still waits up to one. */
static int
my_reopen(struct lr_backend *b, long long cap_ms, struct lr_err *e)
{
	long long ct = b->cfg.connect_timeout_ms;

	if (cap_ms < 1)
		cap_ms = 1;
	return my_connect(b, cap_ms < ct ? cap_ms : ct, e);
}

static void
my_free(struct lr_backend *b)
{
	if (b->impl == NULL)
		return;
	my_close(b);
	explicit_bzero(b->impl, sizeof(struct my));	/* the URL's password */
	free(b->impl);
	b->impl = NULL;
}

/* What a task asks that this backend cannot do yet: places (limit:). */
static int
my_check_task(const struct lr_backend *b, const struct lr_task *t, struct lr_err *e)
{
	(void)b;
	return lock_one_place("MySQL", t->limit, e);
}

static const struct lr_backend_ops mysql_ops = {
	.name = "mysql",
	.title = "MySQL",
	.session = 1, .shares = 1,
	.open = my_open,
	.ping = my_ping,
	.acquire = my_acquire,
	.acquire_many = my_acquire_many,
	.renew_send = my_renew_send,
	.renew_recv = my_renew_recv,
	.renew_many = my_renew_many,
	.release = my_release,
	.release_many = my_release_many,
	.unlock = my_unlock,
	.peek = my_peek,
	.states = my_states,
	.keys = my_keys,
	.history = my_history,
	.stories = my_stories,
	.probe = my_probe,
	.fd = my_fd,
	.idle_read = my_idle_read,
	.close = my_close,
	.reopen = my_reopen,
	.free = my_free,
	.check_task = my_check_task,
};

int
mysql_backend_init(struct lr_backend *b, struct lr_err *e)
{
	struct my *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return lr_errf(e, EX_OSERR, "mysql://: out of memory");
	/* a mistyped URL is said before a missing library */
	if (mysqlurl_parse(b->cfg.url, &m->url, e) != 0 || my_load(e) != 0) {
		free(m);
		return -1;
	}
	b->impl = m;
	b->ops = &mysql_ops;
	mysqlurl_where(&m->url, MARIADB_UNIX_ADDR, b->where, sizeof(b->where));
	return 0;
}

int
mysql_check_url(const char *url, struct lr_err *e)
{
	struct lr_mysqlurl u;

	return mysqlurl_parse(url, &u, e);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* sql_fixture.h -- throwaway PostgreSQL and MariaDB servers for tests,
 * demo and bench: each on a free loopback port in a temp dir, with a
 * database and a user "lockrun" that has a password, and an admin. */
#ifndef LR_SQL_FIXTURE_H
#define LR_SQL_FIXTURE_H

#include <sys/types.h>

#include <stddef.h>

enum sql_kind {
	SQL_PG,			/* PostgreSQL: initdb, postgres */
	SQL_MYSQL		/* MariaDB (MySQL's protocol): mariadb-install-db, mariadbd */
};

#define SQL_PASSWORD	"lockrun-test-pw"	/* user lockrun's, on both */

/*
 * One server. Its dir holds:
 *   data/		the data directory (a copy of the template, below)
 *   postgres.log	the server's log (PG), or
 *   mariadb.log, mariadb.pid, mariadb.sock	(MariaDB)
 *   .s.PGSQL.PORT	PG's unix socket
 * and is the tests' scratch space too.
 *
 * PG: unix socket connections (libpq takes the socket's *directory*, dir,
 * as host, and the port names the file) let the superuser "postgres" in
 * without a password; user lockrun needs its password on the socket and
 * over TCP (scram-sha-256). lockrun owns database lockrun and may do
 * anything in it (its schema public), and nothing beyond (no superuser,
 * no CREATEDB, no CREATEROLE). The only other database is template1:
 * postgres and template0 are dropped, for fewer files to copy.
 *
 * MariaDB: root with no password, on the unix socket only (root's other
 * accounts are dropped); 'lockrun'@'%' and 'lockrun'@'localhost' (the
 * socket) with the password and ALL on lockrun.*. Character set utf8mb4
 * as Debian's stock configuration has it.
 *
 * When the tests run as root, both servers run as user nobody (both
 * refuse root), and dir and data/ belong to nobody; root still writes
 * scratch files there. Otherwise they run as the current user.
 */
struct sql_server {
	enum sql_kind kind;
	pid_t	pid;		/* the server (the postmaster; mariadbd), our child */
	int	port;		/* TCP, on 127.0.0.1 */
	char	dir[64];	/* fixture_tempdir(): /tmp/lockrun-test.XXXXXX */
	char	sock[128];	/* the unix socket file (PG: dir/.s.PGSQL.PORT) */
	char	url[256];	/* postgres://lockrun@127.0.0.1:PORT/lockrun or
				 * mysql://lockrun@127.0.0.1:PORT/lockrun: no
				 * password in it */
	char	password[64];	/* user lockrun's: SQL_PASSWORD */
	char	sock_url[256];	/* the same over the socket:
				 * postgres://lockrun@/lockrun?host=DIR&port=PORT
				 * (libpq's form: the socket's directory and the
				 * port, which names the file), or
				 * mysql://lockrun@localhost/lockrun?socket=SOCK */
	int	tls;		/* mysql_start_tls(): dir/tls-server.crt, .key and
				 * tls-ca.crt are the server's */
	int	tls_only;	/* and TCP connections must use TLS */
	int	max_connections;	/* 0 is 200; set it, then sql_restart(),
				 * for a server with fewer (sql_start() clears it) */
};

/*
 * Start a server in a new temp dir on a free port and wait, at most 30 s,
 * until it accepts connections. Returns 0, or -1 (prints why, with the
 * end of the server's log; s->dir stays for sql_stop() to remove).
 *
 * The slow part, initdb or mariadb-install-db, then creating the database
 * and the user, happens once into a template data dir; each start copies
 * it (cp -a). The template is /tmp/lockrun-sqltpl.KIND.EUID.HASH, HASH of
 * the server binary's identity (device, inode, size, mtime) and of
 * SQL_TEMPLATE_REV below: it outlives the process, so the tests' forked
 * workers, the next test run and the sanitizer run all share it, and a
 * new server package or a change to what the template holds makes a new
 * one. It is built under an flock() of the same name plus ".lock", so
 * concurrent tests build it once; a build cut short leaves no "ok" file
 * in it and is redone. Nothing removes templates: they go with /tmp
 * (rm -rf /tmp/lockrun-sqltpl.* is always safe while no test runs).
 *
 * PostgreSQL's programs come from $LOCKRUN_PG_BINDIR, else the newest
 * /usr/lib/postgresql/N/bin (Debian keeps them off PATH), else PATH;
 * mariadbd from PATH, else /usr/sbin or /usr/libexec; the MariaDB
 * clients and mariadb-install-db from PATH.
 */
int	sql_start(struct sql_server *s, enum sql_kind kind);
int	pg_start(struct sql_server *s);		/* sql_start(s, SQL_PG) */
int	mysql_start(struct sql_server *s);	/* sql_start(s, SQL_MYSQL) */

/* mysql_start() with TLS: MariaDB's certificate and key are certdir's
 * NAME.crt and NAME.key (tls_make_certs(): "server", or "wrong-host"),
 * its CA certdir/ca.crt; copies of them in s->dir belong to the servers'
 * user, the key readable by it alone. With tls_only, TCP connections
 * without TLS are refused (--require-secure-transport; the unix socket,
 * which the admin uses, stays open to all). sql_restart() keeps TLS. */
int	mysql_start_tls(struct sql_server *s, const char *certdir, const char *name,
	    int tls_only);

/* Bump when the template's contents change (users, settings baked in at
 * initdb or install time): the old templates are then left alone. */
#define SQL_TEMPLATE_REV	1

/* Stop the server (below) and start it again on the same port and data,
 * waiting, at most 30 s, until it accepts connections. Returns 0, or -1
 * (prints why; the port may have been taken meanwhile). */
int	sql_restart(struct sql_server *s);

/* Stop the server by PID: PG a fast shutdown (SIGINT), MariaDB SIGTERM;
 * SIGKILL when it is still there after 5 s; reaped. s->pid becomes 0, the
 * dir stays. A no-op when it is not running. */
void	sql_halt(struct sql_server *s);

/* sql_halt(), then remove the dir and all in it (also after a failed or
 * no start: s zeroed is fine). */
void	sql_stop(struct sql_server *s);

/*
 * Run sql (one statement, or several: PG runs them as one transaction
 * unless they are separate calls) with the command-line client: psql
 * -XAtq with tabs between fields, or mariadb -N -B; no headers, one line
 * a row. Its stdout goes to out (n bytes, always NUL-terminated, the rest
 * dropped) if out is not NULL; its stderr is kept (sql_last_error()) and
 * printed to ours only when it fails. Returns the client's
 * exit status (0: it ran; 128+N if killed by signal N), or -1 when it
 * could not run or ran for 30 s (then it is killed).
 *
 * sql_admin		as the superuser (postgres; root) on the unix socket,
 *			in database lockrun, no password
 * sql_user		as lockrun with s->password over TCP to s->port
 * sql_user_socket	as lockrun with s->password on the unix socket (PG:
 *			psql is given s->sock_url itself)
 * The password goes in the client's environment (PGPASSWORD, MYSQL_PWD),
 * never its argv; variables of ours that would steer the client (PG*,
 * MYSQL_*, MARIADB_*) are not passed on.
 */
int	sql_admin(const struct sql_server *s, const char *sql, char *out, size_t n);
int	sql_user(const struct sql_server *s, const char *sql, char *out, size_t n);
int	sql_user_socket(const struct sql_server *s, const char *sql, char *out, size_t n);

/* What the last client the fixture ran (the functions above, a ping while
 * a server starts) said on stderr; "" when nothing. */
const char *sql_last_error(void);

/* While on, a client that fails keeps quiet: for a test that expects the
 * refusal (and may look at sql_last_error()). Off again by the caller. */
void	sql_expect_errors(int on);

/* "postgres" or "mariadb", for messages. */
const char *sql_name(enum sql_kind kind);

#endif

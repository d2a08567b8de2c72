/* SPDX-License-Identifier: BSD-2-Clause */
/* sql_fixture.c -- real PostgreSQL and MariaDB servers for tests: each a
 * copy of a template data dir, on a free port in a temp dir, run as an
 * unprivileged user, waited for until it answers, stopped by PID.
 *
 * In order: finding the programs, processes (spawn, reap, clients),
 * PostgreSQL, MariaDB, starting and stopping, the template, the API. */
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "redis_fixture.h"
#include "sql_fixture.h"

#define TPL_PREFIX	"/tmp/lockrun-sqltpl."
#define INIT_MS		60000	/* bound on initdb, mariadb-install-db, cp */
#define START_MS	30000	/* bound on a server's start */
#define STOP_MS		5000	/* the stop signal's grace before SIGKILL */
#define RUN_MS		30000	/* bound on a client's run */
#define TICK_MS		10	/* a step of a bounded poll */

/* Who runs a client: the admin on the socket, or lockrun with its
 * password over TCP or on the socket. */
enum who { AS_ADMIN, AS_USER_TCP, AS_USER_SOCKET };

/* Programs. */

/* Search PATH for name; its path in buf. Returns 0, or -1. */
static int
in_path(const char *name, char *buf, size_t n)
{
	const char *p = getenv("PATH");

	for (p = p ? p : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t len = strcspn(p, ":");

		snprintf(buf, n, "%.*s/%s", (int)len, p, name);
		p += len;
		if (len > 0 && access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* The newest /usr/lib/postgresql/N/bin that has a postgres, in buf. */
static int
debian_pg_bindir(char *buf, size_t n)
{
	glob_t g;
	long best = -1;

	if (glob("/usr/lib/postgresql/*/bin/postgres", 0, NULL, &g) != 0)
		return -1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *v = g.gl_pathv[i] + strlen("/usr/lib/postgresql/");
		long major = strtol(v, NULL, 10);

		if (major > best) {
			best = major;
			snprintf(buf, n, "%.*s", (int)(strrchr(g.gl_pathv[i], '/') -
			    g.gl_pathv[i]), g.gl_pathv[i]);
		}
	}
	globfree(&g);
	return best >= 0 ? 0 : -1;
}

/* PostgreSQL's programs' directory, found once: see sql_start() in
 * sql_fixture.h for where it is looked for. */
static const char *
pg_bindir(void)
{
	static char dir[256];
	char path[256];
	const char *env = getenv("LOCKRUN_PG_BINDIR");

	if (env && *env)
		return env;
	if (dir[0] || debian_pg_bindir(dir, sizeof(dir)) == 0)
		return dir;
	if (in_path("postgres", path, sizeof(path)) == 0) {
		*strrchr(path, '/') = '\0';
		snprintf(dir, sizeof(dir), "%s", path);
		return dir;
	}
	fprintf(stderr, "sql_fixture: no PostgreSQL server found (in "
	    "/usr/lib/postgresql/*/bin or PATH; `make deps` installs it)\n");
	return NULL;
}

/* PostgreSQL's program prog (initdb, postgres, psql, pg_isready) in buf. */
static int
pg_prog(const char *prog, char *buf, size_t n)
{
	const char *dir = pg_bindir();

	if (dir == NULL)
		return -1;
	snprintf(buf, n, "%s/%s", dir, prog);
	return 0;
}

/* mariadbd, which Debian keeps in /usr/sbin, in buf; its identity keys
 * the template. */
static int
mariadbd_path(char *buf, size_t n)
{
	static const char *const dirs[] = { "/usr/sbin", "/usr/libexec" };

	if (in_path("mariadbd", buf, n) == 0)
		return 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, n, "%s/mariadbd", dirs[i]);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	fprintf(stderr, "sql_fixture: no mariadbd found (in PATH, /usr/sbin or "
	    "/usr/libexec; `make deps` installs it)\n");
	return -1;
}

/* Processes. */

/* Whom the servers run as: nobody when we are root (PostgreSQL refuses
 * root, MariaDB wants --user=root for it), else ourselves (drop 0). */
struct runas {
	int	drop;
	uid_t	uid;
	gid_t	gid;
};

static struct runas
server_user(void)
{
	static struct runas u;
	static int known;
	struct passwd *pw;

	if (known)
		return u;
	if (geteuid() != 0)
		u = (struct runas){ 0, geteuid(), getegid() };
	else if ((pw = getpwnam("nobody")) != NULL)
		u = (struct runas){ 1, pw->pw_uid, pw->pw_gid };
	else
		u = (struct runas){ 1, 65534, 65534 };
	known = 1;
	return u;
}

/* Make path (ours) the servers' user's. */
static int
give(const char *path)
{
	struct runas u = server_user();

	if (u.drop && chown(path, u.uid, u.gid) != 0) {
		fprintf(stderr, "sql_fixture: chown %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* How to run one program. */
struct proc {
	const char *const *argv;	/* argv[0]: a path, or looked up in PATH */
	const char *const *env;		/* more "NAME=value", NULL-terminated, or NULL */
	int	out;			/* its stdout */
	int	err;			/* its stderr, or -1: ours */
	int	as_server;		/* run it as server_user() */
	const char *cwd;		/* or NULL: ours */
};

/* Does NAME=value name a variable that steers a client or server? */
static int
steering(const char *var)
{
	return strncmp(var, "PG", 2) == 0 || strncmp(var, "MYSQL_", 6) == 0 ||
	    strncmp(var, "MARIADB_", 8) == 0;
}

/* Our environment less the steering variables, then more (NULL or
 * NULL-terminated). The caller frees the array, not the strings. */
static char **
child_env(const char *const more[])
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	for (size_t i = 0; more && more[i]; i++)
		n++;
	if ((env = calloc(n + 1, sizeof(*env))) == NULL)
		return NULL;
	for (size_t i = 0; environ[i]; i++)
		if (!steering(environ[i]))
			env[k++] = environ[i];
	for (size_t i = 0; more && more[i]; i++)
		env[k++] = (char *)more[i];
	return env;
}

/* The child's side of spawn(): never returns. */
static void
child_exec(const struct proc *p, const struct runas *u, char **env, pid_t parent)
{
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	/* (1) a clean slate: whatever the test runner blocked or ignored */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	/* (2) the servers' user; groups first, while we may still set them */
	if (p->as_server && u->drop && (setgroups(0, NULL) != 0 || setgid(u->gid) != 0 ||
	    setuid(u->uid) != 0)) {
		fprintf(stderr, "sql_fixture: cannot become uid %d: %s\n", (int)u->uid,
		    strerror(errno));
		_exit(126);
	}
	/* (3) never outlive the test process; set after the uid change, which
	 * clears it, and the parent may have died before it was set */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	/* (4) no input; output where asked; none of the test's descriptors */
	dup2(null, 0);
	dup2(p->out, 1);
	if (p->err >= 0)
		dup2(p->err, 2);
	close_range(3, ~0U, 0);
	if (p->cwd && chdir(p->cwd) != 0) {
		fprintf(stderr, "sql_fixture: chdir %s: %s\n", p->cwd, strerror(errno));
		_exit(126);
	}
	execvpe(p->argv[0], (char *const *)p->argv, env);
	fprintf(stderr, "sql_fixture: cannot run %s: %s\n", p->argv[0], strerror(errno));
	_exit(127);
}

/* Fork and exec p. Returns the child's pid, or -1 (and says why). */
static pid_t
spawn(const struct proc *p)
{
	struct runas u = server_user();
	char **env = child_env(p->env);
	pid_t parent = getpid(), pid;

	if (env == NULL) {
		fprintf(stderr, "sql_fixture: out of memory\n");
		return -1;
	}
	fflush(NULL);		/* or the child's exit would flush our buffers again */
	if ((pid = fork()) == 0)
		child_exec(p, &u, env, parent);
	if (pid < 0)
		fprintf(stderr, "sql_fixture: fork: %s\n", strerror(errno));
	free(env);
	return pid;
}

/* Wait at most ms for our child pid to exit, and reap it: 1 (its wait
 * status in *st), 0 when it is still running, -1 when it is not our
 * child. A pidfd wakes us when it exits; without one, 10 ms steps. */
static int
reap_within(pid_t pid, int *st, long ms)
{
	long long deadline = fixture_ms() + ms;
	struct pollfd p = { .fd = pidfd_open(pid, 0), .events = POLLIN };
	int rc;

	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);
		long long left = deadline - fixture_ms();

		if (r == pid || (r < 0 && errno != EINTR)) {
			rc = r == pid ? 1 : -1;
			break;
		}
		if (left <= 0) {
			rc = 0;
			break;
		}
		if (p.fd < 0 && left > 10)
			left = 10;
		poll(&p, p.fd >= 0, (int)(left > INT_MAX ? INT_MAX : left));
	}
	if (p.fd >= 0)
		close(p.fd);
	return rc;
}

/* Run p to its end, at most ms. Returns its exit status (128+N if killed
 * by signal N), or -1 when it could not run or overran (then it is
 * killed, and we say so). */
static int
run(const struct proc *p, long ms)
{
	pid_t pid = spawn(p);
	int st, r;

	if (pid < 0 || (r = reap_within(pid, &st, ms)) < 0)
		return -1;
	if (r == 1)
		return exit_code(st);
	kill(pid, SIGKILL);
	reap_within(pid, &st, STOP_MS);
	fprintf(stderr, "sql_fixture: %s ran for %ld s; killed\n", p->argv[0], ms / 1000);
	return -1;
}

/* The last client's stderr (sql_last_error()), and whether a failing
 * client prints it (sql_expect_errors()). */
static char client_err[2048];
static int errors_expected;

/* Read what fd holds from its start into buf (n bytes, NUL-terminated). */
static void
read_back(int fd, char *buf, size_t n)
{
	ssize_t got = pread(fd, buf, n - 1, 0);

	buf[got > 0 ? got : 0] = '\0';
}

/* Run a client (argv, more environment env) within RUN_MS, its stdout
 * into out (n bytes, NUL-terminated) unless out is NULL, its stderr into
 * client_err: a client that fails on purpose or while a server starts
 * (a ping) would fill the test's log with errors nobody needs; those who
 * call it show client_err when it matters. Returns as run() does. Output
 * goes to memfds, not pipes, so none is too long to wait for the exit. */
static int
run_client(const char *const argv[], const char *const env[], char *out, size_t n)
{
	int fd = out ? memfd_create("sql_fixture", MFD_CLOEXEC) :
	    open("/dev/null", O_WRONLY | O_CLOEXEC);
	int errfd = memfd_create("sql_fixture_err", MFD_CLOEXEC);
	struct proc p = { .argv = argv, .env = env, .out = fd, .err = errfd };
	int rc = -1;

	client_err[0] = '\0';
	if (fd < 0 || errfd < 0)
		perror("sql_fixture: memfd_create");
	else
		rc = run(&p, RUN_MS);
	if (fd >= 0 && out && n > 0)
		read_back(fd, out, n);
	if (errfd >= 0)
		read_back(errfd, client_err, sizeof(client_err));
	if (fd >= 0)
		close(fd);
	if (errfd >= 0)
		close(errfd);
	return rc;
}

/* A client that ran sql for a test or a setup: what it said on stderr is
 * printed when it failed, unless the test expects that. */
static int
client_said(const char *prog, int rc)
{
	size_t len = strlen(client_err);

	if (rc == 0 || errors_expected)
		return rc;
	fprintf(stderr, "sql_fixture: %s exited %d\n", prog, rc);
	if (len > 0)
		fprintf(stderr, "%s%s", client_err, client_err[len - 1] == '\n' ? "" : "\n");
	return rc;
}

/* Open dir/name for appending, a new file the servers' user owns (a
 * server opens its log again by name). Returns the fd, or -1. */
static int
open_log(const char *dir, const char *name)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "sql_fixture: open %s: %s\n", path, strerror(errno));
	else if (give(path) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Print the last 3 KiB of dir/name to stderr, to say why a start failed. */
static void
log_tail(const char *dir, const char *name)
{
	char path[160], buf[3072];
	ssize_t got = 0;
	off_t end;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "sql_fixture: no log %s: %s\n", path, strerror(errno));
		return;
	}
	end = lseek(fd, 0, SEEK_END);
	if (end > 0)
		got = pread(fd, buf, sizeof(buf) - 1,
		    end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0);
	buf[got > 0 ? got : 0] = '\0';
	fprintf(stderr, "sql_fixture: the end of %s:\n%s%s", path, buf,
	    got > 0 && buf[got - 1] != '\n' ? "\n" : "");
	close(fd);
}

/* Run a program of the server's own (initdb, mariadb-install-db) as the
 * servers' user in s->dir, its output into dir/log; it has INIT_MS.
 * Returns 0, or -1 (and prints why, and the log). */
static int
run_logged(const struct sql_server *s, const char *const argv[], const char *log)
{
	int fd = open_log(s->dir, log), st;
	struct proc p = { .argv = argv, .out = fd, .err = fd, .as_server = 1,
	    .cwd = s->dir };

	if (fd < 0)
		return -1;
	st = run(&p, INIT_MS);
	close(fd);
	if (st == 0)
		return 0;
	fprintf(stderr, "sql_fixture: %s failed (%d)\n", argv[0], st);
	log_tail(s->dir, log);
	return -1;
}

/* PostgreSQL. */

/* Who may connect how: the superuser on the socket without a password
 * (the fixture, as admin), everyone else with a password (lockrun). */
static const char pg_hba[] =
	"# sql_fixture.c\n"
	"local all postgres trust\n"
	"local all all scram-sha-256\n"
	"host all all 127.0.0.1/32 scram-sha-256\n";

/* initdb into s->dir/data, superuser "postgres", C locale, 1 MB WAL
 * segments (a smaller copy for each start), no fsync (a template is made
 * again when cut short); then our pg_hba.conf, which initdb made the
 * servers' user's, overwritten in place. */
static int
pg_init(const struct sql_server *s)
{
	char initdb[256], data[128], hba[160];
	const char *const argv[] = { initdb, "-D", data, "-U", "postgres", "-A", "trust",
	    "-E", "UTF8", "--locale=C", "--no-sync", "--wal-segsize=1",
	    "--no-instructions", NULL };
	FILE *fp;
	int bad;

	snprintf(data, sizeof(data), "%s/data", s->dir);
	snprintf(hba, sizeof(hba), "%s/pg_hba.conf", data);
	if (pg_prog("initdb", initdb, sizeof(initdb)) != 0 ||
	    run_logged(s, argv, "initdb.log") != 0)
		return -1;
	if ((bad = (fp = fopen(hba, "w")) == NULL) == 0) {
		bad = fputs(pg_hba, fp) == EOF;
		bad |= fclose(fp) != 0;
	}
	if (bad)
		fprintf(stderr, "sql_fixture: cannot write %s: %s\n", hba, strerror(errno));
	return bad ? -1 : 0;
}

/* The postgres program, whose identity keys the template. */
static int
pg_server_bin(char *buf, size_t n)
{
	return pg_prog("postgres", buf, n);
}

static void
pg_fill(struct sql_server *s)
{
	snprintf(s->sock, sizeof(s->sock), "%s/.s.PGSQL.%d", s->dir, s->port);
	snprintf(s->url, sizeof(s->url), "postgres://lockrun@127.0.0.1:%d/lockrun", s->port);
	snprintf(s->sock_url, sizeof(s->sock_url),
	    "postgres://lockrun@/lockrun?host=%s&port=%d", s->dir, s->port);
}

/* postgres in the foreground (our child, so we can reap it), its log on
 * stderr. Tests need no durability: no fsync, no full pages, commits not
 * waited for. Ten racing lockruns and the admin need connections. */
static pid_t
pg_launch(const struct sql_server *s, int log)
{
	char bin[256], data[128], port[16], maxconn[40];
	const char *const argv[] = { bin, "-D", data, "-p", port, "-k", s->dir,
	    "-c", "listen_addresses=127.0.0.1", "-c", maxconn,
	    "-c", "shared_buffers=16MB", "-c", "fsync=off", "-c", "synchronous_commit=off",
	    "-c", "full_page_writes=off", NULL };
	struct proc p = { .argv = argv, .out = log, .err = log, .as_server = 1,
	    .cwd = s->dir };

	snprintf(data, sizeof(data), "%s/data", s->dir);
	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(maxconn, sizeof(maxconn), "max_connections=%d",
	    s->max_connections > 0 ? s->max_connections : 200);
	if (pg_prog("postgres", bin, sizeof(bin)) != 0)
		return -1;
	return spawn(&p);
}

/* 1 when postgres accepts connections (not while it starts or recovers). */
static int
pg_ping(const struct sql_server *s)
{
	char bin[256], port[16];
	const char *const argv[] = { bin, "-q", "-h", s->dir, "-p", port, "-d", "template1",
	    "-t", "5", NULL };
	struct stat sb;

	if (stat(s->sock, &sb) != 0 || pg_prog("pg_isready", bin, sizeof(bin)) != 0)
		return 0;	/* no socket yet: not worth a pg_isready */
	snprintf(port, sizeof(port), "%d", s->port);
	return run_client(argv, NULL, NULL, 0) == 0;
}

/* psql as who in database db (lockrun's: the sock_url names it). */
static int
pg_client(const struct sql_server *s, enum who who, const char *db, const char *sql,
    char *out, size_t n)
{
	char bin[256], port[16], pw[96];
	const char *const env[] = { "PGCONNECT_TIMEOUT=10", who == AS_ADMIN ? NULL : pw,
	    NULL };
	const char *const admin[] = { bin, "-XAtqw", "-F", "\t", "-v", "ON_ERROR_STOP=1",
	    "-h", s->dir, "-p", port, "-U", "postgres", "-d", db, "-c", sql, NULL };
	const char *const tcp[] = { bin, "-XAtqw", "-F", "\t", "-v", "ON_ERROR_STOP=1",
	    "-h", "127.0.0.1", "-p", port, "-U", "lockrun", "-d", db, "-c", sql, NULL };
	const char *const sock[] = { bin, "-XAtqw", "-F", "\t", "-v", "ON_ERROR_STOP=1",
	    "-d", s->sock_url, "-c", sql, NULL };

	if (pg_prog("psql", bin, sizeof(bin)) != 0)
		return -1;
	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(pw, sizeof(pw), "PGPASSWORD=%s", s->password);
	return client_said("psql", run_client(who == AS_ADMIN ? admin :
	    who == AS_USER_TCP ? tcp : sock, env, out, n));
}

/* The template's user and database, each statement on its own (CREATE
 * and DROP DATABASE refuse a transaction). Databases postgres and
 * template0 go: each is 300 files, and every start copies the rest. */
static int
pg_setup(const struct sql_server *s)
{
	static const char *const sql[] = {
		"CREATE ROLE lockrun LOGIN PASSWORD '" SQL_PASSWORD "'",
		"CREATE DATABASE lockrun OWNER lockrun",
		"DROP DATABASE postgres",
		"ALTER DATABASE template0 IS_TEMPLATE false",
		"DROP DATABASE template0",
	};

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++)
		if (pg_client(s, AS_ADMIN, "template1", sql[i], NULL, 0) != 0)
			return -1;
	return 0;
}

/* MariaDB. */

/* InnoDB's files, small (a smaller copy for each start), the same at
 * install and at every start: another log size makes mariadbd rebuild
 * its log. 4 MB more at a time, not 64. */
#define MY_FILES "--innodb-log-file-size=4M", "--innodb-autoextend-increment=4"

/* mariadb-install-db into s->dir/data: root with no password (on the
 * socket only, once my_setup() has run), no test database. */
static int
my_init(const struct sql_server *s)
{
	char data[128];
	const char *const argv[] = { "mariadb-install-db", "--no-defaults", data,
	    "--auth-root-authentication-method=normal", "--skip-test-db",
	    "--skip-name-resolve", MY_FILES, NULL };

	snprintf(data, sizeof(data), "--datadir=%s/data", s->dir);
	return run_logged(s, argv, "install.log");
}

static void
my_fill(struct sql_server *s)
{
	snprintf(s->sock, sizeof(s->sock), "%s/mariadb.sock", s->dir);
	snprintf(s->url, sizeof(s->url), "mysql://lockrun@127.0.0.1:%d/lockrun", s->port);
	snprintf(s->sock_url, sizeof(s->sock_url),
	    "mysql://lockrun@localhost/lockrun?socket=%s", s->sock);
}

/* mariadbd in the foreground, reading no option files. Tests need no
 * durability (the log written once a second, no doublewrite, no binary
 * log) nor a warm buffer pool; native AIO may be short in containers;
 * skip-name-resolve: 127.0.0.1 is only ever 127.0.0.1. With s->tls, the
 * certificate, key and CA that my_tls_files() put in s->dir. */
static pid_t
my_launch(const struct sql_server *s, int log)
{
	char bin[256], data[128], sock[160], port[32], pid[128], err[128], tmp[128];
	char maxconn[40];
	const char *argv[] = { bin, "--no-defaults", data, sock, port,
	    "--bind-address=127.0.0.1", pid, err, tmp, "--skip-log-bin",
	    "--skip-name-resolve", maxconn,
	    "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
	    "--innodb-buffer-pool-size=16M", "--innodb-flush-log-at-trx-commit=0",
	    "--innodb-doublewrite=0", "--innodb-use-native-aio=0",
	    "--innodb-buffer-pool-load-at-startup=0",
	    "--innodb-buffer-pool-dump-at-shutdown=0",
	    "--innodb-temp-data-file-path=ibtmp1:1M:autoextend", MY_FILES,
	    NULL, NULL, NULL, NULL, NULL };	/* room for the TLS words */
	const size_t tls_at = sizeof(argv) / sizeof(argv[0]) - 5;
	char cert[160], key[160], ca[160];
	struct proc p = { .argv = argv, .out = log, .err = log, .as_server = 1,
	    .cwd = s->dir };

	if (s->tls) {
		snprintf(cert, sizeof(cert), "--ssl-cert=%s/tls-server.crt", s->dir);
		snprintf(key, sizeof(key), "--ssl-key=%s/tls-server.key", s->dir);
		snprintf(ca, sizeof(ca), "--ssl-ca=%s/tls-ca.crt", s->dir);
		argv[tls_at] = cert;
		argv[tls_at + 1] = key;
		argv[tls_at + 2] = ca;
		if (s->tls_only)
			argv[tls_at + 3] = "--require-secure-transport=ON";
	}
	snprintf(data, sizeof(data), "--datadir=%s/data", s->dir);
	snprintf(sock, sizeof(sock), "--socket=%s", s->sock);
	snprintf(port, sizeof(port), "--port=%d", s->port);
	snprintf(pid, sizeof(pid), "--pid-file=%s/mariadb.pid", s->dir);
	snprintf(err, sizeof(err), "--log-error=%s/mariadb.log", s->dir);
	snprintf(tmp, sizeof(tmp), "--tmpdir=%s", s->dir);
	snprintf(maxconn, sizeof(maxconn), "--max-connections=%d",
	    s->max_connections > 0 ? s->max_connections : 200);
	if (mariadbd_path(bin, sizeof(bin)) != 0)
		return -1;
	return spawn(&p);
}

/* 1 when mariadbd answers on its socket (it listens on the socket and
 * the port at the same time). */
static int
my_ping(const struct sql_server *s)
{
	const char *const argv[] = { "mariadb-admin", "--no-defaults", "-S", s->sock,
	    "-u", "root", "--connect-timeout=5", "ping", NULL };
	struct stat sb;

	if (stat(s->sock, &sb) != 0)
		return 0;
	return run_client(argv, NULL, NULL, 0) == 0;
}

/* mariadb as who, in database db. */
static int
my_client(const struct sql_server *s, enum who who, const char *db, const char *sql,
    char *out, size_t n)
{
	char port[16], pw[96];
	const char *const env[] = { who == AS_ADMIN ? NULL : pw, NULL };
	const char *const admin[] = { "mariadb", "--no-defaults", "-N", "-B", "-S", s->sock,
	    "-u", "root", "-D", db, "-e", sql, NULL };
	const char *const tcp[] = { "mariadb", "--no-defaults", "-N", "-B", "--protocol=TCP",
	    "-h", "127.0.0.1", "-P", port, "-u", "lockrun", "--connect-timeout=10",
	    "-D", db, "-e", sql, NULL };
	const char *const sock[] = { "mariadb", "--no-defaults", "-N", "-B", "-S", s->sock,
	    "-u", "lockrun", "--connect-timeout=10", "-D", db, "-e", sql, NULL };

	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(pw, sizeof(pw), "MYSQL_PWD=%s", s->password);
	return client_said("mariadb", run_client(who == AS_ADMIN ? admin :
	    who == AS_USER_TCP ? tcp : sock, env, out, n));
}

/* Copy from to s->dir/name with mode, the servers' user's. */
static int
copy_to(const struct sql_server *s, const char *from, const char *name, mode_t mode)
{
	char to[160], buf[8192];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, bad = in < 0;
	ssize_t got = 0;

	snprintf(to, sizeof(to), "%s/%s", s->dir, name);
	if (!bad)
		bad = (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) < 0;
	while (!bad && (got = read(in, buf, sizeof(buf))) > 0)
		bad = write(out, buf, (size_t)got) != got;
	bad |= got < 0;
	if (out >= 0)
		bad |= close(out) != 0;
	if (in >= 0)
		close(in);
	if (bad) {
		fprintf(stderr, "sql_fixture: cannot copy %s to %s: %s\n", from, to,
		    strerror(errno));
		return -1;
	}
	return give(to);
}

/* certdir's NAME.crt, NAME.key and ca.crt into s->dir, where mariadbd,
 * as the servers' user, can read them (and only it the key). */
static int
my_tls_files(const struct sql_server *s, const char *certdir, const char *name)
{
	char crt[256], key[256], ca[256];

	snprintf(crt, sizeof(crt), "%s/%s.crt", certdir, name);
	snprintf(key, sizeof(key), "%s/%s.key", certdir, name);
	snprintf(ca, sizeof(ca), "%s/ca.crt", certdir);
	if (copy_to(s, crt, "tls-server.crt", 0644) != 0 ||
	    copy_to(s, key, "tls-server.key", 0600) != 0 ||
	    copy_to(s, ca, "tls-ca.crt", 0644) != 0)
		return -1;
	return 0;
}

/* root on the socket only (install-db also makes root@127.0.0.1, ::1
 * and @hostname, passwordless too); the database and user lockrun. */
static int
my_setup(const struct sql_server *s)
{
	return my_client(s, AS_ADMIN, "mysql",
	    "DELETE FROM mysql.global_priv WHERE host <> 'localhost';"
	    "DELETE FROM mysql.proxies_priv WHERE host <> 'localhost';"
	    "FLUSH PRIVILEGES;"
	    "CREATE DATABASE lockrun;"
	    "CREATE USER 'lockrun'@'%' IDENTIFIED BY '" SQL_PASSWORD "';"
	    "CREATE USER 'lockrun'@'localhost' IDENTIFIED BY '" SQL_PASSWORD "';"
	    "GRANT ALL ON lockrun.* TO 'lockrun'@'%', 'lockrun'@'localhost'",
	    NULL, 0);
}

/* What differs between the two kinds. */
struct kind_ops {
	const char *name;	/* for messages and the template's name */
	const char *log;	/* the server's log in dir */
	int	stop_sig;	/* PG: SIGINT is the fast shutdown */
	int	(*server_bin)(char *buf, size_t n);
	void	(*fill)(struct sql_server *s);	/* sock and URLs for s->port */
	int	(*init)(const struct sql_server *s);	/* make dir/data */
	pid_t	(*launch)(const struct sql_server *s, int log);
	int	(*ping)(const struct sql_server *s);
	int	(*client)(const struct sql_server *s, enum who who, const char *db,
		    const char *sql, char *out, size_t n);
	int	(*setup)(const struct sql_server *s);	/* database, user: once */
};

static const struct kind_ops kinds[] = {
	[SQL_PG] = { "postgres", "postgres.log", SIGINT, pg_server_bin,
	    pg_fill, pg_init, pg_launch, pg_ping, pg_client, pg_setup },
	[SQL_MYSQL] = { "mariadb", "mariadb.log", SIGTERM, mariadbd_path,
	    my_fill, my_init, my_launch, my_ping, my_client, my_setup },
};

static const struct kind_ops *
ops(enum sql_kind k)
{
	return &kinds[k == SQL_MYSQL ? SQL_MYSQL : SQL_PG];
}

/* Starting and stopping. */

/* Zero s for kind, give it a new temp dir the servers' user owns (the
 * server makes its socket and pid file there), and its password. */
static int
make_dir(struct sql_server *s, enum sql_kind kind)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	snprintf(s->password, sizeof(s->password), "%s", SQL_PASSWORD);
	if (fixture_tempdir(s->dir, sizeof(s->dir)) != 0)
		return -1;
	return give(s->dir);
}

/* Launch s's server on s->port and wait until it accepts connections:
 * 0; -1 when it exited (the port taken, most likely); -2 when it could
 * not be launched or did not answer in START_MS (then it is halted). */
static int
launch_and_wait(struct sql_server *s)
{
	const struct kind_ops *o = ops(s->kind);
	long long deadline = fixture_ms() + START_MS;
	int log = open_log(s->dir, o->log);

	if (log < 0)
		return -2;
	s->pid = o->launch(s, log);
	close(log);
	if (s->pid < 0) {
		s->pid = 0;
		return -2;
	}
	for (;;) {
		if (fixture_reaped(&s->pid))
			return -1;
		if (o->ping(s))
			return 0;
		if (fixture_ms() >= deadline)
			break;
		fixture_tick(TICK_MS);
	}
	fprintf(stderr, "sql_fixture: %s (pid %d, port %d) did not answer in %d s%s%s",
	    o->name, (int)s->pid, s->port, START_MS / 1000,
	    client_err[0] ? "; the last ping said:\n" : "\n", client_err);
	sql_halt(s);
	return -2;
}

/* Start s's server on a fresh free port until one start answers (0) or
 * five attempts fail (-1, and prints why with the end of the log). */
static int
start_on_free_port(struct sql_server *s)
{
	const struct kind_ops *o = ops(s->kind);
	int rc = -1;

	for (int attempt = 0; attempt < 5 && rc == -1; attempt++) {
		if ((s->port = fixture_free_port()) < 0)
			continue;
		o->fill(s);
		rc = launch_and_wait(s);
	}
	if (rc == 0)
		return 0;
	fprintf(stderr, "sql_fixture: %s in %s did not start\n", o->name, s->dir);
	log_tail(s->dir, o->log);
	return -1;
}

/* Stop s's server as sql_halt() says. Returns 1 when it exited by itself
 * with status 0 (a clean shutdown), else 0. */
static int
halt(struct sql_server *s)
{
	int st = 0, r;

	if (s->pid <= 0)
		return 0;
	kill(s->pid, SIGCONT);		/* in case a test stopped it */
	kill(s->pid, ops(s->kind)->stop_sig);
	if ((r = reap_within(s->pid, &st, STOP_MS)) == 0) {
		fprintf(stderr, "sql_fixture: %s (pid %d) still there after %d s: SIGKILL\n",
		    ops(s->kind)->name, (int)s->pid, STOP_MS / 1000);
		kill(s->pid, SIGKILL);
		reap_within(s->pid, &st, STOP_MS);
	}
	s->pid = 0;
	return r == 1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The template. */

/* The template's path for kind in buf: see sql_start() in the header. */
static int
template_path(enum sql_kind kind, char *buf, size_t n)
{
	const struct kind_ops *o = ops(kind);
	char bin[256];
	struct stat sb;
	uint64_t id[] = { 0, 0, 0, 0, SQL_TEMPLATE_REV }, h = 14695981039346656037ULL;

	if (o->server_bin(bin, sizeof(bin)) != 0)
		return -1;
	if (stat(bin, &sb) != 0) {
		fprintf(stderr, "sql_fixture: %s: %s\n", bin, strerror(errno));
		return -1;
	}
	id[0] = sb.st_dev, id[1] = sb.st_ino, id[2] = (uint64_t)sb.st_size;
	id[3] = (uint64_t)sb.st_mtime;
	for (size_t i = 0; i < sizeof(id); i++)		/* FNV-1a */
		h = (h ^ ((const unsigned char *)id)[i]) * 1099511628211ULL;
	snprintf(buf, n, TPL_PREFIX "%s.%u.%016llx", o->name, (unsigned)geteuid(),
	    (unsigned long long)h);
	return 0;
}

/* Is tpl a finished template of ours (a directory we own that others
 * cannot write, with its "ok")? */
static int
template_ok(const char *tpl)
{
	char ok[160];
	struct stat sb;

	snprintf(ok, sizeof(ok), "%s/ok", tpl);
	return lstat(tpl, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == geteuid() &&
	    (sb.st_mode & 022) == 0 && access(ok, F_OK) == 0;
}

/* Move b's data dir, of a server shut down cleanly, to a new template
 * tpl (0711: the servers' user reaches data/ through it), then "ok". */
static int
template_keep(const struct sql_server *b, const char *tpl)
{
	char from[128], to[160], ok[160];
	int fd;

	snprintf(from, sizeof(from), "%s/data", b->dir);
	snprintf(to, sizeof(to), "%s/data", tpl);
	snprintf(ok, sizeof(ok), "%s/ok", tpl);
	if (mkdir(tpl, 0700) != 0 || chmod(tpl, 0711) != 0 || rename(from, to) != 0 ||
	    (fd = open(ok, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		fprintf(stderr, "sql_fixture: cannot make template %s: %s\n", tpl,
		    strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* Make template tpl: init a data dir in a temp dir, start the server,
 * create the database and user, shut it down cleanly, keep data/. */
static int
template_build(enum sql_kind kind, const char *tpl)
{
	const struct kind_ops *o = ops(kind);
	struct sql_server b;
	int rc = -1;

	if (make_dir(&b, kind) != 0 || o->init(&b) != 0 || start_on_free_port(&b) != 0) {
		fixture_rmdir(b.dir);	/* each said why */
		return -1;
	}
	if (o->setup(&b) != 0)
		fprintf(stderr, "sql_fixture: %s: the template's setup failed\n", o->name);
	else if (!halt(&b)) {
		fprintf(stderr, "sql_fixture: %s did not shut down cleanly\n", o->name);
		log_tail(b.dir, o->log);
	} else
		rc = template_keep(&b, tpl);
	halt(&b);
	fixture_rmdir(b.dir);
	return rc;
}

/* Remove tpl (a template left unfinished, or of older contents under the
 * same name), if it is ours. */
static int
template_remove(const char *tpl)
{
	const char *const argv[] = { "rm", "-rf", "--", tpl, NULL };
	struct stat sb;
	char out[1024];

	if (lstat(tpl, &sb) != 0)
		return errno == ENOENT ? 0 : -1;
	if (sb.st_uid != geteuid()) {
		fprintf(stderr, "sql_fixture: %s is not ours; remove it\n", tpl);
		return -1;
	}
	if (fixture_run(argv, out, sizeof(out)) == 0)
		return 0;
	fprintf(stderr, "sql_fixture: cannot remove %s: %s", tpl, out);
	return -1;
}

/* The template for kind, built if need be, its path in tpl. Processes
 * take turns on tpl.lock, so one builds and the others wait and use it. */
static int
template_get(enum sql_kind kind, char *tpl, size_t n)
{
	char lock[192];
	int fd, rc = 0;

	if (template_path(kind, tpl, n) != 0)
		return -1;
	snprintf(lock, sizeof(lock), "%s.lock", tpl);
	if ((fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		fprintf(stderr, "sql_fixture: open %s: %s\n", lock, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			fprintf(stderr, "sql_fixture: flock %s: %s\n", lock, strerror(errno));
			close(fd);
			return -1;
		}
	if (!template_ok(tpl))
		rc = template_remove(tpl) == 0 ? template_build(kind, tpl) : -1;
	close(fd);		/* and the lock with it */
	return rc;
}

/* Copy the template's data dir to s->dir/data, owners and modes kept. */
static int
copy_template(const struct sql_server *s, const char *tpl)
{
	char from[160], to[128], out[1024];
	const char *const argv[] = { "cp", "-a", "--", from, to, NULL };

	snprintf(from, sizeof(from), "%s/data", tpl);
	snprintf(to, sizeof(to), "%s/data", s->dir);
	if (fixture_run(argv, out, sizeof(out)) == 0)
		return 0;
	fprintf(stderr, "sql_fixture: cannot copy %s: %s", from, out);
	return -1;
}

/* The API. */

/* A new dir for s with a copy of kind's template in it. */
static int
prepare(struct sql_server *s, enum sql_kind kind)
{
	char tpl[128];

	if (fixture_tier(sql_name(kind)) != 0) {
		snprintf(client_err, sizeof(client_err), "%s: not in make check's tests "
		    "(LR_TEST_TIER=check)", sql_name(kind));
		return -1;
	}
	if (make_dir(s, kind) != 0 || template_get(kind, tpl, sizeof(tpl)) != 0 ||
	    copy_template(s, tpl) != 0)
		return -1;
	return 0;
}

int
sql_start(struct sql_server *s, enum sql_kind kind)
{
	if (prepare(s, kind) != 0)
		return -1;
	return start_on_free_port(s);
}

int
pg_start(struct sql_server *s)
{
	return sql_start(s, SQL_PG);
}

int
mysql_start(struct sql_server *s)
{
	return sql_start(s, SQL_MYSQL);
}

int
mysql_start_tls(struct sql_server *s, const char *certdir, const char *name,
    int tls_only)
{
	if (prepare(s, SQL_MYSQL) != 0 || my_tls_files(s, certdir, name) != 0)
		return -1;
	s->tls = 1;
	s->tls_only = tls_only;
	return start_on_free_port(s);
}

int
sql_restart(struct sql_server *s)
{
	const struct kind_ops *o = ops(s->kind);
	int rc;

	sql_halt(s);
	if ((rc = launch_and_wait(s)) == 0)
		return 0;
	fprintf(stderr, "sql_fixture: %s in %s did not start again on port %d%s\n", o->name,
	    s->dir, s->port, rc == -1 ? " (it exited)" : "");
	log_tail(s->dir, o->log);
	return -1;
}

void
sql_halt(struct sql_server *s)
{
	halt(s);
}

void
sql_stop(struct sql_server *s)
{
	halt(s);
	fixture_rmdir(s->dir);
}

int
sql_admin(const struct sql_server *s, const char *sql, char *out, size_t n)
{
	return ops(s->kind)->client(s, AS_ADMIN, "lockrun", sql, out, n);
}

int
sql_user(const struct sql_server *s, const char *sql, char *out, size_t n)
{
	return ops(s->kind)->client(s, AS_USER_TCP, "lockrun", sql, out, n);
}

int
sql_user_socket(const struct sql_server *s, const char *sql, char *out, size_t n)
{
	return ops(s->kind)->client(s, AS_USER_SOCKET, "lockrun", sql, out, n);
}

void
sql_expect_errors(int on)
{
	errors_expected = on;
}

const char *
sql_last_error(void)
{
	return client_err;
}

const char *
sql_name(enum sql_kind kind)
{
	return ops(kind)->name;
}

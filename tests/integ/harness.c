/* SPDX-License-Identifier: BSD-2-Clause */
/* harness.c -- spawn and reap lockrun, FIFOs for synchronisation, Redis
 * helpers. Tests synchronise on FIFOs and exits, never on sleeps. */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

struct redis_fixture fx;

void
suite_setup(void)
{
	if (redis_start(&fx, NULL) != 0)
		cr_assert_fail("redis-server did not start");
	unsetenv("LOCKRUN_CONFIG");
	unsetenv("LOCKRUN_REDIS_URL");
	unsetenv("LOCKRUN_REDIS_PASSWORD");
}

void
suite_setup_password(void)
{
	static const char *const extra[] = { "--requirepass", "s3cret", NULL };

	if (redis_start(&fx, extra) != 0)
		cr_assert_fail("redis-server did not start");
	unsetenv("LOCKRUN_CONFIG");
	unsetenv("LOCKRUN_REDIS_URL");
	unsetenv("LOCKRUN_REDIS_PASSWORD");
}

void
suite_teardown(void)
{
	redis_stop(&fx);
}

/* The harness calls it only on a test's behalf (write_scratch()), so a
 * test's paths stay valid for its first 16 calls. */
const char *
scratch(const char *name)
{
	static char bufs[16][256];
	static int next;
	char *b = bufs[next++ % 16];

	return redis_path(&fx, name, b, sizeof(bufs[0]));
}

/* A FIFO at path, or one already there (made by an earlier call). */
static void
make_fifo(const char *path)
{
	if (mkfifo(path, 0600) != 0 && errno != EEXIST)
		cr_assert_fail("mkfifo %s: %s", path, strerror(errno));
}

const char *
fifo(const char *name)
{
	const char *p = scratch(name);

	make_fifo(p);
	return p;
}

/* lockrun, $LOCKRUN_BIN: a dynamically linked program, so that a library
 * can be preloaded into it (libfaketime, the fault shim). */
static pid_t
spawn_env(const char *const env[], const char *const args[], const char *out,
    const char *err)
{
	const char *bin = getenv("LOCKRUN_BIN");
	const char *argv[64] = { bin ? bin : "./lockrun" };
	size_t n = 1;
	pid_t pid;

	for (size_t i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(NULL);
	if ((pid = fork()) == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(120);
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(argv[0], (char *const *)argv);
		_exit(121);
	}
	cr_assert(pid > 0, "fork failed");
	return pid;
}

static void
slurp(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "r");
	size_t len = 0;

	buf[0] = '\0';
	if (fp == NULL)
		return;
	len = fread(buf, 1, n - 1, fp);
	buf[len] = '\0';
	fclose(fp);
}

void
lr_run(struct result *res, const char *const args[])
{
	lr_run_env(res, NULL, args);
}

void
lr_run_env(struct result *res, const char *const env[], const char *const args[])
{
	char out[256], err[256];
	pid_t pid;
	int st;

	redis_path(&fx, "run.out", out, sizeof(out));
	redis_path(&fx, "run.err", err, sizeof(err));
	pid = spawn_env(env, args, out, err);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	res->status = exit_code(st);
	slurp(out, res->out, sizeof(res->out));
	slurp(err, res->err, sizeof(res->err));
}

void
lr_run_tty(struct result *res, const char *const env[], const char *const args[])
{
	char out[256], c;
	size_t n = 0;
	ssize_t got;
	int m = posix_openpt(O_RDWR | O_NOCTTY), st;
	pid_t pid;

	cr_assert(m >= 0, "posix_openpt: %s", strerror(errno));
	cr_assert(grantpt(m) == 0 && unlockpt(m) == 0);
	redis_path(&fx, "run.out", out, sizeof(out));
	pid = spawn_env(env, args, out, ptsname(m));
	/* read as it comes (a pty holds a few KB): EIO once the last of
	 * the terminal's other side is closed, by lockrun's end */
	while ((got = read(m, &c, 1)) == 1 || (got < 0 && errno == EINTR))
		if (got == 1 && c != '\r' && n + 1 < sizeof(res->err))
			res->err[n++] = c;
	res->err[n] = '\0';
	close(m);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	res->status = exit_code(st);
	slurp(out, res->out, sizeof(res->out));
}

pid_t
lr_start(const char *const args[])
{
	return lr_start_env(NULL, args);
}

pid_t
lr_start_env(const char *const env[], const char *const args[])
{
	return lr_start_out(env, args, NULL);
}

pid_t
lr_start_out(const char *const env[], const char *const args[], const char *stdout_path)
{
	char out[256], err[256];
	static int seq;
	char name[64];
	pid_t pid;

	/* name the files by a sequence number, then link them to the pid */
	snprintf(name, sizeof(name), "bg%d.out", seq);
	redis_path(&fx, name, out, sizeof(out));
	snprintf(name, sizeof(name), "bg%d.err", seq++);
	redis_path(&fx, name, err, sizeof(err));
	pid = spawn_env(env, args, stdout_path ? stdout_path : out, err);
	snprintf(name, sizeof(name), "pid%d.err", (int)pid);
	if (symlink(err, redis_path(&fx, name, out, sizeof(out))) != 0)
		cr_assert_fail("symlink: %s", strerror(errno));
	return pid;
}

int
lr_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return exit_code(st);
}

const char *
lr_stderr_path(pid_t pid, char *path, size_t n)
{
	char name[64];

	/* not scratch(): polling this must not recycle the tests' paths */
	snprintf(name, sizeof(name), "pid%d.err", (int)pid);
	return redis_path(&fx, name, path, n);
}

const char *
lr_stderr_of(pid_t pid, char *buf, size_t n)
{
	char path[256];

	slurp(lr_stderr_path(pid, path, sizeof(path)), buf, n);
	return buf;
}

/* The gate's files in fx.dir, named so that a test may open several. */
static void
gate_paths(struct gate *g, const char *name)
{
	char file[64];

	snprintf(file, sizeof(file), "%sready", name);
	redis_path(&fx, file, g->ready, sizeof(g->ready));
	snprintf(file, sizeof(file), "%sgo", name);
	redis_path(&fx, file, g->go, sizeof(g->go));
	g->say = "$$";
	g->to = ">";
	g->sh[0] = '\0';
}

void
gate_open(struct gate *g, const char *name)
{
	gate_paths(g, name);
	make_fifo(g->ready);
	make_fifo(g->go);
}

void
gate_open_file(struct gate *g, const char *name)
{
	gate_paths(g, name);
	g->to = ">>";
	make_fifo(g->go);
}

/* Format the gate's script into g->sh; a cut one would hang the test. */
static const char *
gate_compose(struct gate *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(g->sh, sizeof(g->sh), fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < sizeof(g->sh), "gate script too long");
	return g->sh;
}

const char *
gate_sh(struct gate *g)
{
	return gate_sh_around(g, "", "");
}

const char *
gate_sh_around(struct gate *g, const char *before, const char *after)
{
	return gate_compose(g, "%secho %s %s %s; read x < %s%s", before, g->say, g->to,
	    g->ready, g->go, after);
}

const char *
gate_sh_then(struct gate *g, const char *before, const char *then)
{
	return gate_compose(g, "%secho %s %s %s; %s", before, g->say, g->to, g->ready,
	    then);
}

const char *
gate_sh_child(struct gate *g, const char *before)
{
	return gate_compose(g, "%ssleep 600 & echo $! %s %s; wait", before, g->to,
	    g->ready);
}

long
gate_wait(const struct gate *g)
{
	long said = fifo_read_long(g->ready);

	cr_assert(said > 0, "the command said %ld on %s", said, g->ready);
	return said;
}

void
gate_started(const struct gate *g, pid_t job)
{
	POLL_UNTIL(file_lines(g->ready) > 0 || !alive(job));
	if (file_lines(g->ready) == 0) {
		int status = lr_wait(job);
		cr_assert_fail("the command did not start: lockrun exited %d", status);
	}
}

void
gate_release(const struct gate *g)
{
	fifo_write(g->go, "go\n");
}

long
fifo_read_long(const char *path)
{
	char line[64] = "";
	FILE *fp = fopen(path, "r");	/* blocks until the writer opens it */

	cr_assert(fp != NULL, "open %s: %s", path, strerror(errno));
	if (fgets(line, sizeof(line), fp) == NULL)
		line[0] = '\0';
	fclose(fp);
	return strtol(line, NULL, 10);
}

void
fifo_write(const char *path, const char *s)
{
	FILE *fp = fopen(path, "w");	/* blocks until the reader opens it */

	cr_assert(fp != NULL, "open %s: %s", path, strerror(errno));
	fputs(s, fp);
	fclose(fp);
}

const char *
file_peek(const char *path)
{
	static char buf[65536];

	slurp(path, buf, sizeof(buf));
	return buf;
}

char *
file_text(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	cr_assert(fp != NULL, "open %s: %s", path, strerror(errno));
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			cr_assert((buf = realloc(buf, cap)) != NULL);
		}
		len += got = fread(buf + len, 1, cap - len - 1, fp);
	} while (got > 0);
	fclose(fp);
	buf[len] = '\0';
	return buf;
}

int
file_lines(const char *path)
{
	FILE *fp = fopen(path, "r");
	int n = 0, c;

	if (fp == NULL)
		return 0;
	while ((c = getc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

redisReply *
rcmd(const char *fmt, ...)
{
	redisContext *c = redis_client(&fx);
	redisReply *r;
	va_list ap;

	/* the password suite needs AUTH first; harmless elsewhere to skip */
	if (getenv("TEST_REDIS_PASSWORD"))
		freeReplyObject(redisCommand(c, "AUTH %s", getenv("TEST_REDIS_PASSWORD")));
	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	cr_assert(r != NULL, "redis command failed");
	return r;
}

redisContext *
monitor_start(void)
{
	redisContext *c = redis_client(&fx);
	redisReply *r;

	if (getenv("TEST_REDIS_PASSWORD"))
		freeReplyObject(redisCommand(c, "AUTH %s", getenv("TEST_REDIS_PASSWORD")));
	r = redisCommand(c, "MONITOR");
	cr_assert(r && r->type == REDIS_REPLY_STATUS, "MONITOR refused");
	freeReplyObject(r);
	return c;
}

/* The command in a MONITOR line, from its name on ("\"SET\" ..."), or NULL
 * for a command run inside a script or the harness's own AUTH. */
static const char *
client_command(const char *line)
{
	const char *cmd = strchr(line, ']');

	if (cmd == NULL || strstr(line, " lua]") != NULL)
		return NULL;
	cmd += 2;
	if (strncmp(cmd, "\"AUTH\" \"s3cret", 14) == 0 ||
	    strncmp(cmd, "\"auth\" \"s3cret", 14) == 0)
		return NULL;
	return cmd;
}

long
monitor_count(redisContext *mon, char *seen, size_t n)
{
	static const char marker[] = "lockrun-test-monitor-end";
	redisReply *r = rcmd("ECHO %s", marker);
	long count = 0;

	freeReplyObject(r);
	if (seen)
		seen[0] = '\0';
	for (;;) {
		redisReply *line;
		const char *cmd;
		cr_assert(redisGetReply(mon, (void **)&line) == REDIS_OK, "monitor lost");
		if (strstr(line->str, marker)) {
			freeReplyObject(line);
			break;
		}
		/* skip commands run inside scripts, and the harness's AUTH */
		if ((cmd = client_command(line->str)) != NULL) {
			count++;
			if (seen)
				snprintf(seen + strlen(seen), n - strlen(seen), "%.*s\n",
				    (int)strcspn(cmd, " "), cmd);
		}
		freeReplyObject(line);
	}
	redisFree(mon);
	return count;
}

long
monitor_until(redisContext *mon, const char *re, long n, char *last, size_t len)
{
	long long guard = fixture_ms() + 30000;
	long seen = 0;
	regex_t rx;

	cr_assert(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0, "bad regex %s", re);
	while (seen < n) {
		redisReply *line = NULL;
		const char *cmd;

		cr_assert(redisGetReplyFromReader(mon, (void **)&line) == REDIS_OK,
		    "monitor lost: %s", mon->errstr);
		if (line == NULL) {	/* none buffered: wait for more, bounded */
			struct pollfd pfd = { .fd = mon->fd, .events = POLLIN };
			long long left = guard - fixture_ms();
			if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
				break;
			cr_assert(redisBufferRead(mon) == REDIS_OK, "monitor lost: %s",
			    mon->errstr);
			continue;
		}
		cmd = line->type == REDIS_REPLY_STATUS ? client_command(line->str) : NULL;
		if (cmd && regexec(&rx, cmd, 0, NULL, 0) == 0) {
			seen++;
			if (last)
				snprintf(last, len, "%s", cmd);
		}
		freeReplyObject(line);
	}
	regfree(&rx);
	return seen;
}

int
poll_tick(long long *guard)
{
	long long now = fixture_ms();

	if (*guard == 0)
		*guard = now + 30000;
	else if (now >= *guard)
		return 0;
	fixture_tick(5);
	return 1;
}

int
file_repeats(const char *path)
{
	char *text = file_text(path), *save = NULL;
	char *lines[2048];
	int n = 0, dup = 0;

	for (char *l = strtok_r(text, "\n", &save); l && n < 2048;
	    l = strtok_r(NULL, "\n", &save)) {
		for (int i = 0; i < n; i++)
			dup += strcmp(lines[i], l) == 0;
		lines[n++] = l;
	}
	free(text);
	return dup;
}

void
poll_gave_up(const char *cond, const char *file, int line)
{
	cr_expect_fail("POLL_UNTIL(%s) at %s:%d: still false after 30 s", cond, file, line);
}

int
key_exists(const char *key)
{
	redisReply *r = rcmd("EXISTS %s", key);
	int v = (int)r->integer;

	freeReplyObject(r);
	return v;
}

long long
key_pttl(const char *key)
{
	redisReply *r = rcmd("PTTL %s", key);
	long long v = r->integer;

	freeReplyObject(r);
	return v;
}

void
pace_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int
matches(const char *s, const char *re)
{
	regex_t rx;
	int ok;

	cr_assert(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0, "bad regex %s", re);
	ok = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return ok;
}

int
alive(pid_t pid)
{
	char state = proc_state(pid);

	return state != 'Z' && state != '?';
}

/* libfaketime's shared memory and semaphore are named by the pid of the
 * process that made them (/dev/shm/faketime_shm_PID, sem.faketime_sem_PID)
 * and stay behind when that process is killed; a process that later gets
 * the same pid cannot start ("shm_open failed: File exists"), and a run of
 * the suites makes enough processes for pids to come round again. Remove
 * those of processes gone, untouched for ten minutes: no test runs that
 * long, so nothing of one still needs them. */
static void
faketime_sweep(void)
{
	DIR *d = opendir("/dev/shm");
	time_t old = time(NULL) - 600;
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name, *num = NULL;
		char path[320];
		struct stat sb;
		long pid;

		if (strncmp(n, "faketime_shm_", 13) == 0)
			num = n + 13;
		else if (strncmp(n, "sem.faketime_sem_", 17) == 0)
			num = n + 17;
		if (num == NULL || (pid = strtol(num, NULL, 10)) <= 0)
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", n);
		if (lstat(path, &sb) == 0 && sb.st_mtime < old && sb.st_ctime < old &&
		    kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			unlink(path);
	}
	closedir(d);
}

void
faketime_env(const char *env[5], char buf[3][128], double unix_time)
{
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/faketime/libfaketime.so.1",
	};
	struct timespec now;
	const char *lib = NULL;

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !lib; i++)
		if (access(libs[i], R_OK) == 0)
			lib = libs[i];
	cr_assert(lib != NULL, "libfaketime not found (apt-get install faketime)");
	faketime_sweep();
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(buf[0], 128, "LD_PRELOAD=%s", lib);
	/* an offset from the real clock, so the faked one keeps running */
	snprintf(buf[1], 128, "FAKETIME=%+.3f",
	    unix_time - ((double)now.tv_sec + now.tv_nsec / 1e9));
	/* ASan wants to be first in the library list; libfaketime is harmless */
	snprintf(buf[2], 128, "ASAN_OPTIONS=verify_asan_link_order=0");
	env[0] = buf[0];
	env[1] = buf[1];
	env[2] = buf[2];
	env[3] = "FAKETIME_DONT_FAKE_MONOTONIC=1";
	env[4] = NULL;
}

void
shim_env(const char *env[6], char buf[3][256], const char *gai_fail_file,
    const char *getrandom_log)
{
	const char *shim = getenv("LOCKRUN_SHIM");
	size_t n = 0;

	cr_assert(shim != NULL && access(shim, R_OK) == 0,
	    "LOCKRUN_SHIM names no shim.so (make integ sets it): %s", shim ? shim : "unset");
	snprintf(buf[0], 256, "LD_PRELOAD=%s", shim);
	env[n++] = buf[0];
	if (gai_fail_file) {
		snprintf(buf[1], 256, "LOCKRUN_SHIM_GAI_FAIL=%s", gai_fail_file);
		env[n++] = buf[1];
	}
	if (getrandom_log) {
		snprintf(buf[2], 256, "LOCKRUN_SHIM_GETRANDOM_EMPTY=%s", getrandom_log);
		env[n++] = buf[2];
	}
	/* ASan wants to be first in the library list; the shim is harmless */
	env[n++] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[n] = NULL;
}

void
faketime_frozen_env(const char *env[6], char buf[3][128], double unix_time)
{
	const char *moving[5];
	time_t secs = (time_t)unix_time;
	struct tm tm;

	faketime_env(moving, buf, unix_time);	/* finds the library */
	gmtime_r(&secs, &tm);
	/* an absolute date: libfaketime stops the clock there */
	snprintf(buf[1], 128, "FAKETIME=%04d-%02d-%02d %02d:%02d:%02d.%03d",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    (int)((unix_time - (double)secs) * 1000 + 0.5));
	env[0] = buf[0];
	env[1] = buf[1];
	env[2] = buf[2];
	env[3] = "FAKETIME_DONT_FAKE_MONOTONIC=1";
	env[4] = "TZ=UTC";		/* how libfaketime reads the date above */
	env[5] = NULL;
}

const char *
write_config(const char *body)
{
	const char *path = scratch("lockrun.yaml");
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL);
	fprintf(fp, "redis:\n  url: %s\n%s", fx.url, body);
	fclose(fp);
	return path;
}

const char *
root_only(const char *name)
{
	const char *path = write_scratch(name, "keep\n");

	cr_assert(chmod(path, 0600) == 0, "%s", path);
	return path;
}

const char *
write_scratch(const char *name, const char *body)
{
	const char *path = scratch(name);
	FILE *fp = fopen(path, "w");

	cr_assert(fp != NULL, "%s: %s", path, strerror(errno));
	fputs(body, fp);
	cr_assert(fclose(fp) == 0, "%s: %s", path, strerror(errno));
	return path;
}

const char *
write_config_faked(const char *body)
{
	char *all;
	const char *path;

	cr_assert(asprintf(&all, "defaults:\n  clock_tolerance: 0\n%s", body) > 0);
	path = write_config(all);
	free(all);
	return path;
}

/* How many bytes the command MONITOR shows as line ('"NAME" "arg" ...',
 * its escapes undone) takes in RESP, as a client sends it. */
long
resp_size(const char *line)
{
	long total = 0, argc = 0;
	char head[32];

	for (const char *p = line; (p = strchr(p, '"')) != NULL; ) {
		long len = 0;
		for (p++; *p && *p != '"'; p++, len++)
			if (*p == '\\')
				p += p[1] == 'x' ? 3 : 1;	/* \xHH, \", \\, \n ... */
		p++;
		total += snprintf(head, sizeof(head), "$%ld\r\n", len) + len + 2;
		argc++;
	}
	return total + snprintf(head, sizeof(head), "*%ld\r\n", argc);
}

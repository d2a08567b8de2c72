/* SPDX-License-Identifier: BSD-2-Clause */
/* log_test.c -- where lockrun's messages go: human lines on stderr (the
 * default, unchanged), JSON lines on stderr or appended to a file (every
 * line parsed by a strict JSON parser), syslog(3) datagrams (received on a
 * socket of the test's through the shim). */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "harness.h"
#include "json.h"

TestSuite(log, .init = suite_setup, .fini = suite_teardown, .timeout = 60);

#define MAXLINES	16
#define T_MIDDAY	1781524800.0	/* 2026-06-15T12:00:00Z */
#define BAD_SPEC	"is not a log destination (expected stderr, syslog, json or " \
			"json:FILE)"
#define FFFD		"\xef\xbf\xbd"	/* U+FFFD in UTF-8 */
#define HOLDER		"0123456789abcdef0123456789abcdef 41 web7 4242 " \
			"2026-11-21T17:45:02.123Z"

/* The parsed lines of a JSON log. */
struct jlog {
	struct json	*v[MAXLINES];
	size_t		 n;
};

/* Parse every line of text (which must end in a newline) into l. */
static void
jlog_parse(struct jlog *l, const char *text)
{
	const char *p = text;
	char line[8192], err[256];

	l->n = 0;
	cr_assert(text[0] == '\0' || text[strlen(text) - 1] == '\n',
	    "the log does not end with a newline: %s", text);
	while (*p != '\0') {
		size_t len = strcspn(p, "\n");

		cr_assert(l->n < MAXLINES && len < sizeof(line), "too many or too long lines");
		memcpy(line, p, len);
		line[len] = '\0';
		l->v[l->n] = json_parse(line, err, sizeof(err));
		cr_assert(l->v[l->n] != NULL, "line %zu is not JSON (%s): %s", l->n + 1,
		    err, line);
		cr_assert(json_is(l->v[l->n], "object"), "line %zu is not an object", l->n + 1);
		l->n++;
		p += len + 1;
	}
}

static void
jlog_free(struct jlog *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_free(l->v[i]);
	l->n = 0;
}

/* The string member key of o; fails the test if it is not one. */
static const char *
str_of(const struct json *o, const char *key)
{
	const struct json *m = json_get(o, key);

	cr_assert(m != NULL && json_is(m, "string"), "\"%s\" is not a string", key);
	return json_str(m);
}

/* The number member key of o; fails the test if it is not one. */
static double
num_of(const struct json *o, const char *key)
{
	double d;

	cr_assert(json_num(json_get(o, key), &d) == 0, "\"%s\" is not a number", key);
	return d;
}

static int
has(const struct json *o, const char *key)
{
	return json_get(o, key) != NULL;
}

/* The fields every line has: an ISO 8601 UTC time to the ms, a level, an
 * event, this host and lockrun's pid, a message. */
static void
check_common(const struct json *o, const char *level, const char *event,
    const char *host, pid_t pid)
{
	cr_assert(matches(str_of(o, "time"), "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:"
	    "[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"), "time: %s", str_of(o, "time"));
	cr_assert(eq(str, (char *)str_of(o, "level"), (char *)level));
	cr_assert(eq(str, (char *)str_of(o, "event"), (char *)event));
	if (host)
		cr_assert(eq(str, (char *)str_of(o, "host"), (char *)host));
	if (pid > 0)
		cr_assert(eq(dbl, num_of(o, "pid"), (double)pid));
	cr_assert(str_of(o, "message")[0] != '\0');
}

static void
read_file(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "r");
	size_t len;

	cr_assert(fp != NULL, "open %s: %s", path, strerror(errno));
	len = fread(buf, 1, n - 1, fp);
	buf[len] = '\0';
	fclose(fp);
}

static long long
number_in(const char *path)
{
	char buf[64];

	read_file(path, buf, sizeof(buf));
	return strtoll(buf, NULL, 10);
}

/* --- JSON lines ------------------------------------------------------ */

Test(log, json_lines_for_a_run_that_acquired_and_released)
{
	const char *tok = scratch("token");
	char script[256], err[4096];
	const char *const events[] = { "acquired", "released", "exited" };
	struct jlog l;
	pid_t pid;

	snprintf(script, sizeof(script), "echo $LOCKRUN_TOKEN > %s", tok);
	pid = LR_START("--redis", fx.url, "--log", "json", "--host", "web-a", "-k", "jr",
	    "--", "sh", "-c", script);
	cr_assert(eq(int, lr_wait(pid), 0));
	jlog_parse(&l, lr_stderr_of(pid, err, sizeof(err)));
	cr_assert(eq(sz, l.n, 3), "stderr: %s", err);
	for (size_t i = 0; i < l.n; i++) {
		const struct json *o = l.v[i];
		check_common(o, "info", events[i], "web-a", pid);
		cr_assert(eq(str, (char *)str_of(o, "task"), "jr"));
		cr_assert(eq(str, (char *)str_of(o, "key"), "lockrun:{jr}"));
		cr_assert(eq(dbl, num_of(o, "token"), (double)number_in(tok)),
		    "the token the command was given");
		cr_assert(eq(int, has(o, "slot") + has(o, "holder"), 0));
		if (i == 0) {
			cr_assert(eq(int, has(o, "status") + has(o, "duration_ms"), 0));
			continue;
		}
		cr_assert(eq(dbl, num_of(o, "status"), 0));
		cr_assert(num_of(o, "duration_ms") >= 0);
	}
	jlog_free(&l);
}

Test(log, json_line_for_a_skip_names_the_holder)
{
	const char *mark = scratch("mark");
	char script[256];
	struct result r;
	struct jlog l;

	freeReplyObject(rcmd("SET lockrun:{js} %s PX 30000", HOLDER));
	snprintf(script, sizeof(script), "echo ran > %s", mark);
	LR(&r, "--redis", fx.url, "--log", "json", "--host", "web-b", "-E", "75",
	    "-k", "js", "--", "sh", "-c", script);
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(int, access(mark, F_OK), -1), "the command did not run");
	jlog_parse(&l, r.err);
	cr_assert(eq(sz, l.n, 1), "stderr: %s", r.err);
	check_common(l.v[0], "info", "skipped-held", "web-b", 0);
	cr_assert(eq(str, (char *)str_of(l.v[0], "task"), "js"));
	cr_assert(eq(str, (char *)str_of(l.v[0], "key"), "lockrun:{js}"));
	cr_assert(eq(dbl, num_of(l.v[0], "token"), 41), "the holder's token");
	cr_assert(eq(str, (char *)str_of(l.v[0], "holder"), "web7 4242"));
	cr_assert(eq(dbl, num_of(l.v[0], "status"), 75), "lockrun's exit status");
	cr_assert(num_of(l.v[0], "pid") > 0);
	cr_assert(eq(str, (char *)str_of(l.v[0], "message"), "skipped: lockrun:{js} is "
	    "held by web7 pid 4242 since 2026-11-21T17:45:02.123Z (token 41)"));
	jlog_free(&l);
}

/* Both runs at mid-day by a faked clock: one slot, whatever the date. */
Test(log, json_lines_carry_the_slot_and_a_skipped_slot)
{
	const char *env[5];
	char buf[3][128];
	struct result r;
	struct jlog l;
	double token;

	faketime_env(env, buf, T_MIDDAY);
	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--log", "json",
	    "--every", "1d", "--overlap", "--clock-tolerance", "0", "-k", "jd", "--",
	    "true", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	jlog_parse(&l, r.err);
	cr_assert(eq(sz, l.n, 3), "stderr: %s", r.err);
	check_common(l.v[0], "info", "acquired", NULL, 0);
	cr_assert(eq(str, (char *)str_of(l.v[0], "slot"), "2026-06-15T00:00:00Z"));
	cr_assert(eq(str, (char *)str_of(l.v[0], "key"), "lockrun:{jd}:slot:20260615T0000Z"));
	token = num_of(l.v[0], "token");
	jlog_free(&l);

	lr_run_env(&r, env, (const char *const[]){ "--redis", fx.url, "--log", "json",
	    "--every", "1d", "--overlap", "--clock-tolerance", "0", "-k", "jd", "--",
	    "true", NULL });
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	jlog_parse(&l, r.err);
	cr_assert(eq(sz, l.n, 1), "stderr: %s", r.err);
	check_common(l.v[0], "info", "skipped-slot", NULL, 0);
	cr_assert(eq(str, (char *)str_of(l.v[0], "slot"), "2026-06-15T00:00:00Z"));
	cr_assert(eq(dbl, num_of(l.v[0], "token"), token), "the token of the run that ran");
	cr_assert(eq(dbl, num_of(l.v[0], "status"), 0));
	jlog_free(&l);
}

/* A file appended to by two lockruns at once: the holder writes a line
 * before and after the other's skip, so a writer that did not append
 * would overwrite a line. */
Test(log, json_file_takes_the_lines_of_two_lockruns)
{
	const char *file = scratch("log.jsonl");
	char spec[300], text[8192], err[1024];
	struct result r;
	struct jlog l;
	struct stat st;
	pid_t holder;
	size_t mine = 0;
	struct gate g;

	umask(022);
	snprintf(spec, sizeof(spec), "json:%s", file);
	gate_open(&g, "");
	holder = LR_START("--redis", fx.url, "--log", spec, "-k", "jf", "--", "sh", "-c",
	    gate_sh(&g));
	gate_wait(&g);
	LR(&r, "--redis", fx.url, "--log", spec, "-E", "75", "-k", "jf", "--", "true");
	cr_assert(eq(int, r.status, 75));
	cr_assert(eq(str, r.err, ""), "nothing on stderr");
	gate_release(&g);
	cr_assert(eq(int, lr_wait(holder), 0));
	cr_assert(eq(str, (char *)lr_stderr_of(holder, err, sizeof(err)), ""));

	cr_assert(eq(int, stat(file, &st), 0));
	cr_assert(eq(int, st.st_mode & 0777, 0640));
	read_file(file, text, sizeof(text));
	jlog_parse(&l, text);
	cr_assert(eq(sz, l.n, 4), "%s", text);
	for (size_t i = 0; i < l.n; i++) {
		if (num_of(l.v[i], "pid") == (double)holder) {
			static const char *const ev[] = { "acquired", "released", "exited" };
			check_common(l.v[i], "info", ev[mine++], NULL, holder);
			continue;
		}
		cr_assert(eq(sz, i, 1), "the skip came between the holder's lines");
		check_common(l.v[i], "info", "skipped-held", NULL, 0);
		cr_assert(eq(dbl, num_of(l.v[i], "token"), num_of(l.v[0], "token")));
	}
	cr_assert(eq(sz, mine, 3));
	jlog_free(&l);
}

/* A control byte, a byte that is no UTF-8, a quote, a backslash; valid
 * two- and four-byte characters, which pass; an overlong form and an
 * encoded surrogate, each of whose bytes becomes U+FFFD. */
Test(log, json_escapes_control_characters_and_bytes_that_are_not_utf8)
{
	struct result r;
	struct jlog l;

	LR(&r, "--redis", fx.url, "--log", "json", "--",
	    "no-such\x01\xff\"\\cmd-\xc3\xa9\xf0\x9f\x94\x92-\xc0\xaf-\xed\xa0\x80");
	cr_assert(eq(int, r.status, 127));
	jlog_parse(&l, r.err);
	/* acquired, exec-failed, released: the run is recorded (issue 45) */
	cr_assert(eq(sz, l.n, 3), "the run's JSON lines: %s", r.err);
	check_common(l.v[1], "error", "exec-failed", NULL, 0);
	cr_assert(eq(dbl, num_of(l.v[1], "status"), 127));
	cr_assert(eq(str, (char *)str_of(l.v[1], "message"),
	    "cannot run no-such\x01" FFFD "\"\\cmd-\xc3\xa9\xf0\x9f\x94\x92-" FFFD FFFD "-"
	    FFFD FFFD FFFD ": command not found in PATH"));
	jlog_free(&l);
}

/* The guard process (kill_mode tree) starts the command: when exec fails
 * there, after the command was found, the guard logs it, as lockrun. */
Test(log, guard_logs_an_exec_failure_through_the_same_path)
{
	const char *script = scratch("nointerp.sh");
	char err[4096], want[512];
	FILE *fp = fopen(script, "w");
	struct jlog l;
	pid_t pid;

	cr_assert(fp != NULL);
	fputs("#!/nonexistent/interpreter\n", fp);
	fclose(fp);
	cr_assert(eq(int, chmod(script, 0755), 0));
	pid = LR_START("--redis", fx.url, "--log", "json", "-k", "jg", "--", script);
	cr_assert(eq(int, lr_wait(pid), 127));
	jlog_parse(&l, lr_stderr_of(pid, err, sizeof(err)));
	cr_assert(eq(sz, l.n, 4), "stderr: %s", err);
	check_common(l.v[1], "error", "exec-failed", NULL, pid);
	snprintf(want, sizeof(want), "cannot run %s: No such file or directory", script);
	cr_assert(eq(str, (char *)str_of(l.v[1], "message"), want));
	cr_assert(eq(dbl, num_of(l.v[1], "status"), 127));
	check_common(l.v[2], "info", "released", NULL, pid);
	cr_assert(eq(dbl, num_of(l.v[2], "status"), 127));
	jlog_free(&l);
}

/* The same on stderr: the line it always was. */
Test(log, exec_failure_after_the_command_was_found_keeps_its_stderr_line)
{
	const char *script = scratch("nointerp2.sh");
	char want[512];
	FILE *fp = fopen(script, "w");
	struct result r;

	cr_assert(fp != NULL);
	fputs("#!/nonexistent/interpreter\n", fp);
	fclose(fp);
	cr_assert(eq(int, chmod(script, 0755), 0));
	LR(&r, "--redis", fx.url, "-k", "jg2", "--", script);
	cr_assert(eq(int, r.status, 127));
	snprintf(want, sizeof(want), "lockrun: cannot run %s: No such file or directory\n",
	    script);
	cr_assert(eq(str, r.err, want));
}

Test(log, json_line_for_a_timeout_is_an_error)
{
	struct result r;
	struct jlog l;

	LR(&r, "--redis", fx.url, "--log", "json", "-k", "jt", "--timeout", "300ms", "--",
	    "sleep", "60");
	cr_assert(eq(int, r.status, 124));
	jlog_parse(&l, r.err);
	cr_assert(eq(sz, l.n, 4), "stderr: %s", r.err);
	check_common(l.v[1], "error", "stopped-timeout", NULL, 0);
	check_common(l.v[2], "info", "released", NULL, 0);
	cr_assert(eq(dbl, num_of(l.v[2], "status"), 124));
	check_common(l.v[3], "info", "exited", NULL, 0);
	cr_assert(eq(dbl, num_of(l.v[3], "status"), 124));
	jlog_free(&l);
}

/* Another run takes the key: the next renewal finds the lock lost. */
Test(log, json_line_for_a_lost_lock_is_an_error)
{
	char err[4096];
	struct jlog l;
	pid_t pid;
	struct gate g;

	gate_open(&g, "");
	pid = LR_START("--redis", fx.url, "--log", "json", "--ttl", "3s", "-k", "jl", "--",
	    "sh", "-c", gate_sh_then(&g, "", "exec sleep 60"));
	gate_wait(&g);
	freeReplyObject(rcmd("SET lockrun:{jl} %s PX 30000", HOLDER));
	cr_assert(eq(int, lr_wait(pid), 128 + 15), "the command was stopped");
	jlog_parse(&l, lr_stderr_of(pid, err, sizeof(err)));
	cr_assert(eq(sz, l.n, 3), "stderr: %s", err);
	check_common(l.v[1], "error", "lost", NULL, pid);
	cr_assert(matches(str_of(l.v[1], "message"), "^LOST LOCK lockrun:\\{jl\\}: "),
	    "%s", str_of(l.v[1], "message"));
	check_common(l.v[2], "info", "exited", NULL, pid);
	jlog_free(&l);
}

/* A usage error found after the log was opened is one JSON line, with no
 * human hint after it. */
Test(log, json_on_stderr_reports_a_usage_error_as_json_only)
{
	const char *cfg = write_config("tasks:\n  t:\n    command: [true]\n");
	struct result r;
	struct jlog l;

	LR(&r, "-c", cfg, "--log", "json", "-t", "nope");
	cr_assert(eq(int, r.status, 64));
	jlog_parse(&l, r.err);
	cr_assert(eq(sz, l.n, 1), "stderr: %s", r.err);
	check_common(l.v[0], "error", "usage-error", NULL, 0);
	cr_assert(eq(dbl, num_of(l.v[0], "status"), 64));
	cr_assert(eq(str, (char *)str_of(l.v[0], "task"), "nope"));
	jlog_free(&l);
}

Test(log, json_file_that_cannot_be_opened_is_73)
{
	const char *mark = scratch("mark73");
	char script[256];
	struct result r;

	snprintf(script, sizeof(script), "echo ran > %s", mark);
	LR(&r, "--redis", fx.url, "--log", "json:/nonexistent/dir/lockrun.jsonl", "--",
	    "sh", "-c", script);
	cr_assert(eq(int, r.status, 73));
	cr_assert(eq(str, r.err, "lockrun: log file /nonexistent/dir/lockrun.jsonl: "
	    "No such file or directory\n"));
	cr_assert(eq(int, access(mark, F_OK), -1), "nothing ran");
}

/* --- syslog ---------------------------------------------------------- */

/* An AF_UNIX datagram socket at path, to stand in for /dev/log. */
static int
syslog_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	cr_assert(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	cr_assert(eq(int, bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0), "bind %s: %s",
	    path, strerror(errno));
	return fd;
}

/* The datagrams lockrun sent, one a line in buf; lockrun has exited, so
 * they are all queued: read until there is none left. Returns how many. */
static int
syslog_read(int fd, char *buf, size_t n)
{
	int count = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (;;) {
		ssize_t got = recv(fd, buf + len, n - len - 2, 0);

		if (got < 0) {
			int e = errno;
			cr_assert(e == EAGAIN || e == EWOULDBLOCK, "recv: %s", strerror(e));
			break;
		}
		len += (size_t)got;
		buf[len++] = '\n';
		buf[len] = '\0';
		count++;
	}
	return count;
}

/* The shim's environment, with syslog(3) sent to sock. */
static void
syslog_env(const char *env[6], char buf[3][256], char var[300], const char *sock)
{
	size_t n = 0;

	shim_env(env, buf, NULL, NULL);
	while (env[n] != NULL)
		n++;
	snprintf(var, 300, "LOCKRUN_SHIM_SYSLOG=%s", sock);
	env[n] = var;
	env[n + 1] = NULL;
}

/* One line per datagram; the part after the priority and the time. */
static void
syslog_expect(const char *got, int pri, pid_t pid, const char *msg_re)
{
	char re[512];

	snprintf(re, sizeof(re), "(^|\n)<%d>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} "
	    "lockrun\\[%d\\]: %s\n", pri, (int)pid, msg_re);
	cr_assert(matches(got, re), "no line like %s in:\n%s", re, got);
}

Test(log, syslog_lines_have_facility_cron_the_level_and_the_pid)
{
	const char *sock = scratch("log.sock"), *env[6];
	char buf[3][256], var[300], got[4096], err[1024];
	int fd = syslog_socket(sock);
	pid_t pid;

	syslog_env(env, buf, var, sock);
	pid = LR_START_ENV(env, "--redis", fx.url, "--log", "syslog", "-k", "sl", "--", "true");
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(str, (char *)lr_stderr_of(pid, err, sizeof(err)), ""),
	    "stderr stays quiet");
	cr_assert(eq(int, syslog_read(fd, got, sizeof(got)), 3), "%s", got);
	/* LOG_CRON (9 << 3) | LOG_INFO (6) */
	syslog_expect(got, 78, pid, "acquired lockrun:\\{sl\\} \\(token [0-9]+\\)");
	syslog_expect(got, 78, pid, "released lockrun:\\{sl\\} after [0-9]+m?s \\(status 0\\)");
	syslog_expect(got, 78, pid, "true exited with status 0");
	close(fd);
}

/* The operator's case: a skip is in the journal, and cron mails nothing. */
Test(log, syslog_gets_a_skip_that_stderr_keeps_quiet)
{
	const char *sock = scratch("log.sock"), *env[6];
	char buf[3][256], var[300], got[4096], err[1024];
	int fd = syslog_socket(sock);
	pid_t pid;

	freeReplyObject(rcmd("SET lockrun:{sq} %s PX 30000", HOLDER));
	syslog_env(env, buf, var, sock);
	pid = LR_START_ENV(env, "--redis", fx.url, "--log", "syslog", "-k", "sq", "--",
	    "true");
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(eq(str, (char *)lr_stderr_of(pid, err, sizeof(err)), ""));
	cr_assert(eq(int, syslog_read(fd, got, sizeof(got)), 1), "%s", got);
	syslog_expect(got, 78, pid, "skipped: lockrun:\\{sq\\} is held by web7 pid 4242 "
	    "since 2026-11-21T17:45:02\\.123Z \\(token 41\\)");
	close(fd);
}

/* An error goes to syslog as LOG_ERR, and to stderr as it always did. */
Test(log, syslog_error_is_log_err_and_still_on_stderr)
{
	const char *sock = scratch("log.sock"), *env[6];
	char buf[3][256], var[300], got[4096], err[1024];
	int fd = syslog_socket(sock);
	pid_t pid;

	syslog_env(env, buf, var, sock);
	pid = LR_START_ENV(env, "--redis", fx.url, "--log", "syslog", "--",
	    "no-such-command-lockrun");
	cr_assert(eq(int, lr_wait(pid), 127));
	cr_assert(eq(str, (char *)lr_stderr_of(pid, err, sizeof(err)), "lockrun: cannot "
	    "run no-such-command-lockrun: command not found in PATH\n"));
	/* with the acquire and the release, which record it (issue 45) */
	cr_assert(eq(int, syslog_read(fd, got, sizeof(got)), 3), "%s", got);
	/* LOG_CRON | LOG_ERR (3) */
	syslog_expect(got, 75, pid, "cannot run no-such-command-lockrun: command not "
	    "found in PATH");
	close(fd);
}

/* A warning is LOG_WARNING, from a config's log: key. */
Test(log, syslog_warning_is_log_warning_from_the_config)
{
	const char *sock = scratch("log.sock"), *env[6];
	const char *cfg = write_config("log: syslog\n");
	char buf[3][256], var[300], got[4096], err[1024], url[300];
	int fd = syslog_socket(sock);
	pid_t pid;

	syslog_env(env, buf, var, sock);
	snprintf(url, sizeof(url), "unix://%s", scratch("no-redis.sock"));
	pid = LR_START_ENV(env, "-c", cfg, "--redis", url, "--on-redis-error", "run",
	    "-k", "sw", "--", "true");
	cr_assert(eq(int, lr_wait(pid), 0));
	cr_assert(matches(lr_stderr_of(pid, err, sizeof(err)), "^lockrun: [^\n]*; running "
	    "without a lock \\(on_server_error: run\\)\n$"), "stderr: %s", err);
	cr_assert(eq(int, syslog_read(fd, got, sizeof(got)), 2), "%s", got);
	/* LOG_CRON | LOG_WARNING (4) */
	syslog_expect(got, 76, pid, "[^\n]*; running without a lock \\(on_server_error: run\\)");
	syslog_expect(got, 78, pid, "true exited with status 0");
	close(fd);
}

/* --- choosing, and refusing ------------------------------------------ */

Test(log, bad_log_option_is_64)
{
	struct result r;

	LR(&r, "--redis", fx.url, "--log", "xml", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: --log: \"xml\" " BAD_SPEC "\n"
	    "Try 'lockrun --help' for more information.\n"));
	LR(&r, "--redis", fx.url, "--log", "json:", "--", "true");
	cr_assert(eq(int, r.status, 64));
	cr_assert(eq(str, r.err, "lockrun: --log: \"json:\" names no file after json:\n"
	    "Try 'lockrun --help' for more information.\n"));
}

Test(log, bad_log_key_in_config_is_78_at_its_place)
{
	struct result r;
	char want[512];
	const char *cfg = write_config("log: jsn\ntasks:\n  t:\n    command: [true]\n");

	LR(&r, "-c", cfg, "-t", "t");
	snprintf(want, sizeof(want), "lockrun: %s:3:6: log: \"jsn\" " BAD_SPEC "\n", cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, want));
	cfg = write_config("tasks:\n  t:\n    command: [true]\nlog: [json]\n");
	LR(&r, "-c", cfg, "-t", "t");
	snprintf(want, sizeof(want), "lockrun: %s:6:6: log: expected a string, got a list\n",
	    cfg);
	cr_assert(eq(int, r.status, 78));
	cr_assert(eq(str, r.err, want));
}

/* log: in the config applies; --log on the command line wins over it. */
Test(log, config_log_applies_and_the_command_line_wins)
{
	const char *file = scratch("cfg.jsonl");
	char body[512], text[8192];
	struct result r;
	struct jlog l;
	const char *cfg;

	snprintf(body, sizeof(body), "log: json:%s\ntasks:\n  t:\n    command: [true]\n",
	    file);
	cfg = write_config(body);
	LR(&r, "-c", cfg, "-t", "t");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(eq(str, r.err, ""));
	read_file(file, text, sizeof(text));
	jlog_parse(&l, text);
	cr_assert(eq(sz, l.n, 3), "%s", text);
	check_common(l.v[0], "info", "acquired", NULL, 0);
	cr_assert(eq(str, (char *)str_of(l.v[0], "task"), "t"));
	jlog_free(&l);

	LR(&r, "-c", cfg, "--log", "stderr", "-v", "-t", "t");
	cr_assert(eq(int, r.status, 0), "%s", r.err);
	cr_assert(matches(r.err, "^lockrun: redis [^\n]*: URL from redis\\.url at [^\n]*\n"
	    "lockrun: acquired lockrun:\\{t\\} \\(token [0-9]+\\)\n"), "%s", r.err);
	cr_assert(eq(int, file_lines(file), 3), "nothing more in the config's file");
}

/* --log stderr is the default: the -v line of a skip is the one it was. */
Test(log, log_stderr_is_the_default_human_lines)
{
	struct result r;

	freeReplyObject(rcmd("SET lockrun:{ls} %s PX 30000", HOLDER));
	LR(&r, "--redis", fx.url, "--log", "stderr", "-k", "ls", "--", "true");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(str, r.err, ""), "a skip is silent without -v");
	LR(&r, "--redis", fx.url, "--log", "stderr", "-v", "-k", "ls", "--", "true");
	cr_assert(matches(r.err, "^lockrun: redis [^\n]*: URL from --url; no password; prefix "
	    "\"lockrun:\" from the built-in default\nlockrun: skipped: lockrun:\\{ls\\} is held "
	    "by web7 pid 4242 since 2026-11-21T17:45:02\\.123Z \\(token 41\\)\n$"), "%s", r.err);
}

Test(log, quiet_silences_warnings_on_stderr)
{
	char url[300];
	struct result r;

	snprintf(url, sizeof(url), "unix://%s", scratch("no-redis.sock"));
	LR(&r, "--redis", url, "--on-redis-error", "run", "-k", "qw", "--", "echo", "ran");
	cr_assert(eq(int, r.status, 0));
	cr_assert(matches(r.err, "^lockrun: [^\n]*; running without a lock "
	    "\\(on_server_error: run\\)\n$"), "stderr: %s", r.err);
	LR(&r, "--redis", url, "--on-redis-error", "run", "-q", "-k", "qw", "--", "echo",
	    "ran");
	cr_assert(eq(int, r.status, 0));
	cr_assert(eq(str, r.out, "ran\n"));
	cr_assert(eq(str, r.err, ""), "-q: no warning");
}

/* A server that cannot be reached ends lockrun with the event of every
 * backend, "server-error", and the JSON line keeps its old name,
 * "redis-error", as "alias" for parsers that match it. */
Test(log, json_server_error_carries_its_old_name_as_alias)
{
	struct result r;
	struct jlog l;

	LR(&r, "--redis", "redis://127.0.0.1:1", "--connect-timeout", "1s", "--log", "json",
	    "-k", "se", "--", "true");
	cr_assert(eq(int, r.status, 69), "stderr: %s", r.err);
	jlog_parse(&l, r.err);
	cr_assert(eq(sz, l.n, 1), "stderr: %s", r.err);
	check_common(l.v[0], "error", "server-error", NULL, 0);
	cr_assert(eq(str, (char *)str_of(l.v[0], "alias"), "redis-error"));
	jlog_free(&l);
}

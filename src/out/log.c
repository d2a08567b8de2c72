/* SPDX-License-Identifier: BSD-2-Clause */
/* log.c -- every message lockrun gives goes through lr_event(): a human
 * line on stderr (quiet by default, so cron mails nothing), and with
 * --log or log: the same line to syslog(3), or a JSON object per line. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"
#include "core/keys.h"
#include "core/text.h"
#include "out/json.h"
#include "out/log.h"

#define MSG_MAX		1024	/* bytes of a message, as it always was */
#define JSON_MAX	LOG_RECORD_MAX	/* bytes of a JSON line: fits every field escaped */

enum log_dest { DEST_STDERR, DEST_SYSLOG, DEST_JSON };

static void	put_line(int fd, const char *buf, size_t len);

static struct {
	enum log_dest	dest;
	int		fd;		/* DEST_JSON: stderr or the file */
	char		path[4096];	/* DEST_JSON: the file, or "" */
	int		verbose, quiet;
	long		pid;		/* lockrun's, also in its guard */
	char		host[256];
	char		task[KEY_NAME_MAX + 1];
	char		key[KEY_MAX];
	char		slot[64];
	long long	token;
	/* a scheduler's run: its records go there (log_report()), or NULL */
	void		(*report)(const char *record, size_t len);
} lg = { .fd = STDERR_FILENO };

void
log_fields_init(struct log_fields *f)
{
	f->status = f->duration_ms = f->token = f->run_pid = LOG_NONE;
	f->wait_med_ms = f->wait_max_ms = LOG_NONE;
	f->holder = f->task = f->slot = NULL;
}

const char *
log_spec_problem(const char *spec)
{
	if (strcmp(spec, "stderr") == 0 || strcmp(spec, "syslog") == 0 ||
	    strcmp(spec, "json") == 0)
		return NULL;
	if (strcmp(spec, "json:") == 0)
		return "names no file after json:";
	if (strncmp(spec, "json:", 5) == 0)
		return NULL;
	return "is not a log destination (expected stderr, syslog, json or json:FILE)";
}

void
log_setup(int verbose, int quiet)
{
	lg.verbose = verbose;
	lg.quiet = quiet;
	lg.pid = (long)getpid();
}

int
log_open(const char *spec, const char *host, struct lr_err *e)
{
	const char *why;

	if ((why = log_spec_problem(spec)) != NULL)
		return lr_errf(e, EX_USAGE, "log: \"%s\" %s", spec, why);
	snprintf(lg.host, sizeof(lg.host), "%s", host);
	if (strcmp(spec, "syslog") == 0) {
		/* connect now, before any fork: the guard shares the socket */
		openlog("lockrun", LOG_PID | LOG_NDELAY, LOG_CRON);
		lg.dest = DEST_SYSLOG;
	} else if (strncmp(spec, "json", 4) == 0) {
		if (lg.dest == DEST_JSON && lg.fd != STDERR_FILENO)
			close(lg.fd);
		lg.fd = STDERR_FILENO;
		lg.dest = DEST_JSON;
		snprintf(lg.path, sizeof(lg.path), "%s", spec[4] == ':' ? spec + 5 : "");
		if (lg.path[0] != '\0' && log_reopen() != 0) {
			lg.dest = DEST_STDERR;	/* said as before: a human line */
			return lr_errf(e, EX_CANTCREAT, "log file %s: %s", lg.path,
			    strerror(errno));
		}
	} else
		lg.dest = DEST_STDERR;
	return 0;
}

/* The JSON log file opened as file_open_append() opens what root writes;
 * one that breaks its rule is refused, said, and the log goes to stderr. */
int
log_reopen(void)
{
	char refused[PATH_MAX + 64];
	int fd;

	if (lg.dest != DEST_JSON || lg.path[0] == '\0')
		return 0;
	if ((fd = file_open_append(lg.path, refused, sizeof(refused))) < 0 &&
	    refused[0] == '\0')
		return -1;
	if (lg.fd != STDERR_FILENO)
		close(lg.fd);
	lg.fd = fd >= 0 ? fd : STDERR_FILENO;
	if (fd < 0)
		lr_error("log file %s: refused: %s; logging to stderr", lg.path, refused);
	return 0;
}

int
log_file_fd(void)
{
	return lg.dest == DEST_JSON && lg.fd != STDERR_FILENO ? lg.fd : -1;
}

void
log_context(const char *task, const char *key, long long token, const char *slot)
{
	snprintf(lg.task, sizeof(lg.task), "%s", task ? task : "");
	snprintf(lg.key, sizeof(lg.key), "%s", key ? key : "");
	snprintf(lg.slot, sizeof(lg.slot), "%s", slot ? slot : "");
	lg.token = token;
}

void
log_report(void (*to)(const char *record, size_t len))
{
	lg.report = to;
}

void
log_relay(const char *record, size_t len)
{
	if (lg.dest == DEST_JSON)
		put_line(lg.fd, record, len);
}

int
log_human_stderr(void)
{
	return !(lg.dest == DEST_JSON && lg.fd == STDERR_FILENO);
}

/* Write all of buf in one write(2) where it fits a pipe's atomic size:
 * lines of concurrent lockruns (and of the guard) do not interleave. */
static void
put_line(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;		/* nowhere left to say it */
		buf += n;
		len -= (size_t)n;
	}
}

/* --- JSON ---------------------------------------------------------- */

/* The time now, ISO 8601 UTC to the millisecond. */
static void
iso_now(char *buf, size_t n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	text_iso(ts.tv_sec * 1000LL + ts.tv_nsec / 1000000, TEXT_ISO_MS, buf, n);
}

/* The JSON name of a syslog level. */
static const char *
level_name(int level)
{
	return level == LOG_ERR ? "error" : level == LOG_WARNING ? "warn" : "info";
}

/* Events renamed when they became every backend's, and their names
 * before: a JSON line gives the old one as "alias", so that a parser
 * matching it finds it still. */
static const char *const renamed[][2] = {
	{ "server-error", "redis-error" },
	{ "server-back", "redis-back" },
};

static const char *
event_alias(const char *event)
{
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (strcmp(renamed[i][0], event) == 0)
			return renamed[i][1];
	return NULL;
}

/* One JSON object into buf[JSON_MAX], newline included: time, level,
 * event (and its alias), the context (or f's task and slot), f, message.
 * Absent fields are left out; the token is a number (out/json.h). The
 * line is bounded, so that one write(2) carries it whole. Its length. */
static size_t
json_line(char buf[JSON_MAX], int level, const char *event, const struct log_fields *f,
    const char *msg)
{
	struct lr_json j;
	char now[96];
	long long token = f && f->token != LOG_NONE ? f->token : lg.token;

	iso_now(now, sizeof(now));
	json_begin(&j, NULL, buf, JSON_MAX);
	json_str(&j, "time", now);
	json_str(&j, "level", level_name(level));
	json_str(&j, "event", event);
	if (event_alias(event))
		json_str(&j, "alias", event_alias(event));
	if (f && f->task)
		json_str(&j, "task", f->task);
	else if (lg.task[0])
		json_str(&j, "task", lg.task);
	if (lg.key[0])
		json_str(&j, "key", lg.key);
	json_str(&j, "host", lg.host);
	json_num(&j, "pid", lg.pid);
	if (f && f->run_pid != LOG_NONE)
		json_num(&j, "run_pid", f->run_pid);
	if (token > 0)
		json_num(&j, "token", token);
	if (f && f->slot)
		json_str(&j, "slot", f->slot);
	else if (lg.slot[0])
		json_str(&j, "slot", lg.slot);
	if (f && f->holder)
		json_str(&j, "holder", f->holder);
	if (f && f->status != LOG_NONE)
		json_num(&j, "status", f->status);
	if (f && f->duration_ms != LOG_NONE)
		json_num(&j, "duration_ms", f->duration_ms);
	if (f && f->wait_med_ms != LOG_NONE)
		json_num(&j, "renew_wait_median_ms", f->wait_med_ms);
	if (f && f->wait_max_ms != LOG_NONE)
		json_num(&j, "renew_wait_max_ms", f->wait_max_ms);
	json_str(&j, "message", msg);
	return json_end(&j);
}

/* A command's output line, relayed by `lockrun cron`: a record with the
 * members every JSON line starts with (time, level, and host after the
 * task), so that a reader of the log needs no second shape for it. Its
 * level is info whichever stream it came from, as the journal takes a
 * service's stdout and stderr: a command's stderr is not always an error. */
size_t
log_output_json(char *buf, size_t cap, const struct log_fields *f, const char *stream,
    const char *line, size_t len)
{
	struct lr_json j;
	char now[96];

	iso_now(now, sizeof(now));
	json_begin(&j, NULL, buf, cap);
	json_str(&j, "time", now);
	json_str(&j, "level", level_name(LOG_INFO));
	json_str(&j, "task", f->task);
	json_str(&j, "host", lg.host);
	json_str(&j, "stream", stream);
	if (f->slot)
		json_str(&j, "slot", f->slot);
	if (f->token > 0)
		json_num(&j, "token", f->token);
	json_strn(&j, "line", line, len);
	return json_end(&j);
}

/* --- one path for every line ---------------------------------------- */

/* Is a line of this level shown on stderr, given -v and -q? */
static int
human_shown(int level)
{
	if (level == LOG_ERR)
		return 1;
	if (level == LOG_WARNING)
		return !lg.quiet;
	return lg.verbose && !lg.quiet;
}

/* Format the message once, and give it to each destination. */
static void
vevent(int level, const char *event, const struct log_fields *f, const char *fmt,
    va_list ap)
{
	char msg[MSG_MAX], line[MSG_MAX + 16], rec[JSON_MAX];
	int len;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* JSON escapes every byte, so it keeps them; for people (a
	 * terminal, syslog) server text, lock values and the command line in
	 * a message must not drive the terminal or break the line */
	if (lg.report)	/* the scheduler logs it where its log goes */
		lg.report(rec, json_line(rec, level, event, f, msg));
	else if (lg.dest == DEST_JSON)
		put_line(lg.fd, rec, json_line(rec, level, event, f, msg));
	/* every run a scheduler started says the same of this host's clock at
	 * once: the scheduler says it, once a minute (sched/report.c) */
	if (lg.report && strcmp(event, "clock-off") == 0)
		return;
	text_visible(msg);
	if (log_human_stderr() && human_shown(level)) {
		len = snprintf(line, sizeof(line), "lockrun: %s\n", msg);
		put_line(STDERR_FILENO, line, (size_t)len);
	}
	if (lg.dest == DEST_SYSLOG)
		syslog(level, "%s", msg);
}

void
lr_event(int level, const char *event, const struct log_fields *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(level, event, f, fmt, ap);
	va_end(ap);
}

void
lr_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(LOG_ERR, "error", NULL, fmt, ap);
	va_end(ap);
}

void
lr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(LOG_WARNING, "warning", NULL, fmt, ap);
	va_end(ap);
}

void
lr_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(LOG_INFO, "info", NULL, fmt, ap);
	va_end(ap);
}

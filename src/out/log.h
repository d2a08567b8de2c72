/* SPDX-License-Identifier: BSD-2-Clause */
/* log.h -- lockrun's messages: human lines on stderr, syslog(3), or JSON
 * lines on stderr or appended to a file. */
#ifndef LR_LOG_H
#define LR_LOG_H

#include <syslog.h>	/* the levels: LOG_ERR, LOG_WARNING, LOG_INFO */

#include "core/err.h"

#define LOG_NONE	(-1LL)	/* a field of struct log_fields left out */

/* What one line says beyond the run's context (log_context()). Start
 * from log_fields_init(), which leaves every field out. */
struct log_fields {
	long long	 status;	/* an exit status */
	long long	 duration_ms;
	long long	 token;		/* instead of the context's: a holder's */
	const char	*holder;	/* "host pid" of the run holding the lock */
	const char	*task;		/* instead of the context's: a scheduler's run */
	const char	*slot;		/* the same */
	long long	 run_pid;	/* a run a scheduler started */
	long long	 wait_med_ms;	/* its renewals' answers waited for: the */
	long long	 wait_max_ms;	/* median and the longest (supervise.h) */
};

void	log_fields_init(struct log_fields *f);

/* NULL if spec names a destination (stderr, syslog, json, json:FILE),
 * else why not, to follow the quoted spec in a message. */
const char *log_spec_problem(const char *spec);

/* Human lines on stderr, filtered by -v and -q. Call first thing: it
 * also notes this process's pid, which the guard's lines carry too. */
void	log_setup(int verbose, int quiet);

/* Send every line where spec says as well (syslog, json:FILE), or JSON
 * lines on stderr instead of human ones (json); host names this machine
 * in JSON lines. Returns 0, or -1 with e =
 * EX_USAGE (a bad spec: checked before) or EX_CANTCREAT (the file). */
int	log_open(const char *spec, const char *host, struct lr_err *e);

/* json:FILE: open the file again, by its name (after logrotate renamed
 * it, SIGHUP to `lockrun cron`). A path refused as log_open() refuses it
 * sends the log to stderr, said there. Returns 0, or -1 with errno when
 * it cannot be opened (the file in use stays). */
int	log_reopen(void);

/* What the run has learnt, carried by each later line: the task (the lock
 * name when there is no task), the key locked, the fencing token (0:
 * none yet), the slot (NULL: none). NULL leaves task or key out. Copied. */
void	log_context(const char *task, const char *key, long long token,
	    const char *slot);

/* In a run a scheduler forked: every line, whatever -v, -q and the
 * destination say, goes as a JSON record (len bytes, its newline
 * included, at most LOG_RECORD_MAX) to to(), which sends it to the
 * scheduler (sched/lease_client.c), instead of to the JSON destination;
 * human lines on stderr and syslog stay as they are, but for the event
 * clock-off, which the scheduler says for all its runs, once a minute. */
#define LOG_RECORD_MAX	8192
void	log_report(void (*to)(const char *record, size_t len));

/* The log file's descriptor (log: json:FILE), or -1 when the log is not
 * a file of its own. */
int	log_file_fd(void);

/* In the scheduler: a record a run sent (log_report()), len
 * bytes with its newline, written as it is where JSON lines go; nothing
 * when they go nowhere. */
void	log_relay(const char *record, size_t len);

/* In the scheduler: one line of a run's command, len bytes without its
 * newline (any bytes: escaped), as a JSON record into buf[cap], newline
 * included: time, level (info), f's task, host, stream ("stdout" or
 * "stderr"), f's slot and token when set (token > 0), line. A line too
 * long for cap is cut short, still valid JSON. Returns its length. */
size_t	log_output_json(char *buf, size_t cap, const struct log_fields *f,
	    const char *stream, const char *line, size_t len);

/* Do human lines reach stderr (every destination but json)? */
int	log_human_stderr(void);

/* One line: level LOG_ERR, LOG_WARNING or LOG_INFO; event one word from
 * the list in lockrun(7), LOG RECORDS; f NULL or the line's own fields. On
 * stderr an error is always shown, a warning unless -q, an info line
 * only with -v; syslog and JSON get every line. */
void	lr_event(int level, const char *event, const struct log_fields *f,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The same with the event "error": why lockrun stops with a non-zero
 * status. */
void	lr_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The event "warning": something the operator should know. */
void	lr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The event "info": what was decided. */
void	lr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

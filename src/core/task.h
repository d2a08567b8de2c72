/* SPDX-License-Identifier: BSD-2-Clause */
/* task.h -- the settings of one run, as given by the command line, a task,
 * or the config's defaults; merged in that order of precedence. */
#ifndef LR_TASK_H
#define LR_TASK_H

#include <stddef.h>

#include "core/duration.h"
#include "core/err.h"
#include "core/setting.h"

enum lr_on_server_error { ON_SERVER_ERROR_FAIL, ON_SERVER_ERROR_RUN };
enum lr_on_lost { ON_LOST_TERM, ON_LOST_IGNORE };
/* What lockrun stops and waits for (systemd's KillMode): the command's whole
 * process tree, detached descendants included, or its main process only. */
enum lr_kill_mode { KILL_MODE_TREE, KILL_MODE_PROCESS };
/* concurrency:, Kubernetes' names for what a run does while a copy of its
 * task still runs: start beside it (no_overlap: false), skip (no_overlap:
 * true), or stop it and start once its lock is free. */
enum lr_concurrency { CONCURRENCY_ALLOW, CONCURRENCY_FORBID, CONCURRENCY_REPLACE };

/* Every scalar starts LR_UNSET and every pointer NULL; task_inherit()
 * fills what is unset. A task owns all its strings. */
struct lr_task {
	char		 *name;		/* task name, or NULL */
	char		**argv;		/* command, NULL-terminated */
	char		 *argv_at;	/* "file:line:col" where a config gave
					 * argv, for messages; else NULL */
	int		  shell;	/* argv[0] is run by /bin/sh -c */
	int		  one_server;
	int		  no_overlap;
	long long	  ttl_ms;
	long long	  every_ms;
	int		  conflict_exit;
	char		 *cwd;
	char		 *output;	/* the command's stdout and stderr: "inherit",
					 * "discard" or a file appended to;
					 * NULL: inherit */
	char		**env;		/* "NAME=value", NULL-terminated, in order */
	int		  on_server_error;
	int		  renew;	/* extend the no-overlap key while the command runs */
	int		  on_lost;	/* enum lr_on_lost */
	int		  kill_mode;	/* enum lr_kill_mode */
	long long	  kill_after_ms;	/* SIGTERM to SIGKILL when stopping */
	long long	  wait_ms;	/* retry a held lock this long; 0: skip at once */
	long long	  timeout_ms;	/* the command's maximum runtime; 0: none */
	long long	  min_hold_ms;	/* keep the no-overlap key at least this long */
	char		 *schedule;	/* cron expression: slots are its fire times */
	char		 *timezone;	/* zone the schedule is read in; NULL: local */
	long long	  slot_tolerance_ms;	/* a start this early still gets the slot */
	long long	  clock_tolerance_ms;	/* claim no slot when our clock and the
					 * lock server's differ by more; 0: no
					 * check; unset: LR_CLOCK_TOLERANCE_FACTOR
					 * times the slot tolerance */
	int		  history;	/* entries kept in the task's history; 0: none */
	long long	  history_ttl_ms;	/* history and last-run keys live this
					 * long after their last write */
	int		  keep_output;	/* bytes of the command's output kept with
					 * its run's end entry; 0: none kept */
	int		  keep_runs;	/* end entries kept per task: successes, */
	int		  keep_failed_runs;	/* and failures, each their own count */
	char		**on_start;	/* hooks: argv run without a shell, */
	char		**on_success;	/* NULL-terminated; NULL: none */
	char		**on_failure;
	char		**on_missed;	/* by the scheduler that recorded a slot
					 * as missed (sched/missed.c) */
	long long	  hook_timeout_ms;	/* a hook is stopped after this long */
	long long	  starting_deadline_ms;	/* cron: a fire time missed by up to
					 * this long still runs, once, late */
	int		  retries;	/* a failed run is run again this many
					 * times, holding its lock and slot */
	long long	  retry_delay_ms;	/* before the first retry; doubled
					 * for each next, up to LR_RETRY_DELAY_CAP_MS */
	char		 *user;		/* run the command and hooks as this user
					 * (lockrun as root only); NULL: as lockrun */
	char		 *group;	/* and this primary group; NULL: the user's */
	char		 *mailto;	/* mail the output's kept end here when
					 * there is any (a crontab's MAILTO) */
	long long	  random_delay_ms;	/* tick/cron: a slot's run starts up
					 * to this long after its fire time
					 * (random, the same on every server) */
	int		  run_on;	/* enum lr_run_on (core/where.h): a slot
					 * runs on one server, or on each */
	char		**hosts;	/* the hosts that run it, NULL-terminated;
					 * NULL: not given (every host) */
	char		 *host_match;	/* or an fnmatch(3) pattern they match */
	char		 *between;	/* "HH:MM-HH:MM": runs only then, on the
					 * clock of its timezone (core/window.h) */
	char		 *not_between;	/* and never then; NULL: not given */
	char		**when;		/* a condition: argv run before the lock is
					 * asked; exit 0 runs, else the slot is
					 * skipped. NULL-terminated; NULL: none */
	int		  concurrency;	/* enum lr_concurrency; given, it sets
					 * no_overlap (task_finish()) */
	int		  limit;	/* copies that may hold the lock at once,
					 * each its own place (1: one, as ever) */
};

#define LR_LIMIT_MAX	1000	/* limit:'s most: a place each in one reply */

/* A retry's delay doubles from retry_delay up to an hour (or retry_delay
 * itself, if longer). */
#define LR_RETRY_DELAY_CAP_MS	3600000LL
/* keep_output's most: a run's tail goes with its release in one request,
 * and comes back in one reply (rreader.h's RREADER_BYTES_MAX) */
#define LR_KEEP_OUTPUT_MAX	262144LL

/* The clock tolerance is this many slot tolerances (15s by default): more
 * than a host's usual clock error plus a request's one-way delay, less
 * than a slot (the slot tolerance is at most a quarter of one), so that a
 * host within it never claims a slot a whole period away. */
#define LR_CLOCK_TOLERANCE_FACTOR	3
#define LR_COMMAND_TIMEOUT_MS	2000	/* connect and command timeouts, built in */

/* Where and how to reach the server that holds the lock: what every
 * backend has. The settings one backend alone reads travel in own, as
 * text, to that backend (backend.h). Unset like a task's fields. The
 * strings are owned by whoever fills the struct (config.c frees its own). */
struct lr_server_opts {
	const char	*url;
	const char	*password_file;
	long long	 connect_timeout_ms;
	long long	 command_timeout_ms;
	struct lr_settings own;
};

void	task_init(struct lr_task *t);

/* The pause before retry number n (1, 2, ...) of t: retry_delay doubled
 * n - 1 times, capped (LR_RETRY_DELAY_CAP_MS). */
long long task_retry_delay(const struct lr_task *t, int n);

/* random_delay: how long after fire time slot (Unix seconds) task name
 * starts, from 0 to max_ms in whole seconds: drawn from a hash of the name
 * and the slot, so that every server of the fleet draws the same. */
long long task_random_delay(const char *name, long long slot, long long max_ms);
void	task_free(struct lr_task *t);


/* Fill each unset field of dst with a copy of src's; env is the
 * concatenation src then dst, so dst's entries are applied last and win.
 * Returns 0, or -1 when out of memory. */
int	task_inherit(struct lr_task *dst, const struct lr_task *src);

/* Set the scalar option called name ("ttl", "one_server", ...) from text.
 * Returns 1 when set, 0 when name is not a scalar option, or -1 when text
 * is bad, with e (EX_CONFIG; a fragment such as "\"-3s\" is not a
 * positive duration", for the caller to place). */
int	task_set(struct lr_task *t, const char *name, const char *text,
	    struct lr_err *e);

/* Option number i of the one-value options task_set() takes: its name
 * in *name and, when t sets it, its value as task_set() reads it back
 * ("10m", "true", "2") into buf[n]. Returns 1 set, 0 not set (or an
 * old name of another), -1 past the last: for writing a task out. */
int	task_setting(const struct lr_task *t, size_t i, const char **name, char *buf,
	    size_t n);

struct lr_err;
struct lr_schedule;

/* task_inherit() of the config's defaults into t (the command line's
 * and the task's settings, merged), and the one meaning of a schedule:
 * when t has a schedule or an every of its own, or the defaults give a
 * schedule, each protection not named (here or in the defaults) is on:
 * the run claims its slot once across the fleet and never overlaps.
 * Returns 0, or -1 when out of memory. */
int	task_inherit_defaults(struct lr_task *t, const struct lr_task *defaults);

/* Which setting of given (one level's own settings: the command line's,
 * or a task's) has no effect on t, the task finished from them: its name
 * in *setting ("slot_tolerance") and why ("has no effect: one-server is
 * off ..."); NULL when each has. cmdline: given is a command line, where
 * a schedule only cuts slots (a config task's also tells tick and cron
 * when to start it). A predicate: the caller says where. */
const char *task_no_effect(const struct lr_task *given, const struct lr_task *t,
	    int cmdline, const char **setting);

/* Complete a merged task: neither protection named means no-overlap
 * (with a schedule, task_inherit_defaults() named both). An unset
 * kill-after is min(10s, ttl/3). Then check the combination,
 * filling sched (if not NULL) with the one-server slots. Returns 0, or -1
 * with e ("kill_after 20s must be at most a third of ttl 30s"). */
int	task_finish(struct lr_task *t, struct lr_schedule *sched, struct lr_err *e);

/* concurrency: and no_overlap: at one level (a task's, the defaults',
 * the command line's; task_inherit() keeps them from one), both named,
 * must say the same: forbid and replace are no_overlap: true, allow
 * false. A level that names concurrency alone has its no_overlap set
 * from it by task_inherit_defaults(). Returns 0, or -1 with e
 * (EX_CONFIG). */
int	task_concurrency_check(const struct lr_task *t, struct lr_err *e);

/* The one merge of a task's settings, nearest first: over (the command
 * line's; NULL: none), task (the config's; NULL: none), then defaults
 * (task_inherit_defaults()), completed by task_finish() into sched (may
 * be NULL). Every verb and the scheduler resolve a task here, and keep
 * the result as is. t is task_init()'s. Returns 0, or -1 with e:
 * EX_OSERR when out of memory, else task_finish()'s (EX_CONFIG). */
int	task_resolve(struct lr_task *t, const struct lr_task *over,
	    const struct lr_task *task, const struct lr_task *defaults,
	    struct lr_schedule *sched, struct lr_err *e);

/* Append "NAME=value" to t->env. Returns 0, or -1 with e when NAME is
 * not a valid environment variable name or is one lockrun sets for the
 * command itself (LOCKRUN_KEY, LOCKRUN_TOKEN, LOCKRUN_TASK, LOCKRUN_SLOT,
 * LOCKRUN_ATTEMPT). */
int	task_add_env(struct lr_task *t, const char *name, const char *value,
	    struct lr_err *e);

/* Copy a NULL-terminated string vector; NULL when out of memory. */
char	**strv_dup(char *const *v);
void	  strv_free(char **v);
size_t	  strv_len(char *const *v);

#endif

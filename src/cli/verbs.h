/* SPDX-License-Identifier: BSD-2-Clause */
/* verbs.h -- the verbs, one row each (verbs.c): the word, the function
 * that runs it, its --help, which options it takes, how it reads the
 * config. Adding a verb is a row here, its enum value and its own file. */
#ifndef LR_VERBS_H
#define LR_VERBS_H

#include "core/err.h"

struct lr_ctx;

/* The first word that is not an option, unless it follows "--". The
 * order is that of the table; nothing depends on it. */
enum lr_verb { VERB_RUN, VERB_CHECK, VERB_STATUS, VERB_HISTORY, VERB_UNLOCK, VERB_TICK,
	VERB_CRON, VERB_PAUSE, VERB_RESUME, VERB_TRIGGER, VERB_LOGS, VERB_IMPORT_CRONTAB,
	NVERBS };

/* Groups of options (cli.c's rows say which they are in); a verb takes
 * the groups its row names. */
#define OG_ALL		(1u << 0)	/* every verb: config, server, log */
#define OG_RUN		(1u << 1)	/* a run's settings */
#define OG_HISTORY	(1u << 2)	/* --history, --history-ttl */
#define OG_JSON		(1u << 3)	/* --json */
#define OG_STATUS	(1u << 4)	/* --format, --stale-after, -l, --html */
#define OG_COUNT	(1u << 5)	/* -n */
#define OG_YES		(1u << 6)	/* --yes */
#define OG_LISTEN	(1u << 7)	/* --listen */
#define OG_PAUSE	(1u << 8)	/* --for, --until, --reason */
#define OG_TRIGGER	(1u << 9)	/* --here */
#define OG_LOGS		(1u << 10)	/* --run, --slot, --failed */

/* What of the config a verb reads in full (ctx.c, config_part()). */
enum lr_reads {
	READS_ALL,	/* every task (check, tick, cron) */
	READS_TASK,	/* the task of -t, if any (run) */
	READS_TARGET,	/* the task its word names, or whose key it is (unlock) */
	READS_NAMES,	/* every task's name, none in full (status) */
	READS_NONE,	/* no task in full (history) */
};

struct lr_verb_def {
	const char	*name;
	/* Run the verb on x, read as far as the config: returns lockrun's
	 * exit status, or -1 with e (main() reports it). */
	int		(*entry)(struct lr_ctx *x, struct lr_err *e);
	const char	*usage;		/* --help: what comes before the options */
	const char	*footer;	/* --help: what comes after them */
	unsigned	 groups;	/* the options it takes: OG_* */
	int		 command;	/* its words are a command (run, check);
					 * else names, among which options may come */
	enum lr_reads	 reads;
	const char	*help_as;	/* the verb whose --help lists its options,
					 * for the hint after a usage error:
					 * "" plain lockrun --help */
};

/* Indexed by enum lr_verb. */
extern const struct lr_verb_def lr_verbs[];

/* The verbs' functions, each in its own file. */
int	verb_run(struct lr_ctx *x, struct lr_err *e);
int	verb_check(struct lr_ctx *x, struct lr_err *e);
int	verb_status(struct lr_ctx *x, struct lr_err *e);
int	verb_history(struct lr_ctx *x, struct lr_err *e);
int	verb_unlock(struct lr_ctx *x, struct lr_err *e);
int	verb_tick(struct lr_ctx *x, struct lr_err *e);
int	verb_cron(struct lr_ctx *x, struct lr_err *e);
int	verb_pause(struct lr_ctx *x, struct lr_err *e);
int	verb_resume(struct lr_ctx *x, struct lr_err *e);
int	verb_trigger(struct lr_ctx *x, struct lr_err *e);
int	verb_logs(struct lr_ctx *x, struct lr_err *e);
int	verb_import_crontab(struct lr_ctx *x, struct lr_err *e);

#endif

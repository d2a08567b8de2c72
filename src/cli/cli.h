/* SPDX-License-Identifier: BSD-2-Clause */
/* cli.h -- the command line. */
#ifndef LR_CLI_H
#define LR_CLI_H

#include <stdio.h>

#include "config/types.h"
#include "core/err.h"
#include "core/task.h"
#include "cli/verbs.h"

struct lr_cli {
	enum lr_verb		  verb;		/* VERB_RUN when none is named */
	const struct lr_verb_def *def;		/* its row, &lr_verbs[verb] */
	const char		 *config;	/* -c FILE */
	struct lr_crontab	  crontabs[CONFIG_CRONTABS_MAX];	/* --crontab FILE,
						 * --system-crontab FILE; paths
						 * point into argv */
	size_t			  ncrontabs;
	const char		 *task;		/* -t NAME */
	const char		 *key;		/* -k NAME */
	const char		 *prefix;	/* --prefix STR */
	struct lr_server_opts	  server;	/* strings point into argv */
	struct lr_task		  o;		/* run options; owns its strings */
	int			  verbose;
	int			  quiet;
	int			  foreground;
	int			  help;
	int			  version;
	const char		 *host;		/* --host NAME: recorded instead of the node name */
	const char		 *log;		/* --log SPEC */
	int			  json;		/* --json */
	const char		 *format;	/* --format text|json|prometheus */
	long long		  stale_after_ms;	/* --stale-after; LR_UNSET */
	long long		  count;	/* -n N; LR_UNSET */
	int			  yes;		/* --yes */
	int			  all;		/* --all (status) */
	const char		 *listen;	/* --listen ADDR (cron) */
	const char		 *html;		/* --html FILE (status) */
	int			  wide;		/* -l, --long (status) */
	long long		  pause_for_ms;	/* --for DURATION (pause); LR_UNSET */
	const char		 *until;	/* --until TIME (pause) */
	const char		 *reason;	/* --reason TEXT (pause) */
	int			  here;		/* --here (trigger) */
	const char		 *run_id;	/* --run ID (logs) */
	const char		 *slot;		/* --slot TIME (logs) */
	int			  failed;	/* --failed (logs) */
	char			**cmd;		/* the words after the options, in argv:
						 * the command (run, check) or the verb's
						 * arguments */
	char			**argv_;	/* argv without the verb word, owned */
	char			**words_;	/* status, history, unlock: their words */
};

#define HOST_MAX	64	/* bytes in a --host name, as HOST_NAME_MAX */

/* Parse argv into c: options, then a verb word (run, check, status,
 * history, unlock) if the first word that is not an option is one, then
 * that verb's options, then the command or the verb's arguments. Options
 * that do not apply to the verb are refused. Returns 0, or -1 with e =
 * EX_USAGE. c is always safe to pass to cli_free(). */
int	cli_parse(int argc, char *argv[], struct lr_cli *c, struct lr_err *e);
void	cli_free(struct lr_cli *c);

/* The --help text of a verb. */
void	cli_usage(FILE *fp, enum lr_verb v);

#endif

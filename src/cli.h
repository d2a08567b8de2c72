/* cli.h -- the command line. */
#ifndef LR_CLI_H
#define LR_CLI_H

#include <stdio.h>

#include "err.h"
#include "task.h"

struct lr_cli {
	const char		 *config;	/* -c FILE */
	const char		 *task;		/* -t NAME */
	const char		 *key;		/* -k NAME */
	const char		 *prefix;	/* --prefix STR */
	struct lr_redis_opts	  redis;	/* strings point into argv */
	struct lr_task		  o;		/* run options; owns its strings */
	int			  verbose;
	int			  quiet;
	int			  foreground;
	int			  help;
	int			  version;
	char			**cmd;		/* the command after the options, in argv */
};

/* Parse argv into c. Returns 0, or -1 with e = EX_USAGE. c is always
 * safe to pass to cli_free(). */
int	cli_parse(int argc, char *argv[], struct lr_cli *c, struct lr_err *e);
void	cli_free(struct lr_cli *c);

/* The --help text. */
void	cli_usage(FILE *fp);

#endif

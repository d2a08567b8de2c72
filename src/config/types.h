/* SPDX-License-Identifier: BSD-2-Clause */
/* types.h -- struct lr_config: what a config file says, as the parts of
 * config/ that read it fill it in. */
#ifndef LR_CONFIG_TYPES_H
#define LR_CONFIG_TYPES_H

#include <stddef.h>

#include "core/task.h"

#define CONFIG_DEFAULT_PATH "/etc/lockrun/lockrun.yaml"
#define CONFIG_NONE "none"	/* -c none: no config file (./none is a file) */
#define CONFIG_CRONTABS_MAX 16	/* crontab files read, the config's and given */

/* A crontab file read as tasks (config/crontab.h). */
struct lr_crontab {
	char	*path;
	int	 users;		/* the /etc/crontab form: a user field */
	int	 given;		/* given on the command line (--crontab), not by
				 * the config: read again on a reload all the same */
};

/* What a source of tasks could not take, or took only in part: a line
 * of a crontab. */
struct lr_note {
	char	*text;		/* "path:line:col: why" */
	int	 skipped;	/* the line is not a task; else taken, with a
				 * part left out (MAILTO) */
};

struct lr_config {
	char			*path;
	struct lr_server_opts	 server;
	char			 url_at[300];	/* "path:line:col: url" where
						 * redis.url was given */
	char			*prefix;	/* NULL: not given */
	char			*log;		/* log: stderr|syslog|json[:FILE]; NULL */
	char			*listen;	/* listen: ADDR (cron's HTTP); NULL */
	char			 listen_at[300];	/* "path:line:col: listen" */
	char			*listen_token_file;	/* listen_token_file: PATH,
						 * the listener's bearer token; NULL */
	char			 listen_token_at[300];	/* "path:line:col: listen_token_file" */
	char			*listen_names;	/* listen_names: the Host names the
						 * listener answers to; NULL */
	struct lr_task		 defaults;
	char			*tasks_dir;	/* tasks_dir:, from the config's
						 * folder; NULL: none */
	char			 tasks_dir_at[300];	/* "path:line:col: tasks_dir" */
	char			**names;	/* every task's name: the main
						 * file's in file order, then the
						 * tasks_dir's sorted */
	size_t			 nnames;
	size_t			 nmain;		/* names[0..nmain): the main file's */
	struct lr_task		*tasks;		/* the tasks read (config_load's only) */
	size_t			 ntasks;
	size_t			*byname;	/* tasks by name: a hash table of
						 * nbyname slots (a power of two),
						 * each 0 or 1 + an index into
						 * tasks; NULL: not built */
	size_t			 nbyname;
	struct lr_crontab	 crontabs[CONFIG_CRONTABS_MAX];	/* crontab: and
						 * --crontab files, read after
						 * the tasks_dir */
	size_t			 ncrontabs;
	struct lr_note		*notes;		/* what they could not take, and
						 * what check could not try */
	size_t			 nnotes;
	int			 checking;	/* read for check: what only a run
						 * can try (user: as a user not
						 * root) is a note, not an error */
};

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* crontab.h -- crontab files as task sources: each job line of a crontab
 * (five fields or an @ form, then the command; the /etc/crontab form has
 * a user field between) becomes a task with that schedule, the VAR=value
 * lines above it as its environment, CRON_TZ or TZ as its zone, and a
 * name from the `# lockrun: NAME key=value ...` line before it or derived
 * from the line itself. What the file means is what cron(8) makes of it;
 * what lockrun adds is that each slot runs once across the fleet. */
#ifndef LR_CONFIG_CRONTAB_H
#define LR_CONFIG_CRONTAB_H

#include <stddef.h>

#include "config/types.h"
#include "core/err.h"

/* Read the crontab at path (the config's rule of trust: files_trusted())
 * and add each job line as a task to cfg's names and tasks. A line it
 * cannot take, or takes only in part (MAILTO), is a note in cfg->notes,
 * "path:line:col: why", and the rest of the file is read: one bad line
 * does not stop the others. users: the line has a user field (the
 * /etc/crontab and /etc/cron.d form). A name also given by the config
 * or another line is a note, that line skipped. only: as config_load()'s,
 * the one task read in full ("" none), the others' names listed; NULL:
 * all. Returns 0, or -1 with e (EX_CONFIG) when the file cannot be read
 * or is not trusted. */
int	crontab_read(struct lr_config *cfg, const char *path, int users, const char *only,
	    struct lr_err *e);

/* crontab_read() of text, the file's contents, as if read from path. */
int	crontab_parse(struct lr_config *cfg, const char *path, const char *text, int users,
	    const char *only, struct lr_err *e);

/* The name a job line gets without a `# lockrun: NAME` line: the base
 * name of the command's first word (bytes outside [A-Za-z0-9._-] made
 * '_', at most 40), '-', and 8 hex digits of FNV-1a 64 over the user
 * field, the schedule's fields and the command, each with its runs of
 * blanks made one space: the same on every server, wherever the line
 * sits in the file and however it is spaced; another command or
 * schedule, another name. */
void	crontab_name(const char *user, const char *schedule, const char *command,
	    char *buf, size_t n);

/* cron(8)'s '%' in a job line's command: the command ends at the first
 * one not escaped by '\', the rest is its standard input, each '%' in it
 * a newline; "\%" is a '%'. The command for /bin/sh, a group ({ ...
 * }) with that input as its here-document under a delimiter found in
 * none of its lines; the
 * caller frees it. NULL when out of memory. */
char	*crontab_command(const char *cmd);

/* A crontab's blanks, between fields: a space or a tab; and s past
 * those it starts with. */
int	crontab_blank(char c);
const char *crontab_skip_blanks(const char *s);

/* Is path read in the /etc/crontab form (with a user field), as cron(8)
 * reads /etc/crontab and the files of /etc/cron.d? */
int	crontab_path_has_users(const char *path);

#endif

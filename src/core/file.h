/* SPDX-License-Identifier: BSD-2-Clause */
/* file.h -- open a file lockrun reads (the config, a password, a
 * certificate): a regular file only, opened without blocking; and read a
 * password from such a file or from the environment. */
#ifndef LR_FILE_H
#define LR_FILE_H

#include <sys/types.h>

#include <stdio.h>

#include "core/err.h"

/* Open path for reading. NULL with errno set when it cannot be opened, or
 * with errno 0 and *what naming the kind ("a FIFO", "a directory", ...)
 * when it is not a regular file: a FIFO would hold open(2) until a writer
 * came, for ever, and a device or socket is never a config. */
FILE	*file_open_regular(const char *path, const char **what);

/* A message for a failed file_open_regular(): strerror(errno), or "not a
 * regular file (a FIFO)". Into buf[n]; returns buf. */
const char *file_why(const char *what, char *buf, size_t n);

/* The first line of the file at path into buf[n], as a password; what
 * names the setting in messages ("password_file"). Returns 0, or -1 with
 * e = EX_CONFIG when the file cannot be read, is open to other users (any
 * permission bit for "others"), or its line does not fit. */
int	file_read_secret(const char *path, const char *what, char *buf, size_t n,
	    struct lr_err *e);

/* As file_read_secret(), for a secret that guards what root serves (the
 * listener's token): the file must also be owned by root or by uid, with
 * no permission bit for its group either (mode 0600 or stricter). */
int	file_read_private(const char *path, const char *what, uid_t uid, char *buf,
	    size_t n, struct lr_err *e);

/* The environment variable name into buf[n], when it is set and not
 * empty: returns 1; 0 when it is not (buf untouched); -1 with
 * e = EX_CONFIG when it does not fit. */
int	file_env_secret(const char *name, char *buf, size_t n, struct lr_err *e);

/* May root trust what it reads at path to say what it runs? Every thing
 * met from / down to path, path included, and each symbolic link on the
 * way with what it names (walked the same way, from the link's folder),
 * must be owned by root or by uid and not writable by group or other;
 * one exception: a folder on the way (not path itself) that is root's
 * and sticky may be writable by all (/tmp: others can add names there,
 * but not rename or remove root's). Read with lstat(2) component by
 * component, never following a link unchecked; once every folder above
 * a name is trusted, no one else can change what it names. A name that
 * does not exist passes (its folder is trusted; the open will fail).
 * Returns 0, or -1 with why[n] saying which thing breaks the rule
 * ("/etc/lockrun/tasks.d/x.yaml is owned by uid 1001"). */
int	file_trusted(const char *path, uid_t uid, char *why, size_t n);

/* The folder dir, opened O_PATH (for openat(2)), walked from / (or from
 * the working directory, for a relative one) without following a
 * symbolic link anywhere on the way: openat2(2) with RESOLVE_NO_SYMLINKS,
 * or, on a kernel without it, one openat(O_NOFOLLOW) a component. A
 * folder on the way that another user swapped for a link is met as a
 * link and refused, never followed to root's files. Returns the
 * descriptor, or -1: with refused[n] saying why when a link was met ("a
 * folder on the way, /srv/u/logs, is a symbolic link"), else refused ""
 * and errno set. */
int	file_open_dir(const char *dir, char *refused, size_t n);

/* Open path to append to it, as root writes a task's output: or the JSON
 * log: its folder opened by file_open_dir() (no link anywhere on the
 * way), the file created 0640 (less the umask), never through a symbolic
 * link at path (O_NOFOLLOW), never waiting on a FIFO (O_NONBLOCK, cleared
 * once open), and only a regular file, in a folder that others cannot
 * write or that is sticky (where they cannot replace a file of root's),
 * and not one with other names (a hard link) owned by another user than
 * its folder. Returns the descriptor (close-on-exec), or -1: with
 * refused[n] saying why when the path breaks that rule ("it is a
 * symbolic link"), else refused "" and errno set. */
int	file_open_append(const char *path, char *refused, size_t n);

/* Replace the file at path whole, as root writes a file for others to
 * read (status --html): put(fp, arg) writes a new file, created with
 * O_EXCL and O_NOFOLLOW at a random name in path's folder (itself opened
 * by file_open_dir()), which is then renamed over path. A name someone
 * put there first (a link, a FIFO) is never opened nor waited on: another
 * is tried; a link or FIFO at path is replaced, not followed. Returns 0,
 * or -1 with refused[n] as file_open_dir()'s, or errno set (the new file
 * removed). */
int	file_replace(const char *path, mode_t mode, int (*put)(FILE *, const void *),
	    const void *arg, char *refused, size_t n);

/* The mailer a run's output is mailed with (mailto:): $LOCKRUN_SENDMAIL
 * when set, else FILE_MAILER; NULL when that is not an executable file
 * named by its absolute path (then no mail is sent). */
#define FILE_MAILER "/usr/sbin/sendmail"
const char *file_mailer(void);

#endif

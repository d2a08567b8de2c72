/* SPDX-License-Identifier: BSD-2-Clause */
/* files.c -- a config's tasks_dir read as names (one readdir, no file
 * opened), and paths taken from the config's folder. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/files.h"
#include "core/file.h"
#include "core/keys.h"

#define SUFFIX		".yaml"
#define SUFFIX_LEN	5
#define SUFFIX_SHORT	".yml"	/* also read: a file never skipped for its name */

int
files_relative(const char *base, const char *path, char *out, size_t n)
{
	const char *slash = strrchr(base, '/');
	int len;

	if (path[0] == '/' || slash == NULL)
		len = snprintf(out, n, "%s", path);
	else
		len = snprintf(out, n, "%.*s/%s", (int)(slash - base), base, path);
	return len >= 0 && (size_t)len < n ? 0 : -1;
}

int
files_task_path(const char *dir, const char *name, char *out, size_t n)
{
	int len = snprintf(out, n, "%s/%s" SUFFIX, dir, name);

	if (len < 0 || (size_t)len >= n)
		return -1;
	/* NAME.yml when it is there and NAME.yaml is not */
	if (access(out, F_OK) != 0 && errno == ENOENT) {
		snprintf(out, n, "%s/%s" SUFFIX_SHORT, dir, name);
		if (access(out, F_OK) != 0)
			snprintf(out, n, "%s/%s" SUFFIX, dir, name);
	}
	return 0;
}

/* Is the entry d of the folder dirfd a folder? (d_type is DT_UNKNOWN on
 * some file systems: ask then.) A symbolic link counts as what it names. */
static int
is_folder(int dirfd, const struct dirent *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN && d->d_type != DT_LNK)
		return d->d_type == DT_DIR;
	return fstatat(dirfd, d->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* The task name of a file name (NAME.yaml or NAME.yml), into name; 0 if
 * the file is not a task file (a dotfile, another suffix). */
static int
task_of(const char *file, char *name, size_t n)
{
	size_t len = strlen(file), cut;

	if (len > SUFFIX_LEN && strcmp(file + len - SUFFIX_LEN, SUFFIX) == 0)
		cut = SUFFIX_LEN;
	else if (len > strlen(SUFFIX_SHORT) && strcmp(file + len - strlen(SUFFIX_SHORT),
	    SUFFIX_SHORT) == 0)
		cut = strlen(SUFFIX_SHORT);
	else
		return 0;
	if (file[0] == '.' || len - cut >= n)
		return 0;
	memcpy(name, file, len - cut);
	name[len - cut] = '\0';
	return 1;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append a copy of s to *v (of *n, room for *cap). */
static int
push(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		char **g = realloc(*v, c * sizeof(*g));
		if (g == NULL)
			return -1;
		*v = g;
		*cap = c;
	}
	if (((*v)[*n] = strdup(s)) == NULL)
		return -1;
	++*n;
	return 0;
}

int
files_task_names(const char *dir, const char *at, char ***names, size_t *n,
    struct lr_err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;

	*names = NULL;
	*n = 0;
	if (d == NULL)
		return lr_errf(e, EX_CONFIG, "%s: %s: %s", at, dir, strerror(errno));
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		char name[256];	/* a file name is at most 255 bytes */
		const char *why;

		if (!task_of(de->d_name, name, sizeof(name)) || is_folder(dirfd(d), de))
			continue;
		if ((why = keys_name_problem(name)) != NULL)
			rc = lr_errf(e, EX_CONFIG, "%s/%s: task name \"%s\" %s (the file's name, "
			    "less .yaml or .yml, is the task's)", dir, de->d_name, name, why);
		else if (push(names, n, &cap, name) != 0)
			rc = lr_errf(e, EX_OSERR, "out of memory");
	}
	if (rc == 0 && errno != 0)
		rc = lr_errf(e, EX_CONFIG, "%s: %s: %s", at, dir, strerror(errno));
	closedir(d);
	if (rc != 0) {	/* the caller gets names only with success */
		files_names_free(*names, *n);
		*names = NULL;
		*n = 0;
		return rc;
	}
	if (*n > 1)	/* none: *names is NULL, which qsort(3) may not be given */
		qsort(*names, *n, sizeof(**names), by_name);
	for (size_t i = 1; i < *n; i++)	/* NAME.yaml and NAME.yml */
		if (strcmp((*names)[i - 1], (*names)[i]) == 0) {
			rc = lr_errf(e, EX_CONFIG, "%s/%s.yaml and %s/%s.yml: task %s is defined "
			    "twice; keep one", dir, (*names)[i], dir, (*names)[i], (*names)[i]);
			files_names_free(*names, *n);
			*names = NULL;
			*n = 0;
			return rc;
		}
	return 0;
}

void
files_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
files_trusted(const char *path, struct lr_err *e)
{
	uid_t uid = geteuid();
	char why[PATH_MAX + 64];

	if (uid != 0 || file_trusted(path, uid, why, sizeof(why)) == 0)
		return 0;
	return lr_errf(e, EX_CONFIG, "%s: not trusted: %s (run as root, lockrun reads "
	    "a config, tasks_dir or task file only if it, each folder above it and each "
	    "link to it are owned by root and not writable by group or other; "
	    "see lockrun.yaml(5))", path, why);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* file.c -- open a file lockrun reads: regular files only (file.h). */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"

static const char *
kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ?
	    "a socket" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ?
	    "a block device" : "not a regular file";
}

FILE *
file_open_regular(const char *path, const char **what)
{
	struct stat st;
	FILE *fp;
	int fd;

	*what = NULL;
	/* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer,
	 * and is refused below; a regular file ignores the flag */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*what = fstat(fd, &st) == 0 ? kind_of(st.st_mode) : "not a regular file";
		close(fd);
		errno = 0;
		return NULL;
	}
	if ((fp = fdopen(fd, "r")) == NULL)
		close(fd);
	return fp;
}

const char *
file_why(const char *what, char *buf, size_t n)
{
	if (what)
		snprintf(buf, n, "not a regular file (%s)", what);
	else
		snprintf(buf, n, "%s", strerror(errno));
	return buf;
}

/* A password file others may read (mode m) is a leak already made:
 * refuse it, EX_CONFIG, so that it is fixed, rather than use it. Returns
 * 0 when it keeps the rule. */
static int
file_secret_mode(const char *what, const char *path, mode_t m, struct lr_err *e)
{
	if ((m & S_IRWXO) == 0)
		return 0;
	return lr_errf(e, EX_CONFIG, "%s %s is open to other users (mode %04o); "
	    "chmod o-rwx it", what, path, (unsigned)(m & 07777));
}

/* A private file (file_read_private()) is owned by root or uid and no
 * one else may read or change it (mode m): else EX_CONFIG. */
static int
file_private_mode(const char *what, const char *path, uid_t uid, const struct stat *st,
    struct lr_err *e)
{
	if (st->st_uid != 0 && st->st_uid != uid)
		return lr_errf(e, EX_CONFIG, "%s %s is owned by uid %u, not by root or "
		    "by this user (uid %u); chown it", what, path, (unsigned)st->st_uid,
		    (unsigned)uid);
	if ((st->st_mode & (S_IRWXG | S_IRWXO)) == 0)
		return 0;
	return lr_errf(e, EX_CONFIG, "%s %s is open to other users (mode %04o); "
	    "chmod go-rwx it", what, path, (unsigned)(st->st_mode & 07777));
}

/* A password file: its first line, under file_secret_mode(), and, when
 * private, file_private_mode() for uid. */
static int
read_secret(const char *path, const char *what, int private, uid_t uid, char *buf,
    size_t n, struct lr_err *e)
{
	const char *kind;
	char why[64];
	FILE *fp = file_open_regular(path, &kind);
	struct stat st;
	int failed, refused;

	if (fp == NULL)
		return lr_errf(e, EX_CONFIG, "%s %s: %s", what, path,
		    file_why(kind, why, sizeof(why)));
	if (fstat(fileno(fp), &st) != 0)
		refused = lr_errf(e, EX_CONFIG, "%s %s: %s", what, path, strerror(errno));
	else
		refused = file_secret_mode(what, path, st.st_mode, e) != 0 ||
		    (private && file_private_mode(what, path, uid, &st, e) != 0);
	if (refused) {
		fclose(fp);
		return -1;
	}
	if (fgets(buf, (int)n, fp) == NULL)
		buf[0] = '\0';
	failed = ferror(fp);
	fclose(fp);
	if (failed)
		return lr_errf(e, EX_CONFIG, "%s %s: cannot be read", what, path);
	if (strlen(buf) == n - 1 && buf[n - 2] != '\n')
		return lr_errf(e, EX_CONFIG, "%s %s: the password is longer "
		    "than %zu bytes", what, path, n - 2);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int
file_read_secret(const char *path, const char *what, char *buf, size_t n,
    struct lr_err *e)
{
	return read_secret(path, what, 0, 0, buf, n, e);
}

int
file_read_private(const char *path, const char *what, uid_t uid, char *buf, size_t n,
    struct lr_err *e)
{
	return read_secret(path, what, 1, uid, buf, n, e);
}


int
file_env_secret(const char *name, char *buf, size_t n, struct lr_err *e)
{
	const char *env = getenv(name);

	if (env == NULL || *env == '\0')
		return 0;
	if (strlen(env) >= n)
		return lr_errf(e, EX_CONFIG, "%s is longer than %zu bytes", name, n - 1);
	snprintf(buf, n, "%s", env);
	return 1;
}

#define TRUST_LINKS_MAX	40	/* as the kernel's ELOOP bound */

/* One thing met on the walk, its lstat in st: owned by root or uid, and
 * not writable by group or other; a folder on the way (not last) may be
 * world-writable if it is root's and sticky, as /tmp is: others can add
 * names to it but not replace root's. A link's own mode means nothing. */
static int
trust_one(const char *path, const struct stat *st, uid_t uid, int last, char *why,
    size_t n)
{
	mode_t m = st->st_mode;

	if (st->st_uid != 0 && st->st_uid != uid) {
		snprintf(why, n, "%s is owned by uid %u", path, (unsigned)st->st_uid);
		return -1;
	}
	if (S_ISLNK(m) || (m & (S_IWGRP | S_IWOTH)) == 0)
		return 0;
	if (!last && S_ISDIR(m) && (m & S_ISVTX) && st->st_uid == 0)
		return 0;
	snprintf(why, n, "%s is writable by %s (mode %04o)", path,
	    (m & S_IWOTH) ? "others" : "its group", (unsigned)(m & 07777));
	return -1;
}

/* The next component of the path at *p into comp[n] (slashes skipped), or
 * 0 at its end. */
static int
next_part(const char **p, char *comp, size_t n)
{
	size_t len;

	while (**p == '/')
		(*p)++;
	if ((len = strcspn(*p, "/")) == 0 || len >= n)
		return len == 0 ? 0 : -1;
	memcpy(comp, *p, len);
	comp[len] = '\0';
	*p += len;
	return 1;
}

/* A link at cur, whose folder is the part of cur before its last '/',
 * names target: what is left to walk becomes target then rest, into
 * rest[n] (from an absolute target, cur starts again at /). */
static int
follow(char *cur, const char *target, const char *left, char *rest, size_t n)
{
	char tmp[PATH_MAX];
	int len;

	*strrchr(cur, '/') = '\0';
	if (target[0] == '/')
		cur[0] = '\0';
	len = snprintf(tmp, sizeof(tmp), "%s/%s", target, left);
	if (len < 0 || (size_t)len >= sizeof(tmp) || (size_t)len >= n)
		return -1;
	memcpy(rest, tmp, (size_t)len + 1);
	return 0;
}

int
file_trusted(const char *path, uid_t uid, char *why, size_t n)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX], comp[NAME_MAX + 1], target[PATH_MAX];
	const char *p = rest;
	struct stat st;
	int links = 0, more;
	ssize_t len;

	if (path[0] == '/')
		snprintf(rest, sizeof(rest), "%s", path);
	else if (getcwd(cur, sizeof(cur)) == NULL ||
	    snprintf(rest, sizeof(rest), "%s/%s", cur, path) >= (int)sizeof(rest))
		return snprintf(why, n, "%s: %s", path, strerror(errno ? errno : ENAMETOOLONG)), -1;
	cur[0] = '\0';
	if (lstat("/", &st) != 0 || trust_one("/", &st, uid, 0, why, n) != 0)
		return -1;
	while ((more = next_part(&p, comp, sizeof(comp))) == 1) {
		size_t at = strlen(cur);

		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {	/* cur holds no link: cut it */
			*(strrchr(cur, '/') ? strrchr(cur, '/') : cur) = '\0';
			continue;
		}
		if (at + 1 + strlen(comp) >= sizeof(cur))
			break;
		snprintf(cur + at, sizeof(cur) - at, "/%s", comp);
		if (lstat(cur, &st) != 0) {
			if (errno == ENOENT)	/* its folder is trusted: the open says */
				return 0;
			snprintf(why, n, "%s: %s", cur, strerror(errno));
			return -1;
		}
		p += strspn(p, "/");
		if (trust_one(cur, &st, uid, *p == '\0', why, n) != 0)
			return -1;
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > TRUST_LINKS_MAX ||
		    (len = readlink(cur, target, sizeof(target) - 1)) < 0) {
			snprintf(why, n, "%s: %s", cur, strerror(links > TRUST_LINKS_MAX ?
			    ELOOP : errno));
			return -1;
		}
		target[len] = '\0';
		if (follow(cur, target, p, rest, sizeof(rest)) != 0)
			break;
		p = rest;
	}
	if (more == 0)
		return 0;
	snprintf(why, n, "%s: %s", path, strerror(ENAMETOOLONG));
	return -1;
}

/* The folder of path, into dir[n], and where its last name starts. */
static const char *
split_dir(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
	return slash ? slash + 1 : path;
}

/* walk_dir(): the component at the end of what (its first len bytes), met
 * on the walk, is a symbolic link, or is not a folder. */
static int
walk_refuse(int fd, const char *comp, const char *what, size_t len, int err,
    char *refused, size_t n)
{
	struct stat st;

	if (err == ELOOP || (err == ENOTDIR && fstatat(fd, comp, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)))
		snprintf(refused, n, "a folder on the way, %.*s, is a symbolic link",
		    (int)len, what);
	close(fd);
	if (refused[0] == '\0')
		errno = err;
	return -1;
}

/* The folder dir, opened (O_PATH) by walking it from / (or from the
 * working directory) one component at a time, none followed if it is a
 * symbolic link: the walk openat2(2) makes with RESOLVE_NO_SYMLINKS,
 * for the kernels that have none, and to name the link it met. */
static int
walk_dir(const char *dir, char *refused, size_t n)
{
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char comp[NAME_MAX + 1];
	const char *p = dir;
	struct stat st;
	int fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC), next, more = 0;

	while (fd >= 0 && (more = next_part(&p, comp, sizeof(comp))) == 1) {
		next = openat(fd, comp, flags);
		if (next >= 0 && (fstat(next, &st) != 0 || !S_ISDIR(st.st_mode))) {
			close(next);	/* O_PATH opened the link itself */
			next = -1;
			errno = ELOOP;
		}
		if (next < 0)
			return walk_refuse(fd, comp, dir, (size_t)(p - dir), errno, refused, n);
		close(fd);
		fd = next;
	}
	if (fd >= 0 && more < 0) {
		close(fd);
		errno = ENAMETOOLONG;
		return -1;
	}
	return fd;
}

int
file_open_dir(const char *dir, char *refused, size_t n)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS };
	int fd, saved;

	refused[0] = '\0';
	if ((fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how))) >= 0)
		return fd;
	saved = errno;
	if (saved != ENOSYS && saved != ELOOP && saved != EPERM && saved != EINVAL &&
	    saved != E2BIG)	/* EPERM: a seccomp filter that does not know it */
		return -1;
	/* no openat2 here, or a link on the way: the walk, which names it */
	if ((fd = walk_dir(dir, refused, n)) >= 0 && saved == ELOOP) {
		close(fd);	/* gone since: refused all the same */
		snprintf(refused, n, "a folder on the way is a symbolic link");
		return -1;
	}
	return fd;
}

/* A regular file with another name than the one root opens, owned by
 * another user than its folder's, may be a hard link made there to a
 * file of root's (where the kernel does not protect them). */
static int
other_names(int dfd, const struct stat *st)
{
	struct stat d;

	return st->st_nlink > 1 && (fstat(dfd, &d) != 0 || d.st_uid != st->st_uid);
}

int
file_open_append(const char *path, char *refused, size_t n)
{
	const int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY;
	char dir[PATH_MAX];
	const char *base = split_dir(path, dir, sizeof(dir));
	struct stat st;
	int dfd, fd, saved;

	refused[0] = '\0';
	if ((dfd = file_open_dir(dir, refused, n)) < 0)
		return -1;
	if (fstat(dfd, &st) == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		close(dfd);
		snprintf(refused, n, "its folder is writable by others and not sticky");
		return -1;
	}
	/* O_NOFOLLOW: a link put there is not followed to a file of root's;
	 * O_NONBLOCK: a FIFO with no reader fails at once (ENXIO) */
	fd = openat(dfd, base, flags, 0640);
	saved = errno;
	if (fd < 0) {
		close(dfd);
		snprintf(refused, n, "%s", saved == ELOOP ? "it is a symbolic link" :
		    saved == ENXIO ? "not a regular file (a FIFO or a socket)" :
		    saved == EISDIR ? "not a regular file (a directory)" : "");
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || other_names(dfd, &st)) {
		snprintf(refused, n, "%s", fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) ?
		    "not a regular file (a FIFO)" : S_ISREG(st.st_mode) ?
		    "it has other names (a hard link) and another owner than its folder" :
		    "not a regular file");
		close(fd);
		close(dfd);
		return -1;
	}
	close(dfd);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);	/* blocking again */
	return fd;
}

#define REPLACE_TRIES	64	/* names tried for the new file, each a random one */

int
file_replace(const char *path, mode_t mode, int (*put)(FILE *, const void *),
    const void *arg, char *refused, size_t n)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY;
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	const char *base = split_dir(path, dir, sizeof(dir));
	int dfd, fd = -1, saved, failed;
	unsigned int r = 0;
	FILE *fp;

	refused[0] = '\0';
	if (*base == '\0') {
		errno = EISDIR;
		return -1;
	}
	if ((dfd = file_open_dir(dir, refused, n)) < 0)
		return -1;
	/* O_EXCL: a name someone put there first (a link, a FIFO) is never
	 * opened, another is tried; the name is random, so none can be put
	 * at all the names tried */
	for (int i = 0; i < REPLACE_TRIES && fd < 0; i++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = r * 1103515245u + 12345u + (unsigned)getpid() + (unsigned)i;
		snprintf(tmp, sizeof(tmp), ".%.200s.%08x.tmp", base, r);
		if ((fd = openat(dfd, tmp, flags, mode)) < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		saved = errno;
		close(dfd);
		errno = saved;
		return -1;
	}
	if ((fp = fdopen(fd, "w")) == NULL) {
		saved = errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		close(dfd);
		errno = saved;
		return -1;
	}
	errno = 0;
	failed = put(fp, arg) != 0 || ferror(fp);
	failed |= fclose(fp) != 0;
	/* renameat: a link or a FIFO at path is replaced, never followed */
	if (failed || renameat(dfd, tmp, dfd, base) != 0) {
		saved = errno ? errno : EIO;
		unlinkat(dfd, tmp, 0);
		close(dfd);
		errno = saved;
		return -1;
	}
	close(dfd);
	return 0;
}

const char *
file_mailer(void)
{
	const char *p = getenv("LOCKRUN_SENDMAIL");

	if (p == NULL || *p == '\0')
		p = FILE_MAILER;
	return p[0] == '/' && access(p, X_OK) == 0 ? p : NULL;
}

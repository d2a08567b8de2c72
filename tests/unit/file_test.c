/* SPDX-License-Identifier: BSD-2-Clause */
/* file_test.c -- file_trusted()'s walk from / (owners, write bits, root's
 * sticky folders, links) and file_open_append()'s refusals, on files made
 * in a folder of mkdtemp(3) under /tmp. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/file.h"

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lockrun-file-XXXXXX");
	cr_assert(mkdtemp(dir) != NULL);
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "file_test: could not remove %s\n", dir);
}

TestSuite(file, .init = setup, .fini = teardown);

/* dir/name, made as a file of mode mode when mode is not 0. */
static const char *
at(const char *name, mode_t mode)
{
	static char paths[4][128];
	static int next;
	char *p = paths[next++ % 4];
	int fd;

	snprintf(p, 128, "%s/%s", dir, name);
	if (mode != 0) {
		fd = open(p, O_WRONLY | O_CREAT, 0600);
		cr_assert(fd >= 0, "%s", p);
		close(fd);
		cr_assert(eq(int, chmod(p, mode), 0));
	}
	return p;
}

/* file_trusted() as root: 0 or -1, why into a static buffer. */
static char why[512];

static int
trusted(const char *path)
{
	why[0] = '\0';
	return file_trusted(path, 0, why, sizeof(why));
}

Test(file, a_file_of_roots_under_a_sticky_tmp_is_trusted)
{
	struct stat st;

	cr_assert(eq(int, stat("/tmp", &st), 0));
	cr_assert(eq(int, (st.st_mode & S_ISVTX) != 0, 1), "/tmp is sticky here: %o", (unsigned)st.st_mode);
	cr_assert(eq(int, trusted(at("a.yaml", 0644)), 0), "%s", why);
	cr_assert(eq(int, trusted(at("missing.yaml", 0)), 0), "%s", why);
}

Test(file, a_file_others_or_the_group_can_write_is_not)
{
	cr_assert(eq(int, trusted(at("a.yaml", 0646)), -1));
	cr_assert(strstr(why, "a.yaml is writable by others (mode 0646)") != NULL, "%s", why);
	cr_assert(eq(int, trusted(at("b.yaml", 0664)), -1));
	cr_assert(strstr(why, "writable by its group") != NULL, "%s", why);
}

Test(file, a_folder_on_the_way_open_to_all_is_not_unless_roots_and_sticky)
{
	const char *sub = at("sub", 0);

	cr_assert(eq(int, mkdir(sub, 0777), 0));
	cr_assert(eq(int, chmod(sub, 0777), 0));
	at("sub/a.yaml", 0644);
	cr_assert(eq(int, trusted(at("sub/a.yaml", 0)), -1));
	cr_assert(strstr(why, "/sub is writable by others (mode 0777)") != NULL, "%s", why);
	cr_assert(eq(int, chmod(sub, 01777), 0));
	cr_assert(eq(int, trusted(at("sub/a.yaml", 0)), 0), "%s", why);
	/* but not as the thing asked for itself */
	cr_assert(eq(int, trusted(sub), -1));
}

Test(file, a_link_is_walked_to_what_it_names)
{
	const char *open_dir = at("open", 0), *link = at("link.yaml", 0);

	cr_assert(eq(int, mkdir(open_dir, 0777), 0));
	cr_assert(eq(int, chmod(open_dir, 0777), 0));
	at("open/t.yaml", 0644);
	cr_assert(eq(int, symlink("open/t.yaml", link), 0));
	cr_assert(eq(int, trusted(link), -1));
	cr_assert(strstr(why, "/open is writable by others") != NULL, "%s", why);
	cr_assert(eq(int, chmod(open_dir, 0755), 0));
	cr_assert(eq(int, trusted(link), 0), "%s", why);
	cr_assert(eq(int, trusted(at("open/../link.yaml", 0)), 0), "%s", why);
}

Test(file, append_refuses_a_link_and_a_fifo_and_makes_0640)
{
	const char *target = at("target", 0600);
	char refused[256];
	struct stat st;
	int fd;

	cr_assert(eq(int, symlink(target, at("link", 0)), 0));
	cr_assert(eq(int, file_open_append(at("link", 0), refused, sizeof(refused)), -1));
	cr_assert(eq(str, refused, "it is a symbolic link"));
	cr_assert(eq(int, mkfifo(at("fifo", 0), 0600), 0));
	cr_assert(eq(int, file_open_append(at("fifo", 0), refused, sizeof(refused)), -1));
	cr_assert(strstr(refused, "not a regular file") != NULL, "%s", refused);
	umask(0);
	fd = file_open_append(at("new", 0), refused, sizeof(refused));
	umask(022);
	cr_assert(fd >= 0, "%s", strerror(errno));
	cr_assert(eq(int, fstat(fd, &st), 0));
	cr_assert(eq(int, (int)(st.st_mode & 07777), 0640));
	cr_assert(eq(int, fcntl(fd, F_GETFL) & O_NONBLOCK, 0), "blocking again");
	close(fd);
}

/* A folder on the way that is a link is refused, named, and nothing is
 * written through it; a hard link to another owner's file is refused. */
Test(file, append_refuses_a_link_on_the_way)
{
	char refused[256], want[256], path[160], target[160];
	struct stat st;
	int fd;

	snprintf(target, sizeof(target), "%s", at("real/out.log", 0));
	cr_assert(eq(int, mkdir(at("real", 0), 0755), 0));
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert(eq(int, symlink(at("real", 0), at("swapped", 0)), 0));
	snprintf(path, sizeof(path), "%s/swapped/out.log", dir);
	cr_assert(eq(int, file_open_append(path, refused, sizeof(refused)), -1));
	snprintf(want, sizeof(want), "a folder on the way, %s/swapped, is a symbolic link",
	    dir);
	cr_assert(eq(str, refused, want));
	snprintf(path, sizeof(path), "%s/swapped/../real/out.log", dir);
	cr_assert(eq(int, file_open_append(path, refused, sizeof(refused)), -1));
	cr_assert(eq(str, refused, want));
	cr_assert(eq(int, stat(target, &st), 0));
	cr_assert(eq(sz, (size_t)st.st_size, 0));
	/* a second name, owned by another user than the folder */
	cr_assert(eq(int, chown(target, 65534, 65534), 0));
	cr_assert(eq(int, link(target, at("real/second", 0)), 0));
	cr_assert(eq(int, file_open_append(at("real/second", 0), refused, sizeof(refused)), -1));
	cr_assert(strncmp(refused, "it has other names", 18) == 0, "%s", refused);
	fd = file_open_dir(at("real", 0), refused, sizeof(refused));
	cr_assert(fd >= 0, "%s", refused);
	close(fd);
}

static int
put_text(FILE *fp, const void *text)
{
	return fputs(text, fp) < 0;
}

/* file_replace(): a link and a FIFO at the target are replaced, never
 * followed nor waited on; the new file was never at a name given. */
Test(file, replace_writes_beside_and_renames)
{
	const char *secret = at("secret", 0600), *page = at("page.html", 0);
	char refused[256], buf[64] = "";
	struct stat st;
	FILE *fp;
	int rc;

	cr_assert(eq(int, symlink(secret, page), 0));
	rc = file_replace(page, 0644, put_text, "new page\n", refused, sizeof(refused));
	cr_assert(rc == 0, "%s %s", refused, strerror(errno));
	cr_assert(eq(int, lstat(page, &st), 0));
	cr_assert(eq(int, (st.st_mode & S_IFMT) == S_IFREG, 1), "the link is replaced");
	cr_assert(eq(int, stat(secret, &st), 0));
	cr_assert(eq(sz, (size_t)st.st_size, 0), "the link's target is unchanged");
	fp = fopen(page, "r");
	cr_assert(fp != NULL && fgets(buf, sizeof(buf), fp) != NULL);
	fclose(fp);
	cr_assert(eq(str, buf, "new page\n"));
	cr_assert(eq(int, unlink(page), 0));
	cr_assert(eq(int, mkfifo(page, 0600), 0));
	rc = file_replace(page, 0644, put_text, "again\n", refused, sizeof(refused));
	cr_assert(rc == 0, "%s %s", refused, strerror(errno));
	cr_assert(eq(int, lstat(page, &st), 0));
	cr_assert(eq(int, (st.st_mode & S_IFMT) == S_IFREG, 1), "the FIFO is replaced");
}

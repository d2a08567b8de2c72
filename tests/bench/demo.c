/* SPDX-License-Identifier: BSD-2-Clause */
/* demo.c -- `make demo`: three servers' crontabs fire the same job at the
 * same moment; with lockrun in front, it runs once. */
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../integ/redis_fixture.h"

static void
show(const char *path, const char *tag)
{
	char line[512];
	FILE *fp = fopen(path, "r");

	while (fp && fgets(line, sizeof(line), fp))
		printf("  %s %s", tag, line);
	if (fp)
		fclose(fp);
}

int
main(int argc, char *argv[])
{
	struct redis_fixture fx;
	const char *job = "echo \"job ran as pid $$ with fencing token $LOCKRUN_TOKEN\"; sleep 1";
	char out[3][160];
	pid_t pid[3];
	int status[3], ran = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: demo /path/to/lockrun\n");
		return 64;
	}
	if (redis_start(&fx, NULL) != 0)
		return 1;
	printf("Started a throwaway redis-server on %s (pid %d, no persistence).\n\n",
	    fx.url, (int)fx.pid);
	printf("Three \"servers\" fire the same cron job at once:\n\n"
	    "  lockrun --redis %s -v -E 75 -k import-products -- \\\n"
	    "      sh -c '%s'\n\n", fx.url, job);
	for (int i = 0; i < 3; i++) {
		snprintf(out[i], sizeof(out[i]), "%s/out%d", fx.dir, i);
		if ((pid[i] = fork()) == 0) {
			/* one file for both, so lines stay in the order written */
			int o = open(out[i], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
			dup2(o, 1);
			dup2(o, 2);
			execl(argv[1], "lockrun", "--redis", fx.url, "-v", "-E", "75",
			    "-k", "import-products", "--", "sh", "-c", job, (char *)NULL);
			_exit(127);
		}
	}
	for (int i = 0; i < 3; i++) {
		int st;
		char tag[16];
		waitpid(pid[i], &st, 0);
		status[i] = exit_code(st);
		ran += status[i] == 0;
		snprintf(tag, sizeof(tag), "server %d |", i + 1);
		show(out[i], tag);
		printf("  server %d | exit status %d%s\n\n", i + 1, status[i],
		    status[i] == 75 ? " (skipped: the -E status)" : "");
	}
	printf("Result: the job ran %d time%s out of 3 starts.\n", ran, ran == 1 ? "" : "s");
	redis_stop(&fx);
	printf("Stopped redis-server.\n");
	return ran == 1 ? 0 : 1;
}

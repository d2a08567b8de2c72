/* SPDX-License-Identifier: BSD-2-Clause */
/* replay.c -- feed each file named on the command line (a corpus) to the
 * target's LLVMFuzzerTestOneInput() once: the seeds and every input a
 * fuzzing run found worth keeping run in `make check` without libFuzzer,
 * under the same sanitizers as the rest of the suite when SANITIZE=1. */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* The whole of path, into a new buffer of *size bytes. */
static uint8_t *
slurp(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	struct stat st;

	if (fp == NULL || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "replay: %s: %s\n", path, fp ? "not a regular file" :
		    strerror(errno));
		if (fp)
			fclose(fp);
		return NULL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL ||
	    fread(buf, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
		fprintf(stderr, "replay: %s: cannot be read\n", path);
		free(buf);
		buf = NULL;
	}
	*size = (size_t)st.st_size;
	fclose(fp);
	return buf;
}

int
main(int argc, char *argv[])
{
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		size_t size = 0;
		uint8_t *data = slurp(argv[i], &size);

		if (data == NULL) {
			failed = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
	}
	printf("replay: %d inputs\n", argc - 1);
	return failed;
}

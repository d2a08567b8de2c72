/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_config.c -- a whole config file through the loader (libyaml, the
 * tree with its places, the top level, servers, tasks and their
 * settings), as `lockrun check` reads it. The input is written to a
 * memfd, read by its /proc/self/fd name as a file. */
#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/config.h"
#include "core/err.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct lr_err e = LR_ERR_INIT;
	struct lr_config cfg;

	if (fd < 0) {
		if ((fd = memfd_create("lockrun-fuzz.yaml", 0)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	config_load(path, NULL, &cfg, &e);
	config_free(&cfg);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_sentinelurl.c -- the parts of a redis+sentinel:// URL on their
 * own: the list of sentinels up to the first '/', the master's name and
 * database after it. */
#include <stdlib.h>
#include <string.h>

#include "backend/redis/sentinel_url.h"
#include "core/err.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), master[128];
	struct lr_hostport list[SENTINEL_URL_MAX];
	struct lr_err e = LR_ERR_INIT;
	char *slash = strchr(s, '/');
	int db = 0;

	sentinel_url_list(s, slash ? slash : s + strlen(s), list, &e);
	sentinel_url_master(slash ? slash + 1 : s, master, sizeof(master), &db, &e);
	free(s);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_mysqlurl.c -- mysql:// and mariadb:// URLs, and where one says it
 * connects. */
#include <stdlib.h>

#include "backend/mysql/mysqlurl.h"
#include "core/err.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), buf[512];
	struct lr_err e = LR_ERR_INIT;
	struct lr_mysqlurl u;

	if (mysqlurl_parse(s, &u, &e) == 0)
		mysqlurl_where(&u, "localhost", buf, sizeof(buf));
	free(s);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_cron.c -- a schedule: the expression's parser, and the calendar
 * walk from a fixed instant both ways when it parses. */
#include <stdlib.h>

#include "core/cron.h"
#include "core/err.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct lr_err e = LR_ERR_INIT;
	struct lr_cron c;
	int pos = 0;

	if (cron_parse(s, &c, &pos, &e) == 0 && c.tz[0] == '\0') {
		/* 2026-06-15T12:00:00Z; a zone would read files: not here */
		cron_next(&c, 1781524800);
		cron_prev(&c, 1781524800);
	}
	free(s);
	return 0;
}

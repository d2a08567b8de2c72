/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_crontab.c -- a crontab read as tasks: its lines, VAR=value lines,
 * '%' input, `# lockrun:` settings and derived names, in both forms (the
 * first byte chooses: odd, the /etc/crontab form with a user field). */
#include <stdlib.h>

#include "config/config.h"
#include "config/crontab.h"
#include "core/err.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_err e = LR_ERR_INIT;
	struct lr_config cfg;
	char *s;

	if (size == 0)
		return 0;
	s = fuzz_string(data + 1, size - 1);
	config_init(&cfg);
	crontab_parse(&cfg, "fuzz", s, data[0] & 1, data[0] & 2 ? "x" : NULL, &e);
	config_free(&cfg);
	free(s);
	return 0;
}

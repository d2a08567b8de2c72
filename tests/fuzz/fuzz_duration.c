/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_duration.c -- durations as a config or the command line gives them
 * ("90s", "1h30m"), and their formatting back. */
#include <stdlib.h>

#include "core/duration.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), buf[64];
	long long ms;

	if (duration_parse(s, &ms) == 0) {
		duration_format(ms, buf, sizeof(buf));
		duration_human(ms, buf, sizeof(buf));
	}
	free(s);
	return 0;
}

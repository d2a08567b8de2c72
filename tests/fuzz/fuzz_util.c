/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_util.c -- the input as a string, for every target. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

char *
fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_redisurl.c -- redis://, rediss://, unix://, redis+sentinel:// and
 * redis+cluster:// URLs, and where one says it connects. */
#include <stdlib.h>

#include "backend/redis/rurl.h"
#include "core/err.h"
#include "core/url.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), buf[512];
	struct lr_err e = LR_ERR_INIT;
	struct url_span spans[8];
	struct lr_url u;

	if (rurl_parse(s, &u, &e) == 0)
		rurl_where(&u, buf, sizeof(buf));
	url_password_spans(s, spans, 8);
	free(s);
	return 0;
}

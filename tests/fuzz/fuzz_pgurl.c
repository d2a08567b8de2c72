/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_pgurl.c -- what lockrun checks in a postgres:// URL before libpq
 * reads it: "keyword=value" as a query parameter gives them, and the
 * password spans it masks in a URL shown to people. */
#include <stdlib.h>
#include <string.h>

#include "backend/pg/pgurl.h"
#include "core/err.h"
#include "core/url.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *eq = strchr(s, '=');
	struct lr_err e = LR_ERR_INIT;
	struct url_span spans[8];

	url_password_spans(s, spans, 8);
	url_has_password(s);
	if (eq != NULL) {
		*eq = '\0';
		pgurl_check(s, eq + 1, &e);
	}
	free(s);
	return 0;
}

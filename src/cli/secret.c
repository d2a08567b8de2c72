/* SPDX-License-Identifier: BSD-2-Clause */
/* secret.c -- wipe what lockrun was handed in the environment and argv
 * (secret.h). */
#include <stdlib.h>
#include <string.h>

#include "core/url.h"
#include "cli/secret.h"

extern char **environ;

void
secret_env_wipe(const char *name)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			explicit_bzero(*e + n + 1, strlen(*e + n + 1));
	unsetenv(name);
}

void
secret_env_url_wipe(const char *name)
{
	const char *url = getenv(name);
	struct url_span s[1];

	if (url && url_password_spans(url, s, 1) > 0)
		secret_env_wipe(name);
}

size_t
secret_url_mask(char *url)
{
	struct url_span s[8];
	size_t n = url_password_spans(url, s, sizeof(s) / sizeof(s[0]));

	for (size_t i = 0; i < n; i++)
		memset(url + s[i].off, 'x', s[i].len);
	return n;
}

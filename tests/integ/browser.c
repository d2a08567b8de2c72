/* SPDX-License-Identifier: BSD-2-Clause */
/* browser.c -- headless chromium for the status page's tests (browser.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "harness.h"

void
without_attribute_values(char *dom)
{
	char *w = dom;

	for (const char *r = dom; *r; r++) {
		*w++ = *r;
		if (r[0] == '=' && r[1] == '"' && (r = strchr(r + 2, '"')) != NULL)
			*w++ = '"', *w++ = '"';
		else if (r == NULL)
			break;
	}
	*w = '\0';
}

int
chromium(const char *what, const char *url)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "timeout 120 chromium --headless --no-sandbox --disable-gpu "
	    "--disable-quic --no-first-run --disable-background-networking "
	    "--disable-component-update --disable-sync --user-data-dir=%s %s %s 2>%s",
	    scratch("chromium"), what, url, scratch("chromium.err"));
	return system(cmd);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* browser.c -- headless chromium for the status page's tests (browser.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

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

const char *
failed_link(const char *body, char *path, size_t n)
{
	const char *f = strstr(body, "<small class=\"failed\">Failed: <a "), *h, *q;

	if (f == NULL || (h = strstr(f, "href=\"")) == NULL || (q = strchr(h + 6, '"')) == NULL)
		return NULL;
	snprintf(path, n, "%.*s", (int)(q - h - 6), h + 6);
	return path;
}

void
browser_follows_a_failed_runs_link(int port)
{
	static char dom[65536];
	char url[512], what[512], path[256];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	snprintf(what, sizeof(what), "--dump-dom >%s", scratch("dom.html"));
	cr_assert(eq(int, chromium(what, url), 0), "%s", file_peek(scratch("chromium.err")));
	snprintf(dom, sizeof(dom), "%s", file_peek(scratch("dom.html")));

	/* the link as the browser built it, followed as a click would */
	cr_assert(failed_link(dom, path, sizeof(path)) != NULL, "%s", dom);
	cr_assert(matches(dom, "<svg class=\"strip\"[^>]*><a class=\"run fail\" href=\"/run/bad/"
	    "[0-9]+\"><rect"), "%s", dom);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	cr_assert(eq(int, chromium(what, url), 0), "%s", file_peek(scratch("chromium.err")));
	snprintf(dom, sizeof(dom), "%s", file_peek(scratch("dom.html")));
	cr_assert(matches(dom, "<h1>bad, run [0-9]+: <span class=\"failed\">failed</span></h1>"),
	    "%s", dom);
	cr_assert(matches(dom, RUN_LINES), "%s", dom);
	cr_assert(matches(dom, HOOK_LINES), "%s", dom);
	cr_assert(strstr(dom, "<script") == NULL && strstr(dom, "\xe2\x80\xae") == NULL, "%s",
	    dom);
}

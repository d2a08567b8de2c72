/* SPDX-License-Identifier: BSD-2-Clause */
/* backends.c -- what the backends suites share (see backends.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backends.h"
#include "prom.h"

enum backend be;
struct sql_server srv;
const char *url;
const char *pw_env[] = { "LOCKRUN_REDIS_PASSWORD=" SQL_PASSWORD, NULL };

void
backends_teardown(void)
{
	sql_stop(&srv);
	suite_teardown();
}

/* The backend's server, and the URL the runs are given. */
void
use(enum backend b)
{
	be = b;
	if (b == BE_REDIS) {
		url = fx.url;
		return;
	}
	cr_assert(eq(int, sql_start(&srv, b == BE_PG ? SQL_PG : SQL_MYSQL), 0),
	    "%s did not start", sql_name(b == BE_PG ? SQL_PG : SQL_MYSQL));
	url = srv.url;
}

const char *const *
env_with(const char *const *extra)
{
	static const char *env[16];
	size_t n = 0;

	if (be != BE_REDIS)
		env[n++] = pw_env[0];
	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	return env;
}

/* Is key's lock held, as `lockrun status` sees it? */
int
held(const char *key)
{
	struct result r;

	VERB(&r, "status", "--json", key);
	cr_assert(eq(int, r.status, 0), "status: %s", r.err);
	return strstr(r.out, "\"held\":true") != NULL;
}

double
metric(const char *key, const char *name, const char *label)
{
	struct prom *p = malloc(sizeof(*p));
	struct result r;
	char *text;
	double v;

	cr_assert(p != NULL);
	VERB(&r, "status", "--format", "prometheus", key);
	cr_assert(eq(int, r.status, 0), "status: %s", r.err);
	text = file_text(scratch("run.out"));	/* r.out holds 4 KiB at most */
	prom_check(text, p);
	v = label ? prom_get_label(p, name, key, label) : prom_get(p, name, key);
	cr_assert(isfinite(v), "no %s for %s: %s", name, key, text);
	free(text);
	free(p);
	return v;
}

/* The events of key's history, newest first, as "EVENT EVENT ...". */
const char *
events(const char *key, char *buf, size_t n)
{
	struct result r;
	size_t len = 0;

	VERB(&r, "history", "--json", "-n", "50", key);
	cr_assert(eq(int, r.status, 0), "history: %s", r.err);
	buf[0] = '\0';
	for (const char *p = r.out; (p = strstr(p, "\"event\":\"")) != NULL; ) {
		const char *end;

		p += 9;
		if ((end = strchr(p, '"')) == NULL)
			break;
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%.*s",
		    len ? " " : "", (int)(end - p), p);
		p = end;
	}
	return buf;
}

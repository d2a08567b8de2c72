/* SPDX-License-Identifier: BSD-2-Clause */
/* where.c -- the servers a task runs on (where.h); pure, libc only. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "core/where.h"

/* "[web1, web2]" into buf[n], cut short ("...]") when too long. */
static void
list_of(char *const *hosts, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "[");

	for (size_t i = 0; hosts[i] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", hosts[i]);
	if (len + 2 > n && n > 5)
		snprintf(buf + n - 5, 5, "...]");
	else if (len < n)
		snprintf(buf + len, n - len, "]");
}

int
where_here(char *const *hosts, const char *match, const char *host, char *why, size_t n)
{
	char list[200];

	if (hosts == NULL && match == NULL) {
		snprintf(why, n, "no hosts or host_match: every host runs it");
		return 1;
	}
	for (size_t i = 0; hosts && hosts[i]; i++)
		if (strcmp(hosts[i], host) == 0) {
			snprintf(why, n, "%s is in hosts", host);
			return 1;
		}
	if (match && fnmatch(match, host, 0) == 0) {
		snprintf(why, n, "%s matches host_match \"%s\"", host, match);
		return 1;
	}
	if (hosts)
		list_of(hosts, list, sizeof(list));
	if (hosts && match)
		snprintf(why, n, "%s is not in hosts %s and does not match host_match \"%s\"",
		    host, list, match);
	else if (hosts)
		snprintf(why, n, "%s is not in hosts %s", host, list);
	else
		snprintf(why, n, "%s does not match host_match \"%s\"", host, match);
	return 0;
}

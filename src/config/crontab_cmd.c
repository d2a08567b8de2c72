/* SPDX-License-Identifier: BSD-2-Clause */
/* crontab_cmd.c -- a crontab line's command as a shell reads it (cron(8)'s
 * '%') and the name derived from the line (crontab.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/crontab.h"

#define CRONTAB_SLUG_MAX	40	/* bytes of a derived name's word */

int
crontab_blank(char c)
{
	return c == ' ' || c == '\t';
}

const char *
crontab_skip_blanks(const char *s)
{
	while (crontab_blank(*s))
		s++;
	return s;
}

/* Copy [s, end) with each run of blanks made one space, trimmed. */
static void
squeeze(const char *s, const char *end, char *out, size_t n)
{
	size_t k = 0;

	while (s < end && crontab_blank(*s))
		s++;
	for (; s < end && k + 1 < n; s++) {
		if (crontab_blank(*s) && (s + 1 == end || crontab_blank(s[1])))
			continue;
		out[k++] = crontab_blank(*s) ? ' ' : *s;
	}
	out[k] = '\0';
}

static unsigned long long
fnv(unsigned long long h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

void
crontab_name(const char *user, const char *schedule, const char *command, char *buf,
    size_t n)
{
	const char *parts[3] = { user ? user : "", schedule, command };
	unsigned long long h = 14695981039346656037ULL;
	const char *w = crontab_skip_blanks(command), *end, *base;
	char slug[CRONTAB_SLUG_MAX + 1], *norm;
	size_t k = 0, len;

	for (int i = 0; i < 3; i++) {
		len = strlen(parts[i]);
		if ((norm = malloc(len + 1)) != NULL) {
			squeeze(parts[i], parts[i] + len, norm, len + 1);
			h = fnv(h, norm, strlen(norm) + 1);
			free(norm);
		}
	}
	for (end = w; *end && !crontab_blank(*end); end++)
		;
	for (base = end; base > w && base[-1] != '/'; base--)
		;
	for (; base < end && k < CRONTAB_SLUG_MAX; base++) {
		char c = *base;

		slug[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ? c : '_';
	}
	slug[k] = '\0';
	snprintf(buf, n, "%s-%08llx", k > 0 && slug[0] != '.' ? slug : "job",
	    (h ^ (h >> 32)) & 0xffffffffULL);
}

char *
crontab_command(const char *cmd)
{
	size_t len = strlen(cmd), k = 0, in = 0, cut = (size_t)-1;
	char *out, *input, delim[32];
	int more = 0;

	if ((out = malloc(2 * len + 64)) == NULL)
		return NULL;
	input = out + len + 1;
	for (size_t i = 0; i < len; i++) {
		if (cmd[i] == '\\' && cmd[i + 1] == '%') {
			if (cut == (size_t)-1)
				out[k++] = '%';
			else
				input[in++] = '%';
			i++;
		} else if (cmd[i] == '%' && cut == (size_t)-1)
			cut = i;
		else if (cut == (size_t)-1)
			out[k++] = cmd[i];
		else
			input[in++] = cmd[i] == '%' ? '\n' : cmd[i];
	}
	if (cut != (size_t)-1)
		while (k > 0 && crontab_blank(out[k - 1]))
			k--;
	out[k] = input[in] = '\0';
	if (cut == (size_t)-1)
		return out;
	do {
		snprintf(delim, sizeof(delim), "LOCKRUN_INPUT%.0d", more++);
	} while (strstr(input, delim) != NULL);
	{
		char *full = malloc(k + in + 2 * strlen(delim) + 16);

		/* the group's input: a list ("a; b") reads it whole, as the
		 * shell cron(8) starts does */
		if (full != NULL)
			sprintf(full, "{ %s\n} <<'%s'\n%s\n%s", out, delim, input, delim);
		free(out);
		return full;
	}
}

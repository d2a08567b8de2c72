/* SPDX-License-Identifier: BSD-2-Clause */
/* html.c -- what the status page and a run's page write of every value
 * they did not write themselves (html.h): escaped, made visible. */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "web/html.h"

/* The code point of the valid UTF-8 sequence at p, len bytes. */
static unsigned
code_point(const unsigned char *p, size_t len)
{
	unsigned c = len == 1 ? p[0] : len == 2 ? p[0] & 0x1fu : len == 3 ? p[0] & 0x0fu :
	    p[0] & 0x07u;

	for (size_t i = 1; i < len; i++)
		c = c << 6 | (p[i] & 0x3fu);
	return c;
}

void
html_escape(FILE *fp, const char *s, size_t left, int attr)
{
	size_t len;

	for (; left > 0; s += len, left -= len) {
		unsigned char ch = (unsigned char)*s;

		if ((len = text_utf8_len(s, left)) == 0) {
			fputs("\xef\xbf\xbd", fp);
			len = 1;
		} else if (text_control_len(s, left) != 0)
			fprintf(fp, attr ? "&lt;U+%04X&gt;" :
			    "<span class=\"ctl\">&lt;U+%04X&gt;</span>",
			    code_point((const unsigned char *)s, len));
		else if (ch == '&')
			fputs("&amp;", fp);
		else if (ch == '<')
			fputs("&lt;", fp);
		else if (ch == '>')
			fputs("&gt;", fp);
		else if (ch == '"')
			fputs("&quot;", fp);
		else if (ch == '\'')
			fputs("&#39;", fp);
		else
			fwrite(s, 1, len, fp);
	}
}

void
html_run_href(FILE *fp, const char *name, long long id)
{
	fputs("/run/", fp);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) != NULL)
			fputc(*p, fp);
		else
			fprintf(fp, "%%%02X", *p);
	fprintf(fp, "/%lld", id);
}

/* log.c -- stderr messages, quiet by default so cron mails nothing. */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static int verbose, quiet;

void
log_setup(int v, int q)
{
	verbose = v;
	quiet = q;
}

static void
vsay(const char *fmt, va_list ap)
{
	char line[1024];

	/* one write, so lines of concurrent lockruns do not interleave */
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "lockrun: %s\n", line);
}

void
lr_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
lr_warn(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
lr_info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose || quiet)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

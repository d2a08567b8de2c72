/* SPDX-License-Identifier: BSD-2-Clause */
/* err.c -- fill a struct lr_err. */
#include <stdarg.h>
#include <stdio.h>

#include "core/err.h"

int
lr_errf(struct lr_err *e, int status, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	e->status = status;
	e->transport = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

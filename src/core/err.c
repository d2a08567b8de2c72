/* SPDX-License-Identifier: BSD-2-Clause */
/* err.c -- fill a struct lr_err. */
#include <stdarg.h>
#include <stdio.h>

#include "core/err.h"

static int
fill(struct lr_err *e, enum lr_err_kind kind, int status, const char *fmt, va_list ap)
{
	if (e == NULL)
		return -1;
	e->status = status;
	e->kind = kind;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return -1;
}

int
lr_errf(struct lr_err *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, LR_ERR_NONE, status, fmt, ap);
	va_end(ap);
	return -1;
}

int
lr_errk(struct lr_err *e, enum lr_err_kind kind, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, kind, status, fmt, ap);
	va_end(ap);
	return -1;
}

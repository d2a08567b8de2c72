/* status.c -- `lockrun status`: not built yet (issue 8). */
#include "ctx.h"
#include "log.h"

int
verb_status(struct lr_ctx *x)
{
	(void)x;
	lr_error("status: not built yet");
	return EX_SOFTWARE;
}

/* unlock.c -- `lockrun unlock`: not built yet (issue 8). */
#include "ctx.h"
#include "log.h"

int
verb_unlock(struct lr_ctx *x)
{
	(void)x;
	lr_error("unlock: not built yet");
	return EX_SOFTWARE;
}

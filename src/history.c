/* history.c -- `lockrun history`: not built yet (issue 8). */
#include "ctx.h"
#include "log.h"

int
verb_history(struct lr_ctx *x)
{
	(void)x;
	lr_error("history: not built yet");
	return EX_SOFTWARE;
}

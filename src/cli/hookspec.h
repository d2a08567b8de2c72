/* SPDX-License-Identifier: BSD-2-Clause */
/* hookspec.h -- a run's hooks: their settings and what they are told, for
 * run.c and the on_missed hook (skip.c). */
#ifndef LR_HOOKSPEC_H
#define LR_HOOKSPEC_H

#include "cli/ctx.h"
#include "proc/hooks.h"

/* The hooks' settings (on_start's in start, the others' in after), and
 * what they are told before the command starts; locked: the run holds its
 * lock. */
void	hooks_prepare(struct lr_ctx *x, int locked, struct lr_hook_spec *start,
	    struct lr_hook_spec *after, struct lr_hook_facts *hf);

#endif

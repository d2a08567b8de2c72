/* SPDX-License-Identifier: BSD-2-Clause */
/* hookspec.h -- a run's hooks: their settings, what they are told, and
 * their output kept with the run's story, for run.c and the on_missed
 * hook (run.c). */
#ifndef LR_HOOKSPEC_H
#define LR_HOOKSPEC_H

#include <stddef.h>

#include "cli/run_state.h"
#include "proc/hooks.h"

/* The hooks' settings (on_start's in start, the others' in after), and
 * what they are told before the command starts; locked: the run holds its
 * lock (and its hooks keep their output's end, as keep_output says). */
void	hooks_prepare(struct lr_run *r, int locked, struct lr_hook_spec *start,
	    struct lr_hook_spec *after, struct lr_hook_facts *hf);

/* Run on_start; its output's end, with spec->keep, into r->start_story
 * for the release to carry (hooks_story_join()). */
void	hooks_start(struct lr_run *r, const struct lr_hook_spec *spec,
	    const struct lr_hook_facts *hf);

/* The story's output: on_start's section, then the command's lines
 * cmd[n] (core/tail.h, TAIL_SECTION), malloc'd (NUL-terminated, as
 * tail_text()'s) with its length in *len;
 * NULL when on_start kept nothing (the command's lines are the story's
 * output as they are) or out of memory. */
char	*hooks_story_join(const struct lr_run *r, const char *cmd, size_t n,
	    size_t *len);

/* After the release: on_success or on_failure, told how the run ended
 * (status; started on the monotonic clock). Whatever the hook does, the
 * run's status stands. When the release kept the run's story
 * (r->story_kept) and the hook printed something, its section is added
 * to the story: one round trip more (lockrun(7), "A RUN'S STORY"). */
void	hooks_end(struct lr_run *r, const struct lr_hook_spec *spec,
	    struct lr_hook_facts *hf, int status, long long started);

#endif

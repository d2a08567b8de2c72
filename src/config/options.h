/* SPDX-License-Identifier: BSD-2-Clause */
/* options.h -- one task's settings in a config (or its defaults): the
 * mapping read into a struct lr_task, and the merged task checked. */
#ifndef LR_CONFIG_OPTIONS_H
#define LR_CONFIG_OPTIONS_H

#include "config/walk.h"
#include "core/task.h"

/* The mapping map into t: a task's (is_task: command and shell allowed)
 * or the defaults'; section ("tasks.NAME", "defaults") starts each
 * message. A relative output: path is made relative to the folder of
 * w->cfg->path. Returns 0, or -1 with w->e. */
int	options_parse(struct walk *w, const struct yt_node *map, const char *section,
	    int is_task, struct lr_task *t);

/* task over cfg's defaults, as it will run: refuse what cannot work
 * (kill_after too long for the ttl, ...), at node at. Returns 0, or -1
 * with w->e. */
int	options_check(struct walk *w, const struct yt_node *at, const struct lr_task *task);

#endif

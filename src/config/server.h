/* SPDX-License-Identifier: BSD-2-Clause */
/* server.h -- a config's url: and redis: sections, where the lock lives. */
#ifndef LR_CONFIG_SERVER_H
#define LR_CONFIG_SERVER_H

#include "config/walk.h"
#include "core/task.h"

/* url: (or redis.url:) v into *url, checked for its scheme; its place
 * into w->cfg->url_at. Returns 0, or -1 with w->e. */
int	server_set_url(struct walk *w, const struct yt_node *v, const char *what,
	    const char **url);

/* A backend's section (redis:) into r: url, password_file and the
 * timeouts; the other keys into r->own, each checked by the backend.
 * Returns 0, or -1 with w->e. */
int	server_parse_section(struct walk *w, const char *section,
	    const struct yt_node *map, struct lr_server_opts *r);

#endif

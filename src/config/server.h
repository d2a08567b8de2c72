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

/* The redis: mapping into r (its TLS settings' place into w->cfg->tls_at).
 * Returns 0, or -1 with w->e. */
int	server_parse_redis(struct walk *w, const struct yt_node *map,
	    struct lr_server_opts *r);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* backend.h -- where the lock lives: the backend a URL names, set up
 * behind the operations of ops.h, which the run path, the renewal loop
 * and the verbs use. backend.c is the one module that knows every
 * backend; the backends know ops.h, never this. */
#ifndef LR_BACKEND_H
#define LR_BACKEND_H

#include "core/err.h"
#include "backend/ops.h"

/* Which backend a URL names: "redis" (redis://, rediss://, unix://,
 * redis+sentinel://, redis+cluster://), "postgres" (postgres://,
 * postgresql://), "mysql" (mysql://, mariadb://); NULL for anything else. */
const char *backend_kind(const char *url);

/* Set b up for cfg's URL, without connecting; cfg->own are the settings
 * of that backend alone (one for another backend is refused, at its
 * place). Returns 0, or -1 with e: EX_USAGE for a URL no backend takes,
 * EX_UNAVAILABLE when the backend's client library cannot be loaded (the
 * message names its Debian package). */
int	backend_init(struct lr_backend *b, const struct lr_backend_cfg *cfg,
	    struct lr_err *e);

/* Check url as far as lockrun reads it itself, before any client library
 * is loaded: a Redis or MySQL URL in full; a PostgreSQL one only by its
 * scheme, as libpq reads the rest. Returns 0, or -1 with e = EX_USAGE and
 * a message that shows no password. */
int	backend_check_url(const char *url, struct lr_err *e);
/* backend_check_url() for a caller that names the URL itself (a config's
 * url: key): the message says what is wrong, without "redis URL: ". */
int	backend_url_problem(const char *url, struct lr_err *e);

/* Is name a backend's (the config's section for its own settings)? */
int	backend_section(const char *name);

/* One of a backend's own settings, as text: key as its config section
 * spells it ("tls.ca_file"), value NULL for a mapping; section NULL asks
 * every backend (the command line's). Returns 1 taken, 0 no backend's, or
 * -1 when bad, with e a fragment for the caller to place. */
int	backend_setting(const char *section, const char *key, const char *value,
	    struct lr_err *e);

/* The checks across a section's settings, as a config gives them with its
 * command timeout. Returns 0, or -1 with e placed. */
int	backend_settings_check(const char *section, const struct lr_settings *s,
	    long long command_ms, struct lr_err *e);

#endif

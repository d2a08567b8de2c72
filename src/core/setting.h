/* SPDX-License-Identifier: BSD-2-Clause */
/* setting.h -- the server settings that one backend alone reads (Redis's
 * TLS files, Sentinel password, WAIT replicas), carried as text from the
 * config or the command line to that backend, which parses and checks
 * them (backend.h). The neutral core never looks inside. */
#ifndef LR_SETTING_H
#define LR_SETTING_H

#include <stddef.h>

#include "core/err.h"

struct lr_setting {
	char	*section;	/* the config section it came from ("redis"),
				 * or NULL: the command line's, for the backend
				 * the URL names */
	char	*key;		/* as the section spells it: "wait_replicas",
				 * "tls.ca_file"; a nested mapping is a key of
				 * its own ("tls", value NULL) */
	char	*value;		/* the text given; NULL for a mapping */
	char	*at;		/* where, for messages: "path:line:col", or
				 * NULL (the command line) */
	char	*key_at;	/* where its key is, when not at (a mapping's
				 * checks across its keys); or NULL */
	char	*what;		/* its name in messages: "redis.tls.ca_file",
				 * "--wait-timeout" */
	int	 status;	/* a mistake in it: EX_CONFIG or EX_USAGE */
};

struct lr_settings {
	struct lr_setting	*v;
	size_t			 n;
};

/* Add a copy of the setting (replacing one of the same section and key).
 * Returns 0, or -1 with e when out of memory. */
int	settings_add(struct lr_settings *s, const char *section, const char *key,
	    const char *value, const char *at, const char *what, int status,
	    struct lr_err *e);

/* The setting called key (any section), or NULL. */
const struct lr_setting *settings_get(const struct lr_settings *s, const char *key);

/* Fill e with "AT: WHAT: message" (what NULL: s's own) and s's status;
 * returns -1. setting_key_errf() places it at the key instead. */
int	setting_errf(struct lr_err *e, const struct lr_setting *s, const char *what,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int	setting_key_errf(struct lr_err *e, const struct lr_setting *s, const char *what,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Set the place of s's key (settings_add() leaves it NULL). Returns 0 or -1. */
int	setting_key_at(struct lr_setting *s, const char *key_at, struct lr_err *e);

void	settings_free(struct lr_settings *s);

#endif

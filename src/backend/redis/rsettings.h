/* SPDX-License-Identifier: BSD-2-Clause */
/* rsettings.h -- the settings only the Redis backend reads, under the
 * config's redis: (tls:, sentinel_password_file, wait_replicas,
 * wait_timeout) or on the command line (--wait-replicas,
 * --wait-timeout), handed over as text (core/setting.h). */
#ifndef LR_RSETTINGS_H
#define LR_RSETTINGS_H

#include "core/err.h"
#include "core/task.h"
#include "core/setting.h"
#include "backend/redis/tls.h"

#define LR_WAIT_TIMEOUT_MS	100	/* redis.wait_timeout, built in */
#define LR_WAIT_REPLICAS_MAX	1000

/* What they say, checked; the strings are borrowed from the settings. */
struct rsettings {
	struct lr_tls_opts	 tls;
	const struct lr_setting	*tls_at;	/* the tls: mapping, or NULL */
	const char		*sentinel_password_file;
	long long		 wait_replicas;	/* WAIT for this many replicas after
						 * each write of the lock; 0: do not */
	long long		 wait_timeout_ms;	/* WAIT's own timeout */
	const struct lr_setting	*wait_timeout_at;	/* or NULL: built in */
};

/* One setting, and the checks across them, as a config gives them (its
 * command timeout): backend.h's backend_setting() and
 * backend_settings_check(). Declared in redis.h too, for backend.c. */
int	redis_setting(const char *key, const char *value, struct lr_err *e);
int	redis_settings_check(const struct lr_settings *s, long long command_ms,
	    struct lr_err *e);

/* Read s into r, as a run uses them. Returns 0, or -1 with e placed. */
int	rsettings_read(const struct lr_settings *s, long long command_ms,
	    struct rsettings *r, struct lr_err *e);

/* What the settings ask of a run's: a WAIT that fits in a renewal
 * period. Returns 0, or -1 with e (the setting's place, or the option). */
int	rsettings_check_task(const struct rsettings *s, const struct lr_task *t,
	    struct lr_err *e);

#endif

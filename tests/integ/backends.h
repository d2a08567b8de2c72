/* SPDX-License-Identifier: BSD-2-Clause */
/* backends.h -- what the backends suites share: the backend a test runs
 * against (Redis, PostgreSQL or MariaDB, each on a throwaway server), how
 * lockrun is run against it, and what lockrun itself says of a key. */
#ifndef LR_BACKENDS_H
#define LR_BACKENDS_H

#include <stddef.h>

#include "harness.h"
#include "sql_fixture.h"

enum backend { BE_REDIS, BE_PG, BE_MYSQL };

extern enum backend be;		/* the test's backend, set by use() */
extern struct sql_server srv;	/* its SQL server, when it has one */
extern const char *url;		/* the URL the runs are given */
/* The SQL servers' user's password, for lockrun's environment. */
extern const char *pw_env[];

/* Start the backend's server (Redis: the suite's, from suite_setup(),
 * which is also where fx.dir, every test's scratch dir, comes from). */
void	use(enum backend b);
/* The .fini of each backends suite: the SQL server, then Redis. */
void	backends_teardown(void);

/* The SQL servers' user has a password; the URLs do not hold it: the
 * environment for lockrun, with extra's "NAME=value" strings (or NULL).
 * A static array, good until the next call. */
const char *const *env_with(const char *const *extra);

/* lockrun --url URL ARGS, and lockrun VERB --url URL ARGS. */
#define RUN(res, ...) lr_run_env((res), env_with(NULL),			\
	(const char *const[]){ "--url", url, __VA_ARGS__, NULL })
#define VERB(res, verb, ...) lr_run_env((res), env_with(NULL),		\
	(const char *const[]){ verb, "--url", url, __VA_ARGS__, NULL })
#define START(...) lr_start_env(env_with(NULL),				\
	(const char *const[]){ "--url", url, __VA_ARGS__, NULL })

/* Is key's lock held, as `lockrun status` sees it? */
int	held(const char *key);

/* The value of a metric of key's, as `lockrun status --format prometheus`
 * prints it (checked strictly, prom.h): name{task="key"}, and with label
 * not NULL the sample whose labels hold it (`reason="held"`). */
double	metric(const char *key, const char *name, const char *label);

/* The events of key's history, newest first, as "EVENT EVENT ..." in buf. */
const char *events(const char *key, char *buf, size_t n);

#endif

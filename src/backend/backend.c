/* SPDX-License-Identifier: BSD-2-Clause */
/* backend.c -- the registry of backends: one row each, the one place
 * outside a backend's folder that names it (a backend knows ops.h,
 * record.h and lock.h only). A verb picks a backend by its URL's scheme;
 * the config hands a backend's section to it by the row's name. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/notes.h"
#include "backend/redis/redis.h"
#ifdef LR_SQL
#include "backend/mysql/mysql.h"
#include "backend/pg/pg.h"
#define SQL(f)		f
#else
#define SQL(f)		NULL
#endif

struct backend_row {
	const char	*name;		/* in messages, and the config's section */
	const char	*schemes[6];	/* the URLs it takes, NULL-terminated */
	/* Set b up from b->cfg (backend.h, backend_init()); NULL: not in
	 * this build, as `missing` says. */
	int		(*init)(struct lr_backend *b, struct lr_err *e);
	const char	*missing;
	/* Check a URL before any library is loaded (NULL: the library reads it). */
	int		(*check_url)(const char *url, struct lr_err *e);
	/* Its own settings (NULL: none): one, and across them (backend.h). */
	int		(*setting)(const char *key, const char *value, struct lr_err *e);
	int		(*settings_check)(const struct lr_settings *s, long long command_ms,
			    struct lr_err *e);
	const char	*library;	/* the client library it loads on demand, or NULL */
	/* check_url() whose message does not name its subject, for a caller
	 * that does (NULL: check_url's, which names it, or none) */
	int		(*url_problem)(const char *url, struct lr_err *e);
};

#define NO_SQL	"this lockrun was built without the SQL backends (SQL=no, or LINK=static)"

static const struct backend_row rows[] = {
	{ "redis", { "redis", "rediss", "unix", "redis+sentinel", "redis+cluster" },
	    redis_backend_init, NULL, redis_check_url, redis_setting, redis_settings_check,
	    NULL, redis_url_problem },
	{ "postgres", { "postgres", "postgresql" }, SQL(pg_backend_init), NO_SQL, NULL,
	    NULL, NULL, NOTES_PQ, NULL },
	{ "mysql", { "mysql", "mariadb" }, SQL(mysql_backend_init), NO_SQL,
	    SQL(mysql_check_url), NULL, NULL, NOTES_MARIADB, NULL },
};
#define NROWS	(sizeof(rows) / sizeof(rows[0]))

static int
has_scheme(const char *url, const char *scheme)
{
	size_t n = strlen(scheme);

	return strncmp(url, scheme, n) == 0 && strncmp(url + n, "://", 3) == 0;
}

static const struct backend_row *
row_of_url(const char *url)
{
	for (size_t i = 0; i < NROWS; i++)
		for (const char *const *s = rows[i].schemes; *s; s++)
			if (has_scheme(url, *s))
				return &rows[i];
	return NULL;
}

static const struct backend_row *
row_named(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

const char *
backend_kind(const char *url)
{
	const struct backend_row *r = row_of_url(url);

	return r ? r->name : NULL;
}

/* Every setting is the URL's backend's: one given for another backend's
 * section would do nothing, silently. */
static int
settings_fit(const struct backend_row *r, const struct lr_settings *s, const char *url,
    struct lr_err *e)
{
	struct lr_err te;

	for (size_t i = 0; s && i < s->n; i++) {
		const struct lr_setting *x = &s->v[i];

		if (x->section && strcmp(x->section, r->name) != 0)
			return setting_errf(e, x, NULL, "a setting of %s, but the URL in use is "
			    "%.*s:// (nothing would read it); remove it, or use a %s URL",
			    x->section, (int)strcspn(url, ":"), url, x->section);
		if (x->section == NULL && (r->setting == NULL ||
		    r->setting(x->key, x->value, &te) == 0))
			return setting_errf(e, x, NULL, "does not apply to %.*s:// URLs",
			    (int)strcspn(url, ":"), url);
	}
	return 0;
}

int
backend_init(struct lr_backend *b, const struct lr_backend_cfg *cfg, struct lr_err *e)
{
	const struct backend_row *r = row_of_url(cfg->url);

	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	if (r == NULL)
		return lr_errf(e, EX_USAGE, "--url: not a URL lockrun knows");
	if (r->init == NULL)
		return lr_errf(e, EX_UNAVAILABLE, "%s://: %s", r->name, r->missing);
	if (settings_fit(r, cfg->own, cfg->url, e) != 0)
		return -1;
	return r->init(b, e);
}

int
backend_check_url(const char *url, struct lr_err *e)
{
	const struct backend_row *r = row_of_url(url);

	/* not a scheme lockrun knows: the first backend's parser says which
	 * it takes */
	if (r == NULL)
		r = &rows[0];
	return r->check_url ? r->check_url(url, e) : 0;
}

int
backend_url_problem(const char *url, struct lr_err *e)
{
	const struct backend_row *r = row_of_url(url);

	if (r == NULL)
		r = &rows[0];
	if (r->url_problem != NULL)
		return r->url_problem(url, e);
	return r->check_url ? r->check_url(url, e) : 0;
}

int
backend_section(const char *name)
{
	return row_named(name) != NULL;
}

int
backend_setting(const char *section, const char *key, const char *value,
    struct lr_err *e)
{
	int rc;

	for (size_t i = 0; i < NROWS; i++) {
		if ((section && strcmp(rows[i].name, section) != 0) || !rows[i].setting)
			continue;
		if ((rc = rows[i].setting(key, value, e)) != 0)
			return rc;
	}
	return 0;
}

int
backend_settings_check(const char *section, const struct lr_settings *s,
    long long command_ms, struct lr_err *e)
{
	const struct backend_row *r = row_named(section);

	return r && r->settings_check ? r->settings_check(s, command_ms, e) : 0;
}

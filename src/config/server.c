/* SPDX-License-Identifier: BSD-2-Clause */
/* server.c -- read a config's url: and a backend's section (redis:): the
 * URL, the password file and the timeouts every backend has; the rest of
 * the section is the backend's own, which it checks (backend.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "config/server.h"
#include "core/duration.h"

/* A backend's own setting at k: v, or under it when v is a mapping
 * (tls: {ca_file: ...} is "tls" and "tls.ca_file"): that backend checks
 * each and keeps it as text (core/setting.h); what is "redis.tls.ca_file". */
static int
own_setting(struct walk *w, const char *section, const char *key,
    const struct yt_node *k, const struct yt_node *v, struct lr_server_opts *r)
{
	char what[160], at[300];
	const char *dot = strrchr(key, '.');
	const char *value = v->kind == YT_MAP ? NULL : v->value;
	struct lr_err te;
	int rc;

	snprintf(what, sizeof(what), "%s.%s", section, key);
	if (v->kind == YT_SEQ || walk_is_null(v))	/* known? then a kind it cannot be */
		value = NULL;
	if ((rc = backend_setting(section, key, value, &te)) == 0)
		return walk_bad(w, k, "unknown key \"%s\" in %.*s", dot ? dot + 1 : key,
		    (int)(dot ? strlen(section) + 1 + (size_t)(dot - key) : strlen(section)),
		    what);
	if (v->kind == YT_SEQ || walk_is_null(v))
		return rc == 1 ? walk_want_map(w, v, what) :
		    walk_want_string(w, v, what) ? 0 : -1;
	if (rc < 0)
		return walk_bad(w, v, "%s: %s", what, te.msg);
	snprintf(at, sizeof(at), "%s:%d:%d", w->path, (v->kind == YT_MAP ? k : v)->line,
	    (v->kind == YT_MAP ? k : v)->col);
	if (settings_add(&r->own, section, key, value, at, what, EX_CONFIG, w->e) != 0)
		return -1;
	snprintf(at, sizeof(at), "%s:%d:%d", w->path, k->line, k->col);
	if (setting_key_at((struct lr_setting *)settings_get(&r->own, key), at, w->e) != 0)
		return -1;
	for (size_t i = 0; v->kind == YT_MAP && i < v->nkids; i += 2) {
		char sub[120];

		snprintf(sub, sizeof(sub), "%s.%s", key, v->kids[i]->value);
		if (own_setting(w, section, sub, v->kids[i], v->kids[i + 1], r) != 0)
			return -1;
	}
	return 0;
}

/* url: (or redis.url:), where the lock lives. A Redis or MySQL URL is
 * checked here; a PostgreSQL one when the backend is set up, with libpq,
 * which reads it (ctx.c names this place, url_at, when it is refused). */
int
server_set_url(struct walk *w, const struct yt_node *v, const char *what, const char **url)
{
	char *s = (char *)*url;
	struct lr_err ue;

	if (*url != NULL)
		return walk_bad(w, v, "%s: the URL is given twice (url and redis.url)", what);
	if (walk_set_string(w, v, what, &s) != 0)
		return -1;
	*url = s;
	snprintf(w->cfg->url_at, sizeof(w->cfg->url_at), "%s:%d:%d: %s", w->path,
	    v->line, v->col, what);
	/* a PostgreSQL URL is libpq's to read: checked with libpq loaded */
	if (backend_url_problem(s, &ue) != 0)
		return walk_bad(w, v, "%s: %s", what, ue.msg);
	return 0;
}

int
server_parse_section(struct walk *w, const char *section, const struct yt_node *map,
    struct lr_server_opts *r)
{
	char *file = (char *)r->password_file, what[80];
	struct lr_err e;

	if (map->kind == YT_SCALAR && map->value && strstr(map->value, "://") != NULL)
		return walk_bad(w, map, "%s: is a section, not a URL: give the URL as url: "
		    "(at the top level, or under %s:)", section, section);
	if (walk_want_map(w, map, section) != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		int rc;

		snprintf(what, sizeof(what), "%s.%s", section, k->value);
		if (strcmp(k->value, "url") == 0)
			rc = server_set_url(w, v, what, &r->url);
		else if (strcmp(k->value, "password_file") == 0) {
			rc = walk_set_string(w, v, what, &file);
			r->password_file = file;
		} else if (strcmp(k->value, "connect_timeout") == 0)
			rc = walk_set_timeout(w, v, what, &r->connect_timeout_ms);
		else if (strcmp(k->value, "command_timeout") == 0)
			rc = walk_set_timeout(w, v, what, &r->command_timeout_ms);
		else
			rc = own_setting(w, section, k->value, k, v, r);
		if (rc != 0)
			return -1;
	}
	if (backend_settings_check(section, &r->own, r->command_timeout_ms == LR_UNSET ?
	    LR_COMMAND_TIMEOUT_MS : r->command_timeout_ms, &e) != 0)
		return lr_errf(w->e, e.status, "%s", e.msg);
	return 0;
}

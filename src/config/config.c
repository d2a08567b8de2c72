/* SPDX-License-Identifier: BSD-2-Clause */
/* config.c -- validate the YAML tree of a lockrun config and fill a
 * struct lr_config; every complaint carries file:line:col. */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "config/config.h"
#include "config/crontab.h"
#include "config/files.h"
#include "config/options.h"
#include "config/server.h"
#include "config/tasksdir.h"
#include "config/walk.h"
#include "config/yamltree.h"
#include "core/file.h"
#include "core/keys.h"
#include "core/text.h"
#include "core/url.h"
#include "out/log.h"

/* The names of map's tasks into cfg->names, taken from the tree (its
 * keys are the file's names, checked for duplicates already); the tasks
 * whose value was read, into cfg->tasks. */
static int
parse_tasks(struct walk *w, const struct yt_node *map, struct lr_config *cfg)
{
	size_t nread = 0;

	if (walk_want_map(w, map, "tasks") != 0)
		return -1;
	for (size_t i = 1; i < map->nkids; i += 2)
		nread += map->kids[i]->kind != YT_SKIPPED;
	if ((cfg->names = calloc(map->nkids / 2 + 1, sizeof(*cfg->names))) == NULL ||
	    (cfg->tasks = calloc(nread + 1, sizeof(*cfg->tasks))) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < map->nkids; i += 2) {
		struct yt_node *k = map->kids[i];
		const struct yt_node *v = map->kids[i + 1];
		char section[300];
		struct lr_task *t;
		const char *why;

		if ((why = keys_name_problem(k->value)) != NULL)
			return walk_bad(w, k, "task name \"%s\" %s", k->value, why);
		if (v->kind == YT_SKIPPED) {	/* not asked for: its name only */
			cfg->names[cfg->nnames++] = k->value;
			k->value = NULL;	/* ours now; yt_free() skips NULL */
			continue;
		}
		t = &cfg->tasks[cfg->ntasks++];
		task_init(t);
		if ((t->name = strdup(k->value)) == NULL ||
		    (cfg->names[cfg->nnames++] = strdup(k->value)) == NULL)
			return lr_errf(w->e, EX_OSERR, "out of memory");
		snprintf(section, sizeof(section), "tasks.%s", k->value);
		if (options_parse(w, v, section, 1, t) != 0)
			return -1;
		if (t->argv == NULL)
			return walk_bad(w, k, "%s: no command (add command: [program, args...])",
			    section);
	}
	return 0;
}

/* Each task read, as it will run, over the defaults: refuse what cannot
 * work (kill_after too long for the ttl, ...), at the task's name. */
static int
check_tasks(struct walk *w, const struct yt_node *tasks, struct lr_config *cfg)
{
	size_t j = 0;

	for (size_t i = 0; i < tasks->nkids; i += 2)
		if (tasks->kids[i + 1]->kind != YT_SKIPPED &&
		    options_check(w, tasks->kids[i], &cfg->tasks[j++]) != 0)
			return -1;
	return 0;
}

/* tasks_dir: a folder of task files, taken from the config's folder. */
static int
set_tasks_dir(struct walk *w, const struct yt_node *v, struct lr_config *cfg)
{
	char path[PATH_MAX];
	const char *s = walk_want_string(w, v, "tasks_dir");

	if (s == NULL)
		return -1;
	if (*s == '\0')
		return walk_bad(w, v, "tasks_dir: is empty");
	if (files_relative(w->path, s, path, sizeof(path)) != 0)
		return walk_bad(w, v, "tasks_dir: the path is too long");
	if ((cfg->tasks_dir = strdup(path)) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	snprintf(cfg->tasks_dir_at, sizeof(cfg->tasks_dir_at), "%s:%d:%d: tasks_dir",
	    w->path, v->line, v->col);
	return 0;
}

/* One crontab file, to read after the tasks_dir; 0, or -1 with e. */
static int
add_crontab(struct lr_config *cfg, const char *path, int users, int given,
    struct lr_err *e)
{
	struct lr_crontab *c = &cfg->crontabs[cfg->ncrontabs];

	if (cfg->ncrontabs == CONFIG_CRONTABS_MAX)
		return lr_errf(e, EX_CONFIG, "%s: more than %d crontab files", path,
		    CONFIG_CRONTABS_MAX);
	if ((c->path = strdup(path)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	c->users = users;
	c->given = given;
	cfg->ncrontabs++;
	return 0;
}

/* crontab: FILE or a list of them, each from the config's folder;
 * system_crontab: the same in the /etc/crontab form. */
static int
set_crontabs(struct walk *w, const struct yt_node *v, const char *what, int users,
    struct lr_config *cfg)
{
	const struct yt_node *const *item = &v;
	size_t n = 1;
	char path[PATH_MAX];

	if (v->kind == YT_SEQ) {
		item = (const struct yt_node *const *)v->kids;
		n = v->nkids;
	}
	for (size_t i = 0; i < n; i++) {
		const char *s = walk_want_string(w, item[i], what);

		if (s == NULL)
			return -1;
		if (*s == '\0')
			return walk_bad(w, item[i], "%s: is empty", what);
		if (files_relative(w->path, s, path, sizeof(path)) != 0)
			return walk_bad(w, item[i], "%s: the path is too long", what);
		if (add_crontab(cfg, path, users, 0, w->e) != 0)
			return walk_bad(w, item[i], "%s", w->e->msg);
	}
	return 0;
}

static int
parse_root(struct walk *w, const struct yt_node *root, struct lr_config *cfg)
{
	const struct yt_node *tasks = NULL;
	const char *why;

	if (walk_want_map(w, root, "the top level") != 0)
		return -1;
	for (size_t i = 0; i < root->nkids; i += 2) {
		const struct yt_node *k = root->kids[i], *v = root->kids[i + 1];
		int rc;

		if (backend_section(k->value))
			rc = server_parse_section(w, k->value, v, &cfg->server);
		else if (strcmp(k->value, "url") == 0)
			rc = server_set_url(w, v, "url", &cfg->server.url);
		else if (strcmp(k->value, "prefix") == 0) {
			if ((rc = walk_set_string(w, v, "prefix", &cfg->prefix)) == 0 &&
			    (why = key_prefix_problem(cfg->prefix)) != NULL)
				rc = walk_bad(w, v, "prefix: \"%s\" %s", cfg->prefix, why);
		} else if (strcmp(k->value, "log") == 0) {
			if ((rc = walk_set_string(w, v, "log", &cfg->log)) == 0 &&
			    (why = log_spec_problem(cfg->log)) != NULL)
				rc = walk_bad(w, v, "log: \"%s\" %s", cfg->log, why);
		} else if (strcmp(k->value, "listen") == 0) {
			rc = walk_set_string(w, v, "listen", &cfg->listen);
			snprintf(cfg->listen_at, sizeof(cfg->listen_at), "%s:%d:%d: listen",
			    w->path, v->line, v->col);
		} else if (strcmp(k->value, "listen_token_file") == 0) {
			rc = walk_set_string(w, v, "listen_token_file", &cfg->listen_token_file);
			snprintf(cfg->listen_token_at, sizeof(cfg->listen_token_at),
			    "%s:%d:%d: listen_token_file", w->path, v->line, v->col);
		} else if (strcmp(k->value, "listen_names") == 0) {
			if ((rc = walk_set_string(w, v, "listen_names", &cfg->listen_names)) == 0 &&
			    (cfg->listen_names[0] == '\0' || text_has_control(cfg->listen_names)))
				rc = walk_bad(w, v, "listen_names: host names separated by spaces "
				    "or commas");
		} else if (strcmp(k->value, "defaults") == 0)
			rc = options_parse(w, v, "defaults", 0, &cfg->defaults);
		else if (strcmp(k->value, "tasks") == 0)
			tasks = v, rc = parse_tasks(w, v, cfg);
		else if (strcmp(k->value, "tasks_dir") == 0)
			rc = set_tasks_dir(w, v, cfg);
		else if (strcmp(k->value, "crontab") == 0)
			rc = set_crontabs(w, v, "crontab", 0, cfg);
		else if (strcmp(k->value, "system_crontab") == 0)
			rc = set_crontabs(w, v, "system_crontab", 1, cfg);
		else
			rc = walk_bad(w, k, "unknown key \"%s\" at the top level "
			    "(expected url, redis, prefix, log, listen, listen_token_file, "
			    "listen_names, defaults, tasks, tasks_dir, crontab or "
			    "system_crontab)", k->value);
		if (rc != 0)
			return -1;
	}
	return tasks ? check_tasks(w, tasks, cfg) : 0;
}

void
config_init(struct lr_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->server.connect_timeout_ms = cfg->server.command_timeout_ms = LR_UNSET;
	task_init(&cfg->defaults);
}

/* The top level's tasks: mapping, or NULL. */
static const struct yt_node *
tasks_of(const struct yt_node *root)
{
	for (size_t i = 0; root && root->kind == YT_MAP && i < root->nkids; i += 2)
		if (strcmp(root->kids[i]->value, "tasks") == 0)
			return root->kids[i + 1];
	return NULL;
}

/* A password in url: is a secret in the config file, a file shared
 * more widely than a password_file (a group may be let read the tasks):
 * a config its group or others may read is refused as a password_file
 * others may read is, so that it never hands them the password
 * silently. */
static int
url_secret(const char *path, const struct lr_config *cfg, struct lr_err *e)
{
	struct stat st;

	if (cfg->server.url == NULL || !url_has_password(cfg->server.url) ||
	    stat(path, &st) != 0 || (st.st_mode & (S_IRWXG | S_IRWXO)) == 0)
		return 0;
	return lr_errf(e, EX_CONFIG, "config %s holds a password in its url and is open "
	    "to other users (mode %04o); chmod go-rwx it, or move the password to a "
	    "password_file", path, (unsigned)(st.st_mode & 07777));
}

/* FNV-1a of a task's name, for the table of tasks by name. */
static size_t
name_hash(const char *s)
{
	size_t h = (size_t)14695981039346656037ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * (size_t)1099511628211ULL;
	return h;
}

/* The table config_task() looks a name up in, so that a caller asking
 * for each task in turn (check, cron) is linear in the number of tasks,
 * not quadratic: open addressing, at most half full. */
static int
index_tasks(struct lr_config *cfg)
{
	size_t n = 16;

	while (n < 2 * cfg->ntasks)
		n *= 2;
	if ((cfg->byname = calloc(n, sizeof(*cfg->byname))) == NULL)
		return -1;
	cfg->nbyname = n;
	for (size_t i = 0; i < cfg->ntasks; i++) {
		size_t at = name_hash(cfg->tasks[i].name) & (n - 1);

		while (cfg->byname[at] != 0)
			at = (at + 1) & (n - 1);
		cfg->byname[at] = i + 1;
	}
	return 0;
}

/* config_load(), with the tasks_dir's names listed when only is "" if
 * list is set; path NULL: no YAML file, the given crontabs only. */
static int
load(const char *path, const char *only, int list, int checking,
    const struct lr_crontab *given, size_t ngiven, struct lr_config *cfg, struct lr_err *e)
{
	struct walk w = { .path = path, .e = e, .cfg = cfg };
	struct yt_node *root = NULL;
	int rc = 0;

	config_init(cfg);
	cfg->checking = checking;
	if (path != NULL) {
		if ((cfg->path = strdup(path)) == NULL)
			return lr_errf(e, EX_OSERR, "out of memory");
		if (files_trusted(path, e) != 0 || yt_load(path, only, &root, e) != 0)
			return -1;
		rc = root ? parse_root(&w, root, cfg) : 0;
		if (rc == 0)
			rc = url_secret(path, cfg, e);
	}
	cfg->nmain = cfg->nnames;
	if (rc == 0 && cfg->tasks_dir)
		rc = tasksdir_read(&w, tasks_of(root), only, list);
	yt_free(root);
	for (size_t i = 0; i < ngiven && rc == 0; i++)
		rc = add_crontab(cfg, given[i].path, given[i].users, 1, e);
	for (size_t i = 0; i < cfg->ncrontabs && rc == 0; i++)
		rc = crontab_read(cfg, cfg->crontabs[i].path, cfg->crontabs[i].users, only, e);
	if (rc == 0 && index_tasks(cfg) != 0)
		rc = lr_errf(e, EX_OSERR, "out of memory");
	return rc;
}

int
config_load(const char *path, const char *only, struct lr_config *cfg, struct lr_err *e)
{
	return load(path, only, 0, 0, NULL, 0, cfg, e);
}

int
config_load_names(const char *path, struct lr_config *cfg, struct lr_err *e)
{
	return load(path, "", 1, 0, NULL, 0, cfg, e);
}

int
config_load_with(const char *path, const char *only, int list, int checking,
    const struct lr_crontab *crontabs, size_t n, struct lr_config *cfg, struct lr_err *e)
{
	return load(path, only, list, checking, crontabs, n, cfg, e);
}

int
config_reload(const struct lr_config *old, struct lr_config *cfg, struct lr_err *e)
{
	struct lr_crontab given[CONFIG_CRONTABS_MAX];
	size_t n = 0;

	for (size_t i = 0; i < old->ncrontabs; i++)
		if (old->crontabs[i].given)
			given[n++] = old->crontabs[i];
	return load(old->path, NULL, 0, 0, given, n, cfg, e);
}

void
config_free(struct lr_config *cfg)
{
	if (cfg == NULL)
		return;
	for (size_t i = 0; i < cfg->ntasks; i++)
		task_free(&cfg->tasks[i]);
	free(cfg->tasks);
	free(cfg->byname);
	for (size_t i = 0; i < cfg->nnames; i++)
		free(cfg->names[i]);
	free(cfg->names);
	task_free(&cfg->defaults);
	free((char *)cfg->server.url);		/* ours: walk_set_string() made them */
	free((char *)cfg->server.password_file);
	settings_free(&cfg->server.own);
	free(cfg->prefix);
	free(cfg->listen);
	free(cfg->listen_token_file);
	free(cfg->listen_names);
	free(cfg->log);
	free(cfg->tasks_dir);
	free(cfg->path);
	for (size_t i = 0; i < cfg->ncrontabs; i++)
		free(cfg->crontabs[i].path);
	for (size_t i = 0; i < cfg->nnotes; i++)
		free(cfg->notes[i].text);
	free(cfg->notes);
	config_init(cfg);
}

int
config_copy_server(const struct lr_config *src, struct lr_config *dst, struct lr_err *e)
{
	const struct lr_server_opts *s = &src->server;
	struct lr_settings *own = &dst->server.own;

	config_init(dst);
	if ((src->path && (dst->path = strdup(src->path)) == NULL) ||
	    (s->url && (dst->server.url = strdup(s->url)) == NULL) ||
	    (s->password_file && (dst->server.password_file = strdup(s->password_file)) ==
	    NULL) || (src->prefix && (dst->prefix = strdup(src->prefix)) == NULL))
		return lr_errf(e, EX_OSERR, "out of memory");
	dst->server.connect_timeout_ms = s->connect_timeout_ms;
	dst->server.command_timeout_ms = s->command_timeout_ms;
	memcpy(dst->url_at, src->url_at, sizeof(dst->url_at));
	for (size_t i = 0; i < s->own.n; i++) {
		const struct lr_setting *o = &s->own.v[i];

		if (settings_add(own, o->section, o->key, o->value, o->at, o->what, o->status,
		    e) != 0 || (o->key_at && setting_key_at(&own->v[own->n - 1], o->key_at,
		    e) != 0))
			return -1;
	}
	return 0;
}

int
config_is_set(const struct lr_config *cfg)
{
	return cfg->path != NULL || cfg->ncrontabs > 0;
}

const char *
config_where(const struct lr_config *cfg)
{
	return cfg->path ? cfg->path : cfg->ncrontabs ? cfg->crontabs[0].path : "no config";
}

int
config_has(const struct lr_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nnames; i++)
		if (strcmp(cfg->names[i], name) == 0)
			return 1;
	return 0;
}

const struct lr_task *
config_task(const struct lr_config *cfg, const char *name)
{
	size_t at, i;

	if (cfg->byname == NULL) {	/* not loaded: a config made by hand */
		for (i = 0; i < cfg->ntasks; i++)
			if (strcmp(cfg->tasks[i].name, name) == 0)
				return &cfg->tasks[i];
		return NULL;
	}
	for (at = name_hash(name) & (cfg->nbyname - 1); (i = cfg->byname[at]) != 0;
	    at = (at + 1) & (cfg->nbyname - 1))
		if (strcmp(cfg->tasks[i - 1].name, name) == 0)
			return &cfg->tasks[i - 1];
	return NULL;
}

void
config_task_file(const struct lr_config *cfg, const char *name, char *out, size_t n)
{
	const struct lr_task *t;
	const char *end;

	for (size_t i = 0; i < cfg->nmain; i++)
		if (strcmp(cfg->names[i], name) == 0) {
			snprintf(out, n, "%s", cfg->path);
			return;
		}
	if (cfg->tasks_dir != NULL && files_task_path(cfg->tasks_dir, name, out, n) == 0 &&
	    access(out, F_OK) == 0)
		return;
	/* a crontab's: its argv_at is "path:line:col" */
	t = config_task(cfg, name);
	for (size_t i = 0; i < cfg->ncrontabs; i++) {
		size_t len = strlen(cfg->crontabs[i].path);

		if (t != NULL && t->argv_at != NULL &&
		    strncmp(t->argv_at, cfg->crontabs[i].path, len) == 0 &&
		    t->argv_at[len] == ':' && (end = strchr(t->argv_at + len + 1, ':')) &&
		    strchr(end + 1, ':') == NULL) {
			snprintf(out, n, "%s", cfg->crontabs[i].path);
			return;
		}
	}
	snprintf(out, n, "%s", cfg->path ? cfg->path : "(no config)");
}

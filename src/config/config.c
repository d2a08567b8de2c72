/* SPDX-License-Identifier: BSD-2-Clause */
/* config.c -- validate the YAML tree of a lockrun config and fill a
 * struct lr_config; every complaint carries file:line:col. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "config/config.h"
#include "core/cron.h"
#include "core/duration.h"
#include "core/keys.h"
#include "out/log.h"
#include "config/yamltree.h"

struct walk {
	const char		*path;
	struct lr_err		*e;
	struct lr_config	*cfg;
};

static int
bad(struct walk *w, const struct yt_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
bad(struct walk *w, const struct yt_node *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return lr_errf(w->e, EX_CONFIG, "%s:%d:%d: %s", w->path, n->line, n->col, msg);
}

/* A plain ~, null or empty value is YAML's null: "nothing". */
static int
is_null(const struct yt_node *n)
{
	return n->kind == YT_SCALAR && !n->quoted && (n->value[0] == '\0' ||
	    strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0);
}

static const char *
kind_of(const struct yt_node *n)
{
	return is_null(n) ? "nothing" : yt_kind_name(n);
}

/* The value of n as a non-null string, or NULL after reporting. */
static const char *
want_string(struct walk *w, const struct yt_node *n, const char *what)
{
	if (n->kind != YT_SCALAR || is_null(n)) {
		bad(w, n, "%s: expected a string, got %s", what, kind_of(n));
		return NULL;
	}
	return n->value;
}

static int
want_map(struct walk *w, const struct yt_node *n, const char *what)
{
	if (n->kind == YT_MAP)
		return 0;
	return bad(w, n, "%s: expected a mapping, got %s", what, kind_of(n));
}

static int
set_string(struct walk *w, const struct yt_node *n, const char *what, char **dst)
{
	const char *s = want_string(w, n, what);

	if (s == NULL)
		return -1;
	free(*dst);
	if ((*dst = strdup(s)) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	return 0;
}

static int
set_timeout(struct walk *w, const struct yt_node *n, const char *what, long long *dst)
{
	const char *s = want_string(w, n, what);

	if (s == NULL)
		return -1;
	if (duration_parse(s, dst) != 0 || *dst <= 0)
		return bad(w, n, "%s: \"%s\" is not a positive duration "
		    "(e.g. 500ms, 90s, 10m, 1h30m)", what, s);
	return 0;
}

/* redis: tls: {ca_file, cert_file, key_file, server_name, insecure} */
static int
parse_tls(struct walk *w, const struct yt_node *map, struct lr_tls_opts *t)
{
	static const char *const files[] = { "ca_file", "cert_file", "key_file",
	    "server_name" };
	char **dst[] = { (char **)&t->ca_file, (char **)&t->cert_file,
	    (char **)&t->key_file, (char **)&t->server_name };

	if (want_map(w, map, "redis.tls") != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		char what[40];
		size_t f = 0;

		snprintf(what, sizeof(what), "redis.tls.%s", k->value);
		while (f < 4 && strcmp(k->value, files[f]) != 0)
			f++;
		if (f < 4) {
			if (set_string(w, v, what, dst[f]) != 0)
				return -1;
			if (f == 3 && (strlen(v->value) > 253 ||
			    v->value[strcspn(v->value, " \t\r\n/")] != '\0'))
				return bad(w, v, "%s: \"%s\" is not a host name", what, v->value);
		} else if (strcmp(k->value, "insecure") == 0) {
			if (v->kind != YT_SCALAR || v->quoted ||
			    (strcmp(v->value, "true") != 0 && strcmp(v->value, "false") != 0))
				return bad(w, v, "%s: expected true or false", what);
			t->insecure = strcmp(v->value, "true") == 0;
		} else
			return bad(w, k, "unknown key \"%s\" in redis.tls", k->value);
	}
	if (t->key_file && !t->cert_file)
		return bad(w, map, "redis.tls: key_file without cert_file");
	return 0;
}

/* redis.wait_replicas: a whole number of replicas, 0 (off) or more. */
static int
set_replicas(struct walk *w, const struct yt_node *n, long long *dst)
{
	const char *s = want_string(w, n, "redis.wait_replicas");
	char *end;

	if (s == NULL)
		return -1;
	*dst = strtoll(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || *dst > LR_WAIT_REPLICAS_MAX)
		return bad(w, n, "redis.wait_replicas: \"%s\" is not a number of replicas "
		    "(0 to %d; 0: do not wait)", s, LR_WAIT_REPLICAS_MAX);
	return 0;
}

/* WAIT must answer within the command timeout, or lockrun would give up on
 * the connection before Redis gives up waiting. */
static int
check_wait_timeout(struct walk *w, const struct yt_node *n, const struct lr_server_opts *r)
{
	long long cmd = r->command_timeout_ms == LR_UNSET ? LR_COMMAND_TIMEOUT_MS :
	    r->command_timeout_ms;
	char a[32], b[32];

	if (n == NULL || r->wait_timeout_ms < cmd)
		return 0;
	duration_format(r->wait_timeout_ms, a, sizeof(a));
	duration_format(cmd, b, sizeof(b));
	return bad(w, n, "redis.wait_timeout: %s must be shorter than the command "
	    "timeout (%s)", a, b);
}

/* url: (or redis.url:), where the lock lives. A Redis or MySQL URL is
 * checked here; a PostgreSQL one when the backend is set up, with libpq,
 * which reads it (ctx.c names this place, url_at, when it is refused). */
static int
set_url(struct walk *w, const struct yt_node *v, const char *what, const char **url)
{
	char *s = (char *)*url;
	struct lr_err ue;

	if (*url != NULL)
		return bad(w, v, "%s: the URL is given twice (url and redis.url)", what);
	if (set_string(w, v, what, &s) != 0)
		return -1;
	*url = s;
	snprintf(w->cfg->url_at, sizeof(w->cfg->url_at), "%s:%d:%d: %s", w->path,
	    v->line, v->col, what);
	/* a PostgreSQL URL is libpq's to read: checked with libpq loaded */
	if (backend_check_url(s, &ue) != 0)
		return bad(w, v, "%s: %s", what, ue.msg +
		    (strncmp(ue.msg, "redis URL: ", 11) == 0 ? 11 : 0));
	return 0;
}

static int
parse_redis(struct walk *w, const struct yt_node *map, struct lr_server_opts *r)
{
	char *file = (char *)r->password_file;
	char *sfile = (char *)r->sentinel_password_file;
	const struct yt_node *wait_timeout = NULL;

	if (want_map(w, map, "redis") != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		int rc;

		if (strcmp(k->value, "url") == 0)
			rc = set_url(w, v, "redis.url", &r->url);
		else if (strcmp(k->value, "password_file") == 0) {
			rc = set_string(w, v, "redis.password_file", &file);
			r->password_file = file;
		} else if (strcmp(k->value, "sentinel_password_file") == 0) {
			rc = set_string(w, v, "redis.sentinel_password_file", &sfile);
			r->sentinel_password_file = sfile;
		}
		else if (strcmp(k->value, "connect_timeout") == 0)
			rc = set_timeout(w, v, "redis.connect_timeout", &r->connect_timeout_ms);
		else if (strcmp(k->value, "command_timeout") == 0)
			rc = set_timeout(w, v, "redis.command_timeout", &r->command_timeout_ms);
		else if (strcmp(k->value, "wait_replicas") == 0)
			rc = set_replicas(w, v, &r->wait_replicas);
		else if (strcmp(k->value, "wait_timeout") == 0) {
			rc = set_timeout(w, v, "redis.wait_timeout", &r->wait_timeout_ms);
			wait_timeout = v;
		} else if (strcmp(k->value, "tls") == 0) {
			rc = parse_tls(w, v, &r->tls);
			snprintf(w->cfg->tls_at, sizeof(w->cfg->tls_at), "%s:%d:%d: redis.tls",
			    w->path, k->line, k->col);
		}
		else
			rc = bad(w, k, "unknown key \"%s\" in redis", k->value);
		if (rc != 0)
			return -1;
	}
	return check_wait_timeout(w, wait_timeout, r);
}

/* command: [prog, arg...] runs prog directly; command: "string" runs it
 * with /bin/sh -c, unless shell: says otherwise. With shell: true and a
 * list, the first item is the script and the rest are $0, $1, ... */
static int
parse_command(struct walk *w, const struct yt_node *v, const char *what,
    struct lr_task *t)
{
	size_t n = v->kind == YT_SEQ ? v->nkids : 1;

	if (v->kind == YT_SEQ && n == 0)
		return bad(w, v, "%s: is an empty list", what);
	if (v->kind == YT_MAP || is_null(v))
		return bad(w, v, "%s: expected a list of strings or a string, got %s",
		    what, kind_of(v));
	if ((t->argv = calloc(n + 1, sizeof(char *))) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct yt_node *a = v->kind == YT_SEQ ? v->kids[i] : v;
		if (a->kind != YT_SCALAR || is_null(a))
			return bad(w, a, "%s: expected a list of strings, got %s in it",
			    what, kind_of(a));
		if ((t->argv[i] = strdup(a->value)) == NULL)
			return lr_errf(w->e, EX_OSERR, "out of memory");
	}
	if (v->kind == YT_SCALAR && t->argv[0][0] == '\0')
		return bad(w, v, "%s: is an empty string", what);
	if (t->shell == LR_UNSET)	/* an explicit shell: wins, wherever it is */
		t->shell = v->kind == YT_SCALAR;
	return 0;
}

static int
parse_env(struct walk *w, const struct yt_node *map, const char *what,
    struct lr_task *t)
{
	struct lr_err te;

	if (want_map(w, map, what) != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct yt_node *k = map->kids[i], *v = map->kids[i + 1];
		char item[400];
		const char *val;

		snprintf(item, sizeof(item), "%s.%s", what, k->value);
		if ((val = want_string(w, v, item)) == NULL)
			return -1;
		if (task_add_env(t, k->value, val, &te) != 0)
			return bad(w, k, "%s: %s", what, te.msg);
	}
	return 0;
}

/* A schedule is checked where it is written, pointing at the field at
 * fault; a zone name must exist. */
static int
check_schedule(struct walk *w, const struct yt_node *k, const struct yt_node *v,
    const char *what)
{
	struct lr_cron c;
	struct lr_err ce;
	int pos = 0;

	if (strcmp(k->value, "schedule") == 0 &&
	    cron_parse(v->value, &c, &pos, &ce) != 0)
		return lr_errf(w->e, EX_CONFIG, "%s:%d:%d: %s: %s", w->path, v->line,
		    v->col + (v->quoted ? 1 : 0) + pos, what, ce.msg);
	if (strcmp(k->value, "timezone") == 0 &&
	    cron_set_tz(&c, v->value, &ce) != 0)
		return bad(w, v, "%s: %s", what, ce.msg);
	return 0;
}

/* on_start: [program, arg...]: a hook is a list, run without a shell. */
static int
parse_hook(struct walk *w, const struct yt_node *v, const char *what, char ***dst)
{
	if (v->kind != YT_SEQ || v->nkids == 0)
		return bad(w, v, "%s: expected a list [program, args...], got %s", what,
		    v->kind == YT_SEQ ? "an empty list" : kind_of(v));
	strv_free(*dst);
	if ((*dst = calloc(v->nkids + 1, sizeof(char *))) == NULL)
		return lr_errf(w->e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < v->nkids; i++) {
		const struct yt_node *a = v->kids[i];
		if (a->kind != YT_SCALAR || is_null(a))
			return bad(w, a, "%s: expected a list of strings, got %s in it",
			    what, kind_of(a));
		if (((*dst)[i] = strdup(a->value)) == NULL)
			return lr_errf(w->e, EX_OSERR, "out of memory");
	}
	return 0;
}

/* The hook list called name in t, or NULL if name is not a hook. */
static char ***
hook_of(struct lr_task *t, const char *name)
{
	if (strcmp(name, "on_start") == 0)
		return &t->on_start;
	if (strcmp(name, "on_success") == 0)
		return &t->on_success;
	if (strcmp(name, "on_failure") == 0)
		return &t->on_failure;
	return NULL;
}

/* One task option (or a default, when is_task is 0). */
static int
parse_option(struct walk *w, const struct yt_node *k, const struct yt_node *v,
    const char *section, int is_task, struct lr_task *t)
{
	char what[300], ***hook;
	struct lr_err te;
	int rc;

	snprintf(what, sizeof(what), "%s.%s", section, k->value);
	if ((hook = hook_of(t, k->value)) != NULL)
		return parse_hook(w, v, what, hook);
	if (strcmp(k->value, "command") == 0) {
		if (!is_task)
			return bad(w, k, "defaults cannot have a command (give it to a task)");
		return parse_command(w, v, what, t);
	}
	if (strcmp(k->value, "env") == 0)
		return parse_env(w, v, what, t);
	if (strcmp(k->value, "shell") == 0 && !is_task)	/* it goes with a command */
		return bad(w, k, "defaults cannot have shell (give it to a task)");
	if (v->kind != YT_SCALAR || is_null(v))
		return bad(w, v, "%s: expected a value, got %s", what, kind_of(v));
	rc = task_set(t, k->value, v->value, &te);
	if (rc == 0)
		return bad(w, k, "unknown key \"%s\" in %s", k->value, section);
	if (rc < 0)
		return bad(w, v, "%s: %s", what, te.msg);
	return check_schedule(w, k, v, what);
}

static int
parse_options(struct walk *w, const struct yt_node *map, const char *section,
    int is_task, struct lr_task *t)
{
	if (want_map(w, map, section) != 0)
		return -1;
	for (size_t i = 0; i < map->nkids; i += 2)
		if (parse_option(w, map->kids[i], map->kids[i + 1], section, is_task, t) != 0)
			return -1;
	return 0;
}

/* The names of map's tasks into cfg->names, taken from the tree (its
 * keys are the file's names, checked for duplicates already); the tasks
 * whose value was read, into cfg->tasks. */
static int
parse_tasks(struct walk *w, const struct yt_node *map, struct lr_config *cfg)
{
	size_t nread = 0;

	if (want_map(w, map, "tasks") != 0)
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

		if ((why = key_name_problem(k->value)) != NULL)
			return bad(w, k, "task name \"%s\" %s", k->value, why);
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
		if (parse_options(w, v, section, 1, t) != 0)
			return -1;
		if (t->argv == NULL)
			return bad(w, k, "%s: no command (add command: [program, args...])",
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

	for (size_t i = 0; i < tasks->nkids; i += 2) {
		struct lr_task t;
		struct lr_err te;
		int rc;

		if (tasks->kids[i + 1]->kind == YT_SKIPPED)
			continue;
		task_init(&t);
		rc = task_inherit(&t, &cfg->tasks[j]) != 0 ||
		    task_inherit(&t, &cfg->defaults) != 0 ? -2 :
		    task_finish(&t, NULL, &te);
		task_free(&t);
		if (rc == -2)
			return lr_errf(w->e, EX_OSERR, "out of memory");
		if (rc != 0)
			return bad(w, tasks->kids[i], "tasks.%s: %s", cfg->tasks[j].name,
			    te.msg);
		j++;
	}
	return 0;
}

static int
parse_root(struct walk *w, const struct yt_node *root, struct lr_config *cfg)
{
	const struct yt_node *tasks = NULL;
	const char *why;

	if (want_map(w, root, "the top level") != 0)
		return -1;
	for (size_t i = 0; i < root->nkids; i += 2) {
		const struct yt_node *k = root->kids[i], *v = root->kids[i + 1];
		int rc;

		if (strcmp(k->value, "redis") == 0)
			rc = parse_redis(w, v, &cfg->server);
		else if (strcmp(k->value, "url") == 0)
			rc = set_url(w, v, "url", &cfg->server.url);
		else if (strcmp(k->value, "prefix") == 0) {
			if ((rc = set_string(w, v, "prefix", &cfg->prefix)) == 0 &&
			    (why = key_prefix_problem(cfg->prefix)) != NULL)
				rc = bad(w, v, "prefix: \"%s\" %s", cfg->prefix, why);
		} else if (strcmp(k->value, "log") == 0) {
			if ((rc = set_string(w, v, "log", &cfg->log)) == 0 &&
			    (why = log_spec_problem(cfg->log)) != NULL)
				rc = bad(w, v, "log: \"%s\" %s", cfg->log, why);
		} else if (strcmp(k->value, "defaults") == 0)
			rc = parse_options(w, v, "defaults", 0, &cfg->defaults);
		else if (strcmp(k->value, "tasks") == 0)
			tasks = v, rc = parse_tasks(w, v, cfg);
		else
			rc = bad(w, k, "unknown key \"%s\" at the top level "
			    "(expected url, redis, prefix, log, defaults or tasks)", k->value);
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
	cfg->server.wait_replicas = cfg->server.wait_timeout_ms = LR_UNSET;
	task_init(&cfg->defaults);
}

int
config_load(const char *path, const char *only, struct lr_config *cfg, struct lr_err *e)
{
	struct walk w = { .path = path, .e = e, .cfg = cfg };
	struct yt_node *root;
	int rc;

	config_init(cfg);
	if ((cfg->path = strdup(path)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (yt_load(path, only, &root, e) != 0)
		return -1;
	rc = root ? parse_root(&w, root, cfg) : 0;
	yt_free(root);
	return rc;
}

void
config_free(struct lr_config *cfg)
{
	if (cfg == NULL)
		return;
	for (size_t i = 0; i < cfg->ntasks; i++)
		task_free(&cfg->tasks[i]);
	free(cfg->tasks);
	for (size_t i = 0; i < cfg->nnames; i++)
		free(cfg->names[i]);
	free(cfg->names);
	task_free(&cfg->defaults);
	free((char *)cfg->server.url);		/* ours: set_string() made them */
	free((char *)cfg->server.password_file);
	free((char *)cfg->server.sentinel_password_file);
	free((char *)cfg->server.tls.ca_file);
	free((char *)cfg->server.tls.cert_file);
	free((char *)cfg->server.tls.key_file);
	free((char *)cfg->server.tls.server_name);
	free(cfg->prefix);
	free(cfg->log);
	free(cfg->path);
	config_init(cfg);
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
	for (size_t i = 0; i < cfg->ntasks; i++)
		if (strcmp(cfg->tasks[i].name, name) == 0)
			return &cfg->tasks[i];
	return NULL;
}

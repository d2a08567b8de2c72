/* SPDX-License-Identifier: BSD-2-Clause */
/* ctx.c -- the settings every verb shares, merged in one order: command
 * line, environment, task, the config's defaults, built-in values. */
#include <sys/stat.h>
#include <sys/utsname.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ctx.h"
#include "cli/secret.h"
#include "core/file.h"
#include "core/near.h"
#include "core/url.h"
#include "out/log.h"

int
ctx_init(struct lr_ctx *x)
{
	memset(x, 0, sizeof(*x));
	task_init(&x->t);
	if ((x->cfg = malloc(sizeof(*x->cfg))) == NULL)
		return -1;
	config_init(x->cfg);
	return 0;
}

void
ctx_free(struct lr_ctx *x)
{
	if (x == NULL)		/* as free(3) */
		return;
	if (x->be.ops)
		x->be.ops->free(&x->be);
	task_free(&x->t);
	if (x->cfg && !x->cfg_borrowed)
		config_free(x->cfg);
	free(x->cfg);
	x->cfg = NULL;
	settings_free(&x->server.own);
	if (x->url_copy) {
		explicit_bzero(x->url_copy, strlen(x->url_copy));
		free(x->url_copy);
		x->url_copy = NULL;
	}
	if (x->password) {
		explicit_bzero(x->password, PASSWORD_MAX);
		free(x->password);
		x->password = NULL;
	}
	free(x->sources);
	free(x->prefix_from);
	free(x->part);
	x->sources = x->prefix_from = x->part = NULL;
}

/* Which task a verb reads in full from the config (config_load's only):
 * all of them to check it; the one run, or unlocked; none to list them. */
static const char *
config_part(struct lr_ctx *x)
{
	const char *word = x->cli.cmd ? x->cli.cmd[0] : NULL;
	struct lr_key_parts kp;

	switch (x->cli.def->reads) {
	case READS_ALL:
		return NULL;
	case READS_TASK:
		return x->cli.task ? x->cli.task : "";
	case READS_TARGET:	/* a task, or a key: prefix{task}[:slot:...] */
		if (word == NULL)
			return "";
		if (strchr(word, '{') == NULL)
			return word;
		free(x->part);
		if (keys_parse(word, NULL, &kp) != 0 || (x->part = strdup(kp.name)) == NULL)
			return "";	/* out of memory: a task none is named */
		return x->part;
	case READS_NAMES: case READS_NONE:
		break;
	}
	return "";
}

int
ctx_load_config(struct lr_ctx *x, const struct lr_config *loaded, struct lr_err *e)
{
	const char *path = x->cli.config;

	if (loaded) {
		*x->cfg = *loaded;
		x->cfg_borrowed = 1;
		return 0;
	}

	if (path == NULL)
		path = getenv("LOCKRUN_CONFIG");
	if (path != NULL && strcmp(path, CONFIG_NONE) == 0) {	/* -c none */
		if (x->cli.ncrontabs == 0)
			return 0;
		path = NULL;	/* the crontabs alone */
	} else if (path == NULL || *path == '\0') {
		struct stat st;

		/* only "no such file" is no config: one that is there but cannot
		 * be read (a directory above it closed to this user, a FIFO, an
		 * I/O error) is config_load()'s error, never a silent run with
		 * built-in settings against another server. lstat: a dangling
		 * symlink is a config that is missing, not an absent one. */
		path = CONFIG_DEFAULT_PATH;
		if (lstat(CONFIG_DEFAULT_PATH, &st) != 0 && errno == ENOENT) {
			if (x->cli.ncrontabs == 0)
				return 0;
			path = NULL;	/* the crontabs alone */
		}
	}
	/* status lists every task: the tasks_dir's names too */
	return config_load_with(path, x->cli.def->reads == READS_NAMES ? "" :
	    config_part(x), x->cli.def->reads == READS_NAMES, x->cli.verb == VERB_CHECK,
	    x->cli.crontabs, x->cli.ncrontabs, x->cfg, e);
}

/* After e's "no such task": the nearest task names, if any are near,
 * the tasks_dir's too (its names read for this, its files not opened;
 * a run opens one file). Returns -1. */
static int
nearest_tasks(const struct lr_ctx *x, const char *name, struct lr_err *e)
{
	const struct lr_config *cfg = x->cfg;
	struct lr_config all;
	struct lr_err ignored = LR_ERR_INIT;
	size_t near[NEAR_MAX], k, len;

	/* a mistake is rare: list the tasks_dir's names for it alone */
	config_init(&all);
	if (cfg->tasks_dir && cfg->path && config_load_names(cfg->path, &all, &ignored) == 0)
		cfg = &all;
	k = near_words(name, (const char *const *)cfg->names, cfg->nnames, near);
	for (size_t i = 0; i < k; i++) {
		len = strlen(e->msg);
		snprintf(e->msg + len, sizeof(e->msg) - len, "%s%s", i ? (i + 1 == k ?
		    " or " : ", ") : " (did you mean ", cfg->names[near[i]]);
	}
	len = strlen(e->msg);
	if (k > 0)
		snprintf(e->msg + len, sizeof(e->msg) - len, "?)");
	config_free(&all);
	return -1;
}

/* The task's own settings, or NULL when there is no task. */
static int
find_task(struct lr_ctx *x, const char *name, const struct lr_task **task,
    struct lr_err *e)
{
	const char *opt = x->cli.def->command ? "-t " : "";

	*task = NULL;
	if (name == NULL)
		return 0;
	if (!config_is_set(x->cfg))
		return lr_errf(e, EX_USAGE, "%s%s: no config file (give -c FILE, set "
		    "LOCKRUN_CONFIG, or create " CONFIG_DEFAULT_PATH ")", opt, name);
	if ((*task = config_task(x->cfg, name)) != NULL)
		return 0;
	if (config_has(x->cfg, name))	/* config_part() chose another */
		return lr_errf(e, EX_SOFTWARE, "%s: task %s was not read",
		    config_where(x->cfg), name);
	if (x->cfg->tasks_dir)
		lr_errf(e, EX_USAGE, "%s%s: no such task in %s, nor a file %s.yaml in "
		    "%s", opt, name, x->cfg->path, name, x->cfg->tasks_dir);
	else
		lr_errf(e, EX_USAGE, "%s%s: no such task in %s%s", opt, name,
		    config_where(x->cfg), x->cfg->path && x->cfg->ncrontabs ? " nor its "
		    "crontabs" : "");
	return nearest_tasks(x, name, e);
}

int
ctx_known_task(struct lr_ctx *x, const char *name, struct lr_err *e)
{
	const struct lr_task *task;

	return find_task(x, name, &task, e);
}

/* An option of the command line that changes nothing is a mistake:
 * 64, named as it was given (--slot-tolerance). */
static int
no_effect(const struct lr_task *given, const struct lr_task *t, struct lr_err *e)
{
	const char *setting, *why = task_no_effect(given, t, 1, &setting);
	char opt[32];
	size_t i;

	if (why == NULL)
		return 0;
	for (i = 0; i < sizeof(opt) - 1 && setting[i]; i++)
		opt[i] = setting[i] == '_' ? '-' : setting[i];
	opt[i] = '\0';
	return lr_errf(e, EX_USAGE, "--%s %s", opt, why);
}

int
ctx_merge(struct lr_ctx *x, const char *name, struct lr_err *e)
{
	const struct lr_task *task;
	struct lr_task over = x->cli.o;	/* borrowed: task_resolve() copies */
	struct lr_err te;

	if (find_task(x, name ? name : x->cli.task, &task, e) != 0)
		return -1;
	if (x->cli.def->command && x->cli.cmd) {	/* a command after -- replaces
							 * the task's, shell and all */
		over.argv = x->cli.cmd;
		over.argv_at = NULL;
		if (over.shell == LR_UNSET)
			over.shell = 0;
	}
	task_free(&x->t);
	/* the config's own combinations were checked when it was loaded: what
	 * is refused here is the command line's */
	if (task_resolve(&x->t, &over, task, &x->cfg->defaults, &x->sched, &te) != 0)
		return lr_errf(e, te.status == EX_OSERR ? EX_OSERR : EX_USAGE, "%s", te.msg);
	return no_effect(&x->cli.o, &x->t, e);
}

static const char *const url_vars[] = { "LOCKRUN_URL", "LOCKRUN_REDIS_URL" };

/* Set up the backend the URL names, with the settings every backend has
 * (and, in opts, its own). */
static int
ctx_backend(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_backend_cfg c = { .url = x->server.url, .password = x->password,
	    .connect_timeout_ms = x->server.connect_timeout_ms,
	    .command_timeout_ms = x->server.command_timeout_ms, .own = &x->server.own };

	if (x->be.ops)
		x->be.ops->free(&x->be);
	return backend_init(&x->be, &c, e);
}

/* The password, first found of: the file given on the command line,
 * $LOCKRUN_REDIS_PASSWORD, the config's password_file; else "", and the
 * backend takes the URL's. */
static int
ctx_password(struct lr_ctx *x, struct lr_err *e)
{
	const char *cfg_file = x->cfg->server.password_file;
	int env;

	if (x->password == NULL && (x->password = malloc(PASSWORD_MAX)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	x->password[0] = '\0';
	if (x->cli.server.password_file)
		return file_read_secret(x->cli.server.password_file, "password_file",
		    x->password, PASSWORD_MAX, e);
	if ((env = file_env_secret("LOCKRUN_REDIS_PASSWORD", x->password,
	    PASSWORD_MAX, e)) != 0)
		return env < 0 ? -1 : 0;
	if (cfg_file)
		return file_read_secret(cfg_file, "password_file", x->password,
		    PASSWORD_MAX, e);
	return 0;
}

/* Where the URL and the password came from, into x->sources ("URL
 * redis://127.0.0.1:6379/0 from the built-in default; no password"), and
 * the prefix, into x->prefix_from. The URL is shown only when it is the
 * default (any other may hold a password); the password never. */
static void
sources_note(struct lr_ctx *x, const char *url_from, const char *env_pw)
{
	const char *pw_file = x->cli.server.password_file ? x->cli.server.password_file :
	    env_pw ? NULL : x->cfg->server.password_file;
	char url[400], pw[PATH_MAX + 64];

	if (url_from == NULL)
		snprintf(url, sizeof(url), "URL %s from the built-in default", DEFAULT_URL);
	else
		snprintf(url, sizeof(url), "URL from %s", url_from);
	if (env_pw)
		snprintf(pw, sizeof(pw), "password from $LOCKRUN_REDIS_PASSWORD");
	else if (pw_file)
		snprintf(pw, sizeof(pw), "password from %s %s%s%s",
		    x->cli.server.password_file ? "--password-file" : "password_file", pw_file,
		    x->cli.server.password_file ? "" : " in ",
		    x->cli.server.password_file ? "" : x->cfg->path);
	else
		snprintf(pw, sizeof(pw), url_has_password(x->server.url) ?
		    "password from the URL" : "no password");
	free(x->prefix_from);
	free(x->sources);
	x->prefix_from = x->sources = NULL;
	/* out of memory: each stays NULL, and is not said */
	if (x->cli.prefix)
		x->prefix_from = strdup("prefix from --prefix");
	else if (x->cfg->prefix && asprintf(&x->prefix_from, "prefix from %s",
	    x->cfg->path) < 0)
		x->prefix_from = NULL;
	else if (!x->cfg->prefix && asprintf(&x->prefix_from, "prefix \"%s\" from the "
	    "built-in default", DEFAULT_PREFIX) < 0)
		x->prefix_from = NULL;
	if (asprintf(&x->sources, "%s; %s", url, pw) < 0)
		x->sources = NULL;
}

/* The passwords are lockrun's, not the command's nor anyone else's: out
 * of the environment the command inherits, and out of the environment
 * block and argv that /proc shows of lockrun and its guard. The URL in
 * use was copied (ctx_server()), so it may point into either. */
static void
secrets_hide(struct lr_ctx *x)
{
	secret_env_wipe("LOCKRUN_REDIS_PASSWORD");
	secret_env_wipe("LOCKRUN_SENTINEL_PASSWORD");
	/* either variable, the one in use or not */
	for (size_t i = 0; i < sizeof(url_vars) / sizeof(url_vars[0]); i++)
		secret_env_url_wipe(url_vars[i]);
	if (x->cli.server.url && secret_url_mask((char *)x->cli.server.url) > 0)
		lr_warn("--url: a password on the command line can be read by any user "
		    "(ps, /proc) until lockrun hides it; give it in a password file "
		    "(--password-file) or $LOCKRUN_REDIS_PASSWORD");
}

/* Where the URL in use comes from, in the order that chooses it. */
enum url_source { URL_CLI, URL_ENV, URL_ENV_REDIS, URL_CONFIG, URL_DEFAULT };

/* The one choice of the URL: --url, $LOCKRUN_URL, $LOCKRUN_REDIS_URL, the
 * config's, else DEFAULT_URL; where it came from into *src. */
static const char *
url_choose(const struct lr_ctx *x, enum url_source *src)
{
	const char *env;

	if (x->cli.server.url)
		return *src = URL_CLI, x->cli.server.url;
	if ((env = getenv(url_vars[0])) != NULL && *env != '\0')
		return *src = URL_ENV, env;
	if ((env = getenv(url_vars[1])) != NULL && *env != '\0')
		return *src = URL_ENV_REDIS, env;
	if (x->cfg->server.url)
		return *src = URL_CONFIG, x->cfg->server.url;
	return *src = URL_DEFAULT, DEFAULT_URL;
}

const char *
ctx_url(const struct lr_ctx *x)
{
	enum url_source src;

	return url_choose(x, &src);
}

/* Where the server is and the password, read before the task's cwd and
 * env apply: they are the command's, not lockrun's. */
/* The backend's own settings: the command line's over the config's. */
static int
ctx_own(struct lr_ctx *x, struct lr_err *e)
{
	const struct lr_settings *sets[] = { &x->cli.server.own, &x->cfg->server.own };

	x->server.own = (struct lr_settings){ NULL, 0 };
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < sets[i]->n; j++) {
			const struct lr_setting *s = &sets[i]->v[j];

			if (i == 1 && settings_get(sets[0], s->key) != NULL)
				continue;
			if (settings_add(&x->server.own, s->section, s->key, s->value, s->at,
			    s->what, s->status, e) != 0)
				return -1;
		}
	return 0;
}

/* Where the server is and the password, read before the task's cwd and
 * env apply: they are the command's, not lockrun's. */
int
ctx_server(struct lr_ctx *x, struct lr_err *e)
{
	enum url_source src;
	int from_config;

	x->server = x->cli.server;
	if (ctx_own(x, e) != 0)
		return -1;
	x->server.url = url_choose(x, &src);
	/* lockrun's own copy: the one given is wiped (secrets_hide()) */
	from_config = src == URL_CONFIG;
	if ((x->url_copy = strdup(x->server.url)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	x->server.url = x->url_copy;
	if (x->server.connect_timeout_ms == LR_UNSET)
		x->server.connect_timeout_ms = x->cfg->server.connect_timeout_ms;
	if (x->server.connect_timeout_ms == LR_UNSET)
		x->server.connect_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (x->server.command_timeout_ms == LR_UNSET)
		x->server.command_timeout_ms = x->cfg->server.command_timeout_ms;
	if (x->server.command_timeout_ms == LR_UNSET)
		x->server.command_timeout_ms = DEFAULT_TIMEOUT_MS;
	x->prefix = x->cli.prefix ? x->cli.prefix :
	    x->cfg->prefix ? x->cfg->prefix : DEFAULT_PREFIX;

	if (backend_check_url(x->server.url, e) != 0 || ctx_password(x, e) != 0)
		return -1;
	{
		const char *pw = getenv("LOCKRUN_REDIS_PASSWORD");
		char at[sizeof(x->cfg->url_at)];
		const char *from = NULL, *sep;

		if (src == URL_CLI)
			from = "--url";
		else if (src == URL_ENV)
			from = "$LOCKRUN_URL";
		else if (src == URL_ENV_REDIS)
			from = "$LOCKRUN_REDIS_URL";
		else if (from_config && (sep = strrchr(x->cfg->url_at, ' ')) != NULL) {
			/* "path:line:col: redis.url" as "redis.url at path:line:col" */
			snprintf(at, sizeof(at), "%s at %.*s", sep + 1,
			    (int)(sep - x->cfg->url_at - 1), x->cfg->url_at);
			from = at;
		}
		sources_note(x, from, !x->cli.server.password_file && pw && *pw ?
		    pw : NULL);
	}
	if (ctx_backend(x, e) != 0) {
		/* a URL from the config that the client library refuses is a
		 * mistake in the config: say where */
		if (e->status == EX_USAGE && from_config &&
		    x->cfg->url_at[0] != '\0') {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s", e->msg);
			lr_errf(e, EX_CONFIG, "%s: %s", x->cfg->url_at, msg);
		}
		return -1;
	}
	if (!x->keep_env)
		secrets_hide(x);
	if (x->cli.verbose)
		lr_info("%s %s: %s; %s", x->be.ops->name, x->be.where,
		    x->sources ? x->sources : "", x->prefix_from ? x->prefix_from : "");
	return 0;
}

const char *
ctx_host(struct lr_ctx *x)
{
	struct utsname un;

	if (x->host[0] == '\0')
		snprintf(x->host, sizeof(x->host), "%s", x->cli.host ? x->cli.host :
		    uname(&un) == 0 ? un.nodename : "unknown");
	return x->host;
}

int
ctx_connect(struct lr_ctx *x, struct lr_err *e)
{
	return x->be.ops->open(&x->be, e);
}

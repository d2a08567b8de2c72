/* SPDX-License-Identifier: BSD-2-Clause */
/* ctx.c -- the settings every verb shares, merged in one order: command
 * line, environment, task, the config's defaults, built-in values. */
#include <sys/utsname.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ctx.h"
#include "core/duration.h"
#include "out/log.h"
#include "cli/secret.h"
#include "backend/redis/sentinel.h"

void
ctx_init(struct lr_ctx *x)
{
	memset(x, 0, sizeof(*x));
	task_init(&x->t);
	child_init(&x->child);
	config_init(&x->cfg);
}

void
ctx_free(struct lr_ctx *x)
{
	if (x->be.ops)
		x->be.ops->free(&x->be);
	free(x->exec_argv);
	x->exec_argv = NULL;
	task_free(&x->t);
	config_free(&x->cfg);
	cli_free(&x->cli);
	if (x->url_copy) {
		explicit_bzero(x->url_copy, strlen(x->url_copy));
		free(x->url_copy);
		x->url_copy = NULL;
	}
	explicit_bzero(x->password, sizeof(x->password));
	explicit_bzero(x->sentinel_password, sizeof(x->sentinel_password));
	child_close(&x->child);		/* last: the guard exits with lockrun */
}

/* The event of an error that ends lockrun, from its exit status. */
static const char *
die_event(int status)
{
	switch (status) {
	case EX_USAGE: return "usage-error";
	case EX_CONFIG: return "config-error";
	case EX_UNAVAILABLE: return "redis-error";
	case LR_EXIT_NOEXEC: case LR_EXIT_NOTFOUND: return "exec-failed";
	default: return "error";
	}
}

void
ctx_die(struct lr_ctx *x, const struct lr_err *e)
{
	struct log_fields f;

	log_fields_init(&f);
	f.status = e->status;
	lr_event(LOG_ERR, die_event(e->status), &f, "%s", e->msg);
	if (e->status == EX_USAGE && log_human_stderr())
		fprintf(stderr, "Try 'lockrun %s%s--help' for more information.\n",
		    x->cli.verb > VERB_CHECK ? cli_verb_name(x->cli.verb) : "",
		    x->cli.verb > VERB_CHECK ? " " : "");	/* check: a run's options */
	ctx_free(x);
	exit(e->status);
}

/* Which task a verb reads in full from the config (config_load's only):
 * all of them to check it; the one run, or unlocked; none to list them. */
static const char *
config_part(struct lr_ctx *x)
{
	const char *word = x->cli.cmd ? x->cli.cmd[0] : NULL;
	struct lr_key_parts kp;

	switch (x->cli.verb) {
	case VERB_CHECK:
		return NULL;
	case VERB_RUN:
		return x->cli.task ? x->cli.task : "";
	case VERB_UNLOCK:	/* a task, or a key: prefix{task}[:slot:...] */
		if (word == NULL)
			return "";
		if (strchr(word, '{') == NULL)
			return word;
		if (keys_parse(word, NULL, &kp) != 0 || strlen(kp.name) >= sizeof(x->part))
			return "";
		snprintf(x->part, sizeof(x->part), "%s", kp.name);
		return x->part;
	case VERB_STATUS: case VERB_HISTORY: case NVERBS:
		break;
	}
	return "";
}

int
ctx_load_config(struct lr_ctx *x, struct lr_err *e)
{
	const char *path = x->cli.config;

	if (path == NULL)
		path = getenv("LOCKRUN_CONFIG");
	if (path == NULL || *path == '\0') {
		if (access(CONFIG_DEFAULT_PATH, F_OK) != 0)
			return 0;
		path = CONFIG_DEFAULT_PATH;
	}
	return config_load(path, config_part(x), &x->cfg, e);
}

/* The task's own settings, or NULL when there is no task. */
static int
find_task(struct lr_ctx *x, const char *name, const struct lr_task **task,
    struct lr_err *e)
{
	const char *opt = x->cli.verb == VERB_RUN || x->cli.verb == VERB_CHECK ? "-t " : "";

	*task = NULL;
	if (name == NULL)
		return 0;
	if (x->cfg.path == NULL)
		return lr_errf(e, EX_USAGE, "%s%s: no config file (give -c FILE, set "
		    "LOCKRUN_CONFIG, or create " CONFIG_DEFAULT_PATH ")", opt, name);
	if ((*task = config_task(&x->cfg, name)) != NULL)
		return 0;
	if (config_has(&x->cfg, name))	/* config_part() chose another */
		return lr_errf(e, EX_SOFTWARE, "%s: task %s was not read", x->cfg.path,
		    name);
	return lr_errf(e, EX_USAGE, "%s%s: no such task in %s", opt, name, x->cfg.path);
}

int
ctx_merge(struct lr_ctx *x, const char *name, struct lr_err *e)
{
	const struct lr_task *task;
	struct lr_task *t = &x->t;
	int runs = x->cli.verb == VERB_RUN || x->cli.verb == VERB_CHECK;
	struct lr_err te;

	if (find_task(x, name ? name : x->cli.task, &task, e) != 0)
		return -1;
	task_free(t);
	if (task_inherit(t, &x->cli.o) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (runs && x->cli.cmd) {	/* a command after -- replaces the task's, shell and all */
		if ((t->argv = strv_dup(x->cli.cmd)) == NULL)
			return lr_errf(e, EX_OSERR, "out of memory");
		if (t->shell == LR_UNSET)
			t->shell = 0;
	}
	if ((task && task_inherit(t, task) != 0) ||
	    task_inherit(t, &x->cfg.defaults) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	/* the config's own combinations were checked when it was loaded */
	if (task_finish(t, &x->sched, &te) != 0)
		return lr_errf(e, EX_USAGE, "%s", te.msg);
	return 0;
}

static const char *const url_vars[] = { "LOCKRUN_URL", "LOCKRUN_REDIS_URL" };

/* Set up the backend the URL names, with the settings every backend has. */
static int
ctx_backend(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_backend_cfg c = { .url = x->redis.url, .password = x->password,
	    .connect_timeout_ms = x->redis.connect_timeout_ms,
	    .command_timeout_ms = x->redis.command_timeout_ms, .extra = &x->rsetup };

	x->rsetup = (struct lr_redis_setup){ .url = &x->url, .password = x->password,
	    .sentinel_password = x->sentinel_password, .tls = &x->redis.tls };
	if (x->be.ops)
		x->be.ops->free(&x->be);
	return backend_init(&x->be, &c, e);
}


/* The passwords are lockrun's, not the command's nor anyone else's: out
 * of the environment the command inherits, and out of the environment
 * block and argv that /proc shows of lockrun and its guard. The URL in
 * use was copied (ctx_redis()), so it may point into either. */
static void
secrets_hide(struct lr_ctx *x)
{
	const char *env_url;

	secret_env_wipe("LOCKRUN_REDIS_PASSWORD");
	secret_env_wipe("LOCKRUN_SENTINEL_PASSWORD");
	/* either variable, the one in use or not */
	for (size_t i = 0; i < sizeof(url_vars) / sizeof(url_vars[0]); i++)
		if ((env_url = getenv(url_vars[i])) && rurl_has_password(env_url))
			secret_env_wipe(url_vars[i]);
	if (x->cli.redis.url && secret_url_mask((char *)x->cli.redis.url) > 0)
		lr_warn("--url: a password on the command line can be read by any user "
		    "(ps, /proc) until lockrun hides it; give it in a password file "
		    "(--password-file) or $LOCKRUN_REDIS_PASSWORD");
}

/* Where Redis is and the password, read before the task's cwd and env
 * apply: they are the command's, not lockrun's. */
int
ctx_redis(struct lr_ctx *x, struct lr_err *e)
{
	const char *env_url = getenv("LOCKRUN_URL"), *kind;
	int redis, from_config;

	x->redis = x->cli.redis;
	if (env_url == NULL || *env_url == '\0')
		env_url = getenv("LOCKRUN_REDIS_URL");
	if (x->redis.url == NULL && env_url && *env_url != '\0')
		x->redis.url = env_url;
	if (x->redis.url == NULL)
		x->redis.url = x->cfg.redis.url ? x->cfg.redis.url : DEFAULT_URL;
	/* lockrun's own copy: the one given is wiped (secrets_hide()) */
	from_config = x->redis.url == x->cfg.redis.url;
	if ((x->url_copy = strdup(x->redis.url)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	x->redis.url = x->url_copy;
	kind = backend_kind(x->redis.url);
	redis = kind == NULL || strcmp(kind, "redis") == 0;	/* else it is SQL */
	x->redis.tls = x->cfg.redis.tls;
	if (x->redis.connect_timeout_ms == LR_UNSET)
		x->redis.connect_timeout_ms = x->cfg.redis.connect_timeout_ms;
	if (x->redis.connect_timeout_ms == LR_UNSET)
		x->redis.connect_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (x->redis.command_timeout_ms == LR_UNSET)
		x->redis.command_timeout_ms = x->cfg.redis.command_timeout_ms;
	if (x->redis.command_timeout_ms == LR_UNSET)
		x->redis.command_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (x->redis.wait_replicas == LR_UNSET)
		x->redis.wait_replicas = x->cfg.redis.wait_replicas;
	if (x->redis.wait_replicas == LR_UNSET)
		x->redis.wait_replicas = 0;
	if (x->redis.wait_timeout_ms == LR_UNSET)
		x->redis.wait_timeout_ms = x->cfg.redis.wait_timeout_ms;
	if (x->redis.wait_timeout_ms == LR_UNSET)
		x->redis.wait_timeout_ms = LR_WAIT_TIMEOUT_MS;
	if (x->redis.wait_replicas > 0 &&
	    x->redis.wait_timeout_ms >= x->redis.command_timeout_ms) {
		char a[32], b[32];
		duration_format(x->redis.wait_timeout_ms, a, sizeof(a));
		duration_format(x->redis.command_timeout_ms, b, sizeof(b));
		return lr_errf(e, EX_USAGE, "--wait-timeout: %s must be shorter than the "
		    "command timeout (%s)", a, b);
	}
	x->prefix = x->cli.prefix ? x->cli.prefix :
	    x->cfg.prefix ? x->cfg.prefix : DEFAULT_PREFIX;

	if ((redis && rurl_parse(x->redis.url, &x->url, e) != 0) ||
	    rconn_password(x->cli.redis.password_file, x->cfg.redis.password_file,
	    &x->url, x->password, sizeof(x->password), e) != 0 ||
	    (x->url.nsentinels && sentinel_password(x->cfg.redis.sentinel_password_file,
	    x->sentinel_password, sizeof(x->sentinel_password), e) != 0))
		return -1;
	/* OpenSSL is loaded now, when the URL asks for TLS: a missing
	 * library is named before anything is tried */
	if (redis && x->url.tls) {
		char why[300];
		if (tls_load(why, sizeof(why)) != 0)
			return lr_errf(e, EX_UNAVAILABLE, "%s", why);
	}
	/* TLS settings beside a URL that does not use them would send the
	 * password in the clear while the config reads as if it did not */
	if (x->cfg.tls_at[0] != '\0' && !(redis && x->url.tls))
		return lr_errf(e, EX_CONFIG, "%s: TLS settings, but the URL in use is not "
		    "rediss:// (nothing would be encrypted); use rediss://%s, or remove "
		    "redis.tls", x->cfg.tls_at, redis ? "" : " (a database URL takes "
		    "its TLS settings as URL parameters)");
	if (ctx_backend(x, e) != 0) {
		/* a URL from the config that the client library refuses is a
		 * mistake in the config: say where */
		if (e->status == EX_USAGE && from_config &&
		    x->cfg.url_at[0] != '\0') {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s", e->msg);
			lr_errf(e, EX_CONFIG, "%s: %s", x->cfg.url_at, msg);
		}
		return -1;
	}
	secrets_hide(x);
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

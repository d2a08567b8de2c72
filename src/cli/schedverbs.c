/* SPDX-License-Identifier: BSD-2-Clause */
/* schedverbs.c -- `lockrun tick` and `lockrun cron`: check the command line
 * and the config, hand over to sched/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ctx.h"
#include "cli/secret.h"
#include "core/file.h"
#include "core/duration.h"
#include "core/url.h"
#include "out/log.h"
#include "sched/crond.h"
#include "sched/missed.h"
#include "sched/trigger.h"
#include "sched/tick.h"
#include "web/serve.h"

/* Both take no words and need a config: it is their crontab. A password
 * in --url would stay in the scheduler's and its starter's command line
 * (/proc/PID/cmdline, which any user reads) for the daemon's life, before
 * lockrun could hide it: refused, before any connection, with the two
 * places that keep it from other users. */
static int
sched_check(struct lr_ctx *x, const char *verb, struct lr_err *e)
{
	if (x->cli.server.url && url_has_password(x->cli.server.url))
		return lr_errf(e, EX_USAGE, "--url: a password on `lockrun %s`'s command "
		    "line can be read by any user (ps, /proc) for as long as it runs; give "
		    "it in a password file (--password-file, or password_file: in the "
		    "config) or in $LOCKRUN_REDIS_PASSWORD", verb);
	if (x->cli.cmd)
		return lr_errf(e, EX_USAGE, "`lockrun %s` takes no arguments: \"%s\"", verb,
		    x->cli.cmd[0]);
	if (!config_is_set(x->cfg))
		return lr_errf(e, EX_USAGE, "`lockrun %s` needs a config file (give -c "
		    "FILE or --crontab FILE, set LOCKRUN_CONFIG, or create "
		    CONFIG_DEFAULT_PATH ")", verb);
	return 0;
}


/* --log json (or log: json in the config): the runs' lines as records. */
static int
logs_json(const struct lr_ctx *x)
{
	const char *spec = x->cli.log ? x->cli.log : x->cfg->log;

	return spec && strncmp(spec, "json", 4) == 0 && (spec[4] == '\0' || spec[4] == ':');
}

/* The runs' options: the scheduler's without --listen, which a run does
 * not take (found by its argument, which points into argv whatever way
 * the option was spelt: "--listen A", "--listen=A", "--lis A"). */
static void
drop_listen(struct lr_ctx *x)
{
	char **v = x->cli.argv_;
	size_t k = 0;

	if (x->cli.listen == NULL)
		return;
	for (size_t i = 0; v && v[i]; i++) {
		if (v[i] == x->cli.listen) {
			k -= k > 0;	/* and the "--listen" before it */
			continue;
		}
		if (x->cli.listen > v[i] && x->cli.listen <= v[i] + strlen(v[i]))
			continue;	/* "--listen=A" */
		v[k++] = v[i];
	}
	if (v)
		v[k] = NULL;
}

/* A context of its own, for the HTTP server, the looks for triggers or
 * the runs' connection (lease_ctx()): its own copy of the server's
 * settings, from the config read at start (the file is read once), and
 * its own backend (set up, not connected: its user connects), which the
 * runs never touch and a SIGHUP does not replace. */
static int
own_ctx(struct lr_ctx *x, struct lr_ctx *w, struct lr_err *e)
{
	if (ctx_init(w) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	task_init(&w->cli.o);
	w->cli.server = x->cli.server;
	w->cli.prefix = x->cli.prefix;
	w->cli.stale_after_ms = LR_UNSET;
	w->keep_env = 1;	/* the runs forked later read them */
	if (config_copy_server(x->cfg, w->cfg, e) != 0)
		return -1;
	return ctx_server(w, e);
}

/* cron --listen (or listen: in the config): the server, started before
 * the scheduler, with the config's listen_token_file (read here into
 * token[tn], the caller's) and listen_names. What
 * listen*: say in the config is read at the next start, not on SIGHUP. */
static struct web *
web_up(struct lr_ctx *x, struct lr_ctx *w, char *title, size_t n, char *token,
    size_t tn, struct lr_err *e)
{
	struct web_opts wo = { .listen = x->cli.listen ? x->cli.listen : x->cfg->listen,
	    .listen_what = x->cli.listen ? "--listen" : x->cfg->listen_at, .be = &w->be,
	    .title = title, .names = x->cfg->listen_names };
	struct web *srv;

	if (own_ctx(x, w, e) != 0)	/* first: the caller frees w */
		return NULL;
	if (x->cfg->listen_token_file) {
		if (file_read_private(x->cfg->listen_token_file, x->cfg->listen_token_at, geteuid(),
		    token, tn, e) != 0)
			return NULL;
		if (token[0] == '\0') {
			lr_errf(e, EX_CONFIG, "%s %s: the file is empty", x->cfg->listen_token_at,
			    x->cfg->listen_token_file);
			return NULL;
		}
		wo.token = token;
	}
	wo.prefix = w->prefix;
	snprintf(title, n, "lockrun cron on %s", ctx_host(x));
	if ((srv = web_start(&wo, e)) != NULL)
		lr_event(LOG_INFO, "listening", NULL, "serving /metrics, /healthz, /readyz "
		    "and / on %s", web_where(srv));
	return srv;
}

/* The connection the runs' lock requests go over (leases.h): to the
 * config's server, when its lock is not a session's (Redis), or its
 * sessions can hold many runs' locks (PostgreSQL, MySQL). Set up, not
 * connected: the first run's acquire connects it. NULL when it cannot be
 * set up: each run then connects, and meets the problem, itself. */
static struct lr_ctx *
lease_ctx(struct lr_ctx *x, struct leases *ls, struct sched_spawner *sp)
{
	struct lr_ctx *l = malloc(sizeof(*l));
	struct lr_err e = { 0, "", 0 };

	if (l == NULL)
		return NULL;
	if (own_ctx(x, l, &e) != 0 || (l->be.ops->session && !l->be.ops->shares)) {
		ctx_free(l);
		free(l);
		return NULL;
	}
	*ls = (struct leases){ .be = &l->be,
	    .connect_timeout_ms = l->server.connect_timeout_ms };
	sp->lease_url = l->be.cfg.url;
	return l;
}

/* `lockrun trigger`: cron looks for triggers, records missed slots
 * (missed.h) and claims its runs' slots before it forks them (claim.h),
 * over the runs' connection lx, which its thread serves too, one request
 * at a time; else over one of its own, *own. */
static int
triggers_up(struct lr_ctx *x, struct lr_ctx *lx, struct lr_ctx **own,
    struct trigger_src *ts, struct missed_src *ms, struct claim_src *cs,
    struct crond_opts *o, struct lr_err *e)
{
	struct lr_ctx *c = lx;

	if (c == NULL) {
		if ((c = *own = malloc(sizeof(**own))) == NULL)
			return lr_errf(e, EX_OSERR, "out of memory");
		if (own_ctx(x, c, e) != 0)
			return -1;
	}
	if (c->be.ops->take) {
		*ts = (struct trigger_src){ .be = &c->be, .prefix = c->prefix,
		    .host = ctx_host(x) };
		o->poll = trigger_take;
		o->poll_arg = ts;
	}
	if (c->be.ops->missed) {
		*ms = (struct missed_src){ .be = &c->be, .prefix = c->prefix,
		    .host = ctx_host(x) };
		o->missed = ms;
	}
	if (c->be.ops->claim) {
		*cs = (struct claim_src){ .be = &c->be, .prefix = c->prefix,
		    .host = ctx_host(x) };
		o->claim = cs;
	}
	return 0;
}

/* The slot claims the server pushes (sched/defer.h), over a connection
 * of their own that the scheduler opens when a task can use them: into
 * *c, when the backend pushes claims. */
static int
claims_up(struct lr_ctx *x, struct lr_ctx **c, struct defer_src *ds, struct crond_opts *o,
    struct lr_err *e)
{
	if ((*c = malloc(sizeof(**c))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (own_ctx(x, *c, e) != 0)
		return -1;
	if ((*c)->be.ops->watch == NULL) {	/* none pushed: every slot raced */
		ctx_free(*c);
		free(*c);
		*c = NULL;
		return 0;
	}
	*ds = (struct defer_src){ .be = &(*c)->be, .prefix = (*c)->prefix,
	    .host = ctx_host(x) };
	o->claims = ds;
	return 0;
}

/* tick: one pass, its runs' locks over one connection as cron's. */
int
verb_tick(struct lr_ctx *x, struct lr_err *e)
{
	struct sched_spawner sp = { .argv = x->cli.argv_, .saved = x->sig,
	    .cfg = x->cfg, .run = x->entry };
	struct lr_ctx *lx = NULL;
	struct leases ls;
	int status = -1;

	starter_fds_given(&sp.given);
	if (sched_check(x, "tick", e) == 0) {
		lx = lease_ctx(x, &ls, &sp);
		status = tick_run(x->cfg, ctx_host(x), &sp, lx ? &ls : NULL, real_ms(), e);
	}
	if (lx) {
		leases_free(&ls);
		ctx_free(lx);
	}
	free(lx);
	return status < 0 ? -1 : status;
}

/* cron says what cron(8) says: ready, each run's start, end or skip, each
 * missed slot; -q keeps only the errors. Its runs have their own -v. */
int
verb_cron(struct lr_ctx *x, struct lr_err *e)
{
	struct run_starter starter = { .sock = -1, .pidfd = -1 };
	struct sched_spawner sp = { .argv = x->cli.argv_, .saved = x->sig,
	    .cfg = x->cfg, .run = x->entry, .starter = &starter };
	char server[1024];
	struct crond_opts o = { .cfg = x->cfg, .sp = &sp, .json = logs_json(x),
	    .server = server, .host = ctx_host(x) };
	struct lr_ctx *w = NULL, *t = NULL, *lx = NULL, *cx = NULL;
	struct defer_src ds;
	struct trigger_src ts;
	struct missed_src ms;
	struct claim_src cs;
	struct web *srv = NULL;
	struct leases ls;
	char title[128], token[256] = "";
	int rc;

	starter_fds_given(&sp.given);
	snprintf(server, sizeof(server), "%s", ctx_url(x));
	secret_url_mask(server);
	log_setup(1, x->cli.quiet);
	if ((rc = sched_check(x, "cron", e)) == 0 && (x->cli.listen || x->cfg->listen)) {
		drop_listen(x);
		if ((w = malloc(sizeof(*w))) == NULL)
			rc = lr_errf(e, EX_OSERR, "out of memory");
		else if ((srv = web_up(x, w, title, sizeof(title), token,
		    sizeof(token), e)) != NULL) {
			o.watch = web_watch;
			o.watch_arg = srv;
		} else
			rc = -1;
	}
	if (rc == 0 && (lx = lease_ctx(x, &ls, &sp)) != NULL)
		o.leases = &ls;
	if (rc == 0)
		rc = triggers_up(x, lx, &t, &ts, &ms, &cs, &o, e);
	if (rc == 0)
		rc = claims_up(x, &cx, &ds, &o, e);
	if (rc == 0)
		rc = crond_run(&o, e);
	web_stop(srv);
	explicit_bzero(token, sizeof(token));
	if (lx) {
		leases_free(&ls);
		ctx_free(lx);
	}
	free(lx);
	if (w)
		ctx_free(w);
	free(w);
	if (t)
		ctx_free(t);
	free(t);
	if (cx)
		ctx_free(cx);
	free(cx);
	if (rc != 0)
		return -1;
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* serve.h -- `lockrun cron --listen`: the scheduler's metrics, health
 * checks and status page over HTTP, from a thread of their own. */
#ifndef LR_WEB_SERVE_H
#define LR_WEB_SERVE_H

#include "backend/backend.h"
#include "sched/crond.h"

struct web_opts {
	const char		*listen;	/* mhd_start()'s addr */
	const char		*listen_what;	/* ...and its what */
	struct lr_backend	*be;		/* set up, not opened: the server's
						 * thread alone uses it */
	const char		*prefix;	/* the keys' */
	const char		*title;		/* the page's: "lockrun cron on HOST" */
	const char		*token;		/* the bearer token every path but
						 * /healthz wants; NULL: none */
	const char		*names;		/* Host names answered beside IP
						 * addresses and localhost; NULL */
};

struct web;

/* Start answering on o->listen (see mhd.h): /metrics (every task's lock,
 * last run and counters as `status --format prometheus` gives them, and
 * the scheduler's own families), /healthz (200 while the process
 * answers), /readyz (200 once the scheduler told its tasks and while the
 * backend answers, else 503) and / (the status page, page.h). The backend
 * is read at most once every 2 seconds. o's strings and be must outlive
 * the server. Returns it, or NULL with e. */
struct web *web_start(const struct web_opts *o, struct lr_err *e);

/* Where it listens, for the log ("127.0.0.1:9090"). */
const char *web_where(const struct web *w);

/* crond_opts.watch, with arg the struct web: keep a copy of v. */
void	web_watch(void *arg, const struct crond_view *v);

/* Stop answering, wait for the server's thread, close the connection,
 * free w. NULL: nothing. */
void	web_stop(struct web *w);

#endif

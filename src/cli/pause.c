/* SPDX-License-Identifier: BSD-2-Clause */
/* pause.c -- an operator's verbs: `lockrun pause TASK...` and `lockrun
 * resume TASK...`, the tasks' pause, kept in the backend next to their
 * locks (ops.h, pause), so that every server's runs skip them until it is
 * lifted or ends; `lockrun trigger TASK`, one run now, without claiming or
 * using up a slot, under the task's no-overlap lock: with --here, this
 * process runs it (run.c, as a triggered run); else the trigger key is
 * written, and the first scheduler (`lockrun cron`) that looks takes it
 * and starts the run (sched/trigger.c). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ctx.h"
#include "cli/run.h"
#include "core/civil.h"
#include "core/duration.h"
#include "core/lease.h"
#include "core/text.h"
#include "sched/trigger.h"

#define REASON_MAX	200	/* bytes of --reason */
#define TRIGGER_TTL_MS	3600000	/* a trigger no scheduler took lapses then */

/* "YYYY-MM-DDTHH:MM[:SS]" and "Z" or "+HH:MM"/"-HH:MM", into Unix ms.
 * Returns 0, or -1 when s is not shaped so. */
static int
parse_time(const char *s, long long *ms)
{
	int y, mo, d, h, mi, sec = 0, oh = 0, om = 0, n = 0, k = 0;
	char sign = 'Z';

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) != 5 || n != 16)
		return -1;
	if (s[n] == ':' && (sscanf(s + n, ":%2d%n", &sec, &k) != 1 || k != 3))
		return -1;
	n += s[n] == ':' ? 3 : 0;
	if (s[n] == 'Z' && s[n + 1] == '\0')
		sign = 'Z';
	else if ((s[n] == '+' || s[n] == '-') && sscanf(s + n + 1, "%2d:%2d%n", &oh, &om,
	    &k) == 2 && k == 5 && s[n + 6] == '\0')
		sign = s[n];
	else
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 ||
	    oh > 23 || om > 59)
		return -1;
	*ms = ((civil_days(y, mo, d) * 86400LL) + h * 3600 + mi * 60 + sec) * 1000;
	if (sign != 'Z')
		*ms += (sign == '+' ? -1 : 1) * (oh * 3600LL + om * 60) * 1000;
	return 0;
}

/* Who asks: the login name of the real uid, "-" when it has none. */
static void
user_name(char *buf, size_t n)
{
	const struct passwd *pw = getpwuid(getuid());

	snprintf(buf, n, "%s", pw && pw->pw_name && *pw->pw_name &&
	    !strchr(pw->pw_name, ' ') && !text_has_control(pw->pw_name) ? pw->pw_name : "-");
}

/* The words: task names, at least one; with a config, tasks of it. */
static int
names_check(const struct lr_ctx *x, const char *verb, struct lr_err *e)
{
	char *const *w = x->cli.cmd;
	const char *why;

	if (w == NULL || w[0] == NULL)
		return lr_errf(e, EX_USAGE, "%s: no task named", verb);
	for (size_t i = 0; w[i]; i++) {
		if ((why = keys_name_problem(w[i])) != NULL)
			return lr_errf(e, EX_USAGE, "%s: task \"%s\" %s", verb, w[i], why);
		if (config_is_set(x->cfg) && !config_has(x->cfg, w[i]))
			return lr_errf(e, EX_USAGE, "%s: no task \"%s\" in %s", verb, w[i],
			    x->cfg->path);
	}
	return 0;
}

/* --for, --until and --reason into p. Returns 0, or -1 with e. */
static int
pause_spec(const struct lr_ctx *x, struct lr_pause *p, struct lr_err *e)
{
	const char *r = x->cli.reason ? x->cli.reason : "";

	if (x->cli.pause_for_ms != LR_UNSET && x->cli.until != NULL)
		return lr_errf(e, EX_USAGE, "pause: --for and --until: give one end, not two");
	if (x->cli.pause_for_ms != LR_UNSET)
		p->for_ms = x->cli.pause_for_ms;
	if (x->cli.until != NULL && parse_time(x->cli.until, &p->until_ms) != 0)
		return lr_errf(e, EX_USAGE, "--until: \"%s\" is not a time (expected "
		    "2026-12-01T06:00Z, 2026-12-01T06:00:00Z or 2026-12-01T08:00+02:00)",
		    x->cli.until);
	if (x->cli.until != NULL && p->until_ms <= real_ms())
		return lr_errf(e, EX_USAGE, "--until: %s is past", x->cli.until);
	if (strlen(r) > REASON_MAX || text_has_control(r))
		return lr_errf(e, EX_USAGE, "--reason: at most %d bytes, no control "
		    "characters", REASON_MAX);
	p->reason = r;
	return 0;
}

/* "until 2026-12-01T06:00:00Z", or "until resumed", of a pause's value. */
static const char *
until_text(const char *value, char *buf, size_t n)
{
	struct lr_pause_view v;
	char at[TEXT_ISO_MAX];

	if (lock_pause_parse(value, &v) != 0 || v.until_ms <= 0)
		snprintf(buf, n, "until resumed");
	else
		snprintf(buf, n, "until %s", text_iso(v.until_ms, TEXT_ISO_S, at, sizeof(at)));
	return buf;
}

/* Say what was done to one task. */
static void
say(const char *name, int resume, int rc, const char *value)
{
	struct lr_pause_view v;
	char until[TEXT_ISO_MAX + 16], since[TEXT_ISO_MAX], shown[sizeof(v.host) + 80];

	if (!resume && rc == 1) {
		printf("paused  %s %s; a copy running now goes on (lockrun unlock %s "
		    "stops it)\n", name, until_text(value, until, sizeof(until)), name);
		return;
	}
	if (!resume) {
		printf("not paused %s: its end is already past by the server's clock\n", name);
		return;
	}
	if (rc == 0) {
		printf("%s was not paused\n", name);
		return;
	}
	if (lock_pause_parse(value, &v) != 0) {
		printf("resumed %s\n", name);
		return;
	}
	snprintf(shown, sizeof(shown), "%s on %s", v.user, v.host);
	printf("resumed %s (paused by %s at %s)\n", name, text_visible(shown),
	    text_iso(v.since_ms, TEXT_ISO_S, since, sizeof(since)));
}

/* Pause (or resume) every task named. Returns lockrun's exit status, or
 * -1 with e. */
static int
pause_all(struct lr_ctx *x, int resume, struct lr_err *e)
{
	const char *verb = resume ? "resume" : "pause";
	struct lr_pause p = { .reason = "" };
	char user[64], value[1024];

	if (names_check(x, verb, e) != 0 || (!resume && pause_spec(x, &p, e) != 0) ||
	    ctx_server(x, e) != 0 || ctx_merge(x, NULL, e) != 0)
		return -1;
	if (x->be.ops->pause == NULL)
		return lr_errf(e, EX_USAGE, "%s: the %s backend keeps no pauses (Redis and "
		    "PostgreSQL do)", verb, x->be.ops->title);
	if (ctx_connect(x, e) != 0)
		return -1;
	user_name(user, sizeof(user));
	p.host = ctx_host(x);
	p.user = user;
	p.hist_cap = x->t.history;
	p.hist_ttl_ms = x->t.history_ttl_ms;
	for (char *const *w = x->cli.cmd; *w; w++) {
		struct lr_keys k;
		int rc;

		keys_build(&k, x->prefix, *w, (time_t)-1, 60000);
		if ((rc = x->be.ops->pause(&x->be, &k, &p, resume, value, sizeof(value),
		    e)) < 0)
			return -1;
		say(*w, resume, rc, value);
	}
	return 0;
}

int
verb_pause(struct lr_ctx *x, struct lr_err *e)
{
	return pause_all(x, 0, e);
}

int
verb_resume(struct lr_ctx *x, struct lr_err *e)
{
	return pause_all(x, 1, e);
}

/* Ask the fleet's schedulers for a run: the trigger key. */
static int
trigger_ask(struct lr_ctx *x, const char *name, struct lr_err *e)
{
	char user[64], value[HOST_MAX + 128], d[32];
	struct lr_keys k;

	if (ctx_server(x, e) != 0)
		return -1;
	if (x->be.ops->trigger == NULL)
		return lr_errf(e, EX_USAGE, "trigger: the %s backend keeps no triggers (Redis "
		    "and PostgreSQL do); trigger --here runs it on this host", x->be.ops->title);
	/* a scheduler runs only the tasks of its config: a name that is not in
	 * ours is a mistake, said with the nearest names, not a key written
	 * for nothing */
	if (ctx_known_task(x, name, e) != 0)
		return -1;
	if (ctx_connect(x, e) != 0)
		return -1;
	user_name(user, sizeof(user));
	snprintf(value, sizeof(value), "%lld %s %s", real_ms(), ctx_host(x), user);
	keys_build(&k, x->prefix, name, (time_t)-1, 60000);
	if (x->be.ops->trigger(&x->be, &k, value, TRIGGER_TTL_MS, e) != 0)
		return -1;
	printf("asked for a run of %s: the first `lockrun cron` to look (every %ds) "
	    "starts it; unless one does, the request lapses in %s\n", name,
	    TRIGGER_POLL_S, duration_human(TRIGGER_TTL_MS, d, sizeof(d)));
	return 0;
}

int
verb_trigger(struct lr_ctx *x, struct lr_err *e)
{
	char *const *w = x->cli.cmd;
	const char *why;

	if (w == NULL || w[0] == NULL)
		return lr_errf(e, EX_USAGE, "trigger: no task named");
	if (w[1] != NULL)
		return lr_errf(e, EX_USAGE, "trigger: one task at a time, got \"%s\" and "
		    "\"%s\"", w[0], w[1]);
	if ((why = keys_name_problem(w[0])) != NULL)
		return lr_errf(e, EX_USAGE, "trigger: task \"%s\" %s", w[0], why);
	if (!x->cli.here)
		return trigger_ask(x, w[0], e);
	x->cli.task = w[0];
	x->cli.cmd = NULL;
	return run_task(x, 1, e);
}

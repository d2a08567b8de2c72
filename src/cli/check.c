/* SPDX-License-Identifier: BSD-2-Clause */
/* check.c -- print what a run would use: keys, lease, slot, fire times. */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/check.h"
#include "cli/ctx.h"
#include "cli/run.h"
#include "cli/when.h"
#include "out/log.h"
#include "proc/supervise.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "core/where.h"
#include "core/zone.h"
#include "proc/spawn.h"
#include "sched/due.h"

/* t as ISO 8601 UTC, to the second, into buf[0..n). */
static char *
iso(time_t t, char *buf, size_t n)
{
	return text_iso((long long)t * 1000, TEXT_ISO_S, buf, n);
}

static void
print_slots(FILE *fp, const struct lr_check *c, long long now_ms)
{
	const struct lr_schedule *s = c->sched;
	time_t slot = schedule_slot(s, now_ms), t;
	struct lr_keys k;
	char a[64], b[64];
	long long ttl;

	if (s->has_cron)
		fprintf(fp, "schedule    %s (%s), slot tolerance %s\n", c->t->schedule,
		    s->cron.tz[0] ? s->cron.tz : "local time",
		    duration_format(s->tolerance_ms, a, sizeof(a)));
	else
		fprintf(fp, "schedule    every %s from the epoch, slot tolerance %s\n",
		    duration_format(s->every_ms, a, sizeof(a)),
		    duration_format(s->tolerance_ms, b, sizeof(b)));
	if (slot == (time_t)-1) {
		fprintf(fp, "slot now    none: the schedule has no fire time in reach\n");
		return;
	}
	keys_build(&k, c->prefix, c->name, slot, schedule_stamp_ms(s));
	if (c->host)
		keys_slot_host(&k, c->host);
	ttl = schedule_slot_ttl_ms(s, now_ms, slot);
	fprintf(fp, "slot now    %s  key %s  ttl %s (%lldms)\n", iso(slot, a, sizeof(a)),
	    k.slot, duration_format(ttl / 1000 * 1000, b, sizeof(b)), ttl);
	t = (time_t)(now_ms / 1000);
	for (int i = 0; i < 5 && (t = schedule_next(s, t)) != (time_t)-1; i++)
		fprintf(fp, "%s%s\n", i == 0 ? "next        " : "            ",
		    iso(t, a, sizeof(a)));
}

/* Print the run's keys, lease timing, the slot a start at now_ms would
 * claim with its key and TTL, and the next five fire times. */
static void
check_print(FILE *fp, const struct lr_check *c, long long now_ms)
{
	struct lr_keys k;
	char a[32], b[32];

	keys_build(&k, c->prefix, c->name, (time_t)-1, 60000);
	if (c->task)
		fprintf(fp, "task        %s\n", c->task);
	fprintf(fp, "command    ");
	for (size_t i = 0; c->argv[i]; i++)
		fprintf(fp, " %s", c->argv[i]);
	fprintf(fp, "\n");
	if (c->t->no_overlap) {
		if (c->t->renew)
			fprintf(fp, "no-overlap  %s  ttl %s, renewed every %s\n", k.stable,
			    duration_format(c->t->ttl_ms, a, sizeof(a)),
			    duration_format(c->t->ttl_ms / 3, b, sizeof(b)));
		else
			fprintf(fp, "no-overlap  %s  ttl %s, not renewed\n", k.stable,
			    duration_format(c->t->ttl_ms, a, sizeof(a)));
	}
	if (c->t->limit > 1)	/* places (limit:): lockrun(7), LOCK LIFETIME */
		fprintf(fp, "limit       %d copies at once, each holding a place of its own "
		    "with its own token%s\n", c->t->limit, c->t->one_server ?
		    "; a slot runs at most that many times" : "");
	fprintf(fp, "fencing     %s\n", k.fence);
	if (c->t->one_server)
		print_slots(fp, c, now_ms);
}

/* Where a protection's setting came from, or NULL when nobody named it;
 * off is the offset of the field in struct lr_task. */
static const char *
named_by(const struct lr_ctx *x, size_t off, char *buf, size_t n)
{
	const struct lr_task *task = x->cli.task ? config_task(x->cfg, x->cli.task) : NULL;
#define FIELD(t) (*(const int *)((const char *)(t) + off))

	if (FIELD(&x->cli.o) != LR_UNSET)
		return "the command line says so";
	if (task && FIELD(task) != LR_UNSET) {
		snprintf(buf, n, "tasks.%s sets it", x->cli.task);
		return buf;
	}
	if (FIELD(&x->cfg->defaults) != LR_UNSET)
		return "the config's defaults set it";
	return NULL;
#undef FIELD
}

/* Which protections apply and why: named (where), or the one meaning of
 * a schedule (task_inherit_defaults()), or the default without one. */
static void
protection_print(const struct lr_ctx *x)
{
	const struct lr_task *task = x->cli.task ? config_task(x->cfg, x->cli.task) : NULL;
	int cli_sched = x->cli.o.schedule || x->cli.o.every_ms != LR_UNSET;
	int sched = cli_sched || x->t.schedule ||
	    (task && (task->schedule || task->every_ms != LR_UNSET));
	const char *has = !cli_sched && task ? "the task has a schedule" : "the run has a schedule";
	char b1[300], b2[300];
	const char *one = named_by(x, offsetof(struct lr_task, one_server), b1, sizeof(b1));
	const char *none = named_by(x, offsetof(struct lr_task, no_overlap), b2, sizeof(b2));
	char b3[400];

	/* concurrency: names no_overlap (forbid, allow) at its level */
	if (none == NULL && x->t.concurrency != LR_UNSET &&
	    (none = named_by(x, offsetof(struct lr_task, concurrency), b2, sizeof(b2))) != NULL) {
		snprintf(b3, sizeof(b3), "%s (concurrency: %s)", none,
		    x->t.concurrency == CONCURRENCY_ALLOW ? "allow" :
		    x->t.concurrency == CONCURRENCY_FORBID ? "forbid" :
		    "replace: a new run stops the running copy");
		none = b3;
	}

	if (x->sched.reboot && none == NULL) {
		printf("protection  no-overlap: @reboot, once per boot of each host "
		    "(one-server does not apply)\n");
		return;
	}
	if (none == NULL && x->t.run_on == RUN_ON_ALL)
		none = "run_on: all runs every server at once";
	if (one == NULL && none == NULL && sched) {
		printf("protection  one-server and no-overlap: %s\n", has);
		return;
	}
	if (one == NULL && none == NULL) {
		printf("protection  no-overlap: no schedule (one-server would claim a slot "
		    "every minute)\n");
		return;
	}
	if (one == NULL)
		one = sched ? has : "no schedule";
	if (none == NULL)
		none = sched ? has : x->t.one_server ? "one-server alone was asked for" :
		    "the default";
	printf("protection  %s%s: %s; %s%s: %s\n",
	    "one-server", x->t.one_server ? "" : " is off", one,
	    "no-overlap", x->t.no_overlap ? "" : " is off", none);
}

/* Where the run goes: on one server a slot or on each (run_on:), and
 * whether this host runs it at all (hosts:, host_match:), and why. */
static void
where_print(struct lr_ctx *x)
{
	char why[300];
	int here = where_here(x->t.hosts, x->t.host_match, ctx_host(x), why, sizeof(why));

	printf("where       %s; %s on this host (%s)\n", x->t.run_on == RUN_ON_ALL ?
	    "run_on: all, each server runs each slot once" : x->t.one_server ?
	    "run_on: one, one server runs each slot" : "wherever it is started",
	    here ? "runs" : "does not run", why);
}

/* The config file and its tasks, or that there is none; with bad >= 0,
 * how many of them have problems and how many crontab lines are left
 * out (said above it), else "ok". */
static void
config_line(const struct lr_ctx *x, long bad, long lines)
{
	size_t n = x->cfg->nnames;
	char out[64] = "";

	if (lines > 0)
		snprintf(out, sizeof(out), ", %ld crontab line%s left out", lines,
		    lines == 1 ? "" : "s");
	if (!config_is_set(x->cfg))
		printf("config      none (command-line options only)\n");
	else if (bad > 0 || lines > 0)
		printf("config      %s: %ld of %zu task%s ha%s problems%s (said above)\n",
		    config_where(x->cfg), bad, n, n == 1 ? "" : "s", bad == 1 ? "s" : "ve",
		    out);
	else if (x->cfg->path != NULL)
		printf("config      %s: ok, %zu task%s\n", x->cfg->path, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < x->cfg->ncrontabs; i++)
		printf("crontab     %s%s\n", x->cfg->crontabs[i].path, x->cfg->crontabs[i].users ?
		    " (with a user field)" : "");
	printf("server      %s %s: %s; %s\n", x->be.ops->name, x->be.where,
	    x->sources ? x->sources : "", x->prefix_from ? x->prefix_from : "");
}

/* The line that says how far this host's clock is from the lock
 * server's: offset_ms is the server's minus ours, measured against the
 * middle of a round trip of rtt_ms, so it is right within rtt_ms / 2:
 * "clock       this host is 12 ms behind the lock server (+/- 1 ms)". */
static void
check_clock_print(FILE *fp, long long offset_ms, long long rtt_ms)
{
	fprintf(fp, "clock       this host is %lld ms %s the lock server (+/- %lld ms)\n",
	    llabs(offset_ms), offset_ms > 0 ? "behind" : "ahead of", (rtt_ms + 1) / 2);
}

/* Connect and PING, after what was printed so far is out. Then read the
 * server's clock (states() of no task: one round trip) and say how far
 * ours is from it. Returns 0, or -1 with e. */
static int
reach(struct lr_ctx *x, struct lr_err *e)
{
	long long sent, now_ms;

	fflush(stdout);
	if (x->be.ops->ping(&x->be, e) != 0)
		return -1;
	printf("%-11s %s: reachable\n", x->be.ops->name, x->be.where);
	sent = real_ms();
	if (x->be.ops->states(&x->be, NULL, 0, 0, NULL, &now_ms, e) != 0)
		return -1;
	check_clock_print(stdout, now_ms - (sent + real_ms()) / 2, real_ms() - sent);
	fflush(stdout);
	return 0;
}

/* Under a task of check_config(), if its schedule is a seconds schedule
 * (which tick leaves to cron): its next fire times, for cron. st is the
 * task's schedule, or NULL. */
static void
seconds_line(FILE *fp, const struct sched_task *st, long long now_ms)
{
	char a[TEXT_ISO_MAX], b[32];
	time_t t = (time_t)(now_ms / 1000);

	if (st == NULL || !schedule_subminute(&st->sched))
		return;
	fprintf(fp, "            seconds schedule (lockrun cron only), tolerance %s; next",
	    duration_format(st->sched.tolerance_ms, b, sizeof(b)));
	for (int i = 0; i < 3 && (t = schedule_next(&st->sched, t)) != (time_t)-1; i++)
		fprintf(fp, " %s", iso(t, a, sizeof(a)));
	fprintf(fp, "\n");
}

/* Fire time t as the task's zone reads it: "2026-06-15 14:00+02:00". */
static char *
in_zone(time_t t, const char *tz, char *buf, size_t n)
{
	const struct lr_zone *z;
	struct lr_err e;
	struct tm tm;
	long off;

	z = zone_load(tz, &e);
	off = zone_offset(z ? z : zone_utc(), (long long)t, NULL);
	cron_utc(t + off, &tm);
	snprintf(buf, n, "%04d-%02d-%02d %02d:%02d%c%02ld:%02ld", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, off < 0 ? '-' : '+',
	    labs(off) / 3600, labs(off) % 3600 / 60);
	return buf;
}

/* The next three fire times of a task with a cron schedule, in its zone. */
static void
next_three(FILE *fp, const struct lr_schedule *s, long long now_ms)
{
	time_t t = (time_t)(now_ms / 1000);
	char a[64];

	fprintf(fp, "            next");
	for (int i = 0; i < 3 && (t = schedule_next(s, t)) != (time_t)-1; i++)
		fprintf(fp, "%s %s", i ? "," : "", in_zone(t, s->cron.tz, a, sizeof(a)));
	fprintf(fp, " (%s)\n", s->cron.tz[0] ? s->cron.tz : "local time");
}

/* Where a run of t would find its command, as run_prepare() and execvp
 * find it, without changing directory: a relative path from the task's
 * cwd, a name in the task's PATH. Returns 0, or -1 with e. */
static int
resolve(const struct lr_task *t, char *found, size_t n, struct lr_err *e)
{
	const char *argv0 = t->shell ? "/bin/sh" : t->argv[0], *path = getenv("PATH");
	const struct passwd *pw = t->user ? getpwnam(t->user) : NULL;
	char rel[PATH_MAX];
	struct stat st;

	if (pw && pw->pw_uid != 0)	/* another user's: never lockrun's (runas.h) */
		path = LR_USER_PATH;

	if (t->cwd && stat(t->cwd, &st) != 0)
		return lr_errf(e, EX_CONFIG, "cwd %s: %s", t->cwd, strerror(errno));
	if (t->cwd && !S_ISDIR(st.st_mode))
		return lr_errf(e, EX_CONFIG, "cwd %s: %s", t->cwd, strerror(ENOTDIR));
	for (size_t i = 0; t->env && t->env[i]; i++)
		if (strncmp(t->env[i], "PATH=", 5) == 0)
			path = t->env[i] + 5;
	if (t->cwd && argv0[0] != '/' && strchr(argv0, '/')) {
		size_t len = strlen(t->cwd);

		snprintf(rel, sizeof(rel), "%s%s%s", t->cwd,
		    len && t->cwd[len - 1] == '/' ? "" : "/", argv0);
		argv0 = rel;
	}
	return spawn_find(argv0, path, found, n, e);
}

/* One task as a run of it would find it: its settings merged, its
 * command found, its next fire times, written to fp. A problem is one
 * line on stderr, at once, at the task's command (file:line:col) or its
 * file; returns its status, or 0. */
static int
check_task(FILE *fp, struct lr_ctx *x, const char *name, long long now_ms)
{
	char file[PATH_MAX], found[PATH_MAX];
	struct lr_keys k;
	struct lr_err e;

	keys_build(&k, x->prefix, name, (time_t)-1, 60000);
	fprintf(fp, "task        %-24s %s\n", name, k.stable);
	if (ctx_merge(x, name, &e) != 0 || resolve(&x->t, found, sizeof(found), &e) != 0) {
		const char *at = x->t.argv_at;

		if (at == NULL) {
			config_task_file(x->cfg, name, file, sizeof(file));
			at = file;
		}
		lr_error("%s: tasks.%s: %s", at, name, e.msg);
		return e.status;
	}
	if (x->t.schedule && !schedule_subminute(&x->sched))	/* else seconds_line() */
		next_three(fp, &x->sched, now_ms);
	if (x->t.schedule && x->sched.has_cron) {	/* the schedule in words */
		char day[96];

		cron_per_day(&x->sched.cron, day, sizeof(day));
		fprintf(fp, "            %s%s\n", x->sched.cron.seconds ? "six fields, the "
		    "first a second: " : "fires ", day);
	}
	return 0;
}

/* `lockrun check` alone: the config is valid (or absent); each task is
 * what a run of it would find (check_task()), with the next fire times of
 * seconds schedules; reach the server. The problems come first, on
 * stderr, then the config's line says how many tasks have one, then the
 * tasks. Returns 1 when a task or a crontab line has a problem, else 0. */
static int
check_config(struct lr_ctx *x, struct lr_err *e)
{
	long long now_ms = real_ms();
	struct sched_task *st = NULL;
	const struct sched_task **of;
	const struct lr_task *task;
	size_t nst = 0, listn = 0;
	char *list = NULL;
	long bad = 0, lines = 0;
	FILE *fp;

	if (ctx_server(x, e) != 0 ||
	    (config_is_set(x->cfg) && due_tasks(x->cfg, NULL, &st, &nst, e) != 0)) {
		free(st);
		return -1;
	}
	/* each task's schedule by the task's place in cfg.tasks, found with
	 * config_task()'s table: check stays linear in the number of tasks */
	if ((of = calloc(x->cfg->ntasks + 1, sizeof(*of))) == NULL ||
	    (fp = open_memstream(&list, &listn)) == NULL) {
		free(of);
		free(st);
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	for (size_t j = 0; j < nst; j++)
		if ((task = config_task(x->cfg, st[j].name)) != NULL)
			of[task - x->cfg->tasks] = &st[j];
	/* the crontab lines that are no task: a problem, said first */
	for (size_t i = 0; i < x->cfg->nnotes; i++) {
		if (x->cfg->notes[i].skipped) {
			lr_error("%s; the line is not run", x->cfg->notes[i].text);
			lines++;
		} else
			lr_warn("%s", x->cfg->notes[i].text);
	}
	for (size_t i = 0; i < x->cfg->nnames; i++) {
		bad += check_task(fp, x, x->cfg->names[i], now_ms) != 0;
		task = config_task(x->cfg, x->cfg->names[i]);
		seconds_line(fp, task ? of[task - x->cfg->tasks] : NULL, now_ms);
	}
	fclose(fp);
	config_line(x, bad, lines);
	fwrite(list, 1, listn, stdout);
	free(list);
	free(of);
	free(st);
	return reach(x, e) != 0 ? -1 : bad > 0 || lines > 0;
}

/* Would a run work against this server and these keys? A replica, a key
 * of the wrong type or a missing permission each get a line; any of them
 * is EX_UNAVAILABLE: the run would be refused, or would record nothing. */
static int
probe(struct lr_ctx *x, const char *name, struct lr_err *e)
{
	struct lr_keys k;
	time_t slot = (time_t)-1;
	char problems[2048];
	int n;

	if (x->t.one_server)
		slot = schedule_slot(&x->sched, real_ms());
	keys_build(&k, x->prefix, name, slot, schedule_stamp_ms(&x->sched));
	if (x->t.run_on == RUN_ON_ALL)
		keys_slot_host(&k, ctx_host(x));
	if ((n = x->be.ops->probe(&x->be, &k, x->t.one_server == 1 && slot != (time_t)-1,
	    problems, sizeof(problems), e)) < 0)
		return -1;
	if (n == 0) {
		printf("keys        %s: types and permissions ok\n", k.stable);
		return 0;
	}
	for (char *line = strtok(problems, "\n"); line; line = strtok(NULL, "\n"))
		lr_error("%s %s: %s", x->be.ops->name, x->be.where, line);
	return EX_UNAVAILABLE;
}

int
verb_check(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_check c = { .t = &x->t, .task = x->cli.task, .sched = &x->sched };
	struct lr_run *r;
	int rc = -1;

	if (x->cli.task == NULL && x->cli.cmd == NULL)
		return check_config(x, e);
	if (ctx_merge(x, NULL, e) != 0 || ctx_server(x, e) != 0 ||
	    (x->be.ops->check_task && x->be.ops->check_task(&x->be, &x->t, e) != 0) ||
	    (r = run_new(x, e)) == NULL)
		return -1;
	if (run_prepare(r, e) != 0)
		goto out;
	if (r->cannot_start.status != 0) {	/* a run would record it failed */
		*e = r->cannot_start;
		goto out;
	}
	c.name = r->name;
	c.prefix = x->prefix;
	c.argv = r->exec_argv;
	c.host = x->t.run_on == RUN_ON_ALL ? ctx_host(x) : NULL;
	config_line(x, -1, 0);
	protection_print(x);
	where_print(x);
	when_print(r);	/* when.c */
	check_print(stdout, &c, real_ms());
	rc = reach(x, e) != 0 ? -1 : probe(x, r->name, e);
out:
	run_free(r);
	return rc;
}

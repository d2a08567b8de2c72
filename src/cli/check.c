/* SPDX-License-Identifier: BSD-2-Clause */
/* check.c -- print what a run would use: keys, lease, slot, fire times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/check.h"
#include "cli/ctx.h"
#include "out/log.h"
#include "proc/supervise.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
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
	fprintf(fp, "fencing     %s\n", k.fence);
	if (c->t->one_server)
		print_slots(fp, c, now_ms);
}

/* The config file and its tasks, or that there is none. */
static void
config_line(const struct lr_ctx *x)
{
	if (x->cfg.path == NULL)
		printf("config      none (command-line options only)\n");
	else
		printf("config      %s: ok, %zu task%s\n", x->cfg.path, x->cfg.nnames,
		    x->cfg.nnames == 1 ? "" : "s");
}

/* Connect and PING, after what was printed so far is out. Returns 0, or
 * -1 with e. */
static int
reach(struct lr_ctx *x, struct lr_err *e)
{

	fflush(stdout);
	if (x->be.ops->ping(&x->be, e) != 0)
		return -1;
	printf("%-11s %s: reachable\n", x->be.ops->name, x->be.where);
	fflush(stdout);
	return 0;
}

/* Under a task of check_config(), if its schedule is a seconds schedule
 * (which tick leaves to cron): its next fire times, for cron. */
static void
seconds_line(const struct sched_task *st, size_t n, const char *name, long long now_ms)
{
	char a[TEXT_ISO_MAX], b[32];
	time_t t = (time_t)(now_ms / 1000);

	while (n > 0 && strcmp(st->name, name) != 0)
		st++, n--;
	if (n == 0 || !schedule_subminute(&st->sched))
		return;
	printf("            seconds schedule (lockrun cron only), tolerance %s; next",
	    duration_format(st->sched.tolerance_ms, b, sizeof(b)));
	for (int i = 0; i < 3 && (t = schedule_next(&st->sched, t)) != (time_t)-1; i++)
		printf(" %s", iso(t, a, sizeof(a)));
	printf("\n");
}

/* `lockrun check` alone: the config is valid (or absent); list its tasks'
 * keys, and the next fire times of seconds schedules; reach Redis. */
static int
check_config(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_keys k;
	struct sched_task *st = NULL;
	size_t nst = 0;
	long long now_ms = real_ms();

	if (ctx_server(x, e) != 0 ||
	    (x->cfg.path && due_tasks(&x->cfg, &st, &nst, e) != 0)) {
		free(st);
		return -1;
	}
	config_line(x);
	for (size_t i = 0; i < x->cfg.nnames; i++) {
		keys_build(&k, x->prefix, x->cfg.names[i], (time_t)-1, 60000);
		printf("task        %-24s %s\n", x->cfg.names[i], k.stable);
		seconds_line(st, nst, x->cfg.names[i], now_ms);
	}
	free(st);
	return reach(x, e);
}

/* Would a run work against this server and these keys? A replica, a key
 * of the wrong type or a missing permission each get a line; any of them
 * is EX_UNAVAILABLE: the run would be refused, or would record nothing. */
static int
probe(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_keys k;
	time_t slot = (time_t)-1;
	char problems[2048];
	int n;

	if (x->t.one_server)
		slot = schedule_slot(&x->sched, real_ms());
	keys_build(&k, x->prefix, x->name, slot, schedule_stamp_ms(&x->sched));
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
	struct lr_check c = { .t = &x->t, .task = x->cli.task, .name = x->name,
	    .sched = &x->sched };

	if (x->cli.task == NULL && x->cli.cmd == NULL)
		return check_config(x, e);
	if (ctx_merge(x, NULL, e) != 0 || ctx_server(x, e) != 0 || run_prepare(x, e) != 0)
		return -1;
	c.prefix = x->prefix;
	c.argv = x->exec_argv;
	config_line(x);
	check_print(stdout, &c, real_ms());
	if (reach(x, e) != 0)
		return -1;
	return probe(x, e);
}

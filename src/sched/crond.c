/* SPDX-License-Identifier: BSD-2-Clause */
/* crond.c -- the scheduler's loop: one poll(2) over a timerfd armed at the
 * next fire time, a signalfd, and the running tasks' output pipes; nothing
 * wakes it between fire times. */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/crond.h"
#include "sched/due.h"
#include "sched/heap.h"
#include "sched/lines.h"
#include "sched/notify.h"

/* A run started and not yet gone: its pid (0 once reaped) and its pipes. */
struct running {
	pid_t			pid;
	char			task[256];
	char			slot[TEXT_ISO_MAX];
	long long		token;	/* the run's, once its log said it */
	struct line_stream	out, err;
};

struct crond {
	const struct crond_opts	*o;
	struct sched_task	*tasks;
	size_t			 ntasks;
	time_t			*last;		/* per task: the last slot started */
	struct heap		 heap;
	struct running		*run;
	size_t			 nrun, caprun;
	int			 tfd, sfd;
	int			 stopping;
};

/* t as ISO 8601 UTC, to the second. */
static char *
iso(time_t t, char *buf, size_t n)
{
	return text_iso((long long)t * 1000, TEXT_ISO_S, buf, n);
}

/* Each task's next fire time after now, and after the last slot it
 * started (a clock stepped back starts nothing twice), into a new heap. */
static int
plan(struct crond *d, time_t now)
{
	heap_free(&d->heap);
	for (size_t i = 0; i < d->ntasks; i++) {
		time_t from = d->last[i] > now ? d->last[i] : now;
		time_t next = schedule_next(&d->tasks[i].sched, from);
		if (next != (time_t)-1 && heap_push(&d->heap, next, i) != 0)
			return -1;
	}
	return 0;
}

/* Arm the timer at the earliest fire time, on the wall clock, to be told
 * of any step of that clock (TFD_TIMER_CANCEL_ON_SET). */
static void
arm(struct crond *d)
{
	const struct heap_entry *top = heap_top(&d->heap);
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (top)
		its.it_value.tv_sec = top->at;
	else	/* nothing scheduled: still learn of clock steps, a year out */
		its.it_value.tv_sec = time(NULL) + 366L * 86400;
	timerfd_settime(d->tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}

static struct running *
running_add(struct crond *d)
{
	if (d->nrun == d->caprun) {
		size_t cap = d->caprun ? d->caprun * 2 : 16;
		struct running *v = realloc(d->run, cap * sizeof(*v));
		if (v == NULL)
			return NULL;
		d->run = v;
		d->caprun = cap;
	}
	return memset(&d->run[d->nrun++], 0, sizeof(struct running));
}

/* Start task i's run for slot. */
static void
start(struct crond *d, size_t i, time_t slot)
{
	struct lr_err e = LR_ERR_INIT;
	struct running *r = running_add(d);
	int out = -1, err = -1, relay = !d->tasks[i].output_inherit;

	d->last[i] = slot;
	if (r == NULL) {
		lr_event(LOG_ERR, "error", NULL, "%s: out of memory", d->tasks[i].name);
		return;
	}
	snprintf(r->task, sizeof(r->task), "%s", d->tasks[i].name);
	iso(slot, r->slot, sizeof(r->slot));
	/* output: inherit: the run writes to our stdout and stderr itself */
	if ((r->pid = spawn_task(d->o->sp, &d->tasks[i], (long long)slot * 1000,
	    relay ? &out : NULL, relay ? &err : NULL, &e)) < 0) {
		lr_event(LOG_ERR, "error", NULL, "%s: %s", r->task, e.msg);
		d->nrun--;
		return;
	}
	r->out = (struct line_stream){ .fd = out, .out = 1 };
	r->err = (struct line_stream){ .fd = err, .out = 2 };
}

/* The fire time at the top came (or the clock moved past it): start its
 * latest fire time at or before now, once, if it is late by no more than
 * the task's starting_deadline; say what was missed. */
static void
fire(struct crond *d, const struct heap_entry *h, long long now_ms)
{
	struct sched_task *t = &d->tasks[h->task];
	/* schedule_slot() looks tolerance ahead: step back by as much */
	time_t latest = schedule_slot(&t->sched, now_ms - t->sched.tolerance_ms);
	char a[TEXT_ISO_MAX], b[TEXT_ISO_MAX], late[32];

	if (latest == (time_t)-1 || latest < h->at)
		latest = h->at;
	iso(latest, b, sizeof(b));
	if (latest > h->at)
		lr_event(LOG_WARNING, "missed", NULL, "%s: fire times from %s to before %s "
		    "were missed (the clock moved on); not caught up", t->name,
		    iso(h->at, a, sizeof(a)), b);
	duration_human(now_ms - (long long)latest * 1000, late, sizeof(late));
	if (latest <= d->last[h->task])
		return;		/* started already: the clock went back */
	if (now_ms - (long long)latest * 1000 > t->deadline_ms) {
		lr_event(LOG_WARNING, "missed", NULL, "%s: fire time %s missed by %s, more "
		    "than its starting_deadline: skipped", t->name, b, late);
		d->last[h->task] = latest;
		return;
	}
	if (now_ms - (long long)latest * 1000 >= 1000)
		lr_event(LOG_INFO, "late", NULL, "%s: starting fire time %s %s late",
		    t->name, b, late);
	start(d, h->task, latest);
}

/* The timer expired, or the clock was stepped: start what is due. */
static void
on_timer(struct crond *d)
{
	unsigned long long n;
	long long now_ms = real_ms();
	struct heap_entry h;

	(void)!read(d->tfd, &n, sizeof(n));	/* ECANCELED on a step: same answer */
	while (heap_top(&d->heap) && (long long)heap_top(&d->heap)->at * 1000 <= now_ms) {
		time_t next;

		heap_pop(&d->heap, &h);
		fire(d, &h, now_ms);
		next = schedule_next(&d->tasks[h.task].sched, now_ms / 1000 > d->last[h.task] ?
		    (time_t)(now_ms / 1000) : d->last[h.task]);
		if (next != (time_t)-1)
			heap_push(&d->heap, next, h.task);
	}
	arm(d);
}

/* SIGHUP: the JSON log file opened again by its name (logrotate has
 * renamed it), and the config again, whole; a bad one is said and the
 * old kept. */
static void
reload(struct crond *d)
{
	struct lr_config nc;
	struct lr_err e = LR_ERR_INIT;
	struct sched_task *tasks;
	size_t n;
	time_t *last;

	if (log_reopen() != 0)
		lr_error("log file: cannot open it again: %s; writing on to the file "
		    "open before", strerror(errno));
	if (config_load(d->o->cfg->path, NULL, &nc, &e) != 0 ||
	    due_tasks(&nc, &tasks, &n, &e) != 0) {
		lr_event(LOG_ERR, "config-error", NULL, "%s; the config in force stays", e.msg);
		config_free(&nc);
		return;
	}
	if ((last = calloc(n + 1, sizeof(*last))) == NULL) {
		free(tasks);
		config_free(&nc);
		return;
	}
	for (size_t i = 0; i < n; i++)	/* a task kept keeps what it started */
		for (size_t j = 0; j < d->ntasks; j++)
			if (strcmp(tasks[i].name, d->tasks[j].name) == 0)
				last[i] = d->last[j];
	free(d->tasks);
	free(d->last);
	config_free(d->o->cfg);
	*d->o->cfg = nc;
	d->tasks = tasks;
	d->ntasks = n;
	d->last = last;
	plan(d, time(NULL));
	arm(d);
	lr_event(LOG_INFO, "reloaded", NULL, "read %s again: %zu scheduled tasks",
	    d->o->cfg->path, n);
}

/* Reap every child that ended (as PID 1 or subreaper, orphans too). */
static void
reap(struct crond *d)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (size_t i = 0; i < d->nrun; i++)
			if (d->run[i].pid == pid)
				d->run[i].pid = 0;
}

static void
on_signal(struct crond *d)
{
	struct signalfd_siginfo si;

	if (read(d->sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	if (si.ssi_signo == SIGCHLD)
		reap(d);
	else if (si.ssi_signo == SIGHUP && !d->stopping)
		reload(d);
	else if (si.ssi_signo != SIGHUP) {	/* TERM, INT, QUIT */
		if (!d->stopping) {
			notify_send("STOPPING=1");
			lr_event(LOG_INFO, "stopping", NULL, "stopping: %zu runs to wait for",
			    d->nrun);
		}
		d->stopping = 1;
		for (size_t i = 0; i < d->nrun; i++)
			if (d->run[i].pid > 0)
				kill(d->run[i].pid, (int)si.ssi_signo);
	}
}

/* Relay output; drop the runs that are reaped and whose pipes closed.
 * stderr first: the run's log line that gives its token was written there
 * before its command started, so it is read before any line of the
 * command's stdout, which then carries the token too. */
static void
pump(struct crond *d)
{
	size_t k = 0;

	for (size_t i = 0; i < d->nrun; i++) {
		struct running *r = &d->run[i];
		struct line_source src = { r->task, r->slot, d->o->json, r->token };
		lines_pump(&r->err, &src);
		lines_pump(&r->out, &src);
		r->token = src.token;
		if (r->pid > 0 || r->out.fd >= 0 || r->err.fd >= 0)
			d->run[k++] = *r;
	}
	d->nrun = k;
}

static size_t
live(const struct crond *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nrun; i++)
		n += d->run[i].pid > 0;
	return n;
}

/* One wait: the timer (unless stopping), the signals, every open pipe. */
static void
step(struct crond *d)
{
	struct pollfd *p = calloc(2 + 2 * d->nrun, sizeof(*p));
	size_t n = 0;

	if (p == NULL)
		return;
	p[n++] = (struct pollfd){ .fd = d->sfd, .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = d->stopping ? -1 : d->tfd, .events = POLLIN };
	for (size_t i = 0; i < d->nrun; i++) {
		p[n++] = (struct pollfd){ .fd = d->run[i].out.fd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = d->run[i].err.fd, .events = POLLIN };
	}
	if (poll(p, n, -1) > 0) {
		if (p[1].revents)
			on_timer(d);
		if (p[0].revents)
			on_signal(d);
	}
	free(p);
	pump(d);
}

static int
setup(struct crond *d, struct lr_err *e)
{
	/* orphans of the runs' commands come here to be reaped, as to PID 1 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((d->sfd = sched_signalfd(SFD_NONBLOCK)) < 0 ||
	    (d->tfd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return lr_errf(e, EX_OSERR, "cannot wait for signals and time: %s",
		    strerror(errno));
	if (due_tasks(d->o->cfg, &d->tasks, &d->ntasks, e) != 0)
		return -1;
	if ((d->last = calloc(d->ntasks + 1, sizeof(*d->last))) == NULL ||
	    plan(d, time(NULL)) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	arm(d);
	return 0;
}

int
crond_run(const struct crond_opts *o, struct lr_err *e)
{
	struct crond d = { .o = o, .tfd = -1, .sfd = -1 };
	int rc = -1;

	if (setup(&d, e) == 0) {
		lr_event(LOG_INFO, "ready", NULL, "cron: %zu scheduled tasks in %s", d.ntasks,
		    o->cfg->path);
		notify_send("READY=1");
		while (!d.stopping || live(&d) > 0)
			step(&d);
		pump(&d);
		rc = 0;
	}
	if (d.tfd >= 0)
		close(d.tfd);
	if (d.sfd >= 0)
		close(d.sfd);
	heap_free(&d.heap);
	free(d.tasks);
	free(d.last);
	free(d.run);
	return rc;
}

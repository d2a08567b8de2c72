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
#include "sched/away.h"
#include "sched/claim.h"
#include "sched/crond.h"
#include "sched/defer.h"
#include "sched/due.h"
#include "sched/heap.h"
#include "sched/lines.h"
#include "sched/missed.h"
#include "sched/notify.h"
#include "sched/report.h"
#include "sched/run_table.h"
#include "sched/start_queue.h"
#include "sched/trigger.h"


struct crond {
	const struct crond_opts	*o;
	struct sched_task	*tasks;
	size_t			 ntasks;
	time_t			*last;		/* per task: the last slot started */
	struct heap		 heap;
	struct run_table	 runs;		/* in progress (run_table.h) */
	struct start_queue	 due;		/* to start (start_queue.h) */
	int			 tfd, sfd;
	int			 stopping;
	long long		 clock_said;	/* report.h: the last "clock is off" */
	struct crond_view	 view;		/* the counts a watcher is told */
	struct missed_queue	 missed;	/* slots to record as missed */
	struct watchdog		 wd;		/* systemd's (notify.h) */
	struct trigger_look	 look;		/* for triggered runs (trigger.h) */
	struct defer		 defer;		/* the races sat out (defer.h) */
	unsigned long long	 claims_lost;	/* starts whose slot another held */
	struct away		 away;		/* the server away: starts held */
	struct lr_err		 fail;		/* what stopped it (fail()), or none */
	struct report_once	 kill_failed;	/* a run not signalled (halt()) */
	int			 dead;		/* cannot even wait: leave at once */
};

/* t as ISO 8601 UTC, to the second. */
static char *
iso(time_t t, char *buf, size_t n)
{
	return text_iso((long long)t * 1000, TEXT_ISO_S, buf, n);
}

/* Each task's next fire time after now, and after the last slot it
 * started (a clock stepped back starts nothing twice), into a new heap.
 * Catch-up: a one-server minute task's latest fire time at or before now
 * that this scheduler has not started fell while no scheduler ran here (a
 * start, a task added): due now if within its starting_deadline (its run
 * claims the slot unless a server ran it: the slot record lives until the
 * next fire time, so only the latest is decided), else noted as missed
 * (missed.h). Not under a minute: a late run would hold the next off. */
static int
plan(struct crond *d, time_t now)
{
	heap_free(&d->heap);
	for (size_t i = 0; i < d->ntasks; i++) {
		const struct sched_task *t = &d->tasks[i];
		time_t from = d->last[i] > now ? d->last[i] : now;
		time_t next = schedule_next(&t->sched, from);
		time_t prev = schedule_slot(&t->sched, (long long)now * 1000 - t->sched.tolerance_ms);

		if (t->one_server && !schedule_subminute(&t->sched) && prev != (time_t)-1 &&
		    prev > d->last[i] && ((long long)now - prev) * 1000 <= t->deadline_ms)
			next = prev;
		else if (prev != (time_t)-1 && prev > d->last[i] && !t->sched.reboot)
			missed_note(&d->missed, t, d->last[i] = prev);
		if (next != (time_t)-1 && heap_push(&d->heap, next, i, 0) != 0)
			return -1;
	}
	return 0;
}

/* Stop starting; pass sig on to the runs, to be waited for. */
static void
halt(struct crond *d, int sig)
{
	if (!d->stopping) {
		notify_send("STOPPING=1");
		lr_event(LOG_INFO, "stopping", NULL, "stopping: %zu runs to wait for, "
		    "%zu due not started", d->runs.n, start_queue_clear(&d->due));
	}
	d->stopping = 1;
	for (size_t i = 0; i < d->runs.n; i++)	/* ESRCH: ended, not yet reaped */
		if (d->runs.v[i]->pid > 0 && kill(d->runs.v[i]->pid, sig) != 0 && errno != ESRCH)
			report_fault(&d->kill_failed, errno, "cron: cannot pass signal %d on to "
			    "the run of %s, pid %ld: kill", sig, d->runs.v[i]->task,
			    (long)d->runs.v[i]->pid);
}

/* A system call the loop cannot go on without failed: stop as SIGTERM
 * stops, and leave with EX_OSERR and a line saying what (crond_run()), for
 * the service manager to start it again; dead: at once, without waiting
 * for the runs (it cannot wait). */
static void
fail(struct crond *d, const char *what, int err, int dead)
{
	d->dead |= dead;
	if (d->fail.status == 0)
		lr_errf(&d->fail, EX_OSERR, "cron: %s: %s; stopping", what, strerror(err));
	halt(d, SIGTERM);
}

/* Arm the timer at the earliest of the next fire time, the watchdog's next
 * ping, the next look for triggers and the next ask of a server away, on
 * the wall clock, to be told of any step of that clock
 * (TFD_TIMER_CANCEL_ON_SET). A timer that cannot be armed would never wake
 * the scheduler again: it stops (fail()). */
static void
arm(struct crond *d)
{
	const struct heap_entry *top = heap_top(&d->heap);
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	long long now = real_ms(), at, away;
	int err = clock_error();
	long long mono = mono_ms();

	if (d->stopping)
		return;		/* the timer is not waited for any more (step()) */
	/* a time of 0 would arm the timer wrong, or not at all: as unarmable */
	if (err != 0 || (err = clock_error()) != 0) {
		fail(d, "cannot read the clock for the next fire time: clock_gettime", err, 0);
		return;
	}
	away = away_wake_ms(&d->away, now, mono);

	if (top)
		at = (long long)top->at * 1000;
	else	/* nothing scheduled: still learn of clock steps, a year out */
		at = now + 366LL * 86400 * 1000;
	if (d->wd.ms > 0 && d->wd.next < at)
		at = d->wd.next;
	if (d->look.poll && d->look.next < at)
		at = d->look.next;
	if (d->defer.nw > 0 && defer_next_ms(&d->defer) < at)
		at = defer_next_ms(&d->defer);
	if (d->missed.n > 0 && d->missed.next_ms < at)	/* 0: now */
		at = d->missed.next_ms;
	if (away > 0 && away < at)
		at = away;
	if (at < now)	/* now: an instant past (0 is "disarmed" to the kernel) */
		at = now > 0 ? now : 1;
	its.it_value.tv_sec = (time_t)(at / 1000);
	its.it_value.tv_nsec = (long)(at % 1000) * 1000000;
	if (timerfd_settime(d->tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) != 0)
		fail(d, "cannot arm the timer for the next fire time: timerfd_settime", errno, 0);
}

/* How long a start waits for the starter's answer: the loop answers no
 * renewal meanwhile, so a sixth of the shortest TTL of the tasks' runs
 * (they renew at a third), and at most STARTER_ANSWER_MAX_MS. A starter
 * stopped or wedged past it is replaced (starter.c). */
static void
starter_bound(struct crond *d)
{
	long long ms = STARTER_ANSWER_MAX_MS;

	for (size_t i = 0; i < d->ntasks; i++)
		if (d->tasks[i].ttl_ms > 0 && d->tasks[i].ttl_ms / 6 < ms)
			ms = d->tasks[i].ttl_ms / 6;
	if (d->o->sp->starter)
		d->o->sp->starter->answer_ms = ms > 0 ? ms : 1;
}

/* Task i is due for slot: its run starts once fewer than STARTS_AT_ONCE
 * runs are getting ready, and the server answers (drain()). While it is
 * away, a start of the task still held gives way (away.h). */
static void
start(struct crond *d, size_t i, time_t slot)
{
	struct start_entry old;

	if (!TRIGGERED(slot))
		d->last[i] = slot;
	while (!TRIGGERED(slot) && d->away.down && start_queue_take(&d->due, d->tasks[i].name, &old))
		away_gave_up(&d->away, &d->tasks[i], old.slot, "its next fire time came",
		    &d->missed);
	if (start_queue_push(&d->due, d->tasks[i].name, slot) != 0)
		report_unstarted(d->tasks[i].name, "", "out of memory");
}

/* Up to room starts off the queue, first due first: their slots claimed
 * in one round trip (claim.h), and the runs forked whose slot is not
 * another's; a task the config read again dropped is not, nor a start
 * past its slot (missed_if_passed()). Returns how many were forked. */
static size_t
start_some(struct crond *d, size_t room)
{
	struct claim_start s[STARTS_AT_ONCE];
	struct start_entry e;
	size_t n = 0, forked = 0;

	while (n < room && n < STARTS_AT_ONCE && start_queue_pop(&d->due, &e))
		for (size_t i = 0; i < d->ntasks; i++)
			if (strcmp(d->tasks[i].name, e.task) == 0) {
				if (!missed_if_passed(&d->missed, &d->tasks[i], e.slot,
				    d->last[i]) && !away_late(&d->away, &d->tasks[i], e.slot,
				    real_ms(), &d->missed))
					s[n++] = (struct claim_start){ .task = &d->tasks[i],
					    .slot = e.slot };
				break;
			}
	d->claims_lost += claim_slots(d->o->claim, s, n, real_ms());
	for (size_t j = 0; j < n; j++)
		if (!s[j].lost) {
			run_table_start(&d->runs, d->o->sp, s[j].task, s[j].slot, s[j].nonce);
			forked++;
		}
	return forked;
}

/* Start what is due, first due first, while fewer than STARTS_AT_ONCE
 * runs are getting ready, once the server answers (away.h: nothing is
 * forked while it is away; a start held too long is given up). A turn
 * whose slots were all another's takes the next ones, so that the room
 * is filled while starts are due. */
static void
drain(struct crond *d)
{
	size_t room = STARTS_AT_ONCE, busy = run_table_starting(&d->runs);
	int was = d->away.down, go = away_ready(&d->away, d->due.n, mono_ms());

	if (was || d->away.down)
		arm(d);		/* the next ask, or none */
	if (!go) {
		away_expire(&d->away, &d->due, d->tasks, d->ntasks, real_ms(), &d->missed);
		return;
	}
	for (room = busy < room ? room - busy : 0; room > 0 && d->due.n > 0; )
		room -= start_some(d, room);
	if (d->missed.n > 0 && d->missed.next_ms == 0)
		arm(d);		/* a start given up: its record goes now */
}

/* Run r took no lock because the server could not be reached (69): its
 * slot is tried again after a backoff, if within its starting_deadline
 * (away_retry()). Returns 1 if it will be, else 0. */
static int
retry_later(struct crond *d, const struct running *r)
{
	if (d->stopping || away_retry(&d->away, &d->heap, d->tasks, d->ntasks, r) == 0)
		return 0;
	arm(d);
	return 1;
}

/* Run r is gone: say how it went, try its slot again, or note it missed. */
static void
ended(struct crond *d, const struct running *r)
{
	if (retry_later(d, r) != 0)
		return;
	report_ended(&r->outcome, r->task, r->slot, r->was, r->status, r->took_ms, &d->clock_said);
	if (r->status == EX_UNAVAILABLE && !r->outcome.ran && !r->outcome.skipped && !d->stopping &&
	    TRIGGERED(r->slot_t))
		lr_event(LOG_ERR, "missed", NULL, "%s triggered: missed: the server could not "
		    "be reached within its starting_deadline; the trigger is dropped", r->task);
	/* a slot, or a trigger (dropped on the server, recorded once) */
	for (size_t i = 0; r->status == EX_UNAVAILABLE && !r->outcome.ran && !r->outcome.skipped &&
	    !d->stopping && i < d->ntasks; i++)
		if (strcmp(d->tasks[i].name, r->task) == 0 && (TRIGGERED(r->slot_t) ||
		    d->last[i] == r->slot_t))
			missed_note(&d->missed, &d->tasks[i], r->slot_t);
	arm(d);
}

/* A retry of slot h->retry is due: start it, unless a later slot of the
 * task has started since, which the missed one would now overlap. A
 * triggered run's retry starts as it is (its trigger overlaps nothing). */
static void
again(struct crond *d, const struct heap_entry *h)
{
	char slot[TEXT_ISO_MAX];

	if (TRIGGERED(h->retry)) {
		start(d, h->task, h->retry);
		return;
	}
	iso(h->retry, slot, sizeof(slot));
	if (d->last[h->task] > h->retry) {
		lr_event(LOG_ERR, "missed", NULL, "%s %s: missed: the server could not be "
		    "reached before the next fire time", d->tasks[h->task].name, slot);
		return;
	}
	start(d, h->task, h->retry);
}

/* Tell the watcher, if any, the tasks' next fire times and runs. */
static void
tell(struct crond *d)
{
	size_t *running;

	if (d->o->watch == NULL || (running = calloc(d->ntasks + 1, sizeof(*running))) == NULL)
		return;
	d->view.sat_out = d->defer.skipped + d->claims_lost;
	for (size_t k = 0; k < d->runs.n; k++)
		for (size_t i = 0; i < d->ntasks && d->runs.v[k]->pid > 0; i++)
			running[i] += strcmp(d->runs.v[k]->task, d->tasks[i].name) == 0;
	view_tell(&d->view, d->o->watch, d->o->watch_arg, d->tasks, d->ntasks,
	    &d->heap, running);
	free(running);
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
	if (latest > h->at) {
		d->view.missed++;	/* one or more: counted as one gap */
		lr_event(LOG_ERR, "missed", NULL, "%s: fire times from %s to before %s "
		    "were missed (the clock moved on); not caught up", t->name,
		    iso(h->at, a, sizeof(a)), b);
	}
	duration_human(now_ms - (long long)latest * 1000, late, sizeof(late));
	if (latest <= d->last[h->task])
		return;		/* started already: the clock went back */
	if (now_ms - (long long)latest * 1000 > t->deadline_ms) {
		lr_event(LOG_ERR, "missed", NULL, "%s: fire time %s missed by %s, more "
		    "than its starting_deadline: skipped", t->name, b, late);
		d->view.missed++;
		missed_note(&d->missed, t, d->last[h->task] = latest);
		return;
	}
	if (!due_window(t, latest)) {	/* between:, not_between: said no */
		d->last[h->task] = latest;
		return;
	}
	if (due_delay(&d->heap, t, h->task, latest, now_ms) ||
	    defer_hold(&d->defer, t, latest, now_ms) != 0) {
		d->last[h->task] = latest;	/* put off, or told it ran */
		return;
	}
	if (now_ms - (long long)latest * 1000 >= 1000)
		lr_event(LOG_INFO, "late", NULL, "%s: starting fire time %s %s late",
		    t->name, b, late);
	if (!claim_first(d->o->claim, t, latest) && defer_put_off(&d->defer, t, latest, now_ms)) {
		d->last[h->task] = latest;	/* claimed a little later (claim.h) */
		return;
	}
	view_lag(&d->view, now_ms - (long long)latest * 1000);
	start(d, h->task, latest);
}

static void
start_triggered(void *d, size_t i, time_t slot)	/* trigger_check()'s: claims no slot */
{
	start(d, i, slot);
}

static void
start_deferred(void *arg, const char *name, time_t slot)	/* defer_due()'s */
{
	struct crond *d = arg;

	for (size_t i = 0; i < d->ntasks; i++) {
		int go;

		if (strcmp(d->tasks[i].name, name) != 0)
			continue;
		if ((go = defer_go(&d->defer, &d->tasks[i], slot, real_ms())) > 0)
			start(d, i, slot);
		else if (go < 0)	/* too late: another server may have run it */
			missed_note(&d->missed, &d->tasks[i], slot);
	}
}

static int
ours(void *arg, long pid)	/* a claim's pid: ours, or one of our runs? */
{
	return pid == (long)getpid() || run_table_was(&((struct crond *)arg)->runs, pid);
}

/* The timer expired, or the clock was stepped: start what is due. */
static void
on_timer(struct crond *d)
{
	unsigned long long n;
	long long now_ms = real_ms();
	struct heap_entry h;

	/* ECANCELED on a step: same answer; EAGAIN: woken for nothing */
	if (read(d->tfd, &n, sizeof(n)) < 0 && errno != ECANCELED && errno != EAGAIN &&
	    errno != EINTR) {
		fail(d, "cannot read the timer: read", errno, 0);
		return;
	}
	notify_watchdog_ping(&d->wd, now_ms);
	/* a trigger given up is dropped before a look could take it again */
	missed_flush(&d->missed, d->o->missed, now_ms, d->tasks, d->ntasks, d->o->sp);
	if (!d->stopping)
		trigger_check(&d->look, now_ms, d->tasks, d->ntasks, start_triggered, d);
	if (!d->stopping)
		defer_due(&d->defer, now_ms, start_deferred, d);
	if (heap_top(&d->heap) && (long long)heap_top(&d->heap)->at * 1000 <= now_ms)
		claim_fleet(d->o->claim, d->tasks, d->ntasks, mono_ms());	/* who ranks first */
	while (heap_top(&d->heap) && (long long)heap_top(&d->heap)->at * 1000 <= now_ms) {
		time_t next;

		heap_pop(&d->heap, &h);
		if (h.retry) {
			again(d, &h);
			continue;
		}
		fire(d, &h, now_ms);
		next = schedule_next(&d->tasks[h.task].sched, now_ms / 1000 > d->last[h.task] ?
		    (time_t)(now_ms / 1000) : d->last[h.task]);
		if (next != (time_t)-1 && heap_push(&d->heap, next, h.task, 0) != 0) {
			/* else the task would never fire again, silently */
			fail(d, "cannot keep a task's next fire time", ENOMEM, 0);
			return;
		}
	}
	defer_watch(&d->defer, d->tasks, d->ntasks, now_ms);	/* after the starts */
	arm(d);
}

/* SIGHUP: the JSON log opened again by its name (logrotate renamed it),
 * and the config again, whole; a bad one is said and the old kept. */
static void
reload(struct crond *d)
{
	struct lr_config nc;
	struct lr_err e = LR_ERR_INIT;
	struct sched_task *tasks;
	size_t n;
	time_t *last;
	struct heap_entry *retries;
	size_t nretries = 0;
	int oom;

	if (log_reopen() != 0)
		lr_error("log file: cannot open it again: %s; writing on to the file "
		    "open before", strerror(errno));
	starter_stop(d->o->sp->starter);	/* its copy of the log and config */
	if (config_reload(d->o->cfg, &nc, &e) != 0 ||
	    due_tasks(&nc, d->o->host, &tasks, &n, &e) != 0) {
		lr_event(LOG_ERR, "config-error", NULL, "%s; the config in force stays", e.msg);
		config_free(&nc);
		d->view.reload_failures++;
		snprintf(d->view.reload_error, sizeof(d->view.reload_error), "%s", e.msg);
		d->view.reload_error_ms = real_ms();
		return;
	}
	report_notes(&nc);
	report_six_fields(tasks, n);
	last = calloc(n + 1, sizeof(*last));
	retries = calloc(d->heap.n + 1, sizeof(*retries));
	if (last == NULL || retries == NULL) {
		lr_event(LOG_ERR, "config-error", NULL, "read %s again: out of memory; the "
		    "config in force stays", config_where(d->o->cfg));
		free(last);
		free(retries);
		free(tasks);
		config_free(&nc);
		d->view.reload_failures++;
		snprintf(d->view.reload_error, sizeof(d->view.reload_error), "out of memory");
		d->view.reload_error_ms = real_ms();
		return;
	}
	for (size_t i = 0; i < n; i++)	/* a task kept keeps what it started */
		for (size_t j = 0; j < d->ntasks; j++)
			if (strcmp(tasks[i].name, d->tasks[j].name) == 0)
				last[i] = d->last[j];
	for (size_t k = 0; k < d->heap.n; k++)	/* and the slots it tries again */
		for (size_t i = 0; d->heap.v[k].retry && i < n; i++)
			if (strcmp(tasks[i].name, d->tasks[d->heap.v[k].task].name) == 0) {
				retries[nretries] = d->heap.v[k];
				retries[nretries++].task = i;
			}
	free(d->tasks);
	free(d->last);
	config_free(d->o->cfg);
	*d->o->cfg = nc;
	d->tasks = tasks;
	d->ntasks = n;
	d->last = last;
	starter_bound(d);
	/* a fire time or a retry not kept: that task would never fire again */
	oom = plan(d, time(NULL)) != 0;
	for (size_t k = 0; k < nretries && !oom; k++)
		oom = heap_push(&d->heap, retries[k].at, retries[k].task, retries[k].retry) != 0;
	free(retries);
	if (oom) {
		fail(d, "cannot keep the tasks' next fire times", ENOMEM, 0);
		return;
	}
	arm(d);
	d->view.reloads++;
	d->view.reload_error[0] = '\0';	/* the config read is the one in force */
	lr_event(LOG_INFO, "reloaded", NULL, "read %s again: %zu scheduled tasks",
	    config_where(d->o->cfg), n);
}

static void
on_signal(struct crond *d)
{
	struct signalfd_siginfo si;
	ssize_t got = read(d->sfd, &si, sizeof(si));

	if (got < 0 && errno != EAGAIN && errno != EINTR)	/* nor learn of the runs' ends */
		fail(d, "cannot read the signals: read", errno, 1);
	if (got != (ssize_t)sizeof(si))
		return;
	if (si.ssi_signo == SIGCHLD)
		run_table_reap(&d->runs);
	else if (si.ssi_signo == SIGHUP && !d->stopping)
		reload(d);
	else if (si.ssi_signo != SIGHUP)	/* TERM, INT, QUIT */
		halt(d, (int)si.ssi_signo);
}

/* Relay the runs' records and output; say how each run that is reaped
 * and whose pipes and socket closed went, and drop it. The message that
 * gives its token was sent before its command started, so step() read it
 * before any line of the command's, which then carry the token.
 * With p, what poll(2) said of the first nr runs' pipes (step()): only
 * those with something to read are read, not every run's every pipe
 * each turn; without, all of them, and what their sockets hold. */
static void
pump(struct crond *d, const struct pollfd *p, size_t nr)
{
	size_t k = 0;

	for (size_t i = 0; i < d->runs.n; i++) {
		struct running *r = d->runs.v[i];
		struct line_source src = { r->task, r->slot, d->o->json, 0 };

		if (p == NULL || (i < nr && p[2 + 2 * i].revents)) {
			while (p == NULL && r->lease >= 0 &&
			    leases_collect(d->o->leases, &r->lease, &r->outcome) > 0)
				;
			src.token = r->outcome.token;
			lines_pump(&r->out, &src);
		}
		if (r->pid > 0 || r->out.fd >= 0 || r->lease >= 0)
			d->runs.v[k++] = r;
		else {
			ended(d, r);
			free(r);
		}
	}
	d->runs.n = k;
}

/* One wait: the timer (unless stopping), the signals, every open pipe. */
static void
step(struct crond *d)
{
	struct pollfd *p = calloc(3 + 2 * d->runs.n, sizeof(*p));
	size_t n = 0, nr = d->runs.n;
	int ready;

	if (p == NULL) {	/* it would only spin: stop */
		fail(d, "cannot wait for the runs", ENOMEM, 1);
		return;
	}
	p[n++] = (struct pollfd){ .fd = d->sfd, .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = d->stopping ? -1 : d->tfd, .events = POLLIN };
	for (size_t i = 0; i < d->runs.n; i++) {
		p[n++] = (struct pollfd){ .fd = d->runs.v[i]->out.fd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = d->runs.v[i]->lease, .events = POLLIN };
	}
	p[n++] = (struct pollfd){ .fd = defer_fd(&d->defer), .events = POLLIN };
	/* starts still due wait for room (drain(), below): a run getting
	 * ready telling how it goes (outcome.h) makes some */
	if ((ready = poll(p, n, -1)) < 0 && errno != EINTR)	/* it would only spin */
		fail(d, "cannot wait for time, signals and the runs: poll", errno, 1);
	if (ready > 0) {
		if (p[n - 1].revents && defer_fd(&d->defer) == p[n - 1].fd)
			defer_read(&d->defer);	/* before the starts it may spare */
		if (p[1].revents)
			on_timer(d);
		if (p[0].revents)
			on_signal(d);
		if (p[0].revents || p[1].revents)
			tell(d);
		/* how each run goes, its lock requests (not on_timer()'s new
		 * runs'); read whenever its pipes have a line for pump() */
		for (size_t i = 0; i < nr; i++)
			if (p[2 + 2 * i].revents | p[3 + 2 * i].revents)
				leases_collect(d->o->leases, &d->runs.v[i]->lease,
				    &d->runs.v[i]->outcome);
		leases_flush(d->o->leases);	/* in batches */
	}
	pump(d, p, nr);
	free(p);
	if (!d->stopping)
		drain(d);
}

static int
setup(struct crond *d, struct lr_err *e)
{
	/* orphans of the runs' commands come here to be reaped, as to PID 1 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		lr_event(LOG_WARNING, "subreaper", NULL, "cron: the runs' orphans are not "
		    "reaped here: prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
	if ((d->sfd = sched_signalfd(SFD_NONBLOCK)) < 0 ||
	    (d->tfd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return lr_errf(e, EX_OSERR, "cannot wait for signals and time: %s",
		    strerror(errno));
	if (due_tasks(d->o->cfg, d->o->host, &d->tasks, &d->ntasks, e) != 0)
		return -1;
	report_notes(d->o->cfg);
	report_six_fields(d->tasks, d->ntasks);
	starter_bound(d);
	notify_watchdog_setup(&d->wd);
	d->defer = (struct defer){ .src = d->o->claims, .ours = ours, .ours_arg = d };
	claim_fleet(d->o->claim, d->tasks, d->ntasks, mono_ms());	/* noted from the start */
	defer_watch(&d->defer, d->tasks, d->ntasks, real_ms());
	/* the first look at once */
	d->look = (struct trigger_look){ d->o->poll, d->o->poll_arg, real_ms() };
	d->away = (struct away){ .ls = d->o->leases, .seen_ms = mono_ms() };
	if ((d->last = calloc(d->ntasks + 1, sizeof(*d->last))) == NULL ||
	    plan(d, time(NULL)) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	arm(d);
	if (d->fail.status != 0) {
		*e = d->fail;
		return -1;
	}
	return 0;
}

/* Say what cron will do: its tasks, their server, the first fire time. */
static void
ready(struct crond *d)
{
	const struct heap_entry *top = heap_top(&d->heap);

	report_ready(d->ntasks, config_where(d->o->cfg), d->o->server,
	    top ? d->tasks[top->task].name : NULL, top ? top->at : 0);
	for (size_t i = 0; i < d->ntasks; i++)	/* @reboot: now; its run claims the boot */
		if (d->tasks[i].sched.reboot)
			start(d, i, time(NULL));
	drain(d);
	notify_send("READY=1");
}

int
crond_run(const struct crond_opts *o, struct lr_err *e)
{
	struct crond d = { .o = o, .tfd = -1, .sfd = -1 };
	int rc = -1;

	if (setup(&d, e) == 0) {
		ready(&d);
		tell(&d);
		while ((!d.stopping || run_table_live(&d.runs) > 0) && !d.dead)
			step(&d);
		pump(&d, NULL, 0);
		for (size_t i = 0; i < d.runs.n; i++)	/* reaped, a pipe still held */
			ended(&d, d.runs.v[i]);
		rc = 0;
		if (d.fail.status != 0) {
			*e = d.fail;
			rc = -1;
		}
	}
	starter_stop(o->sp->starter);
	if (d.tfd >= 0)
		close(d.tfd);
	if (d.sfd >= 0)
		close(d.sfd);
	heap_free(&d.heap);
	missed_free(&d.missed);
	defer_free(&d.defer);
	claim_free(o->claim);
	free(d.tasks);
	free(d.last);
	run_table_free(&d.runs);
	start_queue_free(&d.due);
	away_free(&d.away);
	return rc;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* tick.c -- one pass of the fleet's crontab: the due tasks, started in
 * parallel as runs of their own (a few getting ready at a time, as cron
 * starts them: start_queue.h), waited for, summed up in one line. */
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/text.h"
#include "out/log.h"
#include "sched/due.h"
#include "sched/outcome.h"
#include "sched/report.h"
#include "sched/start_queue.h"
#include "sched/tick.h"

struct started {
	const struct sched_task	*task;
	int			 due;	/* not started yet (STARTS_AT_ONCE) */
	pid_t			 pid;	/* 0 once reaped */
	pid_t			 was;
	int			 status;
	long long		 started_ms;	/* mono_ms() at the fork */
	long long		 took_ms;
	char			 slot[TEXT_ISO_MAX];
	int			 lease;	/* its socket (how it goes, its log, its
					 * lock requests), or -1 */
	struct run_outcome	 outcome;	/* how it goes, as it told */
};

/* Start v[i]'s run, and say so; a run that cannot be started ends there. */
static void
launch(const struct sched_spawner *sp, struct started *v, long long now_ms)
{
	struct spawn_pipes io = { .relay = 0 };
	struct lr_err e = LR_ERR_INIT;

	v->due = 0;
	v->started_ms = mono_ms();
	if ((v->pid = starter_spawn(sp, v->task, now_ms, "", &io, &e)) < 0) {
		/* those started run to their end; this one failed */
		v->pid = 0;
		v->status = e.status;
		report_unstarted(v->task->name, v->slot, e.msg);
		return;
	}
	v->was = v->pid;
	v->lease = io.lease;
	report_started(v->task->name, v->slot, v->pid);
}

/* Start the runs still due, first first, while fewer than STARTS_AT_ONCE
 * are getting ready (as cron does, start_queue.h); how many are still due. */
static size_t
launch_some(const struct sched_spawner *sp, struct started *v, size_t n, long long now_ms)
{
	size_t busy = 0, due = 0;

	for (size_t i = 0; i < n; i++)
		busy += v[i].pid > 0 && v[i].lease >= 0 && !v[i].outcome.ran &&
		    !v[i].outcome.skipped && !v[i].outcome.waiting;
	for (size_t i = 0; i < n; i++)
		if (v[i].due && busy < STARTS_AT_ONCE) {
			launch(sp, &v[i], now_ms);
			busy++;
		} else
			due += v[i].due;
	return due;
}

static struct report_once said;	/* a system call failed: tick goes on */

/* Reap what has ended; returns how many are still running. A run that
 * cannot be waited for (waitpid(2) fails but with EINTR: ECHILD, someone
 * else reaped it) is not waited for again: it ended, how is not known
 * (EX_OSERR), and that is said. */
static size_t
reap(struct started *v, size_t n)
{
	size_t live = 0;

	for (size_t i = 0; i < n; i++) {
		pid_t got = 0;
		int st;

		if (v[i].pid > 0 && (got = waitpid(v[i].pid, &st, WNOHANG)) == v[i].pid) {
			v[i].status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
			v[i].took_ms = mono_ms() - v[i].started_ms;
			v[i].pid = 0;
		} else if (got < 0 && errno != EINTR) {
			report_fault(&said, errno, "tick: cannot learn how the run of %s, pid "
			    "%ld, ended (counted as status %d): waitpid", v[i].task->name,
			    (long)v[i].pid, EX_OSERR);
			v[i].status = EX_OSERR;
			v[i].took_ms = mono_ms() - v[i].started_ms;
			v[i].pid = 0;
		}
		live += v[i].pid > 0;
	}
	return live;
}

/* Wait for a signal or a message from a run (how it goes, a record of
 * its log, a lock request); read (and answer) what came. A signal that asks us to
 * end is passed on, and no run still due is started. Returns -1 when it
 * cannot wait so. (Runs are due only while STARTS_AT_ONCE are getting
 * ready: one of them telling how it goes makes room.) */
static int
wait_one(struct started *v, size_t n, int sfd, struct pollfd *p, struct leases *ls)
{
	struct signalfd_siginfo si;

	if (sfd < 0 || p == NULL)
		return -1;
	p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (size_t i = 0; i < n; i++)
		p[i + 1] = (struct pollfd){ .fd = v[i].lease, .events = POLLIN };
	if (poll(p, n + 1, -1) < 0) {	/* EINTR: look again; else wait blindly */
		if (errno == EINTR)
			return 0;
		report_fault(&said, errno, "tick: cannot wait for the runs' records, lock "
		    "requests and signals, only for their ends: poll");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i + 1].revents)
			leases_collect(ls, &v[i].lease, &v[i].outcome);
	leases_flush(ls);	/* in batches */
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			for (size_t i = 0; i < n; i++) {
				if (v[i].pid > 0 && kill(v[i].pid, (int)si.ssi_signo) != 0 &&
				    errno != ESRCH)	/* ESRCH: ended, not yet reaped */
					report_fault(&said, errno, "tick: cannot pass signal %d "
					    "on to the run of %s, pid %ld: kill",
					    (int)si.ssi_signo, v[i].task->name, (long)v[i].pid);
				if (v[i].due) {
					v[i].due = 0;
					v[i].status = 128 + (int)si.ssi_signo;
					report_unstarted(v[i].task->name, v[i].slot,
					    "tick was told to stop first");
				}
			}
	return 0;
}

static int
ours(const struct started *v, size_t n, pid_t pid)	/* one of v's runs? */
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return 1;
	return 0;
}

/* Start every run due, a few at a time, and wait for each, reading their
 * records and passing on a signal that asks us to end; then read what is
 * left of the records. */
static void
run_all(const struct sched_spawner *sp, struct started *v, size_t n, struct leases *ls,
    long long now_ms)
{
	struct pollfd *p = calloc(n + 1, sizeof(*p));
	int sfd = sched_signalfd(SFD_NONBLOCK);
	long long clock_said = 0;	/* the clock line: once a pass */
	siginfo_t si;

	if (sfd < 0 || p == NULL)
		report_fault(&said, sfd < 0 ? errno : ENOMEM, "tick: cannot wait for the "
		    "runs' records, lock requests and signals, only for their ends: %s",
		    sfd < 0 ? "signalfd" : "calloc");
	while (launch_some(sp, v, n, now_ms) > 0 || reap(v, n) > 0)
		if (wait_one(v, n, sfd, p, ls) != 0) {
			/* wait blindly for an end, reaping none: reap() learns
			 * its status (a child reaped here would be lost to it) */
			si.si_pid = 0;
			while (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) == -1 && errno == EINTR)
				;
			if (si.si_pid > 0 && !ours(v, n, si.si_pid))	/* not a run's */
				(void)waitpid(si.si_pid, NULL, WNOHANG);
			(void)reap(v, n);
		}
	for (size_t i = 0; i < n; i++) {
		/* what it told before it ended, to the last message */
		while (v[i].lease >= 0 && leases_collect(ls, &v[i].lease, &v[i].outcome) > 0)
			;
		if (v[i].lease >= 0) {		/* its guard may: it connects itself */
			close(v[i].lease);
			v[i].lease = -1;
		}
		if (v[i].was > 0)
			report_ended(&v[i].outcome, v[i].task->name, v[i].slot, v[i].was,
			    v[i].status, v[i].took_ms, &clock_said);
	}
	free(p);
	if (sfd >= 0)
		close(sfd);
}

/* The one line: how many were due, how they ended, the first failure. */
static int
summary(const struct started *v, size_t n, long long now_ms)
{
	size_t ok = 0, skipped = 0, failed = 0;
	const struct started *first = NULL;
	struct log_fields f;
	char at[TEXT_ISO_MAX];

	for (size_t i = 0; i < n; i++) {
		if (v[i].outcome.skipped || (!v[i].outcome.ran &&
		    v[i].status == v[i].task->conflict_exit))
			skipped++;
		else if (v[i].status == 0)
			ok++;
		else if (failed++ == 0)
			first = &v[i];
	}
	text_iso(now_ms, TEXT_ISO_S, at, sizeof(at));
	log_fields_init(&f);
	f.status = first ? first->status : 0;
	if (first)
		lr_event(LOG_WARNING, "tick", &f, "tick at %s: %zu due, %zu ran, %zu skipped, "
		    "%zu failed (first: %s, status %d)", at, n, ok, skipped, failed,
		    first->task->name, first->status);
	else
		lr_event(LOG_INFO, "tick", &f, "tick at %s: %zu due, %zu ran, %zu skipped, "
		    "0 failed", at, n, ok, skipped);
	return first ? first->status : 0;
}

int
tick_run(const struct lr_config *cfg, const char *host, const struct sched_spawner *sp,
    struct leases *ls,
    long long now_ms, struct lr_err *e)
{
	struct sched_task *tasks;
	struct started *v = NULL;
	size_t ntasks, n = 0;
	int rc = -1;

	if (due_tasks(cfg, host, &tasks, &ntasks, e) != 0)
		goto out;
	report_notes(cfg);
	if ((v = calloc(ntasks + 1, sizeof(*v))) == NULL) {
		lr_errf(e, EX_OSERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ntasks; i++) {
		if (schedule_subminute(&tasks[i].sched)) {
			lr_event(LOG_WARNING, "not-run", NULL, "%s: its fire times are under "
			    "a minute apart or off the minute, and tick runs minute "
			    "schedules only: start it with `lockrun cron`", tasks[i].name);
			continue;
		}
		if (!due_now(&tasks[i], now_ms))
			continue;
		time_t slot = schedule_slot(&tasks[i].sched, now_ms);
		if (slot != (time_t)-1 && !due_window(&tasks[i], slot))
			continue;	/* between:, not_between: said no */

		v[n].task = &tasks[i];
		v[n].due = 1;
		v[n].lease = -1;
		text_iso(slot == (time_t)-1 ? now_ms : (long long)slot * 1000, TEXT_ISO_S,
		    v[n].slot, sizeof(v[n].slot));
		n++;
	}
	run_all(sp, v, n, ls, now_ms);
	rc = summary(v, n, now_ms);
out:
	free(v);
	free(tasks);
	return rc;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* tick.c -- one pass of the fleet's crontab: the due tasks, started in
 * parallel as runs of their own, waited for, summed up in one line. */
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/text.h"
#include "out/log.h"
#include "sched/due.h"
#include "sched/tick.h"

struct started {
	const struct sched_task	*task;
	pid_t			 pid;	/* 0 once reaped */
	int			 status;
};

/* Reap what has ended; returns how many are still running. */
static size_t
reap(struct started *v, size_t n)
{
	size_t live = 0;

	for (size_t i = 0; i < n; i++) {
		int st;
		if (v[i].pid > 0 && waitpid(v[i].pid, &st, WNOHANG) == v[i].pid) {
			v[i].status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
			v[i].pid = 0;
		}
		live += v[i].pid > 0;
	}
	return live;
}

/* Wait for every child, passing on a signal that asks us to end. */
static void
wait_all(struct started *v, size_t n)
{
	struct signalfd_siginfo si;
	int sfd = sched_signalfd(0);

	while (reap(v, n) > 0) {
		if (sfd < 0) {		/* no signalfd: wait blindly */
			while (waitpid(-1, NULL, 0) == -1 && errno == EINTR)
				;
			continue;
		}
		if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si) ||
		    si.ssi_signo == SIGCHLD)
			continue;
		for (size_t i = 0; i < n; i++)
			if (v[i].pid > 0)
				kill(v[i].pid, (int)si.ssi_signo);
	}
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
		if (v[i].status == 0)
			ok++;
		else if (v[i].status == v[i].task->conflict_exit)
			skipped++;
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
tick_run(const struct lr_config *cfg, const struct sched_spawner *sp, long long now_ms,
    struct lr_err *e)
{
	struct sched_task *tasks;
	struct started *v = NULL;
	size_t ntasks, n = 0;
	int rc = -1;

	if (due_tasks(cfg, &tasks, &ntasks, e) != 0)
		goto out;
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
		v[n].task = &tasks[i];
		if ((v[n].pid = spawn_task(sp, &tasks[i], now_ms, NULL, e)) < 0) {
			/* those started run to their end; this one failed */
			v[n].pid = 0;
			v[n].status = e->status;
			lr_event(LOG_ERR, "error", NULL, "%s: %s", tasks[i].name, e->msg);
		}
		n++;
	}
	wait_all(v, n);
	rc = summary(v, n, now_ms);
out:
	free(v);
	free(tasks);
	return rc;
}

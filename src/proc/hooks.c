/* SPDX-License-Identifier: BSD-2-Clause */
/* hooks.c -- run a task's hook: found on $PATH, started as the command is
 * (spawn_child), told the run's facts, stopped at its timeout; the end of
 * its output kept for the run's story, as the command's is. */
#include <sys/pidfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/duration.h"
#include "core/task.h"
#include "out/log.h"
#include "proc/capture.h"
#include "proc/hooks.h"

/* The variables a hook is given beyond the command's four. */
#define HOOK_VARS 7

struct hook_env {
	struct lr_vars	 vars;		/* KEY, TOKEN, TASK, SLOT, as the command's */
	char		 extra[HOOK_VARS][64];
};

static int
is_hook_var(const char *var)
{
	static const char *const names[] = { "LOCKRUN_HOOK=", "LOCKRUN_STATUS=",
	    "LOCKRUN_SIGNAL=", "LOCKRUN_DURATION_MS=", "LOCKRUN_LOST=",
	    "LOCKRUN_TIMED_OUT=" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

/* The facts as "NAME=value" strings in he; how many extra ones. */
static size_t
facts_format(struct hook_env *he, const char *which, const struct lr_hook_facts *f)
{
	struct lr_vars *v = &he->vars;
	size_t n = 0;
	int sig = f->status - 128;

	snprintf(v->task, sizeof(v->task), "LOCKRUN_TASK=%s", f->task);
	snprintf(v->key, sizeof(v->key), "LOCKRUN_KEY=%s", f->key ? f->key : "");
	v->slot[0] = v->token[0] = v->attempt[0] = '\0';
	if (f->attempt > 0)
		snprintf(v->attempt, sizeof(v->attempt), "LOCKRUN_ATTEMPT=%d", f->attempt);
	if (f->slot)
		snprintf(v->slot, sizeof(v->slot), "LOCKRUN_SLOT=%s", f->slot);
	if (f->token > 0)
		snprintf(v->token, sizeof(v->token), "LOCKRUN_TOKEN=%lld", f->token);
	snprintf(he->extra[n++], sizeof(he->extra[0]), "LOCKRUN_HOOK=%s", which);
	if (!f->ended)
		return n;
	snprintf(he->extra[n++], sizeof(he->extra[0]), "LOCKRUN_STATUS=%d", f->status);
	/* 128+N is how a signal's end is reported; name it, as a shell would */
	if (sig > 0 && sig < NSIG && sigabbrev_np(sig))
		snprintf(he->extra[n++], sizeof(he->extra[0]), "LOCKRUN_SIGNAL=%s",
		    sigabbrev_np(sig));
	snprintf(he->extra[n++], sizeof(he->extra[0]), "LOCKRUN_DURATION_MS=%lld",
	    f->duration_ms);
	snprintf(he->extra[n++], sizeof(he->extra[0]), "LOCKRUN_LOST=%d", f->lost != 0);
	snprintf(he->extra[n++], sizeof(he->extra[0]), "LOCKRUN_TIMED_OUT=%d",
	    f->timed_out != 0);
	return n;
}

/* The hook's whole environment: the command's (spawn_envp()), less any
 * hook variable inherited, with the facts added. Free the array only. */
static char **
hook_envp(const struct lr_child_spec *cs, struct hook_env *he, size_t nextra)
{
	char **base = spawn_envp(cs, &he->vars), **envp;
	size_t n = 0, k = 0;

	if (base == NULL)
		return NULL;
	while (base[n])
		n++;
	if ((envp = calloc(n + nextra + 1, sizeof(*envp))) != NULL) {
		for (size_t i = 0; i < n; i++)
			if (!is_hook_var(base[i]))
				envp[k++] = base[i];
		for (size_t i = 0; i < nextra; i++)
			envp[k++] = he->extra[i];
	}
	free(base);
	return envp;
}

/* Has our child pid ended? It is left to reap. */
static int
has_ended(pid_t pid)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == pid;
}

/* Wait up to ms for the hook to end (its pidfd readable; without one,
 * asked every 50 ms), passing its output on meanwhile (cap, or NULL):
 * 1 if it did. */
static int
ended_within(int pidfd, pid_t pid, long long ms, struct lr_capture *cap)
{
	long long until = mono_ms() + ms, left;

	while ((left = until - mono_ms()) > 0) {
		struct pollfd p[3] = { { .fd = pidfd, .events = POLLIN }, { .fd = -1 },
		    { .fd = -1 } };
		long long rest = cap ? capture_poll(cap, &p[1], mono_ms()) : -1;
		int rc;

		if (rest >= 0 && rest < left)
			left = rest;
		if (pidfd < 0 && left > 50)
			left = 50;
		rc = poll(p, 3, left > INT_MAX ? INT_MAX : (int)left);
		if (rc < 0 && errno != EINTR)
			return 0;
		if (rc > 0 && cap)
			capture_ready(cap, &p[1]);
		if ((rc > 0 && p[0].revents) || (pidfd < 0 && has_ended(pid)))
			return 1;
	}
	return 0;
}

/* Reap the hook; past its timeout, stop its group: SIGTERM, then SIGKILL
 * after the grace. A pidfd lets poll(2) wait with a timeout without
 * touching SIGCHLD, which the caller reads from its signalfd. Its output
 * is read meanwhile (cap, or NULL), and what its tree left in the pipes
 * once it ended, for 2 s at most and never past its timeout and grace
 * (on_start's fit before the lease's first renewal). Returns the wait
 * status, or -1; *stopped says the timeout passed. */
static int
hook_reap(pid_t pid, const struct lr_hook_spec *spec, struct lr_capture *cap, int *stopped)
{
	long long last = mono_ms() + spec->timeout_ms + spec->kill_after_ms;
	int pidfd = pidfd_open(pid, 0), st = 0;

	*stopped = 0;
	if (!ended_within(pidfd, pid, spec->timeout_ms, cap)) {
		*stopped = 1;
		kill(-pid, SIGTERM);
		kill(-pid, SIGCONT);
		if (!ended_within(pidfd, pid, spec->kill_after_ms, cap))
			kill(-pid, SIGKILL);
	}
	if (pidfd >= 0)
		close(pidfd);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (cap)
		capture_drain(cap, mono_ms() + 2000 < last ? mono_ms() + 2000 : last);
	return st;
}

/* Say how the hook ended; a failure is a warning, never the run's. */
static int
hook_report(const char *which, const char *prog, int st, int stopped,
    const struct lr_hook_spec *spec)
{
	struct log_fields f;
	char took[32];
	int status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);

	log_fields_init(&f);
	f.status = status;
	if (stopped)
		lr_event(LOG_WARNING, "hook-failed", &f, "%s hook %s was stopped at its "
		    "timeout (%s)", which, prog,
		    duration_format(spec->timeout_ms, took, sizeof(took)));
	else if (WIFSIGNALED(st))
		lr_event(LOG_WARNING, "hook-failed", &f, "%s hook %s was killed by "
		    "SIG%s", which, prog, sigabbrev_np(WTERMSIG(st)) ?
		    sigabbrev_np(WTERMSIG(st)) : "?");
	else if (status != 0)
		lr_event(LOG_WARNING, "hook-failed", &f, "%s hook %s exited with status "
		    "%d", which, prog, status);
	else
		lr_event(LOG_INFO, "hook-ran", &f, "%s hook %s exited with status 0",
		    which, prog);
	return status;
}

/* The task's PATH, if its env sets one: the hook is found there; else
 * lockrun's, or for another user the PATH it is given (spawn.h). */
static const char *
task_path(char *const *env, const struct lr_creds *creds)
{
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			return env[i] + 5;
	return creds ? LR_USER_PATH : getenv("PATH");
}

/* The hook's section of the run's story (core/tail.h): "h" which, then
 * the end of its output cap kept; NULL when it printed nothing. */
static char *
hook_section(const char *which, struct lr_capture *cap, size_t *n)
{
	size_t len, head = strlen(which) + 2;
	char *text = capture_text(cap, &len), *s;

	if (text == NULL || len == 0 || (s = malloc(head + len + 1)) == NULL) {
		free(text);
		return NULL;
	}
	s[0] = TAIL_SECTION;
	memcpy(s + 1, which, head - 2);
	s[head - 1] = '\n';
	memcpy(s + head, text, len);
	free(text);
	*n = head + len;
	s[*n] = '\0';	/* as tail_text()'s: a C string too */
	return s;
}

/* Start the hook argv as hook_run() says, told facts, and wait for it:
 * its wait status into *st, *stopped set when its timeout stopped it, its
 * section of the story into *story as hook_run()'s (story NULL: its
 * output is not kept). Returns 0, or -1 with e when it could not be
 * started or waited for. */
static int
hook_start_wait(const char *which, char *const *argv, const struct lr_hook_spec *spec,
    const struct lr_hook_facts *facts, char **story, size_t *story_len, int *st,
    int *stopped, struct lr_err *e)
{
	/* a session of its own: a hook never has the terminal lockrun was
	 * started from, and its group (stopped at the timeout) is its own */
	struct lr_child_spec cs = { .argv = argv, .env = spec->env, .pgid = 0,
	    .saved = spec->saved, .scheduled = spec->scheduled, .creds = spec->creds,
	    .session = 1 };
	struct hook_env he;
	struct lr_err ce = LR_ERR_INIT;
	struct lr_capture cap;
	char path[PATH_MAX], **envp;
	int err;
	pid_t pid;

	if (spawn_find(argv[0], task_path(spec->env, spec->creds), path, sizeof(path), e) != 0)
		return -1;
	cs.path = path;
	if ((envp = hook_envp(&cs, &he, facts_format(&he, which, facts))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	/* its output through lockrun's pipes to lockrun's own 1 and 2, where
	 * it went before, its end kept */
	capture_init(&cap);
	if (story && spec->keep > 0) {
		if (capture_open(&cap, spec->keep, 0, &ce) == 0)
			cs.capture = &cap;
		else
			lr_warn("the %s hook's output is not kept: %s", which, ce.msg);
	}
	fflush(NULL);
	pid = spawn_child(&cs, envp, NULL);
	err = errno;
	free(envp);
	for (int i = 0; i < 2; i++) {	/* the hook's alone: its end of file is ours */
		if (cap.wr[i] >= 0)
			close(cap.wr[i]);
		cap.wr[i] = -1;
	}
	if (pid == -1) {
		capture_close(&cap);
		return lr_errf(e, EX_OSERR, "%s: %s", argv[0], strerror(err));
	}
	*st = hook_reap(pid, spec, cs.capture ? &cap : NULL, stopped);
	err = errno;
	if (cs.capture)
		*story = hook_section(which, &cap, story_len);
	capture_close(&cap);
	if (*st == -1)
		return lr_errf(e, EX_OSERR, "%s: wait: %s", argv[0], strerror(err));
	return 0;
}

int
hook_run(const char *which, char *const *argv, const struct lr_hook_spec *spec,
    const struct lr_hook_facts *facts, char **story, size_t *story_len)
{
	struct lr_err e = LR_ERR_INIT;
	int st, stopped;

	if (story)
		*story = NULL;
	if (argv == NULL || argv[0] == NULL)
		return 0;
	if (hook_start_wait(which, argv, spec, facts, story, story_len, &st, &stopped,
	    &e) != 0) {
		lr_event(LOG_WARNING, "hook-failed", NULL, "%s hook: %s", which, e.msg);
		return -1;
	}
	return hook_report(which, argv[0], st, stopped, spec);
}

int
hook_ask(const char *which, char *const *argv, const struct lr_hook_spec *spec,
    const struct lr_hook_facts *facts, int *stopped, struct lr_err *e)
{
	int st;

	if (hook_start_wait(which, argv, spec, facts, NULL, NULL, &st, stopped, e) != 0)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

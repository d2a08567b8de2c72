/* SPDX-License-Identifier: BSD-2-Clause */
/* run.c -- `lockrun run`: check the command can run, connect, acquire
 * (one round trip), run the command under the lease, release (one more),
 * exit with the command's status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/acquire.h"
#include "cli/doubt.h"
#include "cli/hookspec.h"
#include "cli/mail.h"
#include "cli/retry.h"
#include "cli/run.h"
#include "cli/runas.h"
#include "cli/skip.h"
#include "cli/when.h"
#include "core/duration.h"
#include "core/file.h"
#include "core/keys.h"
#include "core/text.h"
#include "core/where.h"
#include "out/log.h"
#include "proc/hooks.h"
#include "proc/supervise.h"
#include "sched/lease_client.h"
#include "sched/outcome.h"
#include "sched/starter.h"

/* output: where the command's stdout and stderr go: lockrun's own
 * (inherit, or unset), /dev/null (discard), or a file appended to, opened
 * before the lock is taken so that a file that cannot be written stops
 * the run first; above 2 and close-on-exec, so the command has it as 1
 * and 2 only. lockrun's own lines stay on its stderr. A path that breaks
 * file_open_append()'s rule (a link, at its end or on the way, a FIFO, a
 * folder open to all) is
 * refused with an error logged, and the run goes on, its output
 * discarded: a file someone put there is never written or waited on. */
static int
open_output(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	const char *o = x->t.output;
	char refused[PATH_MAX + 64];
	int fd;

	if (o == NULL || strcmp(o, "inherit") == 0)
		return 0;
	if (strcmp(o, "discard") == 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	else if ((fd = file_open_append(o, refused, sizeof(refused))) < 0 &&
	    refused[0] != '\0') {
		lr_error("output %s: refused: %s; the output is discarded", o, refused);
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	}
	if (fd < 0)
		return lr_errf(e, EX_CANTCREAT, "output %s: %s", o, strerror(errno));
	r->output_fd = fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd <= 2)
		close(fd);
	if (r->output_fd < 0)
		return lr_errf(e, EX_OSERR, "output %s: %s", o, strerror(errno));
	return 0;
}

int
run_prepare(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_task *t = &x->t;
	size_t n = strv_len(t->argv), k = 0;
	const char *path = getenv("PATH");
	int rc;

	if (n == 0)
		return lr_errf(e, EX_USAGE, "no command (expected -t TASK or -- COMMAND [ARG...])");
	if (x->cli.key)
		snprintf(r->name, sizeof(r->name), "%s", x->cli.key);
	else if (x->cli.task)
		snprintf(r->name, sizeof(r->name), "%s", x->cli.task);
	else
		key_derive(t->argv, r->name, sizeof(r->name));

	if ((r->exec_argv = calloc(n + 3, sizeof(char *))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (t->shell) {
		static char sh[] = "/bin/sh", dash_c[] = "-c";	/* execvp wants char * */
		r->exec_argv[k++] = sh;
		r->exec_argv[k++] = dash_c;
	}
	for (size_t i = 0; i < n; i++)
		r->exec_argv[k++] = t->argv[i];

	if (open_output(r, e) != 0)
		return -1;
	if ((rc = run_as_prepare(r, &r->cannot_start)) < 0)
		return *e = r->cannot_start, -1;
	if (rc > 0)
		return 0;
	if (t->cwd && chdir(t->cwd) != 0)
		return lr_errf(&r->cannot_start, EX_CONFIG, "cwd %s: %s", t->cwd,
		    strerror(errno)), 0;
	/* the task's env is applied in the child; its PATH is the one exec
	 * uses. Another user's is never lockrun's own: the child looks it up
	 * again after the switch, with the user's rights (spawn.c); found
	 * here by root, it fails early what the user could not find either */
	if (r->creds.uid != 0)
		path = LR_USER_PATH;
	if (r->creds.uid != 0 && x->cli.foreground)
		lr_warn("--foreground does not apply to a task with user: %s: its command "
		    "has a session of its own, without a terminal", t->user);
	for (size_t i = 0; t->env && t->env[i]; i++)
		if (strncmp(t->env[i], "PATH=", 5) == 0)
			path = t->env[i] + 5;
	if (spawn_find(r->exec_argv[0], path, r->exec_path, sizeof(r->exec_path),
	    &r->cannot_start) != 0 && r->cannot_start.status != LR_EXIT_NOTFOUND &&
	    r->cannot_start.status != LR_EXIT_NOEXEC)
		return *e = r->cannot_start, -1;
	return 0;
}

/* The LOCKRUN_ variables for the command; no token without the lock. */
static void
export_env(struct lr_run *r, int locked)
{
	struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;
	struct lr_vars *v = &r->vars;

	snprintf(v->key, sizeof(v->key), "LOCKRUN_KEY=%s",
	    x->t.no_overlap ? l->keys.stable : l->keys.slot);
	snprintf(v->task, sizeof(v->task), "LOCKRUN_TASK=%s",
	    x->cli.task ? x->cli.task : r->name);
	v->slot[0] = v->token[0] = '\0';
	if (x->t.one_server)
		snprintf(v->slot, sizeof(v->slot), "LOCKRUN_SLOT=%s", l->keys.slot_iso);
	if (locked)
		snprintf(v->token, sizeof(v->token), "LOCKRUN_TOKEN=%lld", l->token);
}

static void	release_orphaned(void *arg, int status);

static void	/* the command, as child.c runs it */
command_spec(struct lr_run *r, int locked)
{
	struct lr_ctx *x = r->x;
	r->spec = (struct lr_child_spec){ .path = r->exec_path, .argv = r->exec_argv,
	    .env = x->t.env,
	    /* another user's command has no terminal to be in the
	     * foreground of: a session of its own (spawn.c) */
	    .foreground = x->cli.foreground && r->creds.uid == 0,
	    .kill_mode = x->t.kill_mode,
	    .kill_after_ms = x->t.kill_after_ms, .saved = x->sig,
	    .keeps_deadline = x->t.on_lost == ON_LOST_TERM,
	    .pgid = getpgrp(), .orphaned = locked ? release_orphaned : NULL, .orphaned_arg = r,
	    .output_fd = r->output_fd, .scheduled = x->cfg_borrowed,
	    .creds = r->creds.uid ? &r->creds : NULL };
}

/* Say how the release went: end's status and duration go with it. */
static void
report_release(const struct lr_run *r, const struct lr_ending *end, int rc,
    const struct lr_err *e)
{
	const struct lr_ctx *x = r->x;
	const struct lr_lock *l = &r->lock;
	struct log_fields f;
	char took[32], ttl[32];

	log_fields_init(&f);
	f.status = end->status;
	if (r->wait_max_ms >= 0) {	/* how long its renewals were answered in */
		f.wait_med_ms = r->wait_med_ms;
		f.wait_max_ms = r->wait_max_ms;
	}
	f.duration_ms = end->duration_ms;
	duration_human(end->duration_ms, took, sizeof(took));
	duration_human(l->ttl_ms, ttl, sizeof(ttl));
	if (rc < 0 && l->ttl_ms && x->be.ops->session)
		lr_event(LOG_WARNING, "release-failed", &f, "cannot release %s (the server "
		    "frees it as this session ends): %s", l->keys.stable, e->msg);
	else if (rc < 0 && l->ttl_ms)
		lr_event(LOG_WARNING, "release-failed", &f, "cannot release %s (it expires "
		    "by itself within %s): %s", l->keys.stable, ttl, e->msg);
	else if (rc < 0)
		lr_event(LOG_WARNING, "release-failed", &f, "cannot record the end of the "
		    "run in %s: %s", l->keys.hist, e->msg);
	else if (rc == 0 && l->ttl_ms)
		lr_event(LOG_WARNING, "lost-at-release", &f, "%s was no longer ours at "
		    "release: it expired or was taken while the command ran", l->keys.stable);
	else if (l->ttl_ms)
		lr_event(LOG_INFO, "released", &f, "released %s after %s (status %d)",
		    l->keys.stable, took, end->status);
	else
		lr_event(LOG_INFO, "released", &f, "done with slot %s after %s (status %d); "
		    "its key stays until it expires", l->keys.slot_iso, took, end->status);
}

/* What a run leaves of its story with its end (issue 45): why lockrun
 * ended the command or could not start it, and its output's end. */
struct run_story {
	char		 reason[200];
	char		*output;	/* tail_text()'s, or NULL */
	size_t		 len;
	int		 lost_said;	/* the loss was said (LOST LOCK): a key
					 * no longer ours at release is no news */
};

/* Record how the run ended and release, reconnecting once if the
 * connection went away while the command ran; with --min-hold, leave the
 * key for the rest of it, whether the command ran or a signal stopped the
 * run before it started. With st, the run's story goes with it, kept as
 * the task's keep_* say. A failure is a warning: the key expires by itself
 * within the TTL. */
static int
release_story(struct lr_run *r, int status, const char *event, const struct run_story *st)
{
	struct lr_ctx *x = r->x;
	struct lr_err e = LR_ERR_INIT;
	struct lr_ending end = { .status = status, .event = event,
	    .duration_ms = mono_ms() - r->acquired_at, .attempt = r->attempt };
	int rc = -1;

	if (st != NULL && x->t.keep_output > 0) {
		snprintf(end.reason, sizeof(end.reason), "%s", st->reason);
		end.output = st->output;
		end.output_len = st->len;
		end.keep_runs = x->t.keep_runs;
		end.keep_failed = x->t.keep_failed_runs;
	}

	end.keep_ms = x->t.min_hold_ms - end.duration_ms;
	end.keep_until_ms = lock_server_at(&r->lock, r->acquired_at + x->t.min_hold_ms);
	for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
		if (x->be.ops->fd(&x->be) < 0 &&
		    x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &e) != 0)
			continue;
		if ((rc = x->be.ops->release(&x->be, &r->lock, &end, &e)) < 0)
			x->be.ops->close(&x->be);
	}
	if (rc != 0 || st == NULL || !st->lost_said)
		report_release(r, &end, rc, &e);
	return rc;
}

static int
release(struct lr_run *r, int status, const char *event)
{
	return release_story(r, status, event, NULL);
}

/* Why the run ended as it did, in words, when lockrun ended the command
 * or could not start it (or a signal ended it): into st->reason, "" when
 * the command ended by itself with a status. One line, no control
 * characters, so that the history's column and the header read it whole. */
static void
run_reason(const struct lr_run *r, const struct lr_supervise *s, int status,
    struct run_story *st)
{
	const struct lr_child *ch = &r->child;
	int sig = status > 128 && status < 128 + 65 ? status - 128 : 0;
	char *out = st->reason;
	size_t n = sizeof(st->reason);

	if (ch->exec_err == ENOENT)
		snprintf(out, n, "command not found: %s", r->exec_argv[0]);
	else if (ch->exec_err == EACCES)
		snprintf(out, n, "permission denied: %s", r->exec_argv[0]);
	else if (ch->exec_err != 0)
		snprintf(out, n, "cannot run %s: %s", r->exec_argv[0], strerror(ch->exec_err));
	else if (s->why[0] != '\0')
		snprintf(out, n, "%s", s->why);
	else if (ch->guard_died)
		snprintf(out, n, "the guard process was killed by signal %d", ch->guard_died);
	else if (ch->forwarded && spawn_ends_a_job(ch->forwarded))
		snprintf(out, n, "stopped: lockrun was sent SIG%s", sigabbrev_np(ch->forwarded));
	else if (sig != 0 && sigabbrev_np(sig) != NULL)
		snprintf(out, n, "killed by signal %d (SIG%s)", sig, sigabbrev_np(sig));
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* Release with the run's story: on_start's section, if it kept one,
 * before the command's lines (hookspec.h). Notes whether the story went,
 * kept as a success or a failure (release.lua's story()), for a hook
 * after the release to add to. */
static void
story_end(struct lr_run *r, int status, const char *event, const struct run_story *st)
{
	struct lr_ctx *x = r->x;
	struct run_story all = *st;
	char *joined = hooks_story_join(r, st->output, st->len, &all.len);
	int failed = strcmp(event, "released") != 0 || status != 0;

	if (joined)
		all.output = joined;
	r->story_kept = release_story(r, status, event, &all) >= 0 &&
	    x->t.keep_output > 0 && r->attempt > 0 &&
	    (failed ? x->t.keep_failed_runs : x->t.keep_runs) > 0;
	free(joined);
}

/* In the guard (guard.c), when lockrun was killed and the command's tree
 * is gone: free the lock now rather than leave it to its lease, on a
 * connection of our own (the one inherited is lockrun's, mid-exchange
 * perhaps; closing it ends a session lock's session), and record the run
 * as killed. */
static void
release_orphaned(void *arg, int status)
{
	struct lr_run *r = arg;

	r->x->be.ops->close(&r->x->be);
	release(r, status, "killed");
}

/* Run the command under the lease (or with no lock: be NULL); note in hf
 * whether the lock was lost or the timeout stopped it. */
static int
run_command(struct lr_run *r, struct lr_backend *be, struct lr_hook_facts *hf,
    struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_supervise s = {
		.child = &r->child, .spec = &r->spec, .vars = &r->vars,
		.kill_after_ms = x->t.kill_after_ms,
		.be = be && x->t.renew ? be : NULL, .lock = &r->lock,
		.acquired_at = r->acquired_at,
		.timeout_ms = x->t.timeout_ms, .on_lost = x->t.on_lost,
	};
	struct run_story st = { .reason = "" };
	struct lr_capture cap;
	int status;

	/* the output is passed on through lockrun to keep its end, when
	 * there is a lock server to keep it in and the command does not
	 * share lockrun's terminal (--foreground: it reads it) */
	capture_init(&cap);
	if (be != NULL && x->t.keep_output > 0 && !x->cli.foreground) {
		struct lr_err ce;

		if (capture_open(&cap, (size_t)x->t.keep_output, r->output_fd, &ce) == 0)
			s.capture = &cap;
		else
			lr_warn("the output's end is not kept: %s", ce.msg);
	}
	for (int attempt = 1; ; attempt++) {
		command_spec(r, be != NULL);
		r->spec.capture = s.capture;
		hf->attempt = retry_attempt(r, attempt);
		status = supervise(&s, e);
		if (!retry_next(r, &s, attempt, status))
			break;
	}
	hf->lost = s.lost != 0;
	hf->timed_out = s.timed_out;
	r->wait_med_ms = s.wait_med_ms;
	r->wait_max_ms = s.wait_max_ms;
	/* also when it could not start: no lock is left. After a lost lock
	 * too: the release frees only what is still ours (a session lock, a
	 * row still ours after its connection went, unlock's tombstone), and
	 * records the end only where the keep-alive did not (ENDED,
	 * first_end()); but it keeps the run's story, whose reason says the
	 * lock was lost, either way. */
	if (!be)
		return status;
	run_reason(r, &s, status, &st);
	if (s.capture)
		st.output = capture_text(&cap, &st.len);
	st.lost_said = s.lost != 0;
	story_end(r, status >= 0 ? status : e->status, s.lost ? "lost" :
	    s.timed_out ? "stopped-timeout" : "released", &st);
	mail_output(r, st.output, st.len, status >= 0 ? status : e->status);
	free(st.output);
	capture_close(&cap);
	return status;
}

/* The lock is ours, but this host cannot start the command
 * (r->cannot_start, run_prepare()): say why, and end the run as one whose
 * command could not start, its reason kept with its story and history
 * (issue 45), then the hooks that follow a failure (with the command's
 * user and folder only). Found before the lock,
 * it was not said then: the fleet's record would have had nothing. */
static int
run_cannot_start(struct lr_run *r, const struct lr_hook_spec *after,
    struct lr_hook_facts *hf, long long started)
{
	const struct lr_err *why = &r->cannot_start;
	struct run_story st = { .reason = "" };
	struct log_fields f;

	log_fields_init(&f);
	f.status = why->status;
	lr_event(LOG_ERR, why->status == LR_EXIT_NOTFOUND || why->status == LR_EXIT_NOEXEC ?
	    "exec-failed" : "config-error", &f, "%s", why->msg);
	r->attempt = hf->attempt = 1;	/* its one attempt, which failed */
	if (why->status == LR_EXIT_NOTFOUND)
		snprintf(st.reason, sizeof(st.reason), "command not found: %s",
		    r->exec_argv[0]);
	else if (why->status == LR_EXIT_NOEXEC)
		snprintf(st.reason, sizeof(st.reason), "permission denied: %s",
		    r->exec_argv[0]);
	else
		snprintf(st.reason, sizeof(st.reason), "%.*s", (int)sizeof(st.reason) - 1,
		    why->msg);
	story_end(r, why->status, "released", &st);
	/* a user: or group: unknown here, or its cwd: no hook either, which
	 * would not run as the task's user */
	if (why->status == LR_EXIT_NOTFOUND || why->status == LR_EXIT_NOEXEC)
		hooks_end(r, after, hf, why->status, started);
	return why->status;
}

/* Say how the command ended (on stderr with -v); started is when it was
 * started, on the monotonic clock. */
static void
report_exit(const struct lr_run *r, int status, long long started)
{
	struct log_fields f;

	log_fields_init(&f);
	f.status = status;
	f.duration_ms = mono_ms() - started;
	lr_event(LOG_INFO, "exited", &f, "%s exited with status %d", r->exec_argv[0],
	    status);
}

/* The scheduler recorded a slot of this task as missed (MISSED_VAR,
 * sched/starter.h, its Unix seconds): run the task's on_missed hook, told
 * that slot, and nothing else. Returns the hook's status (0 when there is
 * none, or it could not start: the hook said why), or -1 with e. */
static int
run_missed(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_hook_spec spec, after;
	struct lr_hook_facts hf;
	long long slot;
	int st;

	if (text_decimal(getenv(MISSED_VAR), &slot) != 0)
		return lr_errf(e, EX_SOFTWARE, "%s: not a slot", MISSED_VAR);
	unsetenv(MISSED_VAR);
	if (ctx_server(x, e) != 0 || run_prepare(r, e) != 0)
		return -1;
	keys_build(&r->lock.keys, x->prefix, r->name, (time_t)slot, 60000);
	hooks_prepare(r, 0, &spec, &after, &hf);
	hf.key = r->lock.keys.slot;
	hf.slot = r->lock.keys.slot_iso;
	hf.attempt = 0;
	st = hook_run("on_missed", x->t.on_missed, &after, &hf, NULL, NULL);
	return st < 0 ? 0 : st;
}

/* The server could not be reached (any backend): with on_server_error:
 * run, run without a lock -- unless this run saw the lock held by
 * another. */
static int
run_unlocked(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_hook_spec hstart, hafter;
	struct lr_hook_facts hf;
	long long started;
	int status;

	/* only when Redis cannot be reached at all: a refusal is an answer,
	 * and a run that saw the lock held knows someone else runs */
	if (!lr_err_broke(e) || x->t.on_server_error != ON_SERVER_ERROR_RUN)
		return -1;
	if (r->seen_held) {
		size_t len = strlen(e->msg);
		snprintf(e->msg + len, sizeof(e->msg) - len, "; not running without "
		    "a lock (on_server_error: run), as this run saw it held by another");
		return -1;
	}
	lr_event(LOG_WARNING, "run-without-lock", NULL, "%s; running without a lock "
	    "(on_server_error: run)", e->msg);
	lease_client_tell(OUTCOME_RAN, 0, NULL);
	x->be.ops->close(&x->be);
	export_env(r, 0);
	hooks_prepare(r, 0, &hstart, &hafter, &hf);
	hook_run("on_start", x->t.on_start, &hstart, &hf, NULL, NULL);
	started = mono_ms();
	if ((status = run_command(r, NULL, &hf, e)) < 0)
		return -1;
	report_exit(r, status, started);
	hooks_end(r, &hafter, &hf, status, started);
	return status;
}

/* The lock was taken but too few replicas acknowledged it: a failover
 * now could promote a replica without it, and another run would start.
 * Release it (recorded in the history as "unconfirmed", status 69) and
 * fail as Redis unavailable -- but not as unreachable: the master answered,
 * and with on_server_error: run every server would run without the lock
 * while a replica lags. */
static int
unconfirmed(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	int rc = release(r, EX_UNAVAILABLE, "unconfirmed");

	lr_errf(e, EX_UNAVAILABLE, "%s %s: acquire: %s; %s", x->be.ops->name, x->be.where,
	    r->lock.unacked, !x->t.no_overlap ? "the slot stays taken" :
	    rc < 0 ? "could not release the lock (it expires within its ttl)" :
	    "released the lock");
	return -1;
}

/* Does the task run on this host (hosts:, host_match:; core/where.h)?
 * r->here and r->here_why say. A run_on: all task's slot key ends with
 * the host: one a key cannot hold is refused. Returns 0, or -1 with e. */
static int
run_here(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	const char *host = ctx_host(x), *why;

	r->here = where_here(x->t.hosts, x->t.host_match, host, r->here_why,
	    sizeof(r->here_why));
	if (r->here && x->t.run_on == RUN_ON_ALL && (why = key_host_problem(host)) != NULL)
		return lr_errf(e, EX_CONFIG, "run_on: all: the host \"%s\" %s (the slot key "
		    "ends with it; give another with --host)", host, why);
	return 0;
}

static int
run_one(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	struct lr_hook_spec hstart, hafter;
	struct lr_hook_facts hf;
	enum lock_outcome out;
	long long started;
	int status, sig, go;

	log_context(x->cli.task, NULL, 0, NULL);
	if (getenv(TRIGGERED_VAR) != NULL) {	/* a triggered run cron started */
		r->triggered = 1;
		if (strchr(getenv(TRIGGERED_VAR), '/') != NULL)	/* its take's mark */
			snprintf(r->trigger_take, sizeof(r->trigger_take), "%s",
			    getenv(TRIGGERED_VAR));
		unsetenv(TRIGGERED_VAR);
	}
	if (getenv(CLAIM_VAR) != NULL) {	/* cron claimed the slot for it */
		snprintf(r->slot_claim, sizeof(r->slot_claim), "%s", getenv(CLAIM_VAR));
		unsetenv(CLAIM_VAR);
	}
	if (ctx_merge(x, NULL, e) != 0 || run_here(r, e) != 0)
		return -1;
	if (!r->here) {		/* hosts:, host_match: leave this host out */
		run_report_elsewhere(r, r->here_why, x->t.conflict_exit);
		return x->t.conflict_exit;
	}
	if (getenv(MISSED_VAR) != NULL)		/* on_missed, and nothing else */
		return run_missed(r, e);
	if (r->triggered)	/* a run of its own: no slot, under the no-overlap lock */
		x->t.one_server = 0, x->t.no_overlap = 1;
	if ((go = when_window(r, e)) <= 0)	/* between:, not_between: (when.c) */
		return go < 0 ? -1 : x->t.conflict_exit;
	if (ctx_server(x, e) != 0 ||
	    (x->be.ops->check_task && x->be.ops->check_task(&x->be, &x->t, e) != 0) ||
	    lease_client_wrap(&x->be, e) < 0 || run_prepare(r, e) != 0)
		return -1;
	if ((go = when_condition(r, e)) <= 0)	/* when: */
		return go < 0 ? -1 : x->t.conflict_exit;
	if (acquire_settled(r, &out, &sig, e) != 0)
		return lock_slot_passed(&r->lock, real_ms()) ? run_too_late(r, e->msg) :
		    run_unlocked(r, e);
	if (out == LOCK_LATE)
		return run_too_late(r, "the slot's next fire time passed before the "
		    "server took the claim");
	if (out == LOCK_CLOCK_OFF)
		return run_clock_off(r, e);
	if (sig == 0)
		sig = spawn_signal_pending();
	if (out == LOCK_UNCONFIRMED)
		return unconfirmed(r, e);
	if (out != LOCK_ACQUIRED) {
		status = sig ? 128 + sig : x->t.conflict_exit;
		run_report_skip(r, out, status);
		return status;
	}
	if (run_lease_late(r)) {	/* a command its guard would stop at once */
		release(r, EX_UNAVAILABLE, "missed");
		return run_too_late(r, "the acquire was answered past the lease's first "
		    "renewal point; the lock was released");
	}
	run_log_context(r, r->lock.token);
	lr_event(LOG_INFO, "acquired", NULL, "acquired %s (token %lld)", x->t.no_overlap ?
	    r->lock.keys.stable : r->lock.keys.slot, r->lock.token);
	lease_client_tell(OUTCOME_RAN, r->lock.token, NULL);	/* before any output */
	hooks_prepare(r, 1, &hstart, &hafter, &hf);
	started = mono_ms();
	if (r->cannot_start.status != 0)
		return run_cannot_start(r, &hafter, &hf, started);
	if (sig != 0) {		/* told to stop before the command started */
		release(r, 128 + sig, "released");
		hooks_end(r, &hafter, &hf, 128 + sig, started);
		return 128 + sig;
	}
	export_env(r, 1);
	hooks_start(r, &hstart, &hf);
	started = mono_ms();
	if ((status = run_command(r, &x->be, &hf, e)) < 0)
		return -1;
	report_exit(r, status, started);
	hooks_end(r, &hafter, &hf, status, started);
	return status;
}

int
run_task(struct lr_ctx *x, int triggered, struct lr_err *e)
{
	struct lr_run *r = run_new(x, e);
	int status;

	if (r == NULL)
		return -1;
	r->triggered = triggered;
	status = run_one(r, e);
	run_free(r);
	return status;
}

int
verb_run(struct lr_ctx *x, struct lr_err *e)
{
	return run_task(x, 0, e);
}

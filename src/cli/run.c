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

#include "cli/ctx.h"
#include "cli/boot.h"
#include "cli/doubt.h"
#include "cli/hookspec.h"
#include "cli/retry.h"
#include "cli/runas.h"
#include "cli/mail.h"
#include "cli/skip.h"
#include "core/duration.h"
#include "core/file.h"
#include "core/keys.h"
#include "core/lease.h"
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
open_output(struct lr_ctx *x, struct lr_err *e)
{
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
	x->output_fd = fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd <= 2)
		close(fd);
	if (x->output_fd < 0)
		return lr_errf(e, EX_OSERR, "output %s: %s", o, strerror(errno));
	return 0;
}

int
run_prepare(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_task *t = &x->t;
	size_t n = strv_len(t->argv), k = 0;
	const char *path = getenv("PATH");
	int rc;

	if (n == 0)
		return lr_errf(e, EX_USAGE, "no command (expected -t TASK or -- COMMAND [ARG...])");
	if (x->cli.key)
		snprintf(x->name, sizeof(x->name), "%s", x->cli.key);
	else if (x->cli.task)
		snprintf(x->name, sizeof(x->name), "%s", x->cli.task);
	else
		key_derive(t->argv, x->name, sizeof(x->name));

	if ((x->exec_argv = calloc(n + 3, sizeof(char *))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (t->shell) {
		static char sh[] = "/bin/sh", dash_c[] = "-c";	/* execvp wants char * */
		x->exec_argv[k++] = sh;
		x->exec_argv[k++] = dash_c;
	}
	for (size_t i = 0; i < n; i++)
		x->exec_argv[k++] = t->argv[i];

	if (open_output(x, e) != 0)
		return -1;
	if ((rc = run_as_prepare(x, &x->cannot_start)) < 0)
		return *e = x->cannot_start, -1;
	if (rc > 0)
		return 0;
	if (t->cwd && chdir(t->cwd) != 0)
		return lr_errf(&x->cannot_start, EX_CONFIG, "cwd %s: %s", t->cwd,
		    strerror(errno)), 0;
	/* the task's env is applied in the child; its PATH is the one exec
	 * uses. Another user's is never lockrun's own: the child looks it up
	 * again after the switch, with the user's rights (spawn.c); found
	 * here by root, it fails early what the user could not find either */
	if (x->creds.uid != 0)
		path = LR_USER_PATH;
	if (x->creds.uid != 0 && x->cli.foreground)
		lr_warn("--foreground does not apply to a task with user: %s: its command "
		    "has a session of its own, without a terminal", t->user);
	for (size_t i = 0; t->env && t->env[i]; i++)
		if (strncmp(t->env[i], "PATH=", 5) == 0)
			path = t->env[i] + 5;
	if (child_find(x->exec_argv[0], path, x->exec_path, sizeof(x->exec_path),
	    &x->cannot_start) != 0 && x->cannot_start.status != LR_EXIT_NOTFOUND &&
	    x->cannot_start.status != LR_EXIT_NOEXEC)
		return *e = x->cannot_start, -1;
	return 0;
}

/* Tell the log what this run is, as the command's LOCKRUN_ variables say:
 * the task (or lock name), the key, the fencing token, the slot. */
static void
run_log_context(const struct lr_ctx *x, long long token)
{
	const struct lr_lock *l = &x->lock;

	log_context(x->cli.task ? x->cli.task : x->name,
	    x->t.no_overlap ? l->keys.stable : l->keys.slot, token,
	    x->t.one_server ? l->keys.slot_iso : NULL);
}

/* The instant a one-server run takes its slot at: now, or the instant
 * tick or cron found the task due at (LOCKRUN_SLOT_AT, Unix ms), so that a
 * start that crosses a slot's edge, or a late start cron allows (its
 * starting_deadline), still claims the slot it was started for. Taken when
 * no more than a minute ahead of our clock and a day behind it; not passed
 * on to the command. */
static long long
slot_instant(void)
{
	const char *at = getenv("LOCKRUN_SLOT_AT");
	long long now = real_ms(), pinned;
	char *end;

	if (at == NULL)
		return now;
	pinned = strtoll(at, &end, 10);
	unsetenv("LOCKRUN_SLOT_AT");
	if (*at == '\0' || *end != '\0' || pinned < now - 86400000 || pinned > now + 60000)
		return now;
	return pinned;
}

/* Connect and try once: one round trip; two when the server's clock and
 * ours are too far apart for the request's window (LOCK_LATE): the first
 * answer measured the offset, and the second moves the window by it.
 * *out LOCK_LATE: the slot's next fire time has passed (lock_slot_passed()),
 * before it was sent (nothing sent) or by the clock of the server that
 * refused it: a claim now could find the slot key of a run that took
 * it gone (lock_window()). */
static int
acquire_once(struct lr_ctx *x, enum lock_outcome *out, struct lr_err *e)
{
	struct lr_lock *l = &x->lock;
	long long sent = mono_ms();
	char d[32];

	*out = LOCK_LATE;
	if (lock_slot_passed(l, real_ms()))	/* started too late: send nothing */
		return 0;
	if (l->offset_known)
		l->offset_used_ms = l->offset_ms;
	l->renew_sent_ms = 0;
	if (x->be.ops->acquire(&x->be, l, out, e) != 0)
		return -1;
	if (*out == LOCK_LATE && lock_slot_passed(l, real_ms()))
		return 0;	/* refused as past the slot's next fire time */
	if (*out == LOCK_LATE) {
		l->offset_used_ms = l->offset_ms;
		l->renew_sent_ms = 0;
		sent = mono_ms();
		if (x->be.ops->acquire(&x->be, l, out, e) != 0)
			return -1;
	}
	if (*out == LOCK_LATE)
		return lr_errf(e, EX_UNAVAILABLE, "%s %s: acquire: the server ran it more "
		    "than %s after it was sent, by its clock (%lld ms ahead of ours): "
		    "nothing was taken", x->be.ops->name, x->be.where,
		    duration_human(x->server.command_timeout_ms, d, sizeof(d)), l->offset_ms);
	/* taken before the request went (a scheduler's run: before the batch
	 * that carried it), so never later than the server's lease began */
	x->acquired_at = lease_counts_from(sent, l->renew_sent_ms);
	return 0;
}

/* Take the lock; with --wait, retry a held lock with jittered backoff
 * until the deadline. A slot that already ran is final: waiting would not
 * un-run it. Returns 0 with *out set (and *sig set if a signal cut the
 * wait short), or -1 with e. */
static int
acquire(struct lr_ctx *x, enum lock_outcome *out, int *sig, struct lr_err *e)
{
	struct lr_lock *l = &x->lock;
	time_t slot = (time_t)-1, next;
	long long deadline, now = slot_instant();
	unsigned long long seed;

	*sig = 0;
	lock_init(l, ctx_host(x));
	l->hist_cap = x->t.history;
	l->hist_ttl_ms = x->t.history_ttl_ms;
	l->in_doubt = l->offset_known = 0;
	l->offset_used_ms = l->slot_until_ms = 0;
	l->no_window = x->t.clock_tolerance_ms == 0;
	l->triggered = x->triggered;
	l->take[0] = '\0';
	if (x->triggered && x->trigger_take[0])	/* the mark is "host/pid/s" */
		snprintf(l->take, sizeof(l->take), "%s/%s", ctx_host(x), x->trigger_take);
	snprintf(l->claim, sizeof(l->claim), "%s", x->slot_claim);
	if (x->t.one_server) {
		l->clock_tol_ms = x->t.clock_tolerance_ms != LR_UNSET ?
		    x->t.clock_tolerance_ms : LR_CLOCK_TOLERANCE_FACTOR * x->sched.tolerance_ms;
		if ((slot = schedule_slot(&x->sched, now)) == (time_t)-1)
			return lr_errf(e, EX_CONFIG, "schedule \"%s\" has no fire time in reach",
			    x->t.schedule);
		l->slot_ttl_ms = schedule_slot_ttl_ms(&x->sched, now, slot);
		next = schedule_next(&x->sched, slot);
		l->slot_until_ms = next == (time_t)-1 ? 0 : (long long)next * 1000;
	}
	l->ttl_ms = x->t.no_overlap ? x->t.ttl_ms : 0;
	keys_build(&l->keys, x->prefix, x->name, slot, schedule_stamp_ms(&x->sched));
	if (x->t.run_on == RUN_ON_ALL)	/* each host claims the slot once */
		keys_slot_host(&l->keys, ctx_host(x));
	/* a triggered run of a @reboot task claims no boot, as no slot */
	if (x->sched.reboot && !x->triggered && boot_claim(x, l, e) != 0)
		return -1;
	run_log_context(x, 0);
	/* a boot's run waits for a copy still running elsewhere, unless told */
	deadline = mono_ms() + (x->sched.reboot && !x->triggered && x->t.wait_ms == 0 ?
	    x->t.starting_deadline_ms : x->t.wait_ms);
	seed = strtoull(l->id + 16, NULL, 16) | 1;	/* 64 random bits of the owner id */
	for (int n = 0; ; n++) {
		long long left, pause;

		l->quiet_held = n > 0;	/* a wait is one skipped-held, its first */
		if (acquire_once(x, out, e) != 0)
			return -1;
		x->seen_held |= *out == LOCK_HELD;
		if (*out != LOCK_HELD || (left = deadline - mono_ms()) <= 0)
			return 0;
		if (n == 0) {
			char d[32];
			lr_event(LOG_INFO, "waiting", NULL, "%s is held; waiting up to "
			    "%s for it", l->keys.stable, duration_human(left, d, sizeof(d)));
			lease_client_tell(OUTCOME_WAITING, 0, NULL);
		}
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;	/* xorshift64 */
		pause = backoff_delay(n, (double)(seed >> 11) / (double)(1ULL << 53));
		if ((*sig = child_sleep(pause < left ? pause : left)) != 0)
			return 0;
	}
}

/* The LOCKRUN_ variables for the command; no token without the lock. */
static void
export_env(struct lr_ctx *x, int locked)
{
	const struct lr_lock *l = &x->lock;
	struct lr_vars *v = &x->vars;

	snprintf(v->key, sizeof(v->key), "LOCKRUN_KEY=%s",
	    x->t.no_overlap ? l->keys.stable : l->keys.slot);
	snprintf(v->task, sizeof(v->task), "LOCKRUN_TASK=%s",
	    x->cli.task ? x->cli.task : x->name);
	v->slot[0] = v->token[0] = '\0';
	if (x->t.one_server)
		snprintf(v->slot, sizeof(v->slot), "LOCKRUN_SLOT=%s", l->keys.slot_iso);
	if (locked)
		snprintf(v->token, sizeof(v->token), "LOCKRUN_TOKEN=%lld", l->token);
}

static void	release_orphaned(void *arg, int status);

static void	/* the command, as child.c runs it */
command_spec(struct lr_ctx *x, int locked)
{
	x->spec = (struct lr_child_spec){ .path = x->exec_path, .argv = x->exec_argv,
	    .env = x->t.env,
	    /* another user's command has no terminal to be in the
	     * foreground of: a session of its own (spawn.c) */
	    .foreground = x->cli.foreground && x->creds.uid == 0,
	    .kill_mode = x->t.kill_mode,
	    .kill_after_ms = x->t.kill_after_ms, .saved = &x->sig,
	    .keeps_deadline = x->t.on_lost == ON_LOST_TERM,
	    .pgid = getpgrp(), .orphaned = locked ? release_orphaned : NULL, .orphaned_arg = x,
	    .output_fd = x->output_fd, .scheduled = x->cfg_borrowed,
	    .creds = x->creds.uid ? &x->creds : NULL };
}

/* Say how the release went: end's status and duration go with it. */
static void
report_release(const struct lr_ctx *x, const struct lr_ending *end, int rc,
    const struct lr_err *e)
{
	const struct lr_lock *l = &x->lock;
	struct log_fields f;
	char took[32], ttl[32];

	log_fields_init(&f);
	f.status = end->status;
	if (x->wait_max_ms >= 0) {	/* how long its renewals were answered in */
		f.wait_med_ms = x->wait_med_ms;
		f.wait_max_ms = x->wait_max_ms;
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
release_story(struct lr_ctx *x, int status, const char *event, const struct run_story *st)
{
	struct lr_err e = LR_ERR_INIT;
	struct lr_ending end = { .status = status, .event = event,
	    .duration_ms = mono_ms() - x->acquired_at, .attempt = x->attempt };
	int rc = -1;

	if (st != NULL && x->t.keep_output > 0) {
		snprintf(end.reason, sizeof(end.reason), "%s", st->reason);
		end.output = st->output;
		end.output_len = st->len;
		end.keep_runs = x->t.keep_runs;
		end.keep_failed = x->t.keep_failed_runs;
	}

	end.keep_ms = x->t.min_hold_ms - end.duration_ms;
	end.keep_until_ms = lock_server_at(&x->lock, x->acquired_at + x->t.min_hold_ms);
	for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
		if (x->be.ops->fd(&x->be) < 0 &&
		    x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &e) != 0)
			continue;
		if ((rc = x->be.ops->release(&x->be, &x->lock, &end, &e)) < 0)
			x->be.ops->close(&x->be);
	}
	if (rc != 0 || st == NULL || !st->lost_said)
		report_release(x, &end, rc, &e);
	return rc;
}

static int
release(struct lr_ctx *x, int status, const char *event)
{
	return release_story(x, status, event, NULL);
}

/* Why the run ended as it did, in words, when lockrun ended the command
 * or could not start it (or a signal ended it): into st->reason, "" when
 * the command ended by itself with a status. One line, no control
 * characters, so that the history's column and the header read it whole. */
static void
run_reason(const struct lr_ctx *x, const struct lr_supervise *s, int status,
    struct run_story *st)
{
	const struct lr_child *ch = &x->child;
	int sig = status > 128 && status < 128 + 65 ? status - 128 : 0;
	char *r = st->reason;
	size_t n = sizeof(st->reason);

	if (ch->exec_err == ENOENT)
		snprintf(r, n, "command not found: %s", x->exec_argv[0]);
	else if (ch->exec_err == EACCES)
		snprintf(r, n, "permission denied: %s", x->exec_argv[0]);
	else if (ch->exec_err != 0)
		snprintf(r, n, "cannot run %s: %s", x->exec_argv[0], strerror(ch->exec_err));
	else if (s->why[0] != '\0')
		snprintf(r, n, "%s", s->why);
	else if (ch->guard_died)
		snprintf(r, n, "the guard process was killed by signal %d", ch->guard_died);
	else if (ch->forwarded && child_ends_a_job(ch->forwarded))
		snprintf(r, n, "stopped: lockrun was sent SIG%s", sigabbrev_np(ch->forwarded));
	else if (sig != 0 && sigabbrev_np(sig) != NULL)
		snprintf(r, n, "killed by signal %d (SIG%s)", sig, sigabbrev_np(sig));
	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* Release with the run's story: on_start's section, if it kept one,
 * before the command's lines (hookspec.h). Notes whether the story went,
 * kept as a success or a failure (release.lua's story()), for a hook
 * after the release to add to. */
static void
story_end(struct lr_ctx *x, int status, const char *event, const struct run_story *st)
{
	struct run_story all = *st;
	char *joined = hooks_story_join(x, st->output, st->len, &all.len);
	int failed = strcmp(event, "released") != 0 || status != 0;

	if (joined)
		all.output = joined;
	x->story_kept = release_story(x, status, event, &all) >= 0 &&
	    x->t.keep_output > 0 && x->attempt > 0 &&
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
	struct lr_ctx *x = arg;

	x->be.ops->close(&x->be);
	release(x, status, "killed");
}

/* Run the command under the lease (or with no lock: be NULL); note in hf
 * whether the lock was lost or the timeout stopped it. */
static int
run_command(struct lr_ctx *x, struct lr_backend *be, struct lr_hook_facts *hf,
    struct lr_err *e)
{
	struct lr_supervise s = {
		.child = &x->child, .spec = &x->spec, .vars = &x->vars,
		.kill_after_ms = x->t.kill_after_ms,
		.be = be && x->t.renew ? be : NULL, .lock = &x->lock,
		.acquired_at = x->acquired_at,
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

		if (capture_open(&cap, (size_t)x->t.keep_output, x->output_fd, &ce) == 0)
			s.capture = &cap;
		else
			lr_warn("the output's end is not kept: %s", ce.msg);
	}
	for (int attempt = 1; ; attempt++) {
		command_spec(x, be != NULL);
		x->spec.capture = s.capture;
		hf->attempt = retry_attempt(x, attempt);
		status = supervise(&s, e);
		if (!retry_next(x, &s, attempt, status))
			break;
	}
	hf->lost = s.lost != 0;
	hf->timed_out = s.timed_out;
	x->wait_med_ms = s.wait_med_ms;
	x->wait_max_ms = s.wait_max_ms;
	/* also when it could not start: no lock is left. After a lost lock
	 * too: the release frees only what is still ours (a session lock, a
	 * row still ours after its connection went, unlock's tombstone), and
	 * records the end only where the keep-alive did not (ENDED,
	 * first_end()); but it keeps the run's story, whose reason says the
	 * lock was lost, either way. */
	if (!be)
		return status;
	run_reason(x, &s, status, &st);
	if (s.capture)
		st.output = capture_text(&cap, &st.len);
	st.lost_said = s.lost != 0;
	story_end(x, status >= 0 ? status : e->status, s.lost ? "lost" :
	    s.timed_out ? "stopped-timeout" : "released", &st);
	mail_output(x, st.output, st.len, status >= 0 ? status : e->status);
	free(st.output);
	capture_close(&cap);
	return status;
}

/* The lock is ours, but this host cannot start the command
 * (x->cannot_start, run_prepare()): say why, and end the run as one whose
 * command could not start, its reason kept with its story and history
 * (issue 45), then the hooks that follow a failure (with the command's
 * user and folder only). Found before the lock,
 * it was not said then: the fleet's record would have had nothing. */
static int
run_cannot_start(struct lr_ctx *x, const struct lr_hook_spec *after,
    struct lr_hook_facts *hf, long long started)
{
	const struct lr_err *why = &x->cannot_start;
	struct run_story st = { .reason = "" };
	struct log_fields f;

	log_fields_init(&f);
	f.status = why->status;
	lr_event(LOG_ERR, why->status == LR_EXIT_NOTFOUND || why->status == LR_EXIT_NOEXEC ?
	    "exec-failed" : "config-error", &f, "%s", why->msg);
	x->attempt = hf->attempt = 1;	/* its one attempt, which failed */
	if (why->status == LR_EXIT_NOTFOUND)
		snprintf(st.reason, sizeof(st.reason), "command not found: %s",
		    x->exec_argv[0]);
	else if (why->status == LR_EXIT_NOEXEC)
		snprintf(st.reason, sizeof(st.reason), "permission denied: %s",
		    x->exec_argv[0]);
	else
		snprintf(st.reason, sizeof(st.reason), "%.*s", (int)sizeof(st.reason) - 1,
		    why->msg);
	story_end(x, why->status, "released", &st);
	/* a user: or group: unknown here, or its cwd: no hook either, which
	 * would not run as the task's user */
	if (why->status == LR_EXIT_NOTFOUND || why->status == LR_EXIT_NOEXEC)
		hooks_end(x, after, hf, why->status, started);
	return why->status;
}

/* Say how the command ended (on stderr with -v); started is when it was
 * started, on the monotonic clock. */
static void
report_exit(const struct lr_ctx *x, int status, long long started)
{
	struct log_fields f;

	log_fields_init(&f);
	f.status = status;
	f.duration_ms = mono_ms() - started;
	lr_event(LOG_INFO, "exited", &f, "%s exited with status %d", x->exec_argv[0],
	    status);
}

/* The scheduler recorded a slot of this task as missed (MISSED_VAR,
 * sched/starter.h, its Unix seconds): run the task's on_missed hook, told
 * that slot, and nothing else. Returns the hook's status (0 when there is
 * none, or it could not start: the hook said why), or -1 with e. */
static int
run_missed(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_hook_spec spec, after;
	struct lr_hook_facts hf;
	long long slot;
	int st;

	if (text_decimal(getenv(MISSED_VAR), &slot) != 0)
		return lr_errf(e, EX_SOFTWARE, "%s: not a slot", MISSED_VAR);
	unsetenv(MISSED_VAR);
	if (ctx_server(x, e) != 0 || run_prepare(x, e) != 0)
		return -1;
	keys_build(&x->lock.keys, x->prefix, x->name, (time_t)slot, 60000);
	hooks_prepare(x, 0, &spec, &after, &hf);
	hf.key = x->lock.keys.slot;
	hf.slot = x->lock.keys.slot_iso;
	hf.attempt = 0;
	st = hook_run("on_missed", x->t.on_missed, &after, &hf, NULL, NULL);
	return st < 0 ? 0 : st;
}

/* The server could not be reached (any backend): with on_server_error:
 * run, run without a lock -- unless this run saw the lock held by
 * another. */
static int
run_unlocked(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_hook_spec hstart, hafter;
	struct lr_hook_facts hf;
	long long started;
	int status;

	/* only when Redis cannot be reached at all: a refusal is an answer,
	 * and a run that saw the lock held knows someone else runs */
	if (!lr_err_broke(e) || x->t.on_server_error != ON_SERVER_ERROR_RUN)
		return -1;
	if (x->seen_held) {
		size_t len = strlen(e->msg);
		snprintf(e->msg + len, sizeof(e->msg) - len, "; not running without "
		    "a lock (on_server_error: run), as this run saw it held by another");
		return -1;
	}
	lr_event(LOG_WARNING, "run-without-lock", NULL, "%s; running without a lock "
	    "(on_server_error: run)", e->msg);
	lease_client_tell(OUTCOME_RAN, 0, NULL);
	x->be.ops->close(&x->be);
	export_env(x, 0);
	hooks_prepare(x, 0, &hstart, &hafter, &hf);
	hook_run("on_start", x->t.on_start, &hstart, &hf, NULL, NULL);
	started = mono_ms();
	if ((status = run_command(x, NULL, &hf, e)) < 0)
		return -1;
	report_exit(x, status, started);
	hooks_end(x, &hafter, &hf, status, started);
	return status;
}

/* The lock was taken but too few replicas acknowledged it: a failover
 * now could promote a replica without it, and another run would start.
 * Release it (recorded in the history as "unconfirmed", status 69) and
 * fail as Redis unavailable -- but not as unreachable: the master answered,
 * and with on_server_error: run every server would run without the lock
 * while a replica lags. */
static int
unconfirmed(struct lr_ctx *x, struct lr_err *e)
{
	int rc = release(x, EX_UNAVAILABLE, "unconfirmed");

	lr_errf(e, EX_UNAVAILABLE, "%s %s: acquire: %s; %s", x->be.ops->name, x->be.where,
	    x->lock.unacked, !x->t.no_overlap ? "the slot stays taken" :
	    rc < 0 ? "could not release the lock (it expires within its ttl)" :
	    "released the lock");
	return -1;
}

/* acquire(), and once more on a new connection when the connection broke
 * under it (a master killed, not a slow server) and the withdrawal took
 * back what it may have taken: a failed-over Redis Cluster answers then. */
static int
acquire_settled(struct lr_ctx *x, enum lock_outcome *out, int *sig, struct lr_err *e)
{
	struct lr_err again = LR_ERR_INIT;
	int broke;

	if (acquire(x, out, sig, e) == 0)
		return 0;
	/* the server's connection broke (here, or the scheduler's, which
	 * says so), or ours closed under it, and not for a timeout: a slow
	 * server, or a scheduler that does not answer (its socket stays
	 * open), is not asked again, nor a request failed for its data */
	broke = e->kind == LR_ERR_TRANSPORT || e->kind == LR_ERR_PROTOCOL ||
	    (x->be.ops->fd(&x->be) < 0 && e->kind != LR_ERR_TIMEOUT &&
	    e->kind != LR_ERR_DATA);
	if (run_withdraw(x, e) != 0 || !broke)
		return -1;
	lr_event(LOG_WARNING, "retry", NULL, "%s; trying once more", e->msg);
	if (x->be.ops->reopen(&x->be, x->server.connect_timeout_ms, &again) != 0 ||
	    acquire(x, out, sig, &again) != 0) {
		run_withdraw(x, &again);
		*e = again;
		return -1;
	}
	return 0;
}

/* Does the task run on this host (hosts:, host_match:; core/where.h)?
 * x->here and x->here_why say. A run_on: all task's slot key ends with
 * the host: one a key cannot hold is refused. Returns 0, or -1 with e. */
static int
run_here(struct lr_ctx *x, struct lr_err *e)
{
	const char *host = ctx_host(x), *why;

	x->here = where_here(x->t.hosts, x->t.host_match, host, x->here_why,
	    sizeof(x->here_why));
	if (x->here && x->t.run_on == RUN_ON_ALL && (why = key_host_problem(host)) != NULL)
		return lr_errf(e, EX_CONFIG, "run_on: all: the host \"%s\" %s (the slot key "
		    "ends with it; give another with --host)", host, why);
	return 0;
}

int
verb_run(struct lr_ctx *x, struct lr_err *e)
{
	struct lr_hook_spec hstart, hafter;
	struct lr_hook_facts hf;
	enum lock_outcome out;
	long long started;
	int status, sig;

	log_context(x->cli.task, NULL, 0, NULL);
	if (getenv(TRIGGERED_VAR) != NULL) {	/* a triggered run cron started */
		x->triggered = 1;
		if (strchr(getenv(TRIGGERED_VAR), '/') != NULL)	/* its take's mark */
			snprintf(x->trigger_take, sizeof(x->trigger_take), "%s",
			    getenv(TRIGGERED_VAR));
		unsetenv(TRIGGERED_VAR);
	}
	if (getenv(CLAIM_VAR) != NULL) {	/* cron claimed the slot for it */
		snprintf(x->slot_claim, sizeof(x->slot_claim), "%s", getenv(CLAIM_VAR));
		unsetenv(CLAIM_VAR);
	}
	if (ctx_merge(x, NULL, e) != 0 || run_here(x, e) != 0)
		return -1;
	if (!x->here) {		/* hosts:, host_match: leave this host out */
		run_report_elsewhere(x, x->here_why, x->t.conflict_exit);
		return x->t.conflict_exit;
	}
	if (getenv(MISSED_VAR) != NULL)		/* on_missed, and nothing else */
		return run_missed(x, e);
	if (x->triggered)	/* a run of its own: no slot, under the no-overlap lock */
		x->t.one_server = 0, x->t.no_overlap = 1;
	if (ctx_server(x, e) != 0 ||
	    (x->be.ops->check_task && x->be.ops->check_task(&x->be, &x->t, e) != 0) ||
	    lease_client_wrap(&x->be, e) < 0 || run_prepare(x, e) != 0)
		return -1;
	if (acquire_settled(x, &out, &sig, e) != 0)
		return lock_slot_passed(&x->lock, real_ms()) ? run_too_late(x, e->msg) :
		    run_unlocked(x, e);
	if (out == LOCK_LATE)
		return run_too_late(x, "the slot's next fire time passed before the "
		    "server took the claim");
	if (out == LOCK_CLOCK_OFF)
		return run_clock_off(x, e);
	if (sig == 0)
		sig = child_signal_pending();
	if (out == LOCK_UNCONFIRMED)
		return unconfirmed(x, e);
	if (out != LOCK_ACQUIRED) {
		status = sig ? 128 + sig : x->t.conflict_exit;
		run_report_skip(x, out, status);
		return status;
	}
	if (run_lease_late(x)) {	/* a command its guard would stop at once */
		release(x, EX_UNAVAILABLE, "missed");
		return run_too_late(x, "the acquire was answered past the lease's first "
		    "renewal point; the lock was released");
	}
	run_log_context(x, x->lock.token);
	lr_event(LOG_INFO, "acquired", NULL, "acquired %s (token %lld)", x->t.no_overlap ?
	    x->lock.keys.stable : x->lock.keys.slot, x->lock.token);
	lease_client_tell(OUTCOME_RAN, x->lock.token, NULL);	/* before any output */
	hooks_prepare(x, 1, &hstart, &hafter, &hf);
	started = mono_ms();
	if (x->cannot_start.status != 0)
		return run_cannot_start(x, &hafter, &hf, started);
	if (sig != 0) {		/* told to stop before the command started */
		release(x, 128 + sig, "released");
		hooks_end(x, &hafter, &hf, 128 + sig, started);
		return 128 + sig;
	}
	export_env(x, 1);
	hooks_start(x, &hstart, &hf);
	started = mono_ms();
	if ((status = run_command(x, &x->be, &hf, e)) < 0)
		return -1;
	report_exit(x, status, started);
	hooks_end(x, &hafter, &hf, status, started);
	return status;
}

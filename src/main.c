/* main.c -- lockrun: run a command under a lock held in Redis.
 *
 * The run path, top to bottom: block signals, read the command line and
 * the config, merge them into one set of settings, check the command can
 * run, connect, acquire (one round trip), run the command, release (one
 * more), exit with the command's status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "child.h"
#include "cli.h"
#include "config.h"
#include "keys.h"
#include "lease.h"
#include "lock.h"
#include "log.h"
#include "rconn.h"
#include "rurl.h"
#include "schedule.h"
#include "supervise.h"
#include "task.h"

#ifndef LOCKRUN_VERSION
#define LOCKRUN_VERSION "0.0.0"
#endif

#define DEFAULT_URL		"redis://127.0.0.1:6379/0"
#define DEFAULT_PREFIX		"lockrun:"
#define DEFAULT_TIMEOUT_MS	2000

/* Everything a run holds, so every exit path can free it. */
struct run {
	struct lr_cli		 cli;
	struct lr_config	 cfg;		/* empty when there is no config file */
	struct lr_task		 t;		/* the merged settings */
	struct lr_redis_opts	 redis;		/* borrows from cli and cfg */
	const char		*prefix;
	char			 name[KEY_NAME_MAX + 1];
	char			**exec_argv;	/* argv for execvp, borrows t.argv */
	char			 exec_path[PATH_MAX];	/* exec_argv[0], found */
	struct lr_sigstate	 sig;
	struct lr_url		 url;
	char			 password[512];
	struct lr_conn		 conn;
	struct lr_lock		 lock;
	struct lr_schedule	 sched;		/* the one-server slots */
	long long		 acquired_at;	/* mono_ms() when the winning acquire was sent */
	int			 seen_held;	/* an acquire found the lock held by another */
	struct lr_child_spec	 spec;		/* the command, as child.c runs it */
	struct lr_child		 child;		/* the command, or its guard */
	struct lr_vars		 vars;		/* LOCKRUN_KEY and the others */
};

/* Descriptors 0, 1 and 2 open, to /dev/null if they were closed (cron and
 * supervisors start jobs with 2>&-): otherwise the next file or socket
 * opened takes the number, and lockrun's messages, or the command's
 * output, would be written into it -- the Redis protocol stream, say. */
static void
std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int nul;

		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if ((nul = open("/dev/null", O_RDWR)) == -1)
			_exit(EX_OSERR);	/* no stderr to say it on */
		if (nul != fd) {	/* a lower one was closed too: fill in order */
			dup2(nul, fd);
			close(nul);
		}
	}
}

static void
run_free(struct run *r)
{
	rconn_close(&r->conn);
	free(r->exec_argv);
	task_free(&r->t);
	config_free(&r->cfg);
	cli_free(&r->cli);
	explicit_bzero(r->password, sizeof(r->password));
	child_close(&r->child);		/* last: the guard exits with lockrun */
}

/* Print e as lockrun's one line and exit with its status. Only called
 * before a lock is taken or after it is released. */
static void __attribute__((noreturn))
die(struct run *r, const struct lr_err *e)
{
	fprintf(stderr, "lockrun: %s\n", e->msg);
	if (e->status == EX_USAGE)
		fprintf(stderr, "Try 'lockrun --help' for more information.\n");
	run_free(r);
	exit(e->status);
}

/* -c FILE, else $LOCKRUN_CONFIG, else the default path if it exists. */
static int
load_config(struct run *r, struct lr_err *e)
{
	const char *path = r->cli.config;

	if (path == NULL)
		path = getenv("LOCKRUN_CONFIG");
	if (path == NULL || *path == '\0') {
		if (access(CONFIG_DEFAULT_PATH, F_OK) != 0)
			return 0;
		path = CONFIG_DEFAULT_PATH;
	}
	return config_load(path, &r->cfg, e);
}

/* The task's own settings, or NULL when run without -t. */
static int
find_task(struct run *r, const struct lr_task **task, struct lr_err *e)
{
	*task = NULL;
	if (r->cli.task == NULL)
		return 0;
	if (r->cfg.path == NULL)
		return lr_errf(e, EX_USAGE, "-t %s: no config file (give -c FILE, set "
		    "LOCKRUN_CONFIG, or create " CONFIG_DEFAULT_PATH ")", r->cli.task);
	if ((*task = config_task(&r->cfg, r->cli.task)) == NULL)
		return lr_errf(e, EX_USAGE, "-t %s: no such task in %s", r->cli.task,
		    r->cfg.path);
	return 0;
}

static int merge_redis(struct run *r, struct lr_err *e);

/* Command line over task over defaults over built-in values. */
static int
merge(struct run *r, struct lr_err *e)
{
	const struct lr_task *task;
	struct lr_task *t = &r->t;
	char why[300];

	if (find_task(r, &task, e) != 0)
		return -1;
	if (task_inherit(t, &r->cli.o) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (r->cli.cmd) {	/* a command after -- replaces the task's, shell and all */
		if ((t->argv = strv_dup(r->cli.cmd)) == NULL)
			return lr_errf(e, EX_OSERR, "out of memory");
		if (t->shell == LR_UNSET)
			t->shell = 0;
	}
	if ((task && task_inherit(t, task) != 0) ||
	    task_inherit(t, &r->cfg.defaults) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	/* the config's own combinations were checked when it was loaded */
	if (task_finish(t, &r->sched, why, sizeof(why)) != 0)
		return lr_errf(e, EX_USAGE, "%s", why);
	return merge_redis(r, e);
}

/* Redis settings: command line, environment, config, built-in. */
static int
merge_redis(struct run *r, struct lr_err *e)
{
	(void)e;
	r->redis = r->cli.redis;
	if (r->redis.url == NULL && (r->redis.url = getenv("LOCKRUN_REDIS_URL")) != NULL &&
	    *r->redis.url == '\0')
		r->redis.url = NULL;
	if (r->redis.url == NULL)
		r->redis.url = r->cfg.redis.url ? r->cfg.redis.url : DEFAULT_URL;
	if (r->redis.connect_timeout_ms == LR_UNSET)
		r->redis.connect_timeout_ms = r->cfg.redis.connect_timeout_ms;
	if (r->redis.connect_timeout_ms == LR_UNSET)
		r->redis.connect_timeout_ms = DEFAULT_TIMEOUT_MS;
	if (r->redis.command_timeout_ms == LR_UNSET)
		r->redis.command_timeout_ms = r->cfg.redis.command_timeout_ms;
	if (r->redis.command_timeout_ms == LR_UNSET)
		r->redis.command_timeout_ms = DEFAULT_TIMEOUT_MS;
	r->prefix = r->cli.prefix ? r->cli.prefix :
	    r->cfg.prefix ? r->cfg.prefix : DEFAULT_PREFIX;
	return 0;
}

/* Where Redis is and the password, read before the task's cwd and env
 * apply: they are the command's, not lockrun's. */
static int
resolve_redis(struct run *r, struct lr_err *e)
{
	const char *env_url = getenv("LOCKRUN_REDIS_URL");
	struct lr_url u;

	if (rurl_parse(r->redis.url, &r->url, e) != 0 ||
	    rconn_password(r->cli.redis.password_file, r->cfg.redis.password_file,
	    &r->url, r->password, sizeof(r->password), e) != 0)
		return -1;
	/* the password is lockrun's, not the command's: keep it out of the
	 * environment the command inherits (r->redis.url may point into it,
	 * but it was parsed above) */
	unsetenv("LOCKRUN_REDIS_PASSWORD");
	if (env_url && rurl_parse(env_url, &u, NULL) == 0 && u.password[0] != '\0')
		unsetenv("LOCKRUN_REDIS_URL");
	explicit_bzero(&u, sizeof(u));
	return 0;
}

/* Decide the lock name and the argv to exec; check it can run. */
static int
prepare_command(struct run *r, struct lr_err *e)
{
	struct lr_task *t = &r->t;
	size_t n = strv_len(t->argv), k = 0;
	const char *path = getenv("PATH");

	if (n == 0)
		return lr_errf(e, EX_USAGE, "no command (expected -t TASK or -- COMMAND [ARG...])");
	if (r->cli.key)
		snprintf(r->name, sizeof(r->name), "%s", r->cli.key);
	else if (r->cli.task)
		snprintf(r->name, sizeof(r->name), "%s", r->cli.task);
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

	if (t->cwd && chdir(t->cwd) != 0)
		return lr_errf(e, EX_CONFIG, "cwd %s: %s", t->cwd, strerror(errno));
	/* the task's env is applied in the child; its PATH is the one exec uses */
	for (size_t i = 0; t->env && t->env[i]; i++)
		if (strncmp(t->env[i], "PATH=", 5) == 0)
			path = t->env[i] + 5;
	return child_find(r->exec_argv[0], path, r->exec_path, sizeof(r->exec_path), e);
}

/* Connect and try once: one round trip. */
static int
acquire_once(struct run *r, enum lock_outcome *out, struct lr_err *e)
{
	long long sent = mono_ms();

	if (r->conn.c == NULL && rconn_open(&r->conn, &r->url, r->password,
	    r->redis.connect_timeout_ms, r->redis.command_timeout_ms, e) != 0)
		return -1;
	if (lock_acquire(&r->conn, &r->lock, out, e) != 0)
		return -1;
	r->acquired_at = sent;
	return 0;
}

/* Take the lock; with --wait, retry a held lock with jittered backoff
 * until the deadline. A slot that already ran is final: waiting would not
 * un-run it. Returns 0 with *out set (and *sig set if a signal cut the
 * wait short), or -1 with e. */
static int
acquire(struct run *r, enum lock_outcome *out, int *sig, struct lr_err *e)
{
	struct lr_lock *l = &r->lock;
	time_t slot = (time_t)-1;
	long long deadline;
	unsigned long long seed;

	*sig = 0;
	lock_init(l);
	if (r->t.one_server) {
		long long now = real_ms();
		if ((slot = schedule_slot(&r->sched, now)) == (time_t)-1)
			return lr_errf(e, EX_CONFIG, "schedule \"%s\" has no fire time in reach",
			    r->t.schedule);
		l->slot_ttl_ms = schedule_slot_ttl_ms(&r->sched, now, slot);
	}
	l->ttl_ms = r->t.no_overlap ? r->t.ttl_ms : 0;
	keys_build(&l->keys, r->prefix, r->name, slot, schedule_stamp_ms(&r->sched));
	deadline = mono_ms() + r->t.wait_ms;
	seed = strtoull(l->id + 16, NULL, 16) | 1;	/* 64 random bits of the owner id */
	for (int n = 0; ; n++) {
		long long left, pause;

		if (acquire_once(r, out, e) != 0)
			return -1;
		r->seen_held |= *out == LOCK_HELD;
		if (*out != LOCK_HELD || (left = deadline - mono_ms()) <= 0)
			return 0;
		if (n == 0)
			lr_info("%s is held; waiting up to %lldms for it", l->keys.stable, left);
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;	/* xorshift64 */
		pause = backoff_delay(n, (double)(seed >> 11) / (double)(1ULL << 53));
		if ((*sig = child_sleep(pause < left ? pause : left)) != 0)
			return 0;
	}
}

/* The LOCKRUN_ variables for the command; no token without the lock. */
static void
export_env(struct run *r, int locked)
{
	const struct lr_lock *l = &r->lock;
	struct lr_vars *v = &r->vars;

	snprintf(v->key, sizeof(v->key), "LOCKRUN_KEY=%s",
	    r->t.no_overlap ? l->keys.stable : l->keys.slot);
	snprintf(v->task, sizeof(v->task), "LOCKRUN_TASK=%s",
	    r->cli.task ? r->cli.task : r->name);
	v->slot[0] = v->token[0] = '\0';
	if (r->t.one_server)
		snprintf(v->slot, sizeof(v->slot), "LOCKRUN_SLOT=%s", l->keys.slot_iso);
	if (locked)
		snprintf(v->token, sizeof(v->token), "LOCKRUN_TOKEN=%lld", l->token);
}

/* The command, as child.c runs it. */
static void
command_spec(struct run *r)
{
	r->spec = (struct lr_child_spec){ .path = r->exec_path, .argv = r->exec_argv,
	    .env = r->t.env,
	    .foreground = r->cli.foreground, .kill_mode = r->t.kill_mode,
	    .kill_after_ms = r->t.kill_after_ms, .saved = &r->sig,
	    .close_fd = rconn_fd(&r->conn), .pgid = getpgrp() };
}

/* Release, reconnecting once if the connection went away while the
 * command ran; with --min-hold, leave the key for the rest of it, whether
 * the command ran or a signal stopped the run before it started. A
 * failure is a warning: the key expires by itself within the TTL. */
static void
release(struct run *r)
{
	struct lr_err e;
	long long keep = r->t.min_hold_ms - (mono_ms() - r->acquired_at);
	int rc = -1;

	for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
		if (rconn_fd(&r->conn) < 0 &&
		    rconn_reopen(&r->conn, r->redis.connect_timeout_ms, &e) != 0)
			continue;
		if ((rc = lock_release(&r->conn, &r->lock, keep, &e)) < 0)
			rconn_close(&r->conn);
	}
	if (rc < 0)
		lr_warn("cannot release %s (it expires by itself within %lldms): %s",
		    r->lock.keys.stable, r->lock.ttl_ms, e.msg);
	else if (rc == 0 && r->lock.ttl_ms)
		lr_warn("%s was no longer ours at release: it expired or was taken "
		    "while the command ran", r->lock.keys.stable);
}

/* Run the command under the lease (or with no lock: conn NULL). */
static int
run_command(struct run *r, struct lr_conn *conn, struct lr_err *e)
{
	struct lr_supervise s = {
		.child = &r->child, .spec = &r->spec, .vars = &r->vars,
		.kill_after_ms = r->t.kill_after_ms,
		.conn = conn && r->t.renew ? conn : NULL, .lock = &r->lock,
		.acquired_at = r->acquired_at,
		.timeout_ms = r->t.timeout_ms, .on_lost = r->t.on_lost,
	};
	int status;

	command_spec(r);
	status = supervise(&s, e);
	if (conn && !s.lost)
		release(r);
	return status;
}

/* Say who holds what, for -v: the value is "id token host pid start". */
static void
report_skip(const struct run *r, enum lock_outcome out)
{
	const struct lr_lock *l = &r->lock;
	char host[256] = "?", start[64] = "?";
	long long token = 0, pid = 0;

	sscanf(l->holder, "%*s %lld %255s %lld %63s", &token, host, &pid, start);
	if (out == LOCK_HELD)
		lr_info("skipped: %s is held by %s pid %lld since %s (token %lld)",
		    l->keys.stable, host, pid, start, token);
	else
		lr_info("skipped: slot %s already ran on %s pid %lld at %s (token %lld)",
		    l->keys.slot_iso, host, pid, start, token);
}

/* `lockrun check` alone: the config is valid (or absent); list its tasks'
 * keys; reach Redis. */
static int
check_config(struct run *r)
{
	struct lr_err e;
	struct lr_keys k;

	if (r->cfg.path == NULL)
		printf("config      none (command-line options only)\n");
	else
		printf("config      %s: ok, %zu task%s\n", r->cfg.path, r->cfg.ntasks,
		    r->cfg.ntasks == 1 ? "" : "s");
	r->prefix = r->cli.prefix ? r->cli.prefix : r->cfg.prefix ? r->cfg.prefix :
	    DEFAULT_PREFIX;
	for (size_t i = 0; i < r->cfg.ntasks; i++) {
		keys_build(&k, r->prefix, r->cfg.tasks[i].name, (time_t)-1, 60000);
		printf("task        %-24s %s\n", r->cfg.tasks[i].name, k.stable);
	}
	if (merge_redis(r, &e) != 0 || resolve_redis(r, &e) != 0 ||
	    rconn_open(&r->conn, &r->url, r->password, r->redis.connect_timeout_ms,
	    r->redis.command_timeout_ms, &e) != 0 || rconn_ping(&r->conn, &e) != 0)
		die(r, &e);
	printf("redis       %s: reachable\n", r->conn.where);
	return 0;
}

/* `lockrun check [options] [-t task | -- command]`: load and validate as
 * a run would, print what the run would use, reach Redis. Exits 0, or
 * the status of the first problem. */
static int
check(struct run *r)
{
	struct lr_err e;
	long long now;
	struct lr_check c = { .t = &r->t, .task = r->cli.task, .name = r->name,
	    .prefix = r->prefix, .sched = &r->sched, .argv = r->exec_argv };

	if (r->cfg.path)
		printf("config      %s: ok, %zu task%s\n", r->cfg.path, r->cfg.ntasks,
		    r->cfg.ntasks == 1 ? "" : "s");
	else
		printf("config      none (command-line options only)\n");
	now = real_ms();
	check_print(stdout, &c, now);
	fflush(stdout);
	if (rconn_open(&r->conn, &r->url, r->password, r->redis.connect_timeout_ms,
	    r->redis.command_timeout_ms, &e) != 0 || rconn_ping(&r->conn, &e) != 0)
		die(r, &e);
	printf("redis       %s: reachable\n", r->conn.where);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct run r;
	struct lr_err e = { 0, "", 0 };
	enum lock_outcome out;
	int status, sig;

	std_fds_open();
	memset(&r, 0, sizeof(r));
	task_init(&r.t);
	child_init(&r.child);
	config_init(&r.cfg);
	int checking = argc > 1 && strcmp(argv[1], "check") == 0;

	if (child_signals_block(&r.sig, &e) != 0)
		die(&r, &e);
	if (cli_parse(argc - checking, argv + checking, &r.cli, &e) != 0)
		die(&r, &e);
	log_setup(r.cli.verbose, r.cli.quiet);
	if (r.cli.help || r.cli.version) {
		if (r.cli.help)
			cli_usage(stdout);
		else
			printf("lockrun %s\n", LOCKRUN_VERSION);
		run_free(&r);
		return 0;
	}
	if (load_config(&r, &e) != 0)
		die(&r, &e);
	if (checking && r.cli.task == NULL && r.cli.cmd == NULL) {
		status = check_config(&r);
		run_free(&r);
		return status;
	}
	if (merge(&r, &e) != 0 || resolve_redis(&r, &e) != 0 || prepare_command(&r, &e) != 0)
		die(&r, &e);
	if (checking) {
		status = check(&r);
		run_free(&r);
		return status;
	}

	if (acquire(&r, &out, &sig, &e) != 0) {
		/* only when Redis cannot be reached at all: a refusal is an answer,
		 * and a run that saw the lock held knows someone else runs */
		if (!e.transport || r.t.on_redis_error != ON_REDIS_ERROR_RUN)
			die(&r, &e);
		if (r.seen_held) {
			size_t len = strlen(e.msg);
			snprintf(e.msg + len, sizeof(e.msg) - len, "; not running without "
			    "a lock (on_redis_error: run), as this run saw it held by another");
			die(&r, &e);
		}
		lr_warn("%s; running without a lock (on_redis_error: run)", e.msg);
		rconn_close(&r.conn);
		export_env(&r, 0);
		status = run_command(&r, NULL, &e);
		if (status < 0)
			die(&r, &e);
		run_free(&r);
		return status;
	}
	if (sig == 0)
		sig = child_signal_pending();
	if (out != LOCK_ACQUIRED) {
		report_skip(&r, out);
		status = sig ? 128 + sig : r.t.conflict_exit;
		run_free(&r);
		return status;
	}

	lr_info("acquired %s (token %lld)", r.t.no_overlap ? r.lock.keys.stable :
	    r.lock.keys.slot, r.lock.token);
	if (sig != 0) {		/* told to stop before the command started */
		release(&r);
		run_free(&r);
		return 128 + sig;
	}
	export_env(&r, 1);
	status = run_command(&r, &r.conn, &e);
	if (status < 0)
		die(&r, &e);
	lr_info("%s exited with status %d", r.exec_argv[0], status);
	run_free(&r);
	return status;
}

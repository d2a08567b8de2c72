/* SPDX-License-Identifier: BSD-2-Clause */
/* harness.h -- run the real lockrun binary against the suite's redis-server. */
#ifndef LR_HARNESS_H
#define LR_HARNESS_H

#include <sys/types.h>

#include <hiredis/hiredis.h>

#include "proc.h"
#include "redis_fixture.h"

extern struct redis_fixture fx;		/* started by suite_setup() */

void	suite_setup(void);		/* TestSuite .init: start redis-server */
void	suite_setup_password(void);	/* the same, with --requirepass s3cret */
void	suite_teardown(void);		/* TestSuite .fini: stop it by PID */

struct result {
	int	status;		/* exit status, or 128+N if killed by signal N */
	char	out[4096];
	char	err[4096];
};

/* Run lockrun with args (NULL-terminated; the binary is $LOCKRUN_BIN) to
 * completion, capturing stdout and stderr. */
void	lr_run(struct result *res, const char *const args[]);
#define LR(res, ...) lr_run((res), (const char *const[]){ __VA_ARGS__, NULL })

/* The same, with "NAME=value" strings added to lockrun's environment. */
void	lr_run_env(struct result *res, const char *const env[], const char *const args[]);
/* lr_run_env() with lockrun's stderr a terminal (a pseudo-terminal's, read
 * into res->err, its \r dropped), as when a person runs it by hand. */
void	lr_run_tty(struct result *res, const char *const env[], const char *const args[]);

/* Environment that makes lockrun's wall clock read unix_time (seconds,
 * with a fraction) when it starts, through libfaketime; the monotonic
 * clock stays real. Fills env[5], NULL-terminated; buf holds the strings.
 * Removes what libfaketime left in /dev/shm for processes long gone. */
void	faketime_env(const char *env[5], char buf[3][128], double unix_time);

/* The same, but lockrun's wall clock stands still at unix_time (to the
 * millisecond), so what it computes from the clock (a slot, a slot key's
 * TTL) is exact however long it takes to start. libfaketime reads that
 * instant as local time, so this also sets TZ=UTC for lockrun. Fills
 * env[6], NULL-terminated; buf holds the strings. */
void	faketime_frozen_env(const char *env[6], char buf[3][128], double unix_time);

/* Environment that LD_PRELOADs the fault shim ($LOCKRUN_SHIM, built from
 * shim.c) into lockrun, for lr_run_env() or lr_start_env():
 *   gai_fail_file	while this file exists, getaddrinfo() fails with
 *			EAI_AGAIN (create and remove it to start and end a
 *			DNS outage in a running lockrun)
 *   getrandom_log	getrandom() behaves as before the entropy pool is
 *			ready: without GRND_NONBLOCK it fails with ENOSYS and
 *			appends "blocking getrandom" to this file; with
 *			GRND_NONBLOCK it fails with EAGAIN
 * Either may be NULL (that fault is off). Fills env with LD_PRELOAD, the
 * variables given, and ASAN_OPTIONS=verify_asan_link_order=0 (the shim is
 * not sanitized), then NULL: at most env[0..4], so env[5] is spare for
 * the caller, who finds the NULL and may put one more "NAME=value" there.
 * buf holds the strings. Not combinable with faketime_env() as is: both
 * set LD_PRELOAD. */
void	shim_env(const char *env[6], char buf[3][256], const char *gai_fail_file,
	    const char *getrandom_log);

/* Start lockrun in the background (stdout and stderr to files named by
 * its pid in fx.dir); lr_wait() reaps it and returns the exit status.
 * lr_start_env() adds "NAME=value" strings (NULL-terminated, or env
 * NULL) to its environment, as lr_run_env() does. */
pid_t	lr_start(const char *const args[]);
pid_t	lr_start_env(const char *const env[], const char *const args[]);
#define LR_START(...) lr_start((const char *const[]){ __VA_ARGS__, NULL })
#define LR_START_ENV(env, ...) \
	lr_start_env((env), (const char *const[]){ __VA_ARGS__, NULL })
/* The same, its stdout to stdout_path (a FIFO, /dev/null) unless NULL. */
pid_t	lr_start_out(const char *const env[], const char *const args[],
	    const char *stdout_path);
int	lr_wait(pid_t pid);
const char *lr_stderr_of(pid_t pid, char *buf, size_t n);
/* The file the stderr of a process lr_start() started goes to. */
const char *lr_stderr_path(pid_t pid, char *path, size_t n);

/* Write scratch file lockrun.yaml: a redis: url pointing at the suite's
 * redis-server, then body; returns its path. */
const char *write_config(const char *body);
/* body into the scratch file name; its path. */
const char *write_scratch(const char *name, const char *body);
/* A scratch file of root's that only root reads (0600), holding "keep\n":
 * what a root-owned write must never reach. */
const char *root_only(const char *name);
/* The same, for a fleet whose clock libfaketime fakes while the lock
 * server's is real: with the clock check off (defaults: clock_tolerance:
 * 0), as the lock server would otherwise refuse every slot. */
const char *write_config_faked(const char *body);

/* A path in fx.dir; a FIFO made there. */
const char *scratch(const char *name);
const char *fifo(const char *name);

/*
 * The ready/go gate, how a test knows a job's command runs and decides
 * when it ends: the command says a pid on ready once it runs, then waits
 * for a line on the FIFO go.
 *	struct gate g;
 *	gate_open(&g, "");
 *	job = LR_START("-k", "job", "--", "sh", "-c", gate_sh(&g));
 *	gate_wait(&g);			-- the command runs: the lock is held
 *	...
 *	gate_release(&g);		-- the command ends
 * The scripts are made in g->sh, good until the next one for g.
 */
struct gate {
	char	ready[256];	/* a FIFO (gate_open()) or a file (gate_open_file()) */
	char	go[256];	/* a FIFO */
	const char *say;	/* what the shell says on ready: "$$" unless set */
	const char *to;		/* how: ">" to the FIFO, ">>" to append to the file */
	char	sh[1024];
};

/* FIFOs NAMEready and NAMEgo in fx.dir (name "" gives ready and go). */
void	gate_open(struct gate *g, const char *name);
/* The same, but ready is a plain file each command appends its line to,
 * for gate_started() or file_lines(): where a FIFO would block the test
 * for good when lockrun never starts the command, or where several might
 * run it. */
void	gate_open_file(struct gate *g, const char *name);

/* For sh -c: say the shell's pid on ready, wait for a line on go. */
const char *gate_sh(struct gate *g);
/* The same between the shell commands before and after ("" for none;
 * before ends with "; ", after starts with "; "). */
const char *gate_sh_around(struct gate *g, const char *before, const char *after);
/* before, say the shell's pid on ready, then run then instead of waiting
 * on go: a command that runs until it is stopped ("exec sleep 60"). */
const char *gate_sh_then(struct gate *g, const char *before, const char *then);
/* before, then start a sleep in the background, say its pid (not the
 * shell's) on ready and wait for it: a command with a child of its own. */
const char *gate_sh_child(struct gate *g, const char *before);

/* Block until the command says it runs; assert it said a pid (or a
 * number: see g->say), and return it. */
long	gate_wait(const struct gate *g);
/* For gate_open_file(): wait until the command has said it runs, or end
 * the test when job, the lockrun that should run it, exits first. */
void	gate_started(const struct gate *g, pid_t job);
/* Let the command waiting on go end. */
void	gate_release(const struct gate *g);

/* Block until a writer sends a line on the FIFO; return it as a number. */
long	fifo_read_long(const char *path);
/* Open the FIFO for writing (blocks until the reader is there), send s. */
void	fifo_write(const char *path, const char *s);

/* Count the lines of a file (0 if it does not exist). */
int	file_lines(const char *path);
/* How many lines of a file repeat an earlier line (0: none twice). */
int	file_repeats(const char *path);
/* The whole of a file, NUL-terminated; the caller frees it. */
char	*file_text(const char *path);
/* The first 64 KiB of a file, or "" if it does not exist, in a buffer the
 * next call reuses: for a job's small log. */
const char *file_peek(const char *path);

/* A pause that is the test's own pace (a slow client's bytes, a window
 * measured), never a wait for lockrun: those poll (POLL_UNTIL). */
void	pace_ms(long ms);

/* One command on a fresh client, formatted like redisCommand. */
redisReply *rcmd(const char *fmt, ...);

/* Watch the commands clients send (MONITOR). monitor_count() ends the
 * watch and returns how many commands clients other than the harness sent
 * since monitor_start(), leaving out those run inside scripts; it lists
 * their names, one a line, in seen when seen is not NULL. */
redisContext *monitor_start(void);
long	monitor_count(redisContext *mon, char *seen, size_t n);

/* Read the watch until n more commands (by the same clients, not inside
 * scripts) match the extended regex re, which is applied to MONITOR's
 * line from the command's name on: '"EVALSHA" "<sha>" "1" "key" ...'.
 * Copies the last matching line there when last is not NULL. Returns how
 * many matched: n, or fewer if 30 s passed first (a guard against a hang,
 * never a measure). The watch stays open: redisFree() or monitor_count()
 * ends it. */
long	monitor_until(redisContext *mon, const char *re, long n, char *last, size_t len);

/* How many bytes the command MONITOR shows as line ('"NAME" "arg" ...',
 * its escapes undone) takes in RESP, as a client sends it. */
long	resp_size(const char *line);

/* A bounded poll, for what only time brings about (a process gone, a key
 * expired, a line logged):
 *	POLL_UNTIL(!alive(pid));
 *	cr_assert(eq(int, alive(pid), 0));
 * re-evaluates cond every 5 ms until it holds or 30 s have passed; then
 * assert it. The 30 s only guard against a hang: no test depends on how
 * long the wait takes. When they run out, the test is failed with the
 * condition and its place (poll_gave_up(), a cr_expect_fail(): the test
 * goes on, so that it still stops what it started before its own
 * assertion says more). poll_tick() is its step: 0 once the guard, set by
 * its first call, has passed. */
#define POLL_UNTIL(cond) do {						\
	long long poll_guard_ = 0;					\
	while (!(cond))							\
		if (!poll_tick(&poll_guard_)) {				\
			poll_gave_up(#cond, __FILE__, __LINE__);	\
			break;						\
		}							\
} while (0)
int	poll_tick(long long *guard);
void	poll_gave_up(const char *cond, const char *file, int line);

/* EXISTS key: 1 or 0; PTTL key in ms (-2 when gone, -1 with no expiry). */
int	key_exists(const char *key);
long long key_pttl(const char *key);

/* Does s match the extended regular expression re? */
int	matches(const char *s, const char *re);

/* Is pid still a live (not zombie) process? */
int	alive(pid_t pid);

#endif

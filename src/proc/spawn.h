/* SPDX-License-Identifier: BSD-2-Clause */
/* spawn.h -- start the command: its signals, program, environment, exec. */
#ifndef LR_SPAWN_H
#define LR_SPAWN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

/* The PATH a command run as another user (a task's user:) is given when
 * its task's env sets none, as cron(8) gives one: never lockrun's own. */
#define LR_USER_PATH	"/usr/local/bin:/usr/bin:/bin"

/* What lockrun saved of its own signal state before changing it, so the
 * command starts with what lockrun was given. */
struct lr_sigstate {
	sigset_t		mask;		/* the inherited signal mask */
	struct sigaction	pipe;		/* the inherited SIGPIPE action */
};

/* What to run, and how. */
/* Who the command runs as (a task's user:), looked up before the fork:
 * the child only makes the system calls. */
#define LR_GROUPS_MAX	256
struct lr_creds {
	uid_t		uid;
	gid_t		gid;
	char		name[64];	/* the user's, for messages */
	int		ngroups;	/* supplementary groups (initgroups(3)'s) */
	gid_t		groups[LR_GROUPS_MAX];
};

struct lr_capture;

struct lr_child_spec {
	const char		 *path;		/* argv[0] as found: spawn_find() */
	char *const		 *argv;
	char *const		 *env;		/* "NAME=value" added, may be NULL */
	int			  foreground;	/* stay in lockrun's process group */
	pid_t			  pgid;		/* lockrun's process group */
	int			  kill_mode;	/* enum lr_kill_mode */
	long long		  kill_after_ms;
	/* on_lost: term: the guard stops the tree by the last deadline
	 * lockrun sent even while lockrun lives (guard.c, keep_deadline) */
	int			  keeps_deadline;
	const struct lr_sigstate *saved;
	/* a run forked by tick or cron: the scheduler's own variables
	 * (NOTIFY_SOCKET, LISTEN_*, WATCHDOG_*, LOCKRUN_CONFIG, the URL and
	 * password ones) are left out of the command's environment; its
	 * env: may set them again */
	int			  scheduled;
	/* run as; NULL: as lockrun. A command run as another user is a
	 * boundary: it gets that user's environment alone (spawn_envp()),
	 * fds 0 to 2 alone, a session of its own without a terminal, and is
	 * looked up again, after the switch, in its PATH with its rights */
	const struct lr_creds	 *creds;
	/* begin a session of its own, without a controlling terminal (a
	 * hook; implied by creds): it cannot reach a terminal lockrun was
	 * started from (TIOCSTI), nor get a signal sent to its group */
	int			  session;
	/* the pipes the command's stdout and stderr go to, read by lockrun
	 * (capture.h), or NULL: output_fd */
	const struct lr_capture	 *capture;
	int			  output_fd;	/* the command's stdout and stderr
						 * (a task's output:), above 2;
						 * 0: lockrun's own */
	/* In the guard, when lockrun died and the tree is gone: free the
	 * lock, with the main process's status (NULL: nothing to free). The
	 * guard keeps lockrun's connection to the lock server open until
	 * then (close-on-exec: the command has none), so a session lock
	 * lasts as long as the tree, and the hook can close it as its own. */
	void			(*orphaned)(void *arg, int status);
	void			 *orphaned_arg;
};

/* The variables lockrun sets for the command, each "NAME=value", or ""
 * to leave it out. Any of the four lockrun's own environment has is
 * dropped, so a nested lockrun does not pass on its parent run's values. */
struct lr_vars {
	char	key[448];	/* LOCKRUN_KEY= */
	char	token[40];	/* LOCKRUN_TOKEN= */
	char	task[300];	/* LOCKRUN_TASK= */
	char	slot[80];	/* LOCKRUN_SLOT= */
	char	attempt[40];	/* LOCKRUN_ATTEMPT=, or "" */
};

/* Reset the forwarded signals and SIGCHLD to their default action (a job
 * started with `&` inherits SIGINT and SIGQUIT ignored, and an ignored
 * signal would never reach the signalfd) and block them with SIGCHLD, so they are read
 * from a signalfd and none can kill lockrun while it holds the lock;
 * ignore SIGPIPE (a closed Redis socket is an error, not a death). Call
 * first thing. */
int	spawn_signals_block(struct lr_sigstate *saved, struct lr_err *e);

/* Give back the signal mask and SIGPIPE action spawn_signals_block()
 * saved: before the command is executed. */
void	spawn_signals_restore(const struct lr_sigstate *saved);

/* A forwarded signal that arrived before the command started, or 0. */
int	spawn_signal_pending(void);

/* Sleep up to ms, or less if a forwarded signal arrives: returns that
 * signal (consumed), or 0 when the time ran out. */
int	spawn_sleep(long long ms);

/* Find argv0 as execvp(3) would with path as $PATH (NULL: execvp's
 * default), and write where to found[n]. Returns 0, or -1 with e = 127
 * (not found) or 126 (not executable). */
int	spawn_find(const char *argv0, const char *path, char *found, size_t n,
	    struct lr_err *e);

/* The command's whole environment: lockrun's, less the four LOCKRUN_
 * variables, with spec->env replacing variables of the same name, then
 * vars. With spec->creds (another user), none of lockrun's: spec->env
 * (the user's HOME, USER, LOGNAME, SHELL and the task's env, runas.c),
 * PATH=LR_USER_PATH unless it sets one, then vars. The strings are
 * borrowed: free only the array. NULL when out of memory. */
char	**spawn_envp(const struct lr_child_spec *spec, const struct lr_vars *vars);

/* Does sig ask a job to end (TERM, INT, QUIT, HUP)? Such a signal is
 * followed by SIGCONT, so that a stopped command acts on it. */
int	spawn_ends_a_job(int sig);

/* Start the command of spec with vfork(2) (no copy of the caller's memory:
 * the child only sets up its signals, group and parent-death signal, and
 * execs with envp). Returns its pid, or -1 with errno; when the exec
 * failed (the child exits 126 or 127), its errno into *exec_err (may be
 * NULL), else 0. */
pid_t	spawn_child(const struct lr_child_spec *spec, char *const envp[], int *exec_err);

/* The signals lockrun forwards to the command (TERM, INT, QUIT, HUP, USR1,
 * USR2), in set. */
void	spawn_forwarded_set(sigset_t *set);

#endif

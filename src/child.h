/* child.h -- the command's process: fork, exec, signals, reap. */
#ifndef LR_CHILD_H
#define LR_CHILD_H

#include <signal.h>
#include <sys/types.h>

#include "err.h"

/* What lockrun saved of its own signal state before changing it, so the
 * command starts with what lockrun was given. */
struct lr_sigstate {
	sigset_t		mask;		/* the inherited signal mask */
	struct sigaction	pipe;		/* the inherited SIGPIPE action */
};

/* What to run, and how. */
struct lr_child_spec {
	char *const		 *argv;
	char *const		 *env;		/* "NAME=value" added, may be NULL */
	int			  foreground;	/* stay in lockrun's process group */
	int			  kill_mode;	/* enum lr_kill_mode */
	long long		  kill_after_ms;
	const struct lr_sigstate *saved;
	int			  close_fd;	/* lockrun's Redis socket, or -1 */
};

struct lr_child {
	const struct lr_child_spec *spec;
	pid_t	pid;		/* what lockrun waits for: the guard (kill_mode
				 * tree) or the command itself (process) */
	int	sfd;		/* signalfd: SIGCHLD and the forwarded signals */
	int	ctl;		/* the guard's control pipe, or -1 */
	int	status;		/* once ended: exit status, or 128+N */
	int	guard_died;	/* the guard was killed by this signal */
};

/* Reset the forwarded signals to their default action (a job started with
 * `&` inherits SIGINT and SIGQUIT ignored, and an ignored signal would
 * never reach the signalfd) and block them with SIGCHLD, so they are read
 * from a signalfd and none can kill lockrun while it holds the lock;
 * ignore SIGPIPE (a closed Redis socket is an error, not a death). Call
 * first thing. */
int	child_signals_block(struct lr_sigstate *saved, struct lr_err *e);

/* A forwarded signal that arrived before the command started, or 0. */
int	child_signal_pending(void);

/* Sleep up to ms, or less if a forwarded signal arrives: returns that
 * signal (consumed), or 0 when the time ran out. */
int	child_sleep(long long ms);

/* Find argv0 as execvp(3) would with path as $PATH (NULL: execvp's
 * default). Returns 0, or -1 with e = 127 (not found) or 126 (not
 * executable). */
int	child_find(const char *argv0, const char *path, struct lr_err *e);

/* Start the command of spec (which must outlive ch): through a guard
 * process with kill_mode tree (guard.h), else directly. The command leads
 * its own process group unless foreground. Returns 0, or -1 with
 * e = EX_OSERR. */
int	child_start(struct lr_child *ch, const struct lr_child_spec *spec,
	    struct lr_err *e);

/* In a forked child: set up and exec the command of spec; parent is the
 * pid of the process that forked it. Never returns. */
void	child_exec(const struct lr_child_spec *spec, pid_t parent)
	    __attribute__((noreturn));

/* Handle what the signalfd has (call when it is readable): forward a
 * signal, or reap. Returns 1 once the command has ended (with kill_mode
 * tree: once its whole tree has), else 0. */
int	child_event(struct lr_child *ch);

/* Stop the command with sig: the whole tree (kill_mode tree) or the main
 * process (process), with SIGCONT after it unless it is SIGKILL. */
void	child_stop(const struct lr_child *ch, int sig);

/* kill_mode tree: should lockrun die, the guard kills the tree by at (on
 * the monotonic clock, ms) -- the end of the lease as lockrun knows it. */
void	child_deadline(const struct lr_child *ch, long long at);

/* Close the signalfd and the control pipe. */
void	child_close(struct lr_child *ch);

#endif

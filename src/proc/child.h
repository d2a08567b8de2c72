/* SPDX-License-Identifier: BSD-2-Clause */
/* child.h -- lockrun's side of the running command: start, signal, reap. */
#ifndef LR_CHILD_H
#define LR_CHILD_H

#include "core/err.h"
#include "proc/spawn.h"

struct lr_child {
	const struct lr_child_spec *spec;
	char	**envp;		/* the command's whole environment, built before
				 * vfork(2) so that the child only execs */
	pid_t	pid;		/* what lockrun waits for: the guard (kill_mode
				 * tree) or the command itself (process) */
	int	sfd;		/* signalfd: SIGCHLD and the forwarded signals */
	int	ctl;		/* the guard's control socket, or -1 */
	int	status;		/* once ended: exit status, or 128+N */
	int	guard_died;	/* the guard was killed by this signal */
	int	forwarded;	/* the last signal lockrun was sent and passed
				 * on to the command, or 0 */
	int	exec_err;	/* the command could not be executed: why
				 * (errno), or 0 */
};

/* Make ch safe to pass to child_close(). */
void	child_init(struct lr_child *ch);

/* Start the command of spec (which must outlive ch), with vars added to
 * its environment: with kill_mode tree through a guard process (guard.h),
 * told that the tree must be gone by deadline (monotonic ms) should
 * lockrun die; else directly. The command leads its own process group
 * unless foreground. Returns 0, or -1 with e = EX_OSERR. */
int	child_start(struct lr_child *ch, const struct lr_child_spec *spec,
	    const struct lr_vars *vars, long long deadline, struct lr_err *e);

/* Handle what the signalfd has (call when it is readable): forward a
 * signal, or reap the command (kill_mode process). Returns 1 once the
 * command has ended, else 0. */
int	child_event(struct lr_child *ch);

/* kill_mode tree: handle what the guard sent on ch->ctl (call when it is
 * readable): the status of the command once its whole tree is gone, or
 * end-of-file if the guard died. Returns 1 once ended, else 0. */
int	child_guard_event(struct lr_child *ch);

/* Stop the command with sig: the whole tree (kill_mode tree) or the main
 * process (process), with SIGCONT after it unless it is SIGKILL. */
void	child_stop(const struct lr_child *ch, int sig);

/* kill_mode tree: should lockrun die, the guard kills the tree by at (on
 * the monotonic clock, ms) -- the end of the lease as lockrun knows it. */
void	child_deadline(const struct lr_child *ch, long long at);

/* Close the signalfd and the control socket (the guard, which waits for
 * that, exits), free envp. Call last: the guard's exit then overlaps
 * lockrun's own. */
void	child_close(struct lr_child *ch);

#endif

/* child.h -- run the command: fork, exec, forward signals, reap. */
#ifndef LR_CHILD_H
#define LR_CHILD_H

#include <signal.h>

#include "err.h"

/* What lockrun saved of its own signal state before changing it, so the
 * command starts with what lockrun was given. */
struct lr_sigstate {
	sigset_t		mask;		/* the inherited signal mask */
	struct sigaction	pipe;		/* the inherited SIGPIPE action */
};

/* Block SIGCHLD and the forwarded signals (they are read from a signalfd,
 * so none can kill lockrun while it holds the lock) and ignore SIGPIPE
 * (a closed Redis socket is an error, not a death). Call first thing. */
int	child_signals_block(struct lr_sigstate *saved, struct lr_err *e);

/* A forwarded signal that arrived before the command started, or 0. */
int	child_signal_pending(void);

/* Find argv0 as execvp(3) would. Returns 0, or -1 with e = 127 (not
 * found) or 126 (not executable). */
int	child_find(const char *argv0, struct lr_err *e);

/* Fork and exec argv, with the command leading its own process group
 * unless foreground; forward signals until it ends. Returns its exit
 * status (128+N if killed by signal N), or -1 with e = EX_OSERR. */
int	child_run(char *const argv[], int foreground, const struct lr_sigstate *saved,
	    struct lr_err *e);

#endif

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

struct lr_child {
	pid_t	pid;
	int	sfd;		/* signalfd: SIGCHLD and the forwarded signals */
	int	foreground;	/* the command stays in lockrun's process group */
	int	status;		/* once ended: exit status, or 128+N */
};

/* Block SIGCHLD and the forwarded signals (they are read from a signalfd,
 * so none can kill lockrun while it holds the lock) and ignore SIGPIPE
 * (a closed Redis socket is an error, not a death). Call first thing. */
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

/* Fork and exec argv with env ("NAME=value", NULL-terminated, may be
 * NULL) added to its environment -- the command's alone, not lockrun's;
 * the command leads its own process group unless foreground. Returns 0,
 * or -1 with e = EX_OSERR. */
int	child_start(struct lr_child *ch, char *const argv[], char *const env[],
	    int foreground, const struct lr_sigstate *saved, struct lr_err *e);

/* Handle what the signalfd has (call when it is readable): forward a
 * signal, or reap. Returns 1 once the command has ended, else 0. */
int	child_event(struct lr_child *ch);

/* Send sig to the command (its whole group unless foreground). */
void	child_kill(const struct lr_child *ch, int sig);

/* Close the signalfd. */
void	child_close(struct lr_child *ch);

#endif

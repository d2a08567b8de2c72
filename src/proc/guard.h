/* SPDX-License-Identifier: BSD-2-Clause */
/* guard.h -- the process between lockrun and the command, which keeps the
 * command's whole process tree contained (kill_mode: tree). */
#ifndef LR_GUARD_H
#define LR_GUARD_H

#include <sys/types.h>

/* What lockrun tells the guard through their control socket (a
 * SOCK_SEQPACKET pair: one message per write, arriving whole). The guard
 * answers once, with the command's status as an int, when the tree is
 * gone; end-of-file on either side means the other has died. */
enum guard_op {
	GUARD_FORWARD,		/* pass sig on to the command (its group) */
	GUARD_STOP,		/* send sig to every process of the tree */
	GUARD_DEADLINE,		/* the lease's kill point (lease_kill_at): the
				 * tree is gone by at, should lockrun die or
				 * fall silent (spec->keeps_deadline) */
};

/* The guard's one answer: the main process's status, and the errno of
 * its exec when that failed (the status is then 126 or 127), else 0. */
struct guard_end {
	int		status;
	int		exec_err;
};

struct guard_msg {
	int		op;	/* enum guard_op */
	int		sig;
	long long	at;	/* GUARD_DEADLINE: on the monotonic clock, in ms */
};

struct lr_child_spec;

/* In the forked guard: become a child subreaper, start the command of
 * spec with envp (see spawn_child()), then serve ctl and reap until no
 * process of the tree is left; send lockrun the main process's status (its
 * exit code, or 128+N when signal N ended it), and exit once lockrun closes
 * ctl. Should lockrun die first, or fail to send a later deadline in time
 * (spec->keeps_deadline), the tree is gone by deadline. Never returns. */
void	guard_run(const struct lr_child_spec *spec, char *const envp[],
	    long long deadline, int ctl)
	    __attribute__((noreturn));

/* Send sig to every process below root, found by walking /proc: a process
 * belongs when its chain of parents leads to root. SIGCONT follows any
 * other signal but SIGKILL, so a stopped process acts on it. Returns how
 * many processes were signalled. */
int	guard_signal(pid_t root, int sig);

/* SIGKILL everything below the calling process, in rounds, and reap it,
 * until it has no child left. For lockrun when the guard itself died. */
void	guard_kill_all(void);

#endif

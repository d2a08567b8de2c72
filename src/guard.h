/* guard.h -- the process between lockrun and the command, which keeps the
 * command's whole process tree contained (kill_mode: tree). */
#ifndef LR_GUARD_H
#define LR_GUARD_H

#include <sys/types.h>

/* What lockrun tells the guard through its control pipe: one message per
 * write, smaller than PIPE_BUF, so it arrives whole. */
enum guard_op {
	GUARD_FORWARD,		/* pass sig on to the command (its group) */
	GUARD_STOP,		/* send sig to every process of the tree */
	GUARD_DEADLINE,		/* if lockrun dies, the tree is gone by at */
};

struct guard_msg {
	int		op;	/* enum guard_op */
	int		sig;
	long long	at;	/* GUARD_DEADLINE: on the monotonic clock, in ms */
};

struct lr_child_spec;

/* In the forked guard: become a child subreaper, start the command (see
 * child_exec()), then serve ctl and reap until no process of the tree is
 * left, and exit with the main process's status (its exit code, or 128+N
 * when signal N ended it). Never returns. */
void	guard_run(const struct lr_child_spec *spec, int ctl)
	    __attribute__((noreturn));

/* Send sig to every process below root, found by walking /proc: a process
 * belongs when its chain of parents leads to root. SIGCONT follows any
 * other signal but SIGKILL, so a stopped process acts on it. Returns how
 * many processes were signalled. */
int	tree_signal(pid_t root, int sig);

/* SIGKILL everything below the calling process, in rounds, and reap it,
 * until it has no child left. For lockrun when the guard itself died. */
void	tree_kill_all(void);

#endif

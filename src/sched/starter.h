/* SPDX-License-Identifier: BSD-2-Clause */
/* starter.h -- start a scheduled task as a run of its own: this very program
 * again, as `lockrun -t NAME`, its slot pinned to the instant it was due. */
#ifndef LR_SCHED_STARTER_H
#define LR_SCHED_STARTER_H

#include <sys/types.h>

#include "proc/child.h"
#include "sched/due.h"
#include "sched/report.h"

/* The descriptors from 3 up open before a scheduler opens its own (its
 * timer, signals, connections, its runs' pipes and sockets, all
 * close-on-exec): those it was given, which a forked run keeps, as exec
 * would have kept them, while it closes every other one, as exec would
 * have closed them. Ascending; past SPAWN_GIVEN_MAX the rest are closed
 * in runs too. A floor would not do: a descriptor given high (a shell's
 * 255, a test runner's) would keep every one of the scheduler's below it
 * open in each run, its end of the run's lease socket among them, and a
 * run would never see its scheduler die. */
#define SPAWN_GIVEN_MAX	64
struct spawn_given {
	int	fd[SPAWN_GIVEN_MAX];
	dev_t	dev[SPAWN_GIVEN_MAX];	/* what each was then: a number closed */
	ino_t	ino[SPAWN_GIVEN_MAX];	/* and opened again (the log, on SIGHUP)
					 * is the scheduler's, not given */
	size_t	n;
};
void	starter_fds_given(struct spawn_given *g);

/* A run's whole life from its command line, in the child forked for it:
 * lockrun's main() without the config read again, since cfg is it (the
 * scheduler's, as last loaded). Returns lockrun's exit status. */
typedef int sched_run_fn(int argc, char **argv, const struct lr_config *cfg);

/* The runs' starter: a process forked from the scheduler when its first
 * run starts, that forks each run from then on. A fork costs the parent
 * in proportion to its memory and descriptors, and copy-on-write faults
 * after it, each with a TLB flush on every CPU the parent ran on; a
 * scheduler with 1,000 runs has 35 MB and 4,000 descriptors, and spent
 * 8 ms of CPU per run forking them, while it should answer their lock
 * requests. The starter is small and does nothing else. Its runs are the
 * scheduler's children (clone(2)'s CLONE_PARENT), reaped by it as before.
 * Its socket is -1 while there is none; SIGHUP drops it (the config and
 * the log it holds are no longer the scheduler's), and the next run
 * starts a new one. It ends with the scheduler. */
struct run_starter {
	int		sock;		/* the scheduler's end of its socket, or -1 */
	int		pidfd;		/* the starter's (pidfd_open(2)), or -1 */
	struct report_once said;	/* pidfd_open(), pidfd_send_signal() failed */
	long long	answer_ms;	/* how long the scheduler waits for its
					 * answer (0: STARTER_ANSWER_MAX_MS): the
					 * scheduler answers no renewal meanwhile,
					 * so crond.c keeps it to a sixth of the
					 * shortest TTL of its tasks */
};
#define STARTER_ANSWER_MAX_MS	1000	/* it answers in milliseconds */

/* Drop the starter (s may be NULL): killed, so that no ask it holds is
 * ever answered by a run nobody waits for. */
void	starter_stop(struct run_starter *s);

/* How children are started: the scheduler's own options (its argv without
 * the verb word, argv[0] first), the signal state it was given, its config
 * and what a child runs. */
struct sched_spawner {
	char *const		 *argv;
	const struct lr_sigstate *saved;
	const struct lr_config	 *cfg;
	sched_run_fn		 *run;
	struct spawn_given	  given;	/* starter_fds_given() before the scheduler began */
	const char		 *lease_url;	/* the server of the scheduler's connection
						 * (leases.h), or NULL: runs connect
						 * themselves */
	struct run_starter	 *starter;	/* or NULL: we fork runs ourselves */
};

/* A signalfd (flags: SFD_*, close-on-exec added) for the signals a
 * scheduler waits on: its runs' ends (SIGCHLD), SIGHUP, and SIGTERM,
 * SIGINT and SIGQUIT, which stop it and are passed on to its runs. main()
 * blocked them all (spawn_signals_block()). Returns it, or -1. */
int	sched_signalfd(int flags);


/* The variable that pins a run's slot: the Unix ms the scheduler found it
 * due at. run.c takes it (and drops it) when it is within a minute of its
 * own clock. */
#define SLOT_AT_VAR "LOCKRUN_SLOT_AT"

/* The variable that tells a run the nonce of the claim cron made of its
 * slot before it forked it (sched/claim.h): its acquire takes the slot
 * key holding that claim as free. run.c takes it and drops it. */
#define CLAIM_VAR "LOCKRUN_SLOT_CLAIM"

/* A run `lockrun trigger` asked for: starter_spawn()'s at_ms, and the
 * variable that tells the run so (run.c takes it and drops it): it claims
 * no slot, takes the no-overlap lock and is recorded as "triggered". Its
 * value is starter_spawn()'s claim: "pid/seconds", the mark the scheduler's
 * take left on the trigger but for the host (trigger.h), which the run's
 * acquire deletes with the trigger (lr_lock.take); "-1": none. */
#define SPAWN_TRIGGERED	(-1LL)
#define TRIGGERED_VAR	"LOCKRUN_TRIGGERED"

/* The task's on_missed hook, for the slot at SPAWN_MISSED - at_ms ms (at_ms
 * at or below SPAWN_MISSED), which this scheduler recorded as missed
 * (sched/missed.c): the variable tells the run, which runs the hook alone
 * (no lock, no command), told the slot's Unix seconds. */
#define SPAWN_MISSED	(-2LL - 4000000000000LL)
#define MISSED_VAR	"LOCKRUN_MISSED_SLOT"

/* A run's pipes, read ends (close-on-exec, non-blocking), -1 when none. */
struct spawn_pipes {
	int	relay;		/* asked: the run's stdout and stderr on out, in
				 * frames (mux.h) */
	int	out;
	int	lease;		/* the scheduler's end of the socket pair
				 * (non-blocking) that how the run goes comes on
				 * (outcome.h), and its log's records
				 * (log_report()), and with sp->lease_url its
				 * lock requests */
};
#define SPAWN_FDS	2	/* the ends a run is given: out, lease */

/* The fork gate. A run's child goes on running lockrun after fork(),
 * without exec: it must not start with a lock held by a thread that does
 * not exist in it (a client library's, the loader's; under ASan, its
 * allocator's). So a thread of the scheduler's process that calls into
 * such code (`cron --listen`'s reads of the backend) does so between
 * starter_gate_enter() and starter_gate_leave(), and starter_spawn() forks (a run,
 * or cron's starter, whose one thread forks the runs) with the gate held. */
void	starter_gate_enter(void);
void	starter_gate_leave(void);

/* Start t: fork (or ask sp->starter to), and in the child run
 * `lockrun [options] -t NAME`, with
 * SLOT_AT_VAR=at_ms (or, at_ms SPAWN_TRIGGERED, TRIGGERED_VAR), and
 * CLAIM_VAR=claim unless claim is "". With io->relay, the run's stdout
 * and stderr go to out, in frames (mux.h); else it shares ours. With io, how the
 * run goes and its log's records come on io->lease, and with
 * sp->lease_url its lock requests too (lease_client_set() in the
 * child). Returns the child's pid, or -1 with e. */
pid_t	starter_spawn(const struct sched_spawner *sp, const struct sched_task *t,
	    long long at_ms, const char *claim, struct spawn_pipes *io, struct lr_err *e);

#endif

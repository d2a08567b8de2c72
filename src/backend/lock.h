/* SPDX-License-Identifier: BSD-2-Clause */
/* lock.h -- the lock as every backend holds it: its keys and settings,
 * the owner and fencing token, and the outcomes of taking, renewing and
 * releasing it (backend.h's operations). Redis's own calls are in
 * backend/redis/rlock.h. */
#ifndef LR_LOCK_H
#define LR_LOCK_H

#include <string.h>

#include "core/err.h"
#include "core/keys.h"

enum lock_outcome {
	LOCK_ACQUIRED,
	LOCK_HELD,		/* no-overlap: a copy is still running */
	LOCK_SLOT_TAKEN,	/* one-server: this slot already ran */
	LOCK_UNCONFIRMED,	/* taken, but fewer replicas than wait_replicas
				 * acknowledged it (why in unacked): release it */
	LOCK_LATE,		/* the server ran it outside [earliest, deadline]
				 * by its clock: nothing done; offset_ms says
				 * why, and a try with offset_used_ms = offset_ms
				 * is in its window unless it waited */
	LOCK_CLOCK_OFF,		/* one-server: this host's clock and the server's
				 * differ by more than clock_tol_ms; nothing was
				 * claimed (offset_ms says by how much) */
	LOCK_PAUSED,		/* `lockrun pause`: nothing taken, "skipped-paused"
				 * recorded; holder has the pause's value,
				 * "<since ms> <until ms, 0: none> <host> <user> <reason>" */
};

enum renew_outcome {
	RENEW_OK,		/* extended */
	RENEW_RETAKEN,		/* the key had vanished; it is ours again */
	RENEW_LOST,		/* another run holds the key */
	RENEW_LOST_LATER,	/* the key had vanished and a later token was
				 * drawn: another run took it and let it go */
	RENEW_UNCONFIRMED,	/* extended (or retaken) on the master, but fewer
				 * replicas than wait_replicas acknowledged it
				 * (why in unacked): the lease is not extended */
	RENEW_LATE,		/* the server ran it past renew_deadline_ms by
				 * its clock: nothing done, the lease not
				 * extended (lockrun had given up on it) */
};

#define LR_TAKE_MAX	320	/* a trigger's take mark (struct lr_take) */
#define CLAIM_NONCE_MAX	17	/* a slot claim's nonce: 64 random bits in
				 * hex, and a NUL (struct lr_claim) */

struct lr_lock {
	struct lr_keys	keys;
	long long	ttl_ms;		/* stable key TTL; 0: no-overlap off */
	long long	slot_ttl_ms;	/* slot key TTL; 0: one-server off */
	long long	slot_until_ms;	/* one-server: the slot's next fire time
					 * (Unix ms), past which no claim of it
					 * runs: the acquire's deadline is no
					 * later (lock_window()), and one not sent
					 * by then is not sent; 0: none */
	int		limit;		/* limit: copies that may hold it at once,
					 * each its own place; 0 or 1: one, the
					 * plain lock (Redis: places.lua) */
	long long	hist_cap;	/* history entries kept; 0: no history */
	long long	hist_ttl_ms;	/* the history's life after its last write */
	long long	clock_tol_ms;	/* one-server: claim no slot when the server's
					 * clock and ours differ by more; 0: no check */
	int		no_window;	/* clock_tolerance 0: the server's clock is
					 * not compared with ours at all */
	long long	offset_used_ms;	/* the offset the window is moved by: 0
					 * until one was measured (LOCK_LATE) */
	/* set by the backend's acquire, for every backend alike
	 * (lock_window()): the server refuses the request when its clock
	 * reads outside [earliest_ms, deadline_ms] */
	long long	earliest_ms;	/* sent + offset used - LOCK_EARLY_MS */
	long long	deadline_ms;	/* sent + offset used + the command timeout */
	long long	sent_ms;	/* our wall clock when the acquire was sent */
	long long	offset_ms;	/* the server's clock minus ours, measured
					 * from the acquire's answer (error at most
					 * half its round trip), when offset_known */
	long long	rtt_ms;		/* that answer's round trip */
	int		offset_known;
	/* the server's clock as this run last read it, against our monotonic
	 * clock (lock_offset_note(), lock_renew_note()): a renewal's deadline
	 * is reckoned from it, so a step of this host's wall clock during a
	 * run moves no deadline */
	long long	sync_server_ms;	/* the server's clock in that answer */
	long long	sync_mono_ms;	/* our monotonic clock then (mid round trip) */
	long long	sync_err_ms;	/* half that answer's round trip */
	/* the renewal in flight (lock_renew_window()) */
	long long	renew_within_ms;	/* set by the caller before renew_send:
					 * how long after it is sent lockrun waits
					 * for its answer */
	long long	renew_deadline_ms;	/* the server refuses it (RENEW_LATE)
					 * when its clock reads later; 0: none */
	long long	renew_sent_mono;	/* our monotonic clock when sent */
	int		in_doubt;	/* the acquire failed after it was sent: it
					 * may have taken effect on the server */
	int		quiet_held;	/* this acquire will be retried if the lock is
					 * held (--wait): do not record the skip */
	int		triggered;	/* `lockrun trigger`: recorded as "triggered",
					 * not "ran" (no slot is claimed) */
	char		claim[CLAIM_NONCE_MAX];	/* the nonce of the claim its
					 * scheduler made of the slot for this
					 * run (struct lr_claim), or "" */
	char		take[LR_TAKE_MAX];	/* a triggered run a scheduler
					 * started: the mark its take left on
					 * the trigger (struct lr_take): the
					 * acquire that decides (takes the lock
					 * or skips) deletes the trigger if it
					 * still holds it; or "" */
	char		id[33];		/* 128 random bits, hex: the owner check */
	char		owner[300];	/* "host pid start", stored after id and token */
	long long	token;		/* fencing token, once acquired */
	char		token_s[24];	/* the same, in digits */
	char		value[400];	/* what acquire stored: "id token owner" */
	char		holder[512];	/* the holder's value, when skipped or lost */
	int		renew_eval;	/* the renewal in flight was sent as EVAL */
	long long	wait_replicas;	/* WAIT for them after acquire and renew; 0: no */
	long long	wait_timeout_ms;
	char		unacked[300];	/* "only 0 of 1 replicas acknowledged within
					 * 100ms", for LOCK_/RENEW_UNCONFIRMED */
	/* the renewal in flight, when a WAIT follows it */
	int		renew_skip;	/* replies to drop first: the WAIT behind a
					 * renewal that was sent again as EVAL */
	int		renew_waiting;	/* the renewal's reply is in; WAIT's is next */
	int		renew_rc;	/* rlock_renew_recv()'s answer, held until then */
	enum renew_outcome renew_out;
	struct lr_err	renew_err;
	/* set by a backend that renews for the caller (a scheduler's runs,
	 * sched/lease_client.c): on the monotonic clock, the send of the
	 * request the server confirmed (the batch that carried it; before
	 * the caller asked when the scheduler answers from its lease table);
	 * 0: none named. The caller's lease counts from it when it is the
	 * earlier (core/lease.h, lease_counts_from()) */
	long long	renew_sent_ms;
	/* on the monotonic clock: when the process that asked for this
	 * acquire or renewal stops waiting for its answer, when it is not the
	 * one that sends it (a run forked by a scheduler, which sends its
	 * runs' requests: sched/lease_client.c); 0: the sender waits. The
	 * request's deadline on the server (deadline_ms, renew_deadline_ms)
	 * is no later than this: a request its asker gave up on, however long
	 * it queued before it was sent, changes nothing */
	long long	asker_until_mono;
};

/* Draw the owner id (getrandom(2) without blocking, else /dev/urandom,
 * else the clocks and pid) and describe this process: "host pid start". */
void	lock_init(struct lr_lock *l, const char *host);

/* A slot claim's nonce (struct lr_claim): 64 random bits, as lock_init()
 * draws the owner id, in hex. */
void	lock_nonce(char out[CLAIM_NONCE_MAX]);

/* A backend that holds one place per lock so far (PostgreSQL, MySQL):
 * limit, a task's limit:, above 1 is refused, EX_CONFIG naming the
 * backend by its title. Returns 0, or -1 with e. */
int	lock_one_place(const char *title, int limit, struct lr_err *e);

/* The lock was taken with token: set l's token, token_s and value ("id
 * token owner"), for every backend alike. */
void	lock_took(struct lr_lock *l, long long token);

/* How much earlier than ours the server's clock may read when the
 * acquire runs, before an offset is measured: a request that waited is
 * refused from the command timeout on by our clock, or at most this much
 * later when the server's clock is behind ours; a server clock further
 * behind costs one more round trip, which measures it (LOCK_LATE). */
#define LOCK_EARLY_MS	500

/* Note the send, at our wall clock sent_ms, of a request that must run
 * within timeout_ms by the server's clock, no later than its asker waits
 * (asker_until_mono) and, claiming a slot, no later than the slot's next
 * fire time (slot_until_ms): sets sent_ms, earliest_ms and deadline_ms. */
void	lock_window(struct lr_lock *l, long long sent_ms, long long timeout_ms);

/* The acquire's answer came at our wall clock recv_ms and says the
 * server's clock read server_ms: note the offset (lock_offset_note()),
 * measured against the middle of the round trip, so its error is at most
 * half the round trip. */
void	lock_offset_note(struct lr_lock *l, long long server_ms, long long recv_ms);

/* A renewal is about to be sent: note when (renew_sent_mono) and the
 * server's clock past which it must change nothing, renew_deadline_ms:
 * l->renew_within_ms from now (or asker_until_mono, if sooner), reckoned on the server's clock as last read
 * (sync_*) plus that reading's error and LOCK_RENEW_SLACK_MS; 0 (no
 * window) when the clocks are not compared (no_window) or the server's
 * was never read. */
#define LOCK_RENEW_SLACK_MS	250
void	lock_renew_window(struct lr_lock *l);

/* A renewal's answer said the server's clock read server_ms: read it
 * again (sync_*), against the renewal's round trip. */
void	lock_renew_note(struct lr_lock *l, long long server_ms);

/* The server's clock at our monotonic time mono, as last read (sync_*),
 * erring late by that reading's error; 0 when not known (the server's
 * clock never read, or not compared: no_window). */
long long	lock_server_at(const struct lr_lock *l, long long mono);

/* Is it too late to claim l's slot: the server's clock, as last read
 * (our wall clock now_ms moved by the offset measured, if any), past the
 * slot's next fire time (slot_until_ms)? 0 when l claims no slot. */
int	lock_slot_passed(const struct lr_lock *l, long long now_ms);

/* A pause as `lockrun pause` asks for it (ops.h, pause). It ends by
 * itself for_ms after the server's clock reads when it is written, or at
 * until_ms (Unix ms), or, both 0, not until `lockrun resume`. The value
 * kept is "<since ms> <until ms, 0: none> <host> <user> <reason>", the
 * times by the server's clock; who and reason have no control bytes,
 * host and user no spaces ("-": unknown). */
struct lr_pause {
	long long	 for_ms;
	long long	 until_ms;
	const char	*host;
	const char	*user;
	const char	*reason;	/* "" none */
	long long	 hist_cap;	/* the history's settings, as a run's */
	long long	 hist_ttl_ms;
};

/* A slot that passed its task's starting_deadline with no run started
 * for it by the scheduler that noticed (the keys built with that slot):
 * the slot key's life if claimed now (as a run's would be), and who
 * noticed, with the task's history settings. */
struct lr_missed {
	long long	 slot_ttl_ms;
	const char	*host;
	long long	 pid;
	const char	*at;		/* when it was noticed, ISO 8601 */
	long long	 hist_cap;
	long long	 hist_ttl_ms;
	const char	*take;		/* not a slot: the trigger (k->trigger) this
					 * scheduler took with this mark (struct
					 * lr_take) and could not start by its
					 * starting_deadline, dropped and recorded
					 * "missed" (slot "triggered") if the mark
					 * is still there; NULL: a slot */
};

/* What a scheduler's take (ops.h) marks a trigger with, instead of
 * deleting it: the trigger stays on the server until a run of it has
 * started (its acquire deletes it, lr_lock.take) and is skipped by every
 * look until the mark's lease ends; one whose lease ended is taken again
 * by any scheduler (its taker died before the run started). id is
 * "host/pid/seconds": the taker and when it took it, which the run and
 * the drop (lr_missed.take) are told. */
struct lr_take {
	const char	 *id;
	const long long	 *lease_ms;	/* per key: how long the mark holds */
};

/* A fire time's slot that a scheduler claims for the run it is about to
 * fork (ops.h, claim): the slot key takes "claim 0 host pid at nonce",
 * and the run, told the nonce (lr_lock.claim), takes a slot key holding
 * exactly that as free. */
struct lr_claim {
	/* in */
	const struct lr_keys	*keys;		/* built with the slot */
	long long		 slot_ttl_ms;
	long long		 hist_cap, hist_ttl_ms;
	long long		 deadline_ms;	/* Unix ms: not claimed by the server
						 * past it (its next fire time, and
						 * the command timeout) */
	long long		 clock_tol_ms;	/* 0: no check */
	const char		*host;
	long long		 pid;
	const char		*at;		/* now, ISO 8601 */
	char			 nonce[CLAIM_NONCE_MAX];
	/* out */
	int			 won;		/* 1 claimed here: fork its run;
						 * 2 another's: "skipped-slot"
						 * recorded, fork nothing; 0
						 * undecided (a clock off, a pause,
						 * late): fork it, its acquire
						 * decides as ever */
	char			 holder[256];	/* with 2: the slot key's value */
	int			 late;		/* refused as past the deadline: by
						 * the server's clock, which may differ
						 * from ours (server_ms) */
	long long		 server_ms;	/* the server's clock in the answer,
						 * or 0 */
};

/* A pause's value taken apart: since and until (0: none) in ms, host and
 * user into their buffers, *reason pointing into v ("" none). Returns 0,
 * or -1 when v is not shaped so. */
struct lr_pause_view {
	long long	 since_ms;
	long long	 until_ms;
	char		 host[256];
	char		 user[64];
	const char	*reason;
};
int	lock_pause_parse(const char *v, struct lr_pause_view *p);

/* How a run ended, for the history. */
struct lr_ending {
	long long	keep_ms;	/* the key must live this long yet (--min-hold) */
	long long	keep_until_ms;	/* and no longer than this by the server's
					 * clock (lock_server_at()), so that a
					 * release that arrives late never extends
					 * the hold; 0: not known, keep_ms counts
					 * from when the release runs */
	int		status;		/* lockrun's exit status */
	long long	duration_ms;	/* since the lock was taken */
	const char	*event;		/* "released" or "stopped-timeout"; "withdrawn":
					 * the acquire went unanswered, take back
					 * whatever it took (by the owner id);
					 * "hook": output is a hook's section,
					 * added to the run's story (ops.h) */
	int		attempt;	/* the command's last attempt (retries:),
					 * from 1; 0: the command never started.
					 * The history entry says it, and the
					 * retries counter adds attempt - 1 */
	/* the run's story (issue 45): kept per task, keep_runs successes
	 * and keep_failed failures, each entry the end's fields, the reason
	 * and the output; both 0: no story kept (keep_output: 0) */
	char		reason[200];	/* why lockrun ended the command or could
					 * not start it, in words; "" none */
	const char	*output;	/* its output's end (core/tail.h's form),
					 * or NULL; not carried over a scheduler's
					 * socket (sched/lease_client.c) */
	size_t		output_len;
	long long	keep_runs, keep_failed;
};

/* end takes back an acquire that went unanswered (event "withdrawn"), or
 * adds a hook's section to the run's story (event "hook"): neither is a
 * release. */
static inline int
lock_end_withdrawn(const struct lr_ending *end)
{
	return end->event != NULL && strcmp(end->event, "withdrawn") == 0;
}

static inline int
lock_end_hook(const struct lr_ending *end)
{
	return end->event != NULL && strcmp(end->event, "hook") == 0;
}

#endif

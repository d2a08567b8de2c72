/* SPDX-License-Identifier: BSD-2-Clause */
/* ops.h -- where the lock lives: what a backend implements. The run
 * path, the renewal loop and the verbs talk to a backend through these
 * operations only; Redis (redis/redis.c), PostgreSQL (pg/pg.c) and
 * MySQL/MariaDB (mysql/mysql.c) implement them; backend.c (backend.h)
 * picks one. A backend includes this header, never backend.h.
 *
 * Every backend keeps the same records under the same names (keys.h): the
 * stable key and a slot key hold "<owner id> <token> <host> <pid> <start>",
 * the fence key the last fencing token, the history key a list of entries,
 * the last-run key a set of fields and the counts key the task's counters,
 * each added to by the operation that writes the history entry; the
 * pause, who paused the task and until when (`lockrun pause`), read by the
 * acquire (Redis: a field of the counts hash; SQL: the pause key's row). Redis keeps them as keys, the SQL
 * backends as rows (man lockrun.yaml(5), "Tables"). The lease decides on
 * every backend: a stable key (row) that has not expired holds newcomers
 * off, whatever became of the connection that wrote it. A SQL backend
 * holds the stable key as a session lock of its open connection as well,
 * which keeps it held while that session lives and lets the release free
 * it at once; the holder watches that connection (idle_read) and stops
 * its command before the lease ends when the session does. */
#ifndef LR_OPS_H
#define LR_OPS_H

#include <stddef.h>

#include "core/err.h"
#include "core/keys.h"
#include "core/task.h"
#include "backend/lock.h"
#include "backend/record.h"

struct lr_backend;

/* How a backend is set up: the URL and the settings every backend has.
 * Strings are borrowed and must outlive the backend. */
struct lr_backend_cfg {
	const char	*url;		/* as given: redis://, mysql://, postgres:// ... */
	const char	*password;	/* from a file or the environment; "": the URL's */
	long long	 connect_timeout_ms;
	long long	 command_timeout_ms;
	const struct lr_settings *own;	/* the settings this backend alone reads
					 * (Redis: tls, sentinel_password_file,
					 * wait_replicas), as text: it parses them */
};

struct lr_backend_ops {
	const char	*name;		/* "redis", "postgres", "mysql": in messages */
	const char	*title;		/* "Redis", "PostgreSQL", "MySQL": in sentences */
	int		 session;	/* the stable key is a session lock too: a
					 * broken connection means this holder lost
					 * it (its lease still holds newcomers off) */
	int		 shares;	/* one session may hold the locks of many
					 * runs: a scheduler's (sched/leases.c) */

	/* Connect, within the connect timeout (and, for a SQL backend,
	 * create the tables if they are missing -- or create them on first
	 * use, after a statement finds one missing). Returns 0, or -1 with
	 * e = EX_UNAVAILABLE, lr_err_broke(e) when the server could not be
	 * reached, clear when it refused (a bad password); EX_CONFIG for a
	 * database that does not exist. */
	int	(*open)(struct lr_backend *b, struct lr_err *e);

	/* One round trip that proves the server answers (`lockrun check`).
	 * Returns 0, or -1 with e. */
	int	(*ping)(struct lr_backend *b, struct lr_err *e);

	/* The whole run decision in one round trip (redis/rlock.h, rlock_acquire():
	 * the stable key if l->ttl_ms, the slot key if l->slot_ttl_ms, a
	 * fencing token, a history entry "ran", "skipped-held" (unless
	 * l->quiet_held) or "skipped-slot", the last-run record). Fills
	 * l->token/token_s/value when acquired, l->holder when not.
	 * Returns 0 with *out, or -1 with e = EX_UNAVAILABLE. */
	int	(*acquire)(struct lr_backend *b, struct lr_lock *l,
		    enum lock_outcome *out, struct lr_err *e);

	/* Keep-alive of the stable key, without blocking: send, then
	 * recv when fd() is readable (redis/rlock.h, rlock_renew_send/_recv). A
	 * closed connection is opened again first if the backend can keep
	 * its lock across one (Redis), within cap_ms; a session backend
	 * fails instead (lr_err_broke(e)): its lock went with the session.
	 * The caller waits wait_ms for the answer; a backend that may have
	 * to follow a redirect meanwhile (Redis Cluster) does so within it. */
	int	(*renew_send)(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
		    long long wait_ms, struct lr_err *e);
	int	(*renew_recv)(struct lr_backend *b, struct lr_lock *l,
		    enum renew_outcome *out, struct lr_err *e);

	/* The renewal of n leases in one round trip over this connection,
	 * for a scheduler that holds its runs' leases (sched/leases.c), each
	 * answered as renew_recv() answers (rc[i]: 1 with out[i], or -1 with
	 * err[i]). The answer is waited for up to wait_ms (no less than the
	 * command timeout), however many leases. Returns 0; 1 when these
	 * cannot go as one batch (Redis: on a Cluster, or with
	 * wait_replicas); -1 with e when the batch failed as a whole
	 * (lr_err_broke(e): close the connection). NULL: no
	 * batch form. Callers use backend_renew_many() (batch.h), which
	 * renews each in turn over the same connection when there is none. */
	int	(*renew_many)(struct lr_backend *b, struct lr_lock *const *l, size_t n,
		    long long cap_ms, long long wait_ms, enum renew_outcome *out,
		    int *rc, struct lr_err *err, struct lr_err *e);

	/* The batch forms of acquire and release, as renew_many: n requests
	 * in one exchange over this connection, each answered as its single
	 * form answers (rc[i], out[i], l[i] as acquire() leaves it; rc[i] -1
	 * with err[i]). Returns 0; 1 when these cannot go as one exchange
	 * (Redis: on a Cluster; an acquire with wait_replicas); -1 with e
	 * when nothing was decided (acquire_many opens the connection, as
	 * acquire does). NULL: no batch form; callers use
	 * backend_acquire_many() and backend_release_many() (batch.h). */
	int	(*acquire_many)(struct lr_backend *b, struct lr_lock *const *l, size_t n,
		    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e);
	int	(*release_many)(struct lr_backend *b, const struct lr_lock *const *l,
		    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err,
		    struct lr_err *e);

	/* Record how the run ended and free the stable key if it is still
	 * ours (redis/rlock.h, rlock_release()), or our tombstone (unlock).
	 * A session backend takes end->event NULL: free only, record nothing
	 * (after a lost lock, whose loss the keep-alive recorded). Returns 1,
	 * 0 or -1 as rlock_release(). end->event "hook", after the release:
	 * add end->output, a hook's section (core/tail.h), to the end of the
	 * run's story if it is still kept, and nothing else; 1 added, 0 not,
	 * or -1 with e. */
	int	(*release)(struct lr_backend *b, const struct lr_lock *l,
		    const struct lr_ending *end, struct lr_err *e);

	/* `lockrun unlock` (rlock_unlock() on Redis): free key if it still holds
	 * expect. A stable key whose holder may be running (a lockrun value
	 * with a lease, not already a tombstone) is not freed: its value V
	 * becomes the tombstone "unlocked:" V for the rest of the lease, so
	 * newcomers are skipped while the holder, told so at its next
	 * renewal (RENEW_LOST_LATER), stops its tree and then deletes it at
	 * its release. A tombstone, a --min-hold leftover (no holder runs:
	 * Redis keeps it as "released:" V, a database marks its row), a slot
	 * key or a value with no lease are freed at once. Either way the
	 * fencing counter moves past the holder's token and the history
	 * records "unlocked". Returns 1 freed now, 3 tombstoned (its holder
	 * told to stop), 2 not freed as it changed hands (each with the key's
	 * value in holder[n]), 0 the key was free, -1 with e.
	 * peek: the look before it: key's value into buf[n] and its lease in
	 * *ttl_ms (-1: none). Returns 1 held, 0 free, -1 with e. */
	int	(*unlock)(struct lr_backend *b, const struct lr_keys *k, const char *key,
		    const char *expect, const char *who, long long hist_cap,
		    long long hist_ttl_ms, char *holder, size_t n, struct lr_err *e);
	int	(*peek)(struct lr_backend *b, const char *key, char *buf, size_t n,
		    long long *ttl_ms, struct lr_err *e);

	/* `lockrun pause` and, with resume, `lockrun resume`: write the
	 * task's pause (lock.h, struct lr_pause; Redis: the field "paused"
	 * of k->counts, PostgreSQL: the row k->pause), or delete it,
	 * recording "paused" or "resumed" in the history, by p's host and
	 * user, with p's history settings. The acquire reads
	 * the key in its own round trip and skips the run (LOCK_PAUSED);
	 * a pause with an end expires by the server's clock. The value
	 * written, or the one deleted, into buf[n]. Returns 1 done, 0
	 * nothing to resume (or, for a pause, its end is already past by
	 * the server's clock), -1 with e. NULL: this backend has no pauses. */
	int	(*pause)(struct lr_backend *b, const struct lr_keys *k,
		    const struct lr_pause *p, int resume, char *buf, size_t n,
		    struct lr_err *e);

	/* `lockrun trigger`: write the trigger key k->trigger with value
	 * ("<ms> <host> <user>"), to lapse after ttl_ms unless taken.
	 * Returns 0, or -1 with e. take: a scheduler takes the triggers of
	 * its n tasks (k[i]) in one round trip: each key there that no
	 * other take's mark holds (its lease not ended) is marked with
	 * tk->id until tk->lease_ms[i] from now by the server's clock
	 * (struct lr_take), and taken[i] set to 1, so that one scheduler at
	 * a time takes each; the trigger stays until the acquire of the run
	 * it starts deletes it (lr_lock.take), or its taker drops it
	 * (missed, lr_missed.take). taken[i] is 3 for a trigger another
	 * take's mark still holds (Redis: its name stays listed).
	 * The take carries a window as the acquire does (lock_window(), with
	 * w's offset_used_ms and the command timeout): the server deletes
	 * nothing when its clock reads outside [w->earliest_ms,
	 * w->deadline_ms], and taken[i] is 2 then, so a take its scheduler
	 * gave up on (a stalled connection that delivers it later) takes
	 * nothing; its answer's clock goes to lock_offset_note(w), for the
	 * next take. Returns 0, or -1 with e, taken[i] still 1 for each
	 * taken before the failure (one round trip each on a Redis Cluster).
	 * NULL: this backend has no triggers. */
	int	(*trigger)(struct lr_backend *b, const struct lr_keys *k,
		    const char *value, long long ttl_ms, struct lr_err *e);
	int	(*take)(struct lr_backend *b, const struct lr_keys *k, size_t n,
		    const struct lr_take *tk, struct lr_lock *w, unsigned char *taken,
		    struct lr_err *e);

	/* The scheduler's look: the names of the tasks under prefix that may
	 * have a trigger waiting, each given to cb, in one command however
	 * many tasks there are. A hint: a name may have none left, but one
	 * waiting is always named, so a take of the named alone takes every
	 * trigger there is. Returns 0, or -1 with e. NULL: this backend
	 * keeps no such list, and a look takes every task's trigger. */
	int	(*asked)(struct lr_backend *b, const char *prefix,
		    void (*cb)(void *arg, const char *name), void *arg,
		    struct lr_err *e);

	/* The scheduler: slot m[i] of each of n tasks (k[i], built with
	 * that slot) passed its starting_deadline and no run started for it
	 * there: claim the slot key for it (value "missed 0 host pid at",
	 * which a late run skips as taken), unless a run or another
	 * scheduler has it, or the task's last run claimed no earlier slot
	 * (it did not run before: a new task, a new install; or a later
	 * slot ran since); a claim records "missed" in the history, adds one to
	 * the task's missed count and sets its last missed slot, in one
	 * round trip per task. won[i] is 1 for each slot claimed here
	 * (exactly one scheduler of the fleet claims it), 2 when another
	 * scheduler recorded it, else 0. With m->take, not a slot but a
	 * trigger this scheduler took and gave up on (lr_missed.take): won[i]
	 * is 1 when it still held that mark, and the trigger was deleted and
	 * "missed" recorded with slot "triggered", once; else 0 (started, or
	 * taken again by another after the mark's lease). Returns 0, or -1
	 * with e. NULL: this backend keeps no missed slots. */
	int	(*missed)(struct lr_backend *b, const struct lr_keys *k, size_t n,
		    const struct lr_missed *m, unsigned char *won, struct lr_err *e);

	/* The scheduler, before it forks the runs of a fire time: claim
	 * the slot of each of the n one-server runs c[i] in one round trip
	 * (lock.h, struct lr_claim: won and holder set each). Returns 0; 1
	 * when these cannot go as one batch (Redis Cluster: the caller forks
	 * each run, whose acquire decides); -1 with e when the batch failed
	 * as a whole (lr_err_broke(e): close the connection). NULL: no
	 * claims before the fork. */
	int	(*claim)(struct lr_backend *b, struct lr_claim *c, size_t n,
		    struct lr_err *e);

	/* The scheduler, at a fire time: note itself (me, "host pid") among
	 * the fleet's schedulers under prefix, forget those not noted for
	 * window_ms, and hand each one left (itself too) to cb, in one round
	 * trip, answered within cap_ms at most (the scheduler's loop waits
	 * for it; a connection is opened as for any request). Returns 0, or -1 with e. NULL:
	 * none kept (claims are not spread; sched/claim.h). */
	int	(*schedulers)(struct lr_backend *b, const char *prefix, const char *me,
		    long long window_ms, long long cap_ms,
		    void (*cb)(void *arg, const char *name), void *arg, struct lr_err *e);

	/* The scheduler's watch on the fleet's slot claims (lockrun(7), "A
	 * race sat out"), over a connection of its own (b serves nothing
	 * else): watch connects and asks the server to push every slot claim
	 * made under prefix from then on, as the acquire that makes it makes
	 * it (Redis: SUBSCRIBE to prefix "claims", which acquire.lua
	 * PUBLISHes each claim on). Returns 0, or -1 with e. claims: when
	 * fd() is readable, hand each claim that came, its slot key and the
	 * key's value, to cb, without blocking. Returns 0, or -1 with e when
	 * the connection is over (closed; watch opens it again). A claim may
	 * come late or not at all: it is a hint, never the lock. NULL: this
	 * backend pushes no claims. */
	int	(*watch)(struct lr_backend *b, const char *prefix, struct lr_err *e);
	int	(*claims)(struct lr_backend *b, void (*cb)(void *arg, const char *key,
		    const char *value), void *arg, struct lr_err *e);

	/* `lockrun status`: the state of n tasks (keys k[i]) in one round
	 * trip, with each task's counters (record.h) when counts is set, and
	 * the server's clock in *now_ms. Returns 0, or -1 with e. */
	int	(*states)(struct lr_backend *b, const struct lr_keys *k, size_t n,
		    int counts, struct lr_state *out, long long *now_ms, struct lr_err *e);

	/* Every record's key under prefix (stable, slot, fence, history,
	 * last-run keys alike; status.c derives the task names), into *keys:
	 * a malloc'd array of malloc'd strings, in any order. Returns 0, or
	 * -1 with e (EX_USAGE when the backend cannot list them, as a Redis
	 * cluster). */
	int	(*keys)(struct lr_backend *b, const char *prefix, char ***keys,
		    size_t *n, struct lr_err *e);

	/* `lockrun logs`: n fields of the task's runs' stories (Redis: the
	 * hash k->runs, release.lua's keep_story(); PostgreSQL and MySQL:
	 * the rows of lockrun_runs keyed k->runs, read as those fields): "ok" and "failed", the
	 * ids kept of each, oldest first; "h:ID" a run's header ("name
	 * value" lines), "o:ID" its output's end. Each value malloc'd into
	 * values[i] with its length in lens[i] (NULL, 0: none), in one round
	 * trip. Returns 0, or -1 with e. NULL: this backend keeps no stories
	 * yet. */
	int	(*stories)(struct lr_backend *b, const struct lr_keys *k,
		    const char *const *fields, size_t n, char **values, size_t *lens,
		    struct lr_err *e);

	/* `lockrun history`: the newest count entries. Returns 0, or -1. */
	int	(*history)(struct lr_backend *b, const struct lr_keys *k, long long count,
		    struct lr_hist *h, struct lr_err *e);

	/* `lockrun check`: can a run use k's records (and take writes)?
	 * Problems into buf[n], one per line. Returns their number, or -1. */
	int	(*probe)(struct lr_backend *b, const struct lr_keys *k, int one_server,
		    char *buf, size_t n, struct lr_err *e);

	/* The connection's socket, for poll(2) and for the command's child to
	 * close; -1 when closed. */
	int	(*fd)(const struct lr_backend *b);
	/* fd() became readable while no request is in flight: read what came,
	 * without blocking. Returns 0 when the session goes on (a notice),
	 * or -1 with e (lr_err_broke(e), the connection closed) when it is
	 * over: the server ended the session (pg_terminate_backend(), KILL)
	 * or the connection was closed or reset (a proxy, a firewall). NULL:
	 * the connection is not watched between requests (Redis: a broken
	 * connection is found, and opened again, at the next renewal). */
	int	(*idle_read)(struct lr_backend *b, struct lr_err *e);
	/* Close the connection, and open it again within cap_ms (or the
	 * connect timeout, whichever is sooner). */
	void	(*close)(struct lr_backend *b);
	int	(*reopen)(struct lr_backend *b, long long cap_ms, struct lr_err *e);
	/* What the backend's own settings ask of the run's (NULL: nothing),
	 * checked before anything is taken. Returns 0, or -1 with e. */
	int	(*check_task)(const struct lr_backend *b, const struct lr_task *t,
		    struct lr_err *e);
	/* Free everything; the backend may not be used after. */
	void	(*free)(struct lr_backend *b);
};

struct lr_backend {
	const struct lr_backend_ops	*ops;
	struct lr_backend_cfg		 cfg;
	char				 where[300];	/* "db.example:5432", for messages */
	void				*impl;		/* the backend's own state */
};

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* cluster_nodes.h -- what the cluster suites share: their six-node Redis
 * Cluster, commands to one node, who is master, watching a node, and the
 * starters, runs of a task one after another while a job runs. */
#ifndef LR_CLUSTER_NODES_H
#define LR_CLUSTER_NODES_H

#include <stddef.h>
#include <sys/types.h>

#include <hiredis/hiredis.h>

#include "harness.h"

extern struct cluster_fixture cl;

/* Start the cluster in the test, not in .init (.fini runs only after an
 * .init that passed); the harness's scratch files go to node 0's dir.
 * cluster_down() is each test's .fini. */
void	cluster_up(void);
void	cluster_down(void);

/* One command on node i's unix socket; the caller frees the reply. */
redisReply *on(int i, const char *fmt, ...);
/* An integer reply of node i, or -1000 for anything else. */
long long on_int(int i, const char *fmt, const char *arg);
/* A status or string reply of node i is want. */
void	on_ok(int i, const char *want, const char *fmt, ...);

/* Node i's port as a string (one of four static buffers); a cluster URL
 * with node i as the only seed (a static buffer). */
const char *port_of(int i);
const char *seed_url(int i);
/* Node i's cluster id. */
void	node_id(int i, char *buf, size_t n);

/* The node that replicates master m now, or -1; is node i a master; a
 * master other than node a (the test fails if there is none). */
int	replica_of(int m);
int	is_master(int i);
int	other_master(int a);
/* Does master m count node i among its replicas (CLUSTER REPLICAS)? It
 * takes a manual failover from i only then. */
int	knows_replica(int m, int i);

/* Watch node i's commands (MONITOR), with a 30 s guard on each read. */
redisContext *watch(int i);
/* Read the watch until n lines from TCP clients (lockrun; not the test's
 * unix socket, not scripts) contain every one of the strings given
 * (NULL-terminated). Returns how many did: n, or fewer on the guard. */
int	watch_until(redisContext *mon, int n, ...);

/* Let the job's command end (it waits at the gate g); the test fails if
 * the job was stopped before. */
void	finish(pid_t job, const struct gate *g);

/* Starters: runs of task key, one after another, from a shell loop until
 * starters_stop(), each through url with -E 75 and extra options; each
 * command takes flock -n on excl and notes "overlap" in marks when it
 * cannot (and "ran" when it runs). Each run's exit status and stderr go,
 * as one line, to statuses. starters_start() returns the loop's pid. */
pid_t	starters_start(const char *url, const char *key, const char *extra);
/* Wait until n more starters than now have ended. */
void	starters_wait(int n);
/* Note in statuses that what follows came after word. */
void	starters_mark(const char *word);
/* Stop the loop; every starter ended with one of the statuses allowed
 * (a string of them: "75", "75 0"), and no two commands overlapped.
 * Before a starters_mark() line, a run whose connection broke under its
 * acquire (its master killed) may also have ended 69 when broken_ok: what
 * the script did is not known then. Returns how many starters ran. */
int	starters_stop(pid_t loop, const char *allowed, int broken_ok, pid_t job);

#endif

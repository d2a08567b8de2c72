/* SPDX-License-Identifier: BSD-2-Clause */
/* redis_fixture.h -- throwaway redis-servers for tests, demo and bench: one
 * server (plain, TLS, a replica), a test PKI, three sentinels, a cluster. */
#ifndef LR_REDIS_FIXTURE_H
#define LR_REDIS_FIXTURE_H

#include <sys/types.h>

#include <hiredis/hiredis.h>

#include "proc.h"

struct redis_fixture {
	pid_t	pid;
	int	port;
	char	dir[64];	/* mkdtemp: socket, log, and the tests' scratch files */
	char	sock[128];
	char	url[160];	/* redis://127.0.0.1:PORT (rediss:// with TLS) */
};

#define SENTINELS	3

/* Three sentinels watching one master: node[i].port is a sentinel's port
 * (plain TCP on 127.0.0.1; no unix socket), node[i].dir holds its
 * sentinel.conf and sentinel.log. */
struct sentinel_group {
	struct redis_fixture node[SENTINELS];
};

#define CLUSTER_NODES	6

/* A Redis Cluster of three masters with a replica each; which node is
 * which is up to redis-cli (and to failovers): ask INFO replication. */
struct cluster_fixture {
	struct redis_fixture node[CLUSTER_NODES];
};

/* Start redis-server on a free loopback port (and a unix socket) in a new
 * temp dir, without persistence; extra is NULL or "--requirepass x" style
 * words, NULL-terminated. Waits, at most 10 s, for PING on the socket
 * (which listens only once the port does). Returns 0 or -1 (and prints
 * why). */
int	redis_start(struct redis_fixture *f, const char *const extra[]);

/* redis_start(), but the TCP port f->port speaks only TLS, with the
 * server certificate of tls_make_certs(certdir) and its CA; clients must
 * show a certificate of that CA when require_client_cert. The unix socket
 * (redis_client()) stays plain. f->url is rediss://127.0.0.1:PORT. */
int	redis_start_tls(struct redis_fixture *f, const char *certdir,
	    int require_client_cert, const char *const extra[]);

/* redis_start() a replica of master (a plain server, no password unless
 * extra gives --masterauth) and wait, at most 10 s, until the replica's
 * INFO says master_link_status:up. Returns 0, or -1 (prints why; the
 * replica is halted, its dir stays for its log). */
int	redis_start_replica(struct redis_fixture *r, const struct redis_fixture *master,
	    const char *const extra[]);

/* SIGTERM the server by PID and reap it (SIGKILL if it is still there
 * after 5 s); the temp dir stays. */
void	redis_halt(struct redis_fixture *f);

/* redis_halt(), then remove the temp dir and all in it. */
void	redis_stop(struct redis_fixture *f);

/* A client on the unix socket (exits the process on failure). */
redisContext *redis_client(const struct redis_fixture *f);

/* A path inside f->dir. */
const char *redis_path(const struct redis_fixture *f, const char *name, char *buf,
	    size_t n);

/* Copy the value of INFO section's "key:value" line to buf, asked on f's
 * unix socket (a sentinel's TCP port), without AUTH. Returns 0, or -1
 * when f does not answer or has no such key. */
int	redis_info_field(const struct redis_fixture *f, const char *section,
	    const char *key, char *buf, size_t n);

/* Make a test PKI in dir (which exists) with the openssl command: EC P-256
 * keys, valid for a day.
 *   ca.crt, ca.key			the test CA
 *   server.crt, server.key		signed by it, for DNS:localhost and
 *					IP:127.0.0.1
 *   client.crt, client.key		signed by it, for client auth
 *   wrong-host.crt, wrong-host.key	signed by it, for DNS:elsewhere.invalid
 *					only
 *   other-ca.crt, other-ca.key		an unrelated CA, which verifies none
 *					of them
 * Returns 0 or -1 (and prints why). */
int	tls_make_certs(const char *dir);

/* Start three sentinels (redis-server sentinel.conf --sentinel) on free
 * ports, each in a temp dir, monitoring master (plain, no password) as
 * master_name with quorum; down-after-milliseconds 1000,
 * failover-timeout 5000, parallel-syncs 1. Start master's replicas
 * first: this waits, at most 20 s, until every sentinel gives master's
 * port for master_name, sees each of its connected replicas and the two
 * other sentinels (SENTINEL REPLICAS, SENTINEL SENTINELS). Returns 0, or
 * -1 (prints why; the sentinels are halted, their dirs stay). */
int	sentinel_start(struct sentinel_group *g, const char *master_name,
	    const struct redis_fixture *master, int quorum);

/* Halt the sentinels still running, remove their dirs. */
void	sentinel_stop(struct sentinel_group *g);

/* redis+sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/NAME in buf. */
const char *sentinel_url(const struct sentinel_group *g, const char *name, char *buf,
	    size_t n);

/* The master's port as the first running sentinel that answers gives it
 * (SENTINEL get-master-addr-by-name), or -1. */
int	sentinel_master_port(const struct sentinel_group *g, const char *name);

/* Wait, at most timeout_ms, until every running sentinel gives port for
 * name (after a failover). Returns 0, or -1 on timeout. */
int	sentinel_wait_master(struct sentinel_group *g, const char *name, int port,
	    long timeout_ms);

/* Start six cluster-enabled servers (as redis_start(), each in its own
 * dir, cluster-node-timeout 2000, the bus on a free port of its own),
 * join them with redis-cli --cluster create --cluster-replicas 1, and
 * wait, at most 20 s, until every node says cluster_state:ok and knows
 * the six, and every replica's master link is up. Returns 0, or -1
 * (prints why; the nodes are halted, their dirs stay). */
int	cluster_start(struct cluster_fixture *c);

/* Halt the nodes still running, remove their dirs. */
void	cluster_stop(struct cluster_fixture *c);

/* redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3 (nodes 0-2) in buf. */
const char *cluster_url(const struct cluster_fixture *c, char *buf, size_t n);

/* The index in c->node of the master serving key's slot now, as the first
 * running node that answers sees it (CLUSTER KEYSLOT, CLUSTER SLOTS), or
 * -1. */
int	cluster_node_for_key(const struct cluster_fixture *c, const char *key);

/* A port the kernel just handed out on 127.0.0.1, free again once this
 * returns (so another process may take it first), or -1. */
int	fixture_free_port(void);

/* A new temp dir, /tmp/lockrun-test.XXXXXX, in buf (n >= 64). Returns 0
 * or -1 (and prints why). */
int	fixture_tempdir(char *buf, size_t n);

/* rm -rf dir, if it is a fixture_tempdir() (as every fixture's dir is). */
void	fixture_rmdir(const char *dir);

/* May this run start what needs more than redis-server: a SQL server,
 * sentinels, a cluster, the test PKI (the openssl command), a browser?
 * Not under `make check` (LR_TEST_TIER=check), whose tier is the tests
 * that need only redis-server and libfaketime: a test there that starts
 * one fails, with what to do, on every machine, rather than only where
 * the package is missing. what names it. Returns 0, or -1 (and prints
 * why). */
int	fixture_tier(const char *what);

/* Run argv (NULL-terminated; argv[0] searched in PATH) with stdin from
 * /dev/null, its stdout and stderr together into out (n bytes, always
 * NUL-terminated; the rest is dropped). Returns its exit status (128+N if
 * killed by signal N), or -1 when it could not run or ran for 30 s (then
 * it is killed). */
int	fixture_run(const char *const argv[], char *out, size_t n);

#endif

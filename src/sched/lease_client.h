/* SPDX-License-Identifier: BSD-2-Clause */
/* lease_client.h -- a run forked by a scheduler takes, renews and releases
 * its lock over the scheduler's connection (leases.h) instead of one of
 * its own: a backend (ops.h) whose requests are messages to the
 * scheduler over their socket pair (lease_wire.h). Everything above the
 * backend -- run.c's decisions, the renewal loop, the guard -- is the
 * run's as it was. Over the same socket, the run tells the scheduler how
 * it goes (lease_client_tell()) and what its log says (lease_client_log()). */
#ifndef LR_LEASE_CLIENT_H
#define LR_LEASE_CLIENT_H

#include "backend/ops.h"

/* In the forked run, before it starts: its end of the socket pair, and
 * the URL the scheduler's connection goes to (borrowed), or NULL: the
 * scheduler has none, and the socket carries the run's outcome only. */
void	lease_client_set(int fd, const char *url);

/* Tell the scheduler how the run goes (outcome.h): a message of kind
 * with value (OUTCOME_RAN's token, OUTCOME_EXITED's status; else unused)
 * and why (NULL: none), over the socket pair, whether the run's lock
 * requests go over it or not. Nothing when this run was given none (not
 * forked by a scheduler), or the message cannot go at once. */
void	lease_client_tell(int kind, long long value, const char *why);

/* Send the scheduler one record of the run's log (out/log.h's
 * log_report() calls it): it passes it on where its JSON lines go. It
 * waits while the socket is full, as a write to a pipe would; nothing
 * when this run was given no socket, or the scheduler is gone. */
void	lease_client_log(const char *record, size_t len);

/* When this run was given the scheduler's socket, b (set up, not
 * connected) goes to the scheduler's server, and its backend keeps no
 * session lock (Redis): make b go through the scheduler. Its own
 * connection is then opened only to record the run's end should the
 * scheduler be gone by then (the lease itself is never renewed over it:
 * a run whose scheduler is gone stops its command before the lease
 * ends, as when the server stops answering). Returns 1 when b was
 * wrapped, 0 when it is left as it was, -1 with e (out of memory). */
int	lease_client_wrap(struct lr_backend *b, struct lr_err *e);

#endif

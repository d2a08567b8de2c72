/* SPDX-License-Identifier: BSD-2-Clause */
/* notify.h -- systemd's readiness protocol, without libsystemd. */
#ifndef LR_NOTIFY_H
#define LR_NOTIFY_H

/* Send state ("READY=1", "STOPPING=1") as one datagram to the unix socket
 * $NOTIFY_SOCKET names (a path, or "@name" in the abstract namespace);
 * nothing when it is unset. Failure is ignored: readiness is advice. */
void	notify_send(const char *state);

#endif
